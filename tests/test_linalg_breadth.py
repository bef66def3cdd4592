"""The LU family, the Cholesky helpers and triangular_solve against PyTorch 2.13: values
(LAPACK's own pivots), shapes, strides, dtypes, return types, grad_fn names and gradients,
out=, the operators a TorchDispatchMode sees, PyTorch's errors (type and text) and its
deprecation warnings."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from linalg_breadth_support import _compare, _error, _grads, _same_ops, _spd_values, _t, _values

# -- the LU family ---------------------------------------------------------------------------

LU_SHAPES = [(3, 3), (3, 5), (5, 3), (2, 4, 4), (2, 1, 3, 4), (0, 3, 3), (3, 0), (0, 0), (1, 1)]


@pytest.mark.parametrize("shape", LU_SHAPES)
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_lu_factor_values_pivots_strides(shape, dtype):
    values = _values(shape, dtype)
    _compare(lambda lib: lib.linalg.lu_factor(_t(lib, values, dtype)), rtol=1e-5)
    _compare(lambda lib: lib.linalg.lu_factor_ex(_t(lib, values, dtype)), rtol=1e-5)
    _compare(lambda lib: lib.linalg.lu(_t(lib, values, dtype)), rtol=1e-5)
    _compare(lambda lib: lib.lu_unpack(*lib.linalg.lu_factor(_t(lib, values, dtype))), rtol=1e-5)
    _compare(lambda lib: lib.lu(_t(lib, values, dtype), get_infos=True), rtol=1e-5)
    _compare(lambda lib: lib.lu(_t(lib, values, dtype)), rtol=1e-5)
    _compare(lambda lib: _t(lib, values, dtype).lu(), rtol=1e-5)
    _compare(lambda lib: _t(lib, values, dtype).lu(get_infos=True), rtol=1e-5)


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 5), st.integers(1, 5), st.integers(0, 2), st.integers(0, 1000), st.booleans())
def test_lu_pivots_are_lapacks(m, n, batch, seed, singular):
    """Ties and zero columns included: the pivots are getrf's, element for element."""
    values = np.round(_values((batch, m, n) if batch else (m, n), seed=seed))
    if singular:
        values[..., 0] = 0
    e, t = _compare(lambda lib: lib.linalg.lu_factor_ex(_t(lib, values)))
    assert e.pivots.tolist() == t.pivots.tolist()
    assert e.info.tolist() == t.info.tolist()


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize(("a_shape", "b_shape"), [((3, 3), (3, 2)), ((2, 3, 3), (4, 2, 3, 3))])
def test_lu_solve(left, adjoint, dtype, a_shape, b_shape):
    a = _values(a_shape, dtype, shift=3.0)
    b = _values(b_shape if left else b_shape[:-2] + b_shape[-2:][::-1], dtype, seed=1)

    def fn(lib):
        LU, pivots = lib.linalg.lu_factor(_t(lib, a, dtype))  # noqa: N806
        return lib.linalg.lu_solve(LU, pivots, _t(lib, b, dtype), left=left, adjoint=adjoint)

    _compare(fn)


def test_lu_solve_deprecated_spelling_and_out():
    a, b = _values((3, 3), shift=3.0), _values((3, 2), seed=1)

    def fn(lib):
        LU, pivots = lib.linalg.lu_factor(_t(lib, a))  # noqa: N806
        out = lib.empty(0, dtype=lib.float64)
        result = lib.lu_solve(_t(lib, b), LU, pivots, out=out)
        return result, out, lib.lu_solve(_t(lib, b), LU, pivots)

    _compare(fn)


def test_lu_out_variants():
    a = _values((2, 3, 4))

    def fn(lib):
        outs = (lib.empty(0, dtype=lib.float64), lib.empty(0, dtype=lib.int32))
        LU, pivots = lib.linalg.lu_factor(_t(lib, a), out=outs)  # noqa: N806
        info = lib.empty(0, dtype=lib.int32)
        ex = lib.linalg.lu_factor_ex(
            _t(lib, a),
            out=(lib.empty(0, dtype=lib.float64),) + (lib.empty(0, dtype=lib.int32), info),
        )
        plu = [lib.empty(0, dtype=lib.float64) for _ in range(3)]
        lib.linalg.lu(_t(lib, a), out=plu)
        unpacked = [lib.empty(0, dtype=lib.float64) for _ in range(3)]
        lib.lu_unpack(LU, pivots, out=unpacked)
        legacy = (lib.empty(0, dtype=lib.float64), lib.empty(0, dtype=lib.int32))
        returned = lib.lu(_t(lib, a), out=legacy)
        legacy3 = [lib.empty(0, dtype=lib.float64)] + [lib.empty(0, dtype=lib.int32)] * 2
        lib.lu(_t(lib, a), get_infos=True, out=legacy3)
        return outs, ex, plu, unpacked, legacy, returned, legacy3

    _compare(fn)


