"""The LU family, the Cholesky helpers, triangular_solve, matrix_exp, pinv, matrix_rank, cond,
cross, multi_dot, vander, tensorinv and tensorsolve against PyTorch 2.13: values (LAPACK's own
pivots), shapes, strides, dtypes, return types, grad_fn names and gradients, out=, the
operators a TorchDispatchMode sees, and PyTorch's errors (type and text)."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember
from ember.utils._python_dispatch import TorchDispatchMode


def _values(shape, dtype="float64", seed=0, shift=0.0):
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        values = values + 1j * rng.standard_normal(shape)
    if shift and len(shape) >= 2 and shape[-1] == shape[-2]:
        values = values + shift * np.eye(shape[-1])
    return values


def _t(lib, values, dtype="float64", requires_grad=False):
    return lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=requires_grad)


def _spd_values(shape, seed=0):
    x = _values(shape, seed=seed)
    return x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])


def _run(fn, lib):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(lib), None
    except Exception as error:  # noqa: BLE001 (compared with torch's)
        return None, error


def _leaves(value):
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def _compare(fn, rtol=1e-7, strides=True):
    e, e_error = _run(fn, ember)
    t, t_error = _run(fn, torch)
    if e_error is not None or t_error is not None:
        assert type(e_error).__name__ == type(t_error).__name__, (e_error, t_error)
        assert str(e_error) == str(t_error)
        return None, None
    assert type(e).__name__ == type(t).__name__
    for x, y in zip(_leaves(e), _leaves(t), strict=True):
        if not isinstance(y, torch.Tensor):
            assert x == y
            continue
        assert tuple(x.shape) == tuple(y.shape)
        if strides:
            assert tuple(x.stride()) == tuple(y.stride()), (x.stride(), y.stride())
        assert x.dtype.name == str(y.dtype).removeprefix("torch.")
        np.testing.assert_allclose(
            x.detach().numpy(),
            y.detach().resolve_conj().numpy(),
            rtol=rtol,
            atol=rtol,
            equal_nan=True,
        )
    return e, t


def _error(fn):
    e, e_error = _run(fn, ember)
    t, t_error = _run(fn, torch)
    assert t_error is not None
    assert type(e_error).__name__ == type(t_error).__name__, (e_error, t_error)
    assert str(e_error) == str(t_error)


def _grads(fn, inputs, seed=3, check_names=True):
    """d(sum(out * cotangent))/d inputs in both libraries, compared; the grad_fn names too."""
    results = {}
    for lib in (ember, torch):
        leaves = [_t(lib, v, requires_grad=True) for v in inputs]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn(lib, *leaves)
        outs = [o for o in _leaves(out) if isinstance(o, lib.Tensor) and o.requires_grad]
        rng = np.random.default_rng(seed)
        cots = [_t(lib, rng.standard_normal(tuple(o.shape))) for o in outs]
        grads = lib.autograd.grad(outs, leaves, cots, allow_unused=True)
        names = [type(o.grad_fn).__name__ for o in outs]
        results[lib] = (names, [None if g is None else g.detach().numpy() for g in grads])
    if check_names:
        assert results[ember][0] == results[torch][0]
    for got, want in zip(results[ember][1], results[torch][1], strict=True):
        assert (got is None) == (want is None)
        if want is not None:
            np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)


class _Ops(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.names.append(str(func))
        return func(*args, **(kwargs or {}))


def _seen(fn, lib, mode_cls):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with mode_cls() as mode:
            fn(lib)
    return mode.names


def _same_ops(fn):
    from torch.utils._python_dispatch import TorchDispatchMode as TorchMode

    class TorchOps(TorchMode):
        def __init__(self):
            super().__init__()
            self.names = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.names.append(str(func))
            return func(*args, **(kwargs or {}))

    assert _seen(fn, ember, _Ops) == _seen(fn, torch, TorchOps)


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


# -- pinv, matrix_rank, cond -----------------------------------------------------------------

PINV_SHAPES = [(3, 3), (3, 5), (5, 3), (2, 4, 4), (0, 0), (0, 3, 3), (2, 3, 0)]


@pytest.mark.parametrize("shape", PINV_SHAPES)
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_pinv_values(shape, dtype):
    a = _values(shape, dtype)
    tol = 1e-4 if dtype == "float32" else 1e-7
    _compare(lambda lib: lib.linalg.pinv(_t(lib, a, dtype)), rtol=tol)
    _compare(lambda lib: lib.pinverse(_t(lib, a, dtype)), rtol=tol)
    _compare(lambda lib: _t(lib, a, dtype).pinverse(rcond=0.5), rtol=tol)
    _compare(lambda lib: lib.linalg.pinv(_t(lib, a, dtype), 0.5), rtol=tol)
    _compare(lambda lib: lib.linalg.pinv(_t(lib, a, dtype), rtol=0.5), rtol=tol)
    _compare(lambda lib: lib.linalg.pinv(_t(lib, a, dtype), atol=0.8), rtol=tol)
    _compare(lambda lib: lib.linalg.pinv(_t(lib, a, dtype), atol=lib.tensor(0.8)), rtol=tol)
    _compare(lambda lib: lib.linalg.pinv(_t(lib, a, dtype), lib.tensor(0.3)), rtol=tol)
    if shape[-1] == shape[-2]:
        h = a + np.conj(np.swapaxes(a, -1, -2))
        _compare(lambda lib: lib.linalg.pinv(_t(lib, h, dtype), hermitian=True), rtol=tol)


@pytest.mark.parametrize("shape", PINV_SHAPES + [(4, 4)])
@pytest.mark.parametrize("hermitian", [False, True])
def test_matrix_rank_values(shape, hermitian):
    a = _values(shape)
    if len(shape) >= 2 and shape[-1] == shape[-2] and shape[-1] == 4:
        a = a @ np.diag([1.0, 1.0, 0.0, 1e-20]) @ np.swapaxes(a, -1, -2)  # rank 2
    if hermitian and shape[-1] != shape[-2]:
        return
    if hermitian:
        a = a + np.swapaxes(a, -1, -2)
    for kwargs in ({}, {"atol": 0.5}, {"rtol": 0.3}, {"atol": 0.1, "rtol": 0.2}):
        _compare(
            lambda lib, kw=kwargs: lib.linalg.matrix_rank(_t(lib, a), hermitian=hermitian, **kw)
        )
    _compare(lambda lib: lib.linalg.matrix_rank(_t(lib, a), 0.5, hermitian))
    _compare(lambda lib: lib.linalg.matrix_rank(_t(lib, a), lib.tensor(0.5), hermitian))
    _compare(lambda lib: lib.linalg.matrix_rank(_t(lib, a), atol=lib.tensor(0.5)))


@pytest.mark.parametrize("p", [None, 2, -2, 1, -1, float("inf"), float("-inf"), "fro", "nuc"])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (0, 3, 3)])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_cond_values(p, shape, dtype):
    a = _values(shape, dtype, shift=1.0)
    _compare(lambda lib: lib.linalg.cond(_t(lib, a, dtype), p))


def test_cond_singular_is_infinite():
    _compare(lambda lib: lib.linalg.cond(lib.zeros(3, 3), 1))
    _compare(lambda lib: lib.linalg.cond(lib.zeros(3, 3), "fro"))
    _compare(lambda lib: lib.linalg.cond(lib.zeros(2, 3, 3)))


def test_pinv_rank_cond_out():
    a = _values((3, 4))

    def fn(lib):
        out = [lib.empty(0, dtype=lib.float64) for _ in range(8)]
        lib.linalg.pinv(_t(lib, a), out=out[0])
        lib.linalg.pinv(_t(lib, a), 0.1, out=out[1])
        lib.linalg.pinv(_t(lib, a), atol=0.1, out=out[2])
        lib.linalg.pinv(_t(lib, a), lib.tensor(0.1), out=out[3])
        lib.linalg.cond(_t(lib, a), out=out[4])
        lib.linalg.cond(_t(lib, a[:, :3]), "fro", out=out[5])
        ranks = [lib.empty(0, dtype=lib.int64) for _ in range(4)]
        lib.linalg.matrix_rank(_t(lib, a), out=ranks[0])
        lib.linalg.matrix_rank(_t(lib, a), 0.5, out=ranks[1])
        lib.linalg.matrix_rank(_t(lib, a), atol=0.5, out=ranks[2])
        lib.linalg.matrix_rank(_t(lib, a), lib.tensor(0.5), out=ranks[3])
        return out[:6] + ranks

    _compare(fn)


PINV_ERRORS = [
    lambda lib: lib.linalg.pinv(lib.ones(3)),
    lambda lib: lib.linalg.pinv(lib.ones(3, 3, dtype=lib.int64)),
    lambda lib: lib.linalg.pinv(lib.ones(3, 3), rtol=lib.tensor(1j)),
    lambda lib: lib.linalg.pinv(lib.ones(3, 3), atol=lib.tensor(1j)),
    lambda lib: lib.linalg.pinv(lib.ones(3, 3), lib.tensor(1j)),
    lambda lib: lib.linalg.pinv(lib.ones(3, 3), out=lib.empty(0, dtype=lib.int64)),
    lambda lib: lib.linalg.pinv(lib.ones(3, 2), hermitian=True),
    lambda lib: lib.pinverse(lib.ones(3)),
    lambda lib: lib.linalg.matrix_rank(lib.ones(3)),
    lambda lib: lib.linalg.matrix_rank(lib.ones(3, 3, dtype=lib.int64)),
    lambda lib: lib.linalg.matrix_rank(lib.ones(3, 3), atol=lib.tensor(1j)),
    lambda lib: lib.linalg.matrix_rank(lib.ones(3, 3), rtol=lib.tensor(1j)),
    lambda lib: lib.linalg.matrix_rank(lib.ones(3, 3), out=lib.empty(0, dtype=lib.bool)),
    lambda lib: lib.linalg.matrix_rank(lib.ones(3, 2), hermitian=True),
    lambda lib: lib.linalg.cond(lib.ones(3)),
    lambda lib: lib.linalg.cond(lib.ones(3, 3), 3),
    lambda lib: lib.linalg.cond(lib.ones(3, 3), 2.5),
    lambda lib: lib.linalg.cond(lib.ones(3, 3), "abc"),
    lambda lib: lib.linalg.cond(lib.ones(3, 2), 1),
    lambda lib: lib.linalg.cond(lib.ones(3, 2), 1.0),
    lambda lib: lib.linalg.cond(lib.ones(3, 2), float("inf")),
    lambda lib: lib.linalg.cond(lib.ones(3, 2), float("-inf")),
    lambda lib: lib.linalg.cond(lib.ones(3, 2), "fro"),
    lambda lib: lib.linalg.cond(lib.ones(3, 3, dtype=lib.int64)),
    lambda lib: lib.linalg.cond(lib.ones(3, 3, dtype=lib.int64), 1),
    lambda lib: lib.linalg.cond(lib.ones(3, 3), out=lib.empty(0, dtype=lib.int64)),
    lambda lib: lib.linalg.cond(lib.ones(3, 3), "nuc", out=lib.empty(0, dtype=lib.int64)),
]


@pytest.mark.parametrize("index", range(len(PINV_ERRORS)))
def test_pinv_rank_cond_errors(index):
    _error(PINV_ERRORS[index])


@pytest.mark.parametrize("shape", [(3, 3), (3, 5), (5, 3), (2, 3, 3)])
def test_pinv_cond_grads(shape):
    a = _values(shape, shift=1.0)
    _grads(lambda lib, x: lib.linalg.pinv(x), [a])
    _grads(lambda lib, x: lib.pinverse(x), [a])
    _grads(lambda lib, x: lib.linalg.cond(x), [a])
    if shape[-1] == shape[-2]:
        _grads(lambda lib, x: lib.linalg.pinv(x + x.mT, hermitian=True), [a])
        _grads(lambda lib, x: lib.linalg.cond(x, "nuc"), [a])


def test_pinv_rank_cond_dispatch_sequences():
    a = _values((3, 3), shift=1.0)
    for call in (
        lambda lib: lib.linalg.pinv(_t(lib, a)),
        lambda lib: lib.linalg.pinv(_t(lib, a), rtol=1.0),
        lambda lib: lib.linalg.pinv(_t(lib, a), 0.1),
        lambda lib: lib.pinverse(_t(lib, a)),
        lambda lib: lib.linalg.matrix_rank(_t(lib, a)),
        lambda lib: lib.linalg.matrix_rank(_t(lib, a), hermitian=True),
        lambda lib: lib.linalg.matrix_rank(_t(lib, a), 0.5),
        lambda lib: lib.linalg.matrix_rank(_t(lib, a), atol=0.5),
        lambda lib: lib.linalg.cond(_t(lib, a)),
        lambda lib: lib.linalg.cond(_t(lib, a), 1),
        lambda lib: lib.linalg.cond(_t(lib, a), "fro"),
        lambda lib: lib.linalg.cond(_t(lib, a), "nuc"),
    ):
        _same_ops(call)


# -- cross, multi_dot, vander, tensorinv, tensorsolve ------------------------------------------


@pytest.mark.parametrize("dtype", ["float64", "int64", "complex128", "float32"])
@pytest.mark.parametrize(
    ("a_shape", "b_shape", "dim"),
    [((5, 3), (5, 3), -1), ((5, 3, 5), (5, 3, 5), 1), ((1, 3), (5, 3), -1), ((3,), (3,), 0),
     ((2, 1, 3), (1, 4, 3), 2), ((0, 3), (0, 3), 1)],
)  # fmt: skip
def test_cross_values(dtype, a_shape, b_shape, dim):
    a = np.round(_values(a_shape, dtype) * 10)
    b = np.round(_values(b_shape, dtype, seed=1) * 10)
    _compare(lambda lib: lib.linalg.cross(_t(lib, a, dtype), _t(lib, b, dtype), dim=dim))
    _compare(lambda lib: lib.cross(_t(lib, a, dtype), _t(lib, b, dtype), dim))
    _compare(lambda lib: _t(lib, a, dtype).cross(_t(lib, b, dtype), dim=dim))
    _compare(lambda lib: lib.cross(_t(lib, a, dtype), _t(lib, b, dtype)))
    _compare(
        lambda lib: lib.linalg.cross(
            _t(lib, a, dtype),
            _t(lib, b, dtype),
            dim=dim,
            out=lib.empty(0, dtype=getattr(lib, dtype)),
        )
    )


@pytest.mark.parametrize(
    "shapes",
    [[(3,), (3,)], [(2, 3), (3,)], [(3,), (3, 2)], [(2, 3), (3, 4)], [(2, 3), (3, 4), (4, 5)],
     [(5, 1), (1, 6), (6, 2)], [(3,), (3, 2), (2, 4), (4,)], [(1, 10), (10, 2), (2, 30), (30, 4), (4, 1)],
     [(2, 0), (0, 2)], [(0, 2), (2, 2), (2, 3)]],
)  # fmt: skip
def test_multi_dot_values_and_chain_order(shapes):
    arrays = [_values(s, seed=i) for i, s in enumerate(shapes)]
    _compare(lambda lib: lib.linalg.multi_dot([_t(lib, x) for x in arrays]))
    _compare(
        lambda lib: lib.linalg.multi_dot(
            [_t(lib, x) for x in arrays], out=lib.empty(0, dtype=lib.float64)
        )
    )
    _same_ops(lambda lib: lib.linalg.multi_dot([_t(lib, x) for x in arrays]))
    _grads(lambda lib, *xs: lib.linalg.multi_dot(list(xs)), arrays)


@pytest.mark.parametrize("shape", [(), (1,), (4,), (2, 3)])
@pytest.mark.parametrize("N", [None, 2, 5])
@pytest.mark.parametrize("dtype", ["float64", "int64", "complex128"])
def test_vander_values(shape, N, dtype):  # noqa: N803
    x = np.round(_values(shape, dtype) * 3)
    _compare(lambda lib: lib.linalg.vander(_t(lib, x, dtype), N=N))
    if dtype == "float64" and (N is not None or shape[-1:] not in ((), (1,))):
        _grads(lambda lib, v: lib.linalg.vander(v, N=N), [x])


@pytest.mark.parametrize(
    ("shape", "ind"), [((2, 2, 3, 12, 1), 3), ((4, 3, 6, 1, 2), 2), ((3, 3), 1)]
)
def test_tensorinv(shape, ind):
    a = _values(shape)
    _compare(lambda lib: lib.linalg.tensorinv(_t(lib, a), ind=ind))
    _compare(lambda lib: lib.linalg.tensorinv(_t(lib, a), ind, out=lib.empty(0, dtype=lib.float64)))
    # names=False: ember's reshape of a viewable non-contiguous tensor records ViewBackward0
    # where PyTorch records ReshapeAliasBackward0 (aten._reshape_alias)
    _grads(lambda lib, x: lib.linalg.tensorinv(x, ind=ind), [a], check_names=False)
    _same_ops(lambda lib: lib.linalg.tensorinv(_t(lib, a), ind=ind))


@pytest.mark.parametrize(
    ("a_shape", "b_shape", "dims"),
    [((2, 3, 6), (2, 3), None), ((2, 3, 6), (2, 3), (0, 2)), ((3, 4, 4, 3), (3, 4), None),
     ((6, 2, 3), (2, 3), (0,))],
)  # fmt: skip
def test_tensorsolve(a_shape, b_shape, dims):
    a, b = _values(a_shape), _values(b_shape, seed=1)
    _compare(lambda lib: lib.linalg.tensorsolve(_t(lib, a), _t(lib, b), dims=dims))
    _compare(
        lambda lib: lib.linalg.tensorsolve(
            _t(lib, a), _t(lib, b), dims, out=lib.empty(0, dtype=lib.float64)
        )
    )
    _grads(lambda lib, x, y: lib.linalg.tensorsolve(x, y, dims=dims), [a, b])
    _same_ops(lambda lib: lib.linalg.tensorsolve(_t(lib, a), _t(lib, b), dims=dims))


PRODUCT_ERRORS = [
    lambda lib: lib.linalg.cross(lib.ones(3), lib.ones(3, dtype=lib.float64)),
    lambda lib: lib.linalg.cross(lib.ones(3, dtype=lib.bool), lib.ones(3, dtype=lib.bool)),
    lambda lib: lib.linalg.cross(lib.ones(2, 3), lib.ones(5, 1, 3)),
    lambda lib: lib.linalg.cross(lib.ones(2, 3), lib.ones(5, 3)),
    lambda lib: lib.linalg.cross(lib.ones(5, 3), lib.ones(5, 1)),
    lambda lib: lib.linalg.cross(lib.ones(5, 2), lib.ones(5, 2), dim=2),
    lambda lib: lib.linalg.cross(lib.ones(2, 3), lib.ones(2, 3), out=lib.empty(0, dtype=lib.int64)),
    lambda lib: lib.linalg.cross(
        lib.ones(2, 3), lib.ones(2, 3), out=lib.empty(0, dtype=lib.float64)
    ),
    lambda lib: lib.cross(lib.ones(2, 4), lib.ones(2, 4)),
    lambda lib: lib.cross(lib.ones(3, 3), lib.ones(2, 1, 3)),
    lambda lib: lib.linalg.vander(lib.ones(3, dtype=lib.bool)),
    lambda lib: lib.linalg.vander(lib.ones(3, dtype=lib.float16)),
    lambda lib: lib.linalg.vander(lib.ones(3), N=1),
    lambda lib: lib.linalg.vander(lib.ones(3), N=0),
    lambda lib: lib.linalg.vander(lib.ones(1)),
    lambda lib: lib.linalg.vander(lib.tensor(2.0)),
    lambda lib: lib.linalg.multi_dot([lib.ones(3)]),
    lambda lib: lib.linalg.multi_dot([]),
    lambda lib: lib.linalg.multi_dot([lib.ones(2, 2, 2), lib.ones(2, 2)]),
    lambda lib: lib.linalg.multi_dot([lib.ones(2, 2), lib.ones(2, 2, 2)]),
    lambda lib: lib.linalg.multi_dot([lib.ones(2, 2), lib.ones(2), lib.ones(2, 2)]),
    lambda lib: lib.linalg.multi_dot([lib.ones(2, 2), lib.ones(2, 2, dtype=lib.float64)]),
    lambda lib: lib.linalg.multi_dot([lib.ones(2, 3), lib.ones(2, 2)]),
    lambda lib: lib.linalg.multi_dot(
        [lib.ones(2, 2), lib.ones(2, 2)], out=lib.empty(0, dtype=lib.float64)
    ),
    lambda lib: lib.linalg.tensorinv(lib.ones(2, 3), ind=0),
    lambda lib: lib.linalg.tensorinv(lib.ones(2, 3)),
    lambda lib: lib.linalg.tensorinv(lib.zeros(2, 2), ind=1),
    lambda lib: lib.linalg.tensorinv(lib.zeros(2, 2, dtype=lib.int64), ind=1),
    lambda lib: lib.linalg.tensorinv(lib.eye(2), ind=1, out=lib.empty(0, dtype=lib.int64)),
    lambda lib: lib.linalg.tensorsolve(lib.ones(2, 3, 6), lib.ones(2, 2)),
    lambda lib: lib.linalg.tensorsolve(lib.zeros(2, 3, 6), lib.ones(2, 3)),
    lambda lib: lib.linalg.tensorsolve(lib.ones(2, 3, 6), lib.ones(2, 3, dtype=lib.float64)),
    lambda lib: lib.linalg.tensorsolve(lib.ones(2, 3, 6), lib.ones(2, 3), dims=(5,)),
]


@pytest.mark.parametrize("index", range(len(PRODUCT_ERRORS)))
def test_product_errors(index):
    _error(PRODUCT_ERRORS[index])


@pytest.mark.parametrize(
    ("a_shape", "b_shape"), [((5, 3), (5, 3)), ((1, 3), (5, 3)), ((2, 3, 4), (2, 3, 4))]
)
def test_cross_grads_and_ops(a_shape, b_shape):
    a, b = _values(a_shape), _values(b_shape, seed=1)
    dim = 1 if len(a_shape) == 3 else -1
    _grads(lambda lib, x, y: lib.linalg.cross(x, y, dim=dim), [a, b])
    _grads(lambda lib, x, y: lib.cross(x, y, dim=dim), [a, b])
    _same_ops(lambda lib: lib.cross(_t(lib, a), _t(lib, b)))
    _same_ops(lambda lib: lib.linalg.vander(_t(lib, a[0])))


# -- matrix_exp ------------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [0.0, 1e-9, 1e-5, 1e-3, 0.04, 0.2, 0.8, 3.0, 30.0])
@pytest.mark.parametrize("shape", [(4, 4), (1, 3, 3), (3, 4, 4)])
def test_matrix_exp_every_degree_float64(scale, shape):
    """Each Taylor degree, the scaling and squaring, batches: PyTorch's numbers to 1e-12."""
    a = _values(shape) * scale / max(1.0, shape[-1])
    e, t = _compare(lambda lib: lib.matrix_exp(_t(lib, a)), rtol=1e-12)
    _compare(lambda lib: lib.linalg.matrix_exp(_t(lib, a)), rtol=1e-12)
    _compare(lambda lib: _t(lib, a).matrix_exp(), rtol=1e-12)


