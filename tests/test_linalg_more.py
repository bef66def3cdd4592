"""torch.linalg's decompositions and norms against PyTorch 2.13, beyond the OpInfo samples:
PyTorch's errors (type and text: shapes, dtypes, singular and non-positive-definite inputs,
with the batch element), batch shapes and the column-major strides of LAPACK's results,
the operators a TorchDispatchMode sees, grad_fn names, out=, return types, and values (to
LAPACK rounding: NumPy's and SciPy's OpenBLAS is not the MKL in the torch wheel)."""

import warnings

import numpy as np
import pytest
from oracle import torch

import ember
from ember.utils._python_dispatch import TorchDispatchMode


def _matrix(lib, shape, dtype="float64", seed=0, shift=3.0):
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        values = values + 1j * rng.standard_normal(shape)
    if len(shape) >= 2 and shape[-1] == shape[-2]:
        values = values + shift * np.eye(shape[-1])
    return lib.tensor(values, dtype=getattr(lib, dtype))


def _spd(lib, shape, dtype="float64", seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    values = x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])
    return lib.tensor(values, dtype=getattr(lib, dtype))


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
            assert tuple(x.stride()) == tuple(y.stride())
        assert x.dtype.name == str(y.dtype).removeprefix("torch.")
        np.testing.assert_allclose(
            x.detach().numpy(),
            y.detach().resolve_conj().numpy(),  # ember has no conjugate bit
            rtol=rtol,
            atol=rtol,
            equal_nan=True,
        )
    return e, t


# -- values, batch shapes, strides, return types -------------------------------------------

SQUARE = [(3, 3), (2, 4, 4), (2, 1, 3, 3), (0, 0), (2, 0, 0), (0, 3, 3), (1, 1)]


@pytest.mark.parametrize("shape", SQUARE)
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
@pytest.mark.parametrize(
    "name", ["det", "slogdet", "inv", "inv_ex", "cholesky_ex", "eigvalsh", "svdvals"]
)
def test_square_functions(name, shape, dtype):
    rtol = 1e-4 if dtype == "float32" else 1e-9
    make = _spd if name in ("cholesky_ex", "eigvalsh") else _matrix
    _compare(lambda lib: getattr(lib.linalg, name)(make(lib, shape, dtype)), rtol)


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 4, 3), (0, 3), (3, 0), (1, 1)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_shapes_and_values(shape, mode):
    _compare(lambda lib: lib.linalg.qr(_matrix(lib, shape), mode=mode), 1e-9)


@pytest.mark.parametrize("shape", [(3, 3), (5, 3), (3, 4), (2, 3, 3), (0, 3), (3, 0)])
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd_shapes(shape, full_matrices):
    """Singular vectors' signs are the LAPACK build's: compare shapes, strides, dtypes, S,
    and U diag(S) Vh, which is sign-free."""
    e = ember.linalg.svd(_matrix(ember, shape), full_matrices=full_matrices)
    t = torch.linalg.svd(_matrix(torch, shape), full_matrices=full_matrices)
    assert type(e).__name__ == type(t).__name__ == "linalg_svd"
    for x, y in zip(e, t, strict=True):
        assert tuple(x.shape) == tuple(y.shape)
        assert tuple(x.stride()) == tuple(y.stride())
    np.testing.assert_allclose(e.S.numpy(), t.S.numpy(), rtol=1e-9)
    k = e.S.shape[-1]
    u, vh = e.U.numpy()[..., :k], e.Vh.numpy()[..., :k, :]
    np.testing.assert_allclose(
        u * e.S.numpy()[..., None, :] @ vh, _matrix(torch, shape).numpy(), atol=1e-9
    )