def test_lu_unpack_flags_and_integer_data():
    a = _values((4, 3))
    _compare(lambda lib: lib.lu_unpack(*lib.linalg.lu_factor(_t(lib, a)), unpack_data=False))
    _compare(lambda lib: lib.lu_unpack(*lib.linalg.lu_factor(_t(lib, a)), unpack_pivots=False))
    _compare(
        lambda lib: lib.lu_unpack(
            lib.arange(12).reshape(4, 3), lib.tensor([3, 3, 3], dtype=lib.int32)
        )
    )


LU_ERRORS = [
    lambda lib: lib.linalg.lu_factor(lib.zeros(3, 3)),
    lambda lib: lib.linalg.lu_factor(lib.zeros(2, 3, 3)),
    lambda lib: lib.linalg.lu_factor(lib.zeros(3, 3), pivot=False),
    lambda lib: lib.linalg.lu_factor(lib.zeros(3)),
    lambda lib: lib.linalg.lu_factor(lib.zeros(3, 3, dtype=lib.int64)),
    lambda lib: lib.linalg.lu_factor(lib.zeros(3, 3, dtype=lib.float16)),
    lambda lib: lib.linalg.lu_factor_ex(lib.zeros(2, 3, 3), check_errors=True),
    lambda lib: lib.linalg.lu(lib.zeros(3, 3, dtype=lib.int64)),
    lambda lib: lib.linalg.lu(lib.zeros(3)),
    lambda lib: lib.linalg.lu(lib.zeros(3, 3), pivot=False),
    lambda lib: lib.lu(lib.zeros(3, 3), pivot=False),
    lambda lib: lib.lu(lib.eye(3), out=(lib.empty(0),)),
    lambda lib: lib.lu_unpack(lib.zeros(3, 3), lib.zeros(3)),
    lambda lib: lib.lu_unpack(lib.zeros(3), lib.zeros(3, dtype=lib.int32)),
    lambda lib: lib.lu_unpack(lib.zeros(3, 3), lib.ones(3, dtype=lib.int32) * 7),
    lambda lib: lib.lu_unpack(lib.zeros(5, 3), lib.tensor([0, 5, 5], dtype=lib.int32)),
    lambda lib: lib.linalg.lu_solve(
        lib.eye(3), lib.ones(3, dtype=lib.int32), lib.ones(3, 2, dtype=lib.float64)
    ),
    lambda lib: lib.linalg.lu_solve(lib.eye(3), lib.ones(3, dtype=lib.int64), lib.ones(3, 2)),
    lambda lib: lib.linalg.lu_solve(lib.eye(3), lib.ones(2, dtype=lib.int32), lib.ones(3, 2)),
    lambda lib: lib.linalg.lu_solve(lib.eye(3), lib.ones(2, 3, dtype=lib.int32), lib.ones(3, 2)),
    lambda lib: lib.linalg.lu_solve(lib.eye(3), lib.ones(3, dtype=lib.int32), lib.ones(2, 2)),
    lambda lib: lib.linalg.lu_solve(lib.eye(3), lib.ones(3, dtype=lib.int32), lib.ones(2)),
    lambda lib: lib.linalg.lu_solve(lib.ones(3, 2), lib.ones(3, dtype=lib.int32), lib.ones(3, 2)),
    lambda lib: lib.linalg.lu_solve(
        lib.eye(3, dtype=lib.int64), lib.ones(3, dtype=lib.int32), lib.ones(3, 2, dtype=lib.int64)
    ),
    lambda lib: lib.linalg.lu_solve(
        lib.eye(3).expand(2, 3, 3), lib.ones(2, 3, dtype=lib.int32), lib.ones(4, 3, 2)
    ),
    lambda lib: lib.linalg.lu_solve(lib.eye(3), lib.ones(3, dtype=lib.int32) * 9, lib.ones(3, 2)),
    lambda lib: lib.linalg.lu_solve(
        lib.eye(3), lib.ones(3, dtype=lib.int32), lib.ones(3, 2), left=False
    ),
]