@pytest.mark.parametrize("scale", [0.0, 1e-5, 0.03, 0.3, 1.0, 2.0])
@pytest.mark.parametrize("dtype", ["float32", "complex64", "complex128"])
def test_matrix_exp_single_and_complex(scale, dtype):
    a = _values((4, 4), dtype) * scale / 4
    _compare(lambda lib: lib.matrix_exp(_t(lib, a, dtype)), rtol=2e-6)


def test_matrix_exp_trivial_sizes_nan_and_errors():
    _compare(lambda lib: lib.matrix_exp(lib.zeros(0, 0)))
    _compare(lambda lib: lib.matrix_exp(lib.ones(2, 1, 1) * 2))
    _compare(lambda lib: lib.matrix_exp(lib.zeros(0, 3, 3)))
    _compare(lambda lib: lib.matrix_exp(lib.full((3, 3), float("nan"))))
    _error(lambda lib: lib.matrix_exp(lib.ones(3, 2)))
    _error(lambda lib: lib.matrix_exp(lib.ones(3)))
    _error(lambda lib: lib.matrix_exp(lib.eye(3, dtype=lib.int64)))
    _same_ops(lambda lib: lib.matrix_exp(_t(lib, _values((3, 3)))))


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)])
@pytest.mark.parametrize("scale", [0.01, 0.5, 3.0])
def test_matrix_exp_grads(shape, scale):
    _grads(lambda lib, x: lib.matrix_exp(x), [_values(shape) * scale])