@pytest.mark.parametrize(
    ("sa", "sb", "left"),
    [((3, 3), (3, 2), True), ((3, 3), (3,), True), ((2, 3, 3), (3, 2), True),
     ((2, 3, 3), (2, 3), True), ((3, 3), (2, 3), False), ((2, 3, 3), (1, 4, 3), False),
     ((3, 3), (2, 3, 1), True), ((0, 0), (0, 2), True)],
)  # fmt: skip
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_solve_broadcasting(sa, sb, left, dtype):
    _compare(
        lambda lib: lib.linalg.solve(
            _matrix(lib, sa, dtype), _matrix(lib, sb, dtype, seed=1), left=left
        ),
        1e-9,
    )
    _compare(
        lambda lib: lib.linalg.solve_ex(
            _matrix(lib, sa, dtype), _matrix(lib, sb, dtype, seed=1), left=left
        ),
        1e-9,
    )


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_upper(upper):
    _compare(lambda lib: lib.linalg.cholesky(_spd(lib, (2, 3, 3)), upper=upper), 1e-9)


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_reconstructs(uplo):
    e = ember.linalg.eigh(_spd(ember, (2, 4, 4)), UPLO=uplo)
    t = torch.linalg.eigh(_spd(torch, (2, 4, 4)), UPLO=uplo)
    assert type(e).__name__ == type(t).__name__ == "linalg_eigh"
    np.testing.assert_allclose(e.eigenvalues.numpy(), t.eigenvalues.numpy(), rtol=1e-9)
    assert tuple(e.eigenvectors.stride()) == tuple(t.eigenvectors.stride())
    v, w = e.eigenvectors.numpy(), e.eigenvalues.numpy()
    np.testing.assert_allclose((v * w[..., None, :]) @ np.swapaxes(v, -1, -2),
                               _spd(torch, (2, 4, 4)).numpy(), atol=1e-9)  # fmt: skip


NORMS = [
    ((3, 4), {}), ((3, 4), {"ord": "fro"}), ((3, 4), {"ord": "nuc"}), ((3, 4), {"ord": 2}),
    ((3, 4), {"ord": -2}), ((3, 4), {"ord": 1}), ((3, 4), {"ord": -1}),
    ((3, 4), {"ord": float("inf")}), ((3, 4), {"ord": -float("inf")}),
    ((2, 3, 4), {"ord": 1, "dim": (0, 2), "keepdim": True}),
    ((2, 3, 4), {"ord": "nuc", "dim": (2, 0), "keepdim": True}),
    ((2, 3, 4), {"ord": 2, "dim": (-1, -2)}), ((5,), {"ord": 3}), ((2, 3), {"dim": 1}),
    ((2, 3, 4), {"ord": 2}), ((2, 3, 4), {"ord": "fro"}), ((2, 3), {"dim": (0, 1, 1)}),
    ((2, 3), {"ord": 3, "dim": (0, 1)}), ((2, 3), {"ord": "foo"}),
    ((2, 3), {"ord": 2, "dtype": "float32"}), ((2, 3), {"ord": 1, "dtype": "int64"}),
]  # fmt: skip


def _kwargs(lib, kwargs):
    kwargs = dict(kwargs)
    if "dtype" in kwargs:
        kwargs["dtype"] = getattr(lib, kwargs["dtype"])
    return kwargs


@pytest.mark.parametrize(("shape", "kwargs"), NORMS)
def test_norm(shape, kwargs):
    _compare(lambda lib: lib.linalg.norm(_matrix(lib, shape), **_kwargs(lib, kwargs)), 1e-9)


@pytest.mark.parametrize(("shape", "kwargs"), [(s, k) for s, k in NORMS if "ord" in k])
def test_matrix_norm(shape, kwargs):
    _compare(lambda lib: lib.linalg.matrix_norm(_matrix(lib, shape), **_kwargs(lib, kwargs)), 1e-9)


@pytest.mark.parametrize("dims", [(0,), (1, 1), (0, 1, 2)])
def test_matrix_norm_dim_errors(dims):
    _compare(lambda lib: lib.linalg.matrix_norm(_matrix(lib, (2, 3, 4)), dim=dims))


# -- errors --------------------------------------------------------------------------------

