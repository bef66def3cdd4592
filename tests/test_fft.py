"""torch.fft against PyTorch 2.13, beyond the OpInfo samples: every transform with n / s,
dim and norm (truncated and zero-padded signals), result dtypes (float32 stays complex64),
PyTorch's errors, out=, fftfreq / rfftfreq, fftshift, the operators a TorchDispatchMode sees
and the grad_fn names (values to pocketfft-versus-MKL rounding)."""

import warnings

import numpy as np
import pytest
from oracle import torch

import ember
from ember.utils._python_dispatch import TorchDispatchMode


def _signal(lib, shape, dtype="float64", seed=0):
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        values = values + 1j * rng.standard_normal(shape)
    return lib.tensor(values, dtype=getattr(lib, dtype))


def _run(fn, lib):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(lib), None
    except Exception as error:  # noqa: BLE001 (compared with torch's)
        return None, error


def _compare(fn, rtol=1e-9):
    e, e_error = _run(fn, ember)
    t, t_error = _run(fn, torch)
    if e_error is not None or t_error is not None:
        assert type(e_error).__name__ == type(t_error).__name__, (e_error, t_error)
        assert str(e_error) == str(t_error)
        return
    assert tuple(e.shape) == tuple(t.shape)
    assert e.dtype.name == str(t.dtype).removeprefix("torch.")
    assert e.is_conj() == t.is_conj()
    np.testing.assert_allclose(
        e.resolve_conj().numpy(), t.resolve_conj().numpy(), rtol=rtol, atol=rtol
    )


ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
COMPLEX_IN = {"irfft", "hfft"}


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("n", [None, 3, 8, 11])
@pytest.mark.parametrize("norm", [None, "backward", "forward", "ortho"])
@pytest.mark.parametrize("dim", [-1, 0])
def test_one_dimensional(name, n, norm, dim):
    dtype = "complex128" if name in COMPLEX_IN else "float64"
    _compare(lambda lib: getattr(lib.fft, name)(_signal(lib, (5, 6), dtype), n=n, dim=dim,
                                                 norm=norm))  # fmt: skip


@pytest.mark.parametrize("name", ["fft", "ifft"])
def test_complex_input(name):
    _compare(lambda lib: getattr(lib.fft, name)(_signal(lib, (3, 4), "complex128"), n=6))


N_D = ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
       "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]  # fmt: skip


@pytest.mark.parametrize("name", N_D)
@pytest.mark.parametrize(
    ("s", "dim"), [(None, None), ([3, 5], None), ([4, -1], (0, 2)), (None, (0, 1)), ([2], (1,))]
)  # fmt: skip
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_n_dimensional(name, s, dim, norm):
    dtype = "complex128" if name.startswith(("irfft", "hfft")) else "float64"
    kwargs = {"s": s, "norm": norm}
    if dim is not None:
        kwargs["dim"] = dim
    elif name.endswith("2"):
        kwargs["dim"] = (-2, -1) if s is None or len(s) == 2 else (-1,)
    _compare(lambda lib: getattr(lib.fft, name)(_signal(lib, (3, 4, 5), dtype), **kwargs))


@pytest.mark.parametrize("name", ["fft", "rfft", "ihfft", "fft2", "rfftn"])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_result_dtypes(name, dtype):
    def call(lib):
        x = _signal(lib, (3, 4)) * 4
        return getattr(lib.fft, name)(x.to(getattr(lib, dtype)))

    _compare(call, rtol=1e-4)