@pytest.mark.parametrize("index", range(len(LU_ERRORS)))
def test_lu_errors(index):
    _error(LU_ERRORS[index])


@pytest.mark.parametrize("shape", [(3, 3), (3, 5), (5, 3), (2, 4, 4)])
def test_lu_grads(shape):
    a = _values(shape, shift=2.0)
    _grads(lambda lib, x: lib.linalg.lu_factor(x).LU, [a])
    _grads(lambda lib, x: lib.linalg.lu(x)[1:], [a])
    _grads(lambda lib, x: lib.linalg.lu(x).L, [a])
    _grads(lambda lib, x: lib.linalg.lu(x).U, [a])
    _grads(lambda lib, x: lib.lu_unpack(*lib.linalg.lu_factor(x.detach()))[1:], [a])
    _grads(lambda lib, x: lib.lu_unpack(x, lib.linalg.lu_factor(x.detach()).pivots).U, [a])
    _grads(lambda lib, x: lib.lu_unpack(x, lib.linalg.lu_factor(x.detach()).pivots).L, [a])


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
def test_lu_solve_grads(left, adjoint):
    a, b = _values((2, 3, 3), shift=3.0), _values((2, 3, 2) if left else (2, 2, 3), seed=1)

    def fn(lib, x, y):
        LU, pivots = lib.linalg.lu_factor(x)  # noqa: N806
        return lib.linalg.lu_solve(LU, pivots, y, left=left, adjoint=adjoint)

    _grads(fn, [a, b])


def test_lu_dispatch_sequence():
    a = _values((3, 3), shift=3.0)
    _same_ops(lambda lib: lib.linalg.lu_factor(_t(lib, a)))
    _same_ops(lambda lib: lib.lu(_t(lib, a)))
    _same_ops(lambda lib: lib.linalg.lu(_t(lib, a)))
    _same_ops(lambda lib: lib.lu_solve(_t(lib, a), *lib.linalg.lu_factor(_t(lib, a))))


DEPRECATED = {
    "lu": "torch.lu(torch.eye(3))",
    "cholesky": "torch.cholesky(torch.eye(3))",
    "triangular_solve": "torch.triangular_solve(torch.eye(3), torch.eye(3))",
    "cross": "torch.cross(torch.ones(2, 3), torch.ones(2, 3))",
}