ERRORS = [
    lambda lib: lib.linalg.det(lib.ones(2, 3)),
    lambda lib: lib.linalg.det(lib.ones(3, 3, dtype=lib.int64)),
    lambda lib: lib.linalg.det(lib.ones(3)),
    lambda lib: lib.linalg.det(lib.ones(3, 3, dtype=lib.float16)),
    lambda lib: lib.linalg.slogdet(lib.ones(3, 3, dtype=lib.float16)),
    lambda lib: lib.logdet(lib.ones(2, 3)),
    lambda lib: lib.logdet(lib.ones(3, 3, dtype=lib.int64)),
    lambda lib: lib.linalg.inv(lib.zeros(3, 3)),
    lambda lib: lib.linalg.inv(lib.zeros(2, 3, 3)),
    lambda lib: lib.linalg.inv(lib.ones(2, 3)),
    lambda lib: lib.linalg.inv(lib.ones(3, 3, dtype=lib.float16)),
    lambda lib: lib.linalg.inv_ex(lib.zeros(2, 3, 3), check_errors=True),
    lambda lib: lib.inverse(lib.zeros(3, 3)),
    lambda lib: lib.linalg.solve(lib.zeros(3, 3), lib.ones(3)),
    lambda lib: lib.linalg.solve(lib.eye(3), lib.ones(4)),
    lambda lib: lib.linalg.solve(lib.eye(3), lib.ones(4, 2)),
    lambda lib: lib.linalg.solve(lib.eye(3), lib.ones(3, 2, dtype=lib.float64)),
    lambda lib: lib.linalg.solve(lib.eye(3), lib.ones(3, 2), left=False),
    lambda lib: lib.linalg.solve(lib.eye(3).expand(2, 3, 3), lib.ones(3, 3, 2)),
    lambda lib: lib.linalg.solve_ex(lib.zeros(2, 3, 3), lib.ones(3), check_errors=True),
    lambda lib: lib.linalg.cholesky(-lib.eye(3)),
    lambda lib: lib.linalg.cholesky(-lib.eye(3).expand(2, 3, 3)),
    lambda lib: lib.linalg.cholesky(lib.ones(3, 3, dtype=lib.float16)),
    lambda lib: lib.linalg.cholesky_ex(-lib.eye(3), check_errors=True),
    lambda lib: lib.linalg.qr(lib.eye(3), mode="foo"),
    lambda lib: lib.linalg.qr(lib.ones(3, 3, dtype=lib.int64)),
    lambda lib: lib.linalg.qr(lib.ones(3)),
    lambda lib: lib.linalg.svd(lib.eye(3), driver="gesvd"),
    lambda lib: lib.linalg.svd(lib.ones(3, 3, dtype=lib.float16)),
    lambda lib: lib.svd(lib.ones(3)),
    lambda lib: lib.linalg.eigh(lib.eye(3), UPLO="X"),
    lambda lib: lib.linalg.eigh(lib.ones(3, 3, dtype=lib.int64)),
    lambda lib: lib.linalg.eigvalsh(lib.ones(2, 3)),
    lambda lib: lib.linalg.norm(lib.ones(2, 3, 4), 2),
    lambda lib: lib.linalg.norm(lib.ones(2, 3, 4), "fro"),
    lambda lib: lib.linalg.norm(lib.ones(2, 3), 2, dim=(0, 1, 1)),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors(index):
    e, e_error = _run(ERRORS[index], ember)
    t, t_error = _run(ERRORS[index], torch)
    assert t_error is not None
    assert type(e_error).__name__ == type(t_error).__name__, (e_error, t_error)
    assert str(e_error) == str(t_error)


def test_linalg_error_is_a_runtime_error():
    assert issubclass(ember.linalg.LinAlgError, RuntimeError)
    assert issubclass(torch.linalg.LinAlgError, RuntimeError)
    with pytest.raises(ember.linalg.LinAlgError):
        ember.linalg.inv(ember.zeros(2, 2))


def test_info_without_check_errors():
    _compare(lambda lib: lib.linalg.inv_ex(lib.zeros(2, 3, 3)).info)
    _compare(lambda lib: lib.linalg.cholesky_ex(-lib.eye(3).expand(2, 3, 3)).info)
    _compare(lambda lib: lib.linalg.solve_ex(lib.zeros(2, 3, 3), lib.ones(2, 3)).info)


# -- out= ----------------------------------------------------------------------------------


def test_out_variants():
    def det(lib):
        out = lib.empty(0, dtype=lib.float64)
        result = lib.linalg.det(_matrix(lib, (2, 3, 3)), out=out)
        return result is out, out

    _compare(det, 1e-9)
    _compare(lambda lib: lib.linalg.inv(_matrix(lib, (3, 3)), out=lib.empty(0, dtype=lib.float64)))
    _compare(lambda lib: lib.linalg.slogdet(_matrix(lib, (3, 3)), out=(
        lib.empty(0, dtype=lib.float64), lib.empty(0, dtype=lib.float64))))  # fmt: skip
    _compare(lambda lib: lib.linalg.solve(_matrix(lib, (3, 3)), _matrix(lib, (3, 2)),
                                          out=lib.empty(0, dtype=lib.float64)))  # fmt: skip
    _compare(
        lambda lib: lib.linalg.cholesky(_spd(lib, (3, 3)), out=lib.empty(0, dtype=lib.float64))
    )
    _compare(lambda lib: lib.linalg.qr(_matrix(lib, (4, 3)), out=(
        lib.empty(0, dtype=lib.float64), lib.empty(0, dtype=lib.float64))))  # fmt: skip
    _compare(
        lambda lib: lib.linalg.eigvalsh(_spd(lib, (3, 3)), out=lib.empty(0, dtype=lib.float64))
    )
    _compare(
        lambda lib: lib.linalg.svdvals(_matrix(lib, (3, 4)), out=lib.empty(0, dtype=lib.float64))
    )
    _compare(lambda lib: lib.linalg.matrix_norm(_matrix(lib, (3, 4)), "nuc",
                                                out=lib.empty(0, dtype=lib.float64)))  # fmt: skip
    _compare(lambda lib: lib.linalg.inv(_matrix(lib, (3, 3)), out=lib.empty(0, dtype=lib.float32)))


# -- what a dispatch mode sees, grad_fn ----------------------------------------------------


def _seen(lib, fn):
    base = TorchDispatchMode if lib is ember else torch.utils._python_dispatch.TorchDispatchMode

    class Record(base):
        def __init__(self):
            super().__init__()
            self.ops = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.ops.append(str(func).removeprefix("aten."))
            return func(*args, **(kwargs or {}))

    a = _matrix(lib, (3, 3)).requires_grad_()
    spd = _spd(lib, (3, 3)).requires_grad_()
    with Record() as mode:
        result = fn(lib, a, spd)
    first = result[0] if isinstance(result, tuple) else result
    return mode.ops, type(first.grad_fn).__name__ if first.grad_fn is not None else None


CALLS = {
    "det": lambda lib, a, s: lib.linalg.det(a),
    "torch.det": lambda lib, a, s: lib.det(a),
    "slogdet": lambda lib, a, s: lib.linalg.slogdet(a),
    "inv": lambda lib, a, s: lib.linalg.inv(a),
    "inverse": lambda lib, a, s: lib.inverse(a),
    "inv_ex": lambda lib, a, s: lib.linalg.inv_ex(a),
    "solve": lambda lib, a, s: lib.linalg.solve(a, s),
    "solve_ex": lambda lib, a, s: lib.linalg.solve_ex(a, s),
    "cholesky": lambda lib, a, s: lib.linalg.cholesky(s),
    "qr": lambda lib, a, s: lib.linalg.qr(a),
    "svd": lambda lib, a, s: lib.linalg.svd(a),
    "svdvals": lambda lib, a, s: lib.linalg.svdvals(a),
    "torch.svd": lambda lib, a, s: lib.svd(a),
    "eigh": lambda lib, a, s: lib.linalg.eigh(s),
    "eigvalsh": lambda lib, a, s: lib.linalg.eigvalsh(s),
    "norm": lambda lib, a, s: lib.linalg.norm(a),
    "norm 2": lambda lib, a, s: lib.linalg.norm(a, 2),
    "matrix_norm 1": lambda lib, a, s: lib.linalg.matrix_norm(a, 1),
    "matrix_norm nuc": lambda lib, a, s: lib.linalg.matrix_norm(a, "nuc"),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_mode_sees_torch_ops_and_grad_fn(name):
    assert _seen(ember, CALLS[name]) == _seen(torch, CALLS[name])


@pytest.mark.parametrize("name", ["det", "slogdet", "inv", "solve", "cholesky", "qr", "svd",
                                  "svdvals", "eigh", "eigvalsh", "matrix_norm nuc"])  # fmt: skip
def test_gradients(name):
    def grads(lib):
        a = _matrix(lib, (3, 3)).requires_grad_()
        s = _spd(lib, (3, 3)).requires_grad_()
        result = CALLS[name](lib, a, s)
        outs = [r for r in _leaves(result) if r.requires_grad]
        if name in ("svd", "eigh"):  # sign-invariant uses of the vectors
            outs = [outs[1]] if name == "svd" else [outs[0]]
        total = sum(o.abs().sum() if o.dtype.is_floating_point else o.sum() for o in outs)
        return lib.autograd.grad(total, [a, s], allow_unused=True)

    e, t = grads(ember), grads(torch)
    for x, y in zip(e, t, strict=True):
        assert (x is None) == (y is None)
        if y is not None:
            np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-7, atol=1e-9)


def test_qr_deprecation_warning_and_values():
    from ember._c10 import warning

    warning._WARNED_ONCE.clear()  # TORCH_WARN_ONCE: a fresh process's first call
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        e = ember.qr(_matrix(ember, (4, 3)))
    t = torch.qr(_matrix(torch, (4, 3)))
    assert type(e).__name__ == type(t).__name__ == "qr"
    np.testing.assert_allclose(e.Q.numpy(), t.Q.numpy(), atol=1e-9)
    (message,) = [str(w.message) for w in caught]
    assert message.startswith("torch.qr is deprecated in favor of torch.linalg.qr")


def test_torch_svd_legacy_semantics():
    for some, compute_uv in ((True, True), (False, True), (True, False), (False, False)):
        e = ember.svd(_matrix(ember, (5, 3)), some=some, compute_uv=compute_uv)
        t = torch.svd(_matrix(torch, (5, 3)), some=some, compute_uv=compute_uv)
        assert type(e).__name__ == type(t).__name__ == "svd"
        for x, y in zip(e, t, strict=True):
            assert tuple(x.shape) == tuple(y.shape)
            assert tuple(x.stride()) == tuple(y.stride())
            np.testing.assert_allclose(x.numpy(), y.numpy(), atol=1e-9)


# -- matrix_power, vecdot, diagonal, eig -----------------------------------------------------


@pytest.mark.parametrize("n", [-3, -2, -1, 0, 1, 2, 3, 4, 7])
@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3), (0, 0)])
def test_matrix_power(n, shape):
    _compare(lambda lib: lib.linalg.matrix_power(_matrix(lib, shape), n), 1e-9)
    _compare(lambda lib: lib.matrix_power(_matrix(lib, shape), n), 1e-9)