ERRORS = [
    lambda lib: lib.fft.fft(lib.ones(4), norm="foo"),
    lambda lib: lib.fft.fft(lib.ones(4), n=0),
    lambda lib: lib.fft.rfft(lib.ones(4, dtype=lib.complex64)),
    lambda lib: lib.fft.fft(lib.ones(4, dtype=lib.float16)),
    lambda lib: lib.fft.fft(lib.ones(4), dim=3),
    lambda lib: lib.fft.fftn(lib.ones(4), s=[2, 2]),
    lambda lib: lib.fft.fftn(lib.ones(2, 2), dim=[0, 0]),
    lambda lib: lib.fft.fftn(lib.ones(2, 2), s=[2], dim=[0, 1]),
    lambda lib: lib.fft.rfft(lib.ones(4), out=lib.empty(0)),
    lambda lib: lib.fft.irfft(
        lib.ones(4, dtype=lib.complex64), out=lib.empty(0, dtype=lib.complex64)
    ),  # fmt: skip
    lambda lib: lib.fft.fftfreq(4, dtype=lib.int64),
    lambda lib: lib.fft.rfftn(lib.ones(4), dim=[]),
    lambda lib: lib.fft.fft(lib.tensor(1.0)),
    lambda lib: lib.fft.irfft(lib.ones(1, dtype=lib.complex64)),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors(index):
    _, e_error = _run(ERRORS[index], ember)
    _, t_error = _run(ERRORS[index], torch)
    assert t_error is not None
    assert type(e_error).__name__ == type(t_error).__name__, (e_error, t_error)
    assert str(e_error) == str(t_error)


def test_out():
    def rfft(lib):
        out = lib.empty(0, dtype=lib.complex128)
        result = lib.fft.rfft(_signal(lib, (4, 6)), out=out)
        assert result is out
        return out

    _compare(rfft)
    _compare(lambda lib: lib.fft.fft(_signal(lib, (4, 6)), out=lib.empty(0, dtype=lib.complex128)))
    _compare(lambda lib: lib.fft.ifft(_signal(lib, (4, 6)), out=lib.empty(0, dtype=lib.complex128)))
    _compare(lambda lib: lib.fft.irfft(_signal(lib, (4, 6), "complex128"),
                                       out=lib.empty(0, dtype=lib.float64)))  # fmt: skip
    _compare(lambda lib: lib.fft.fft2(_signal(lib, (4, 6)), out=lib.empty(0, dtype=lib.complex128)))
    _compare(
        lambda lib: lib.fft.ihfftn(_signal(lib, (4, 6)), out=lib.empty(0, dtype=lib.complex128))
    )


@pytest.mark.parametrize("n", [1, 4, 5, 8])
@pytest.mark.parametrize("d", [1.0, 0.25])
@pytest.mark.parametrize("dtype", [None, "float64", "complex64"])
def test_fftfreq(n, d, dtype):
    def kwargs(lib):
        return {} if dtype is None else {"dtype": getattr(lib, dtype)}

    _compare(lambda lib: lib.fft.fftfreq(n, d, **kwargs(lib)), rtol=1e-6)
    _compare(lambda lib: lib.fft.rfftfreq(n, d, **kwargs(lib)), rtol=1e-6)
    _compare(lambda lib: lib.fft.fftfreq(n, d, out=lib.empty(0, dtype=lib.float64)), rtol=1e-6)


@pytest.mark.parametrize("dim", [None, 0, (1,), (0, -1)])
@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
def test_shifts(name, dim):
    _compare(lambda lib: getattr(lib.fft, name)(_signal(lib, (3, 4)), dim=dim))


def _seen(lib, fn):
    base = TorchDispatchMode if lib is ember else torch.utils._python_dispatch.TorchDispatchMode

    class Record(base):
        def __init__(self):
            super().__init__()
            self.ops = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.ops.append(str(func).removeprefix("aten."))
            return func(*args, **(kwargs or {}))

    real = _signal(lib, (4, 6)).requires_grad_()
    cplx = _signal(lib, (4, 6), "complex128").requires_grad_()
    with Record() as mode:
        result = fn(lib, real, cplx)
    return mode.ops, type(result.grad_fn).__name__ if result.grad_fn is not None else None


CALLS = {
    "fft real": lambda lib, r, c: lib.fft.fft(r),
    "fft complex": lambda lib, r, c: lib.fft.fft(c),
    "ifft complex": lambda lib, r, c: lib.fft.ifft(c),
    "rfft": lambda lib, r, c: lib.fft.rfft(r),
    "irfft": lambda lib, r, c: lib.fft.irfft(c),
    "fft2 real": lambda lib, r, c: lib.fft.fft2(r),
    "rfftn": lambda lib, r, c: lib.fft.rfftn(r),
    "irfftn": lambda lib, r, c: lib.fft.irfftn(c),
    "fftshift": lambda lib, r, c: lib.fft.fftshift(r),
    "fft truncated": lambda lib, r, c: lib.fft.fft(c, n=3),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_mode_sees_torch_ops_and_grad_fn(name):
    assert _seen(ember, CALLS[name]) == _seen(torch, CALLS[name])


def test_fftfreq_is_one_operator():
    assert _seen(ember, lambda lib, r, c: lib.fft.fftfreq(4))[0] == ["fft_fftfreq.default"]
    assert _seen(torch, lambda lib, r, c: lib.fft.fftfreq(4))[0] == ["fft_fftfreq.default"]


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2",
                                  "rfft2", "irfftn", "hfftn", "ihfftn"])  # fmt: skip
@pytest.mark.parametrize("n", [None, 4, 9])
def test_gradients(name, n):
    def grads(lib):
        dtype = "complex128" if name.startswith(("irfft", "hfft")) else "float64"
        x = _signal(lib, (3, 6), dtype).requires_grad_()
        kwargs = {} if n is None else ({"n": n} if name[-1] not in "2n" else {"s": [3, n]})
        y = getattr(lib.fft, name)(x, **kwargs)
        w = _signal(lib, tuple(y.shape), str(y.dtype).split(".")[-1], seed=2)
        loss = (y * w).abs().sum() if y.dtype.is_complex else (y * w).sum()
        return lib.autograd.grad(loss, x)[0]

    e, t = grads(ember), grads(torch)
    np.testing.assert_allclose(
        e.resolve_conj().numpy(), t.resolve_conj().numpy(), rtol=1e-8, atol=1e-9
    )