@pytest.mark.parametrize("name", sorted(DEPRECATED))
def test_deprecation_warnings_once(name):
    """TORCH_WARN_ONCE's text (and its source line), the first call of the process only."""
    import subprocess
    import sys

    call = DEPRECATED[name]
    code = (
        "import warnings\nwarnings.simplefilter('always')\nimport {lib} as torch\n"
        f"with warnings.catch_warnings(record=True) as w:\n    {call}\n    {call}\n"
        "print(len(w)); print(w[0].message)"
    )
    outputs = []
    for lib in ("ember", "torch"):
        done = subprocess.run(
            [sys.executable, "-c", code.format(lib=lib)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]


# -- cholesky, cholesky_inverse, cholesky_solve, triangular_solve -----------------------------

SPD_SHAPES = [(3, 3), (2, 4, 4), (2, 1, 3, 3), (0, 0), (0, 3, 3), (1, 1)]


def _cplx_spd(shape, dtype, seed=0):
    x = _values(shape, dtype, seed=seed)
    return x @ np.conj(np.swapaxes(x, -1, -2)) + shape[-1] * np.eye(shape[-1])


@pytest.mark.parametrize("shape", SPD_SHAPES)
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_family_values(shape, dtype, upper):
    a = _cplx_spd(shape, dtype)
    b = _values(shape[:-1] + (2,), dtype, seed=1)
    _compare(lambda lib: lib.cholesky(_t(lib, a, dtype), upper), rtol=1e-5)
    _compare(lambda lib: _t(lib, a, dtype).cholesky(upper=upper), rtol=1e-5)

    def factor(lib):
        return lib.linalg.cholesky(_t(lib, a, dtype), upper=upper)

    _compare(lambda lib: lib.cholesky_inverse(factor(lib), upper), rtol=1e-5)
    _compare(lambda lib: factor(lib).cholesky_inverse(upper=upper), rtol=1e-5)
    _compare(lambda lib: lib.cholesky_solve(_t(lib, b, dtype), factor(lib), upper), rtol=1e-5)
    _compare(lambda lib: _t(lib, b, dtype).cholesky_solve(factor(lib), upper=upper), rtol=1e-5)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("unitriangular", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize(
    ("b_shape", "a_shape"), [((3, 2), (3, 3)), ((2, 1, 3, 2), (4, 3, 3)), ((0, 3, 1), (0, 3, 3))]
)
def test_triangular_solve_values(upper, transpose, unitriangular, dtype, b_shape, a_shape):
    a = _values(a_shape, dtype, shift=3.0)
    b = _values(b_shape, dtype, seed=1)
    _compare(
        lambda lib: lib.triangular_solve(
            _t(lib, b, dtype), _t(lib, a, dtype), upper, transpose, unitriangular
        )
    )
    _compare(
        lambda lib: _t(lib, b, dtype).triangular_solve(
            _t(lib, a, dtype), upper=upper, transpose=transpose, unitriangular=unitriangular
        )
    )


def test_triangular_solve_singular_gives_trsm_infinities():
    _compare(lambda lib: lib.triangular_solve(lib.ones(3, 1), lib.zeros(3, 3)))
    _compare(lambda lib: lib.triangular_solve(lib.ones(3, 1), lib.zeros(3, 3), False, True))
    # linalg.solve_triangular too (trsm, not trtrs, which left B as it was)
    _compare(lambda lib: lib.linalg.solve_triangular(lib.zeros(3, 3), lib.ones(3, 1), upper=True))
    _compare(
        lambda lib: lib.linalg.solve_triangular(
            lib.zeros(2, 3, 3), lib.ones(2, 1, 3), upper=False, left=False
        )
    )


def test_cholesky_family_out():
    a, b = _spd_values((3, 3)), _values((3, 2), seed=1)

    def fn(lib):
        L = lib.linalg.cholesky(_t(lib, a))  # noqa: N806
        outs = [
            lib.empty(0, dtype=lib.float64),
            lib.empty(3, 3),
            lib.empty(0, dtype=lib.complex128),
        ]
        results = []
        for out in outs:
            results.append(lib.cholesky(_t(lib, a), out=out.clone()))
            results.append(lib.cholesky_inverse(L, out=out.clone()))
            results.append(lib.cholesky_solve(_t(lib, b), L, out=out.clone()))
        pair = (lib.empty(0, dtype=lib.float64), lib.empty(0, dtype=lib.float64))
        results.append(lib.triangular_solve(_t(lib, b), L, upper=False, out=pair))
        results.append(pair)
        return results

    _compare(fn)


CHOLESKY_ERRORS = [
    lambda lib: lib.triangular_solve(lib.ones(3, 2), lib.ones(3, 3, dtype=lib.float64)),
    lambda lib: lib.triangular_solve(lib.ones(3, 2), lib.ones(3, 2)),
    lambda lib: lib.triangular_solve(lib.ones(2, 2), lib.ones(3, 3)),
    lambda lib: lib.triangular_solve(lib.ones(2), lib.ones(3, 3)),
    lambda lib: lib.triangular_solve(lib.ones(3, 2), lib.ones(3)),
    lambda lib: lib.triangular_solve(
        lib.ones(3, 2, dtype=lib.int64), lib.ones(3, 3, dtype=lib.int64)
    ),
    lambda lib: lib.triangular_solve(
        lib.ones(3, 2, dtype=lib.float16), lib.ones(3, 3, dtype=lib.float16)
    ),
    lambda lib: lib.triangular_solve(lib.ones(4, 3, 2), lib.ones(2, 3, 3)),
    lambda lib: lib.cholesky_solve(lib.ones(3, 2), lib.ones(3, 3, dtype=lib.float64)),
    lambda lib: lib.cholesky_solve(lib.ones(3), lib.ones(3, 3)),
    lambda lib: lib.cholesky_solve(lib.ones(3, 2), lib.ones(3)),
    lambda lib: lib.cholesky_solve(lib.ones(3, 2), lib.ones(3, 2)),
    lambda lib: lib.cholesky_solve(lib.ones(2, 2), lib.ones(3, 3)),
    lambda lib: lib.cholesky_solve(
        lib.ones(3, 2, dtype=lib.int64), lib.ones(3, 3, dtype=lib.int64)
    ),
    lambda lib: lib.cholesky_solve(
        lib.zeros(0, 3, 2, dtype=lib.int64), lib.zeros(3, 3, dtype=lib.int64)
    ),
    lambda lib: lib.cholesky_solve(lib.ones(4, 3, 2), lib.ones(2, 3, 3)),
    lambda lib: lib.cholesky_solve(lib.ones(3, 2), lib.eye(3), out=lib.empty(0, dtype=lib.int64)),
    lambda lib: lib.cholesky_inverse(lib.ones(3, 2)),
    lambda lib: lib.cholesky_inverse(lib.ones(3)),
    lambda lib: lib.cholesky_inverse(lib.zeros(3, 3)),
    lambda lib: lib.cholesky_inverse(lib.zeros(2, 3, 3)),
    lambda lib: lib.cholesky_inverse(lib.eye(3, dtype=lib.int64)),
    lambda lib: lib.cholesky_inverse(lib.zeros(0, 3, 3, dtype=lib.int64)),
    lambda lib: lib.cholesky_inverse(lib.eye(3), out=lib.empty(0, dtype=lib.int64)),
    lambda lib: lib.cholesky(lib.ones(3, 2)),
    lambda lib: lib.cholesky(lib.ones(3)),
    lambda lib: lib.cholesky(lib.zeros(3, 3)),
    lambda lib: lib.cholesky(lib.zeros(2, 3, 3)),
    lambda lib: lib.cholesky(lib.eye(3, dtype=lib.int64)),
    lambda lib: lib.cholesky(lib.eye(3), out=lib.empty(0, dtype=lib.int64)),
]


@pytest.mark.parametrize("index", range(len(CHOLESKY_ERRORS)))
def test_cholesky_family_errors(index):
    _error(CHOLESKY_ERRORS[index])


def test_cholesky_empty_inputs_skip_the_checks():
    _compare(lambda lib: lib.cholesky(lib.zeros(0, 3, 2, dtype=lib.int64)))
    _compare(lambda lib: lib.cholesky(lib.zeros(0, 3, 3, dtype=lib.int64)))
    _compare(lambda lib: lib.cholesky_inverse(lib.zeros(0, 3, 3)))
    _compare(lambda lib: lib.cholesky_solve(lib.zeros(0, 0), lib.zeros(0, 0)))


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_family_grads(upper):
    a, b = _spd_values((2, 3, 3)), _values((2, 3, 2), seed=1)

    def chol(lib, x):
        return lib.linalg.cholesky(x @ x.mT + 3 * lib.eye(3, dtype=lib.float64), upper=upper)

    _grads(lambda lib, x: lib.cholesky(x @ x.mT + 3 * lib.eye(3, dtype=lib.float64), upper), [a])
    _grads(lambda lib, x: lib.cholesky_inverse(chol(lib, x), upper), [a])
    _grads(lambda lib, x, y: lib.cholesky_solve(y, chol(lib, x), upper), [a, b])
    _grads(lambda lib, x, y: lib.cholesky_solve(y, chol(lib, x).detach(), upper), [a, b])


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("unitriangular", [False, True])
def test_triangular_solve_grads(upper, transpose, unitriangular):
    a, b = _values((3, 3), shift=3.0), _values((2, 3, 2), seed=1)
    _grads(lambda lib, y, x: lib.triangular_solve(y, x, upper, transpose, unitriangular), [b, a])
    _grads(lambda lib, y, x: lib.triangular_solve(y, x, upper, transpose, unitriangular)[0], [b, a])
    _grads(lambda lib, y, x: lib.triangular_solve(y, x, upper, transpose, unitriangular)[1], [b, a])


def test_cholesky_family_dispatch_sequence():
    a, b = _spd_values((3, 3)), _values((3, 2), seed=1)
    _same_ops(lambda lib: lib.cholesky_solve(_t(lib, b), lib.linalg.cholesky(_t(lib, a))))
    _same_ops(lambda lib: lib.cholesky_inverse(lib.linalg.cholesky(_t(lib, a))))
    _same_ops(lambda lib: lib.triangular_solve(_t(lib, b), _t(lib, a)))