def test_matrix_power_integers_and_out():
    _compare(lambda lib: lib.linalg.matrix_power(lib.ones(2, 2, dtype=lib.int64), 5))
    _compare(lambda lib: lib.linalg.matrix_power(lib.ones(2, 2, dtype=lib.int64), 0))
    _compare(lambda lib: lib.linalg.matrix_power(_matrix(lib, (3, 3)), 5,
                                                 out=lib.empty(0, dtype=lib.float64)), 1e-9)  # fmt: skip


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.linalg.matrix_power(lib.ones(2, 3), 2),
        lambda lib: lib.linalg.matrix_power(lib.ones(3), 2),
        lambda lib: lib.linalg.vecdot(lib.ones(3), lib.ones(3, dtype=lib.float64)),
        lambda lib: lib.linalg.eig(lib.tensor([[float("nan"), 1.0], [1.0, 1.0]])),
        lambda lib: lib.linalg.eigvals(lib.ones(3, 3, dtype=lib.int64)),
        lambda lib: lib.linalg.eig(lib.ones(2, 3)),
        lambda lib: lib.linalg.eig(lib.ones(3)),
    ],
)
def test_more_errors(call):
    _, e_error = _run(call, ember)
    _, t_error = _run(call, torch)
    assert t_error is not None
    assert (type(e_error).__name__, str(e_error)) == (type(t_error).__name__, str(t_error))