# -- geqrf, householder_product, ormqr -------------------------------------------------------


@pytest.mark.parametrize("shape", [(5, 5), (5, 2), (2, 5), (5, 0), (2, 4, 3), (0, 3, 3)])
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_geqrf_householder_product_ormqr_values(shape, dtype):
    a = _values(shape, dtype)
    tol = 1e-5 if dtype == "float32" else 1e-9
    _compare(lambda lib: lib.geqrf(_t(lib, a, dtype)), rtol=tol)
    _compare(lambda lib: _t(lib, a, dtype).geqrf(), rtol=tol)
    m, n = shape[-2:]
    if m >= n:
        _compare(
            lambda lib: lib.linalg.householder_product(*lib.geqrf(_t(lib, a, dtype))), rtol=tol
        )
        _compare(lambda lib: lib.orgqr(*lib.geqrf(_t(lib, a, dtype))), rtol=tol)
    c = _values(shape[:-2] + (m, 3), dtype, seed=1)
    r = _values(shape[:-2] + (3, m), dtype, seed=2)
    for transpose in (False, True):
        _compare(
            lambda lib, tr=transpose: lib.ormqr(
                *lib.geqrf(_t(lib, a, dtype)), _t(lib, c, dtype), True, tr
            ),
            rtol=tol,
        )
        _compare(
            lambda lib, tr=transpose: (
                _t(lib, a, dtype).ormqr(
                    lib.geqrf(_t(lib, a, dtype))[1], _t(lib, r, dtype), left=False, transpose=tr
                )
                if min(m, n) == min(3, n)
                else None
            ),
            rtol=tol,
        )


