"""Helpers of the linalg breadth tests (tests/test_linalg_breadth*.py): the same call run in
ember and in PyTorch 2.13, compared for values, shapes, strides, dtypes and errors (type and
text); gradients and grad_fn names; the operators a TorchDispatchMode sees."""

import warnings

import numpy as np
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