def test_vecdot_and_diagonal():
    _compare(lambda lib: lib.linalg.vecdot(_matrix(lib, (2, 3)), _matrix(lib, (3,), seed=1)), 1e-9)
    _compare(lambda lib: lib.linalg.vecdot(_matrix(lib, (2, 3), "complex128"),
                                           _matrix(lib, (2, 3), "complex128", seed=1), dim=0),
             1e-9)  # fmt: skip
    _compare(lambda lib: lib.linalg.diagonal(_matrix(lib, (2, 3, 4)), offset=-1, dim1=0, dim2=2))


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (0, 0), (1, 1)])
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_eig_values_and_reconstruction(shape, dtype):
    """Eigenvalues in LAPACK's order; eigenvectors unit-norm columns with A V = V diag(L)
    (their signs are the LAPACK build's)."""
    rtol = 1e-4 if dtype == "float32" else 1e-9
    _compare(lambda lib: lib.linalg.eigvals(_matrix(lib, shape, dtype)), rtol)
    e = ember.linalg.eig(_matrix(ember, shape, dtype))
    t = torch.linalg.eig(_matrix(torch, shape, dtype))
    assert type(e).__name__ == type(t).__name__ == "linalg_eig"
    for x, y in zip(e, t, strict=True):
        assert tuple(x.shape) == tuple(y.shape)
        assert tuple(x.stride()) == tuple(y.stride())
        assert x.dtype.name == str(y.dtype).removeprefix("torch.")
    a = _matrix(torch, shape, dtype).numpy()
    v, w = e.eigenvectors.numpy(), e.eigenvalues.numpy()
    np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=rtol * 10)