def test_householder_out_variants():
    a, c = _values((4, 3)), _values((4, 2), seed=1)

    def fn(lib):
        pair = (lib.empty(0, dtype=lib.float64), lib.empty(0, dtype=lib.float64))
        lib.geqrf(_t(lib, a), out=pair)
        cast = (lib.empty(0, dtype=lib.complex128), lib.empty(0, dtype=lib.complex128))
        lib.geqrf(_t(lib, a), out=cast)
        q = lib.empty(0, dtype=lib.float64)
        lib.linalg.householder_product(*pair, out=q)
        q2 = lib.empty(4, 3, dtype=lib.float64)
        lib.linalg.householder_product(*pair, out=q2)
        o = lib.empty(0, dtype=lib.float64)
        lib.ormqr(pair[0], pair[1], _t(lib, c), out=o)
        return pair, cast, q, q2, o

    _compare(fn)


HOUSEHOLDER_ERRORS = [
    lambda lib: lib.geqrf(lib.ones(3)),
    lambda lib: lib.geqrf(lib.ones(3, 2, dtype=lib.int64)),
    lambda lib: lib.geqrf(lib.ones(3, 3), out=(lib.empty(0), lib.empty(0, dtype=lib.int64))),
    lambda lib: lib.ormqr(lib.ones(()), lib.ones(()), lib.ones(())),
    lambda lib: lib.ormqr(lib.ones(5, 0), lib.ones(5), lib.ones(5, 5), True, True),
    lambda lib: lib.ormqr(lib.ones(5, 5), lib.ones(5), lib.ones(5)),
    lambda lib: lib.ormqr(lib.ones(5, 5), lib.ones(5), lib.ones(4, 5)),
    lambda lib: lib.ormqr(lib.ones(5, 5), lib.ones(5), lib.ones(5, 4), left=False),
    lambda lib: lib.ormqr(lib.ones(5, 5), lib.ones(6), lib.ones(5, 5)),
    lambda lib: lib.ormqr(lib.ones(5, 3), lib.ones(2), lib.ones(5, 2)),
    lambda lib: lib.ormqr(lib.ones(5, 5), lib.ones(1, 5), lib.ones(5, 5)),
    lambda lib: lib.ormqr(lib.ones(2, 5, 5), lib.ones(3, 5), lib.ones(2, 5, 5)),
    lambda lib: lib.ormqr(lib.ones(2, 5, 5), lib.ones(2, 5), lib.ones(3, 5, 5)),
    lambda lib: lib.ormqr(lib.ones(2, 5, 5), lib.ones(2, 5), lib.ones(5, 5)),
    lambda lib: lib.ormqr(lib.ones(5, 5), lib.ones(5, dtype=lib.float64), lib.ones(5, 5)),
    lambda lib: lib.ormqr(lib.ones(5, 5), lib.ones(5), lib.ones(5, 5, dtype=lib.float64)),
    lambda lib: lib.ormqr(
        lib.ones(5, 5, dtype=lib.int64),
        lib.ones(5, dtype=lib.int64),
        lib.ones(5, 5, dtype=lib.int64),
    ),
    lambda lib: lib.ormqr(
        lib.ones(5, 5), lib.ones(5), lib.ones(5, 5), out=lib.empty(0, dtype=lib.float64)
    ),
    lambda lib: lib.linalg.householder_product(lib.ones(3), lib.ones(3)),
    lambda lib: lib.linalg.householder_product(lib.ones(3, 4), lib.ones(3)),
    lambda lib: lib.linalg.householder_product(lib.ones(4, 3), lib.ones(4)),
    lambda lib: lib.linalg.householder_product(lib.ones(4, 3), lib.ones(1, 3)),
    lambda lib: lib.linalg.householder_product(lib.ones(2, 4, 3), lib.ones(3, 3)),
    lambda lib: lib.linalg.householder_product(lib.ones(4, 3), lib.ones(3, dtype=lib.float64)),
    lambda lib: lib.linalg.householder_product(
        lib.ones(4, 3, dtype=lib.int64), lib.ones(3, dtype=lib.int64)
    ),
    lambda lib: lib.linalg.householder_product(
        lib.ones(4, 3), lib.ones(3), out=lib.empty(0, dtype=lib.int64)
    ),
]


@pytest.mark.parametrize("index", range(len(HOUSEHOLDER_ERRORS)))
def test_householder_errors(index):
    _error(HOUSEHOLDER_ERRORS[index])


@pytest.mark.parametrize("shape", [(5, 5), (6, 5), (5, 3), (2, 1, 5, 5)])
def test_householder_product_grads(shape):
    a = _values(shape)
    tau = _values(shape[:-2] + (min(shape[-2:]) - 1,), seed=4) * 0.5
    _grads(lambda lib, x, t: lib.linalg.householder_product(x, t), [a, tau])


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
def test_ormqr_grads(left, transpose):
    a, tau = _values((5, 5)), _values((5,), seed=4) * 0.5
    c = _values((5, 3) if left else (3, 5), seed=1)
    _grads(lambda lib, x, t, y: lib.ormqr(x, t, y, left, transpose), [a, tau, c])


def test_geqrf_has_no_derivative():
    for lib in (ember, torch):
        x = _t(lib, _values((3, 3)), requires_grad=True)
        a, tau = lib.geqrf(x)
        assert type(a.grad_fn).__name__ == "GeqrfBackward0"
    _error(lambda lib: lib.geqrf(_t(lib, _values((3, 3)), requires_grad=True))[0].sum().backward())