def test_eig_mode_and_grad_fn():
    assert _seen(ember, lambda lib, a, s: lib.linalg.eig(a)) == _seen(
        torch, lambda lib, a, s: lib.linalg.eig(a)
    )
    assert _seen(ember, lambda lib, a, s: lib.linalg.eigvals(a)) == _seen(
        torch, lambda lib, a, s: lib.linalg.eigvals(a)
    )

    def no_grad(lib):
        return lib.linalg.eigvals(_matrix(lib, (3, 3)))

    _compare(no_grad, 1e-9)


def test_eigvals_gradient():
    def grads(lib):
        a = _matrix(lib, (3, 3)).requires_grad_()
        return lib.autograd.grad(lib.linalg.eigvals(a).abs().sum(), a)[0]

    np.testing.assert_allclose(grads(ember).numpy(), grads(torch).numpy(), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unitriangular", [True, False])
@pytest.mark.parametrize(("sa", "sb"), [((3, 3), (3, 3)), ((2, 3, 3), (3, 3)), ((3, 3), (2, 3, 3))])
def test_solve_triangular(upper, left, unitriangular, sa, sb):
    def call(lib):
        a = _matrix(lib, sa)
        return lib.linalg.solve_triangular(a, _matrix(lib, sb, seed=1), upper=upper, left=left,
                                           unitriangular=unitriangular)  # fmt: skip

    _compare(call, 1e-9)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.linalg.solve_triangular(lib.eye(3), lib.ones(3), upper=True),
        lambda lib: lib.linalg.solve_triangular(lib.eye(3), lib.ones(4, 2), upper=True),
        lambda lib: lib.linalg.solve_triangular(lib.ones(2, 3), lib.ones(3, 2), upper=True),
        lambda lib: lib.linalg.solve_triangular(
            lib.eye(3, dtype=lib.int64), lib.ones(3, 2, dtype=lib.int64), upper=True
        ),
    ],
)
def test_solve_triangular_errors(call):
    _, e_error = _run(call, ember)
    _, t_error = _run(call, torch)
    assert t_error is not None
    assert (type(e_error).__name__, str(e_error)) == (type(t_error).__name__, str(t_error))


def test_cholesky_and_qr_backward_see_solve_triangular():
    def ops(lib):
        base = TorchDispatchMode if lib is ember else torch.utils._python_dispatch.TorchDispatchMode

        class Record(base):
            def __init__(self):
                super().__init__()
                self.ops = []

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                self.ops.append(str(func).removeprefix("aten."))
                return func(*args, **(kwargs or {}))

        s = _spd(lib, (3, 3)).requires_grad_()
        loss = lib.linalg.cholesky(s).sum()
        with Record() as mode:
            lib.autograd.grad(loss, s)
        return [op for op in mode.ops if "solve" in op]

    assert ops(ember) == ops(torch)
