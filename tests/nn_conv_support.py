"""Helpers of the nn layer tests (conv, pooling, padding, interpolation): the same call
under ember and torch on the same data, with values, gradients, the operators a
dispatch mode sees and errors compared."""

import warnings

import numpy as np
from oracle import torch

import ember
from ember.utils._python_dispatch import TorchDispatchMode as EmberMode


class _TorchRecorder(torch.utils._python_dispatch.TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))


class _EmberRecorder(EmberMode):
    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))


def recorder(lib):
    return _EmberRecorder() if lib is ember else _TorchRecorder()


def tensors(lib, arrays, requires_grad=False):
    return [
        None if a is None else lib.tensor(a).requires_grad_(requires_grad and a.dtype.kind == "f")
        for a in arrays
    ]


def to_numpy(t):
    return None if t is None else t.detach().numpy()


def run(lib, fn, arrays, requires_grad=False, seed_grad=None):
    """(output arrays, input-gradient arrays, grad_fn name) of fn(lib, *tensors)."""
    inputs = tensors(lib, arrays, requires_grad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(lib, *inputs)
    first = out[0] if isinstance(out, tuple) else out
    grads = None
    name = None if first.grad_fn is None else first.grad_fn.name()
    if requires_grad:
        g = lib.tensor(seed_grad) if seed_grad is not None else lib.ones_like(first)
        first.backward(g)
        grads = [None if t is None else to_numpy(t.grad) for t in inputs]
    outs = out if isinstance(out, tuple) else (out,)
    return [to_numpy(o) for o in outs], grads, name


def assert_close(e, t, dtype):
    if e is None or t is None:
        assert e is None and t is None
        return
    assert e.shape == t.shape, (e.shape, t.shape)
    assert e.dtype == t.dtype, (e.dtype, t.dtype)
    if dtype == np.float64:
        np.testing.assert_allclose(e, t, rtol=1e-7, atol=1e-7)
    elif dtype == np.float32:
        np.testing.assert_allclose(e, t, rtol=1.3e-6 * 10, atol=1e-5)
    else:
        np.testing.assert_array_equal(e, t)


def compare(fn, arrays, requires_grad=False, seed=0):
    """fn under both libraries: outputs, gradients and grad_fn names agree."""
    dtype = arrays[0].dtype
    e_out, e_grads, e_name = run(ember, fn, arrays, requires_grad)
    t_out, t_grads, t_name = run(torch, fn, arrays, requires_grad)
    assert e_name == t_name
    assert len(e_out) == len(t_out)
    for a, b in zip(e_out, t_out, strict=True):
        assert_close(a, b, dtype if b.dtype.kind == "f" else b.dtype)
    if requires_grad:
        for a, b in zip(e_grads, t_grads, strict=True):
            assert_close(a, b, dtype)
    return e_out


def same_error(fn):
    """fn(lib) raises the same exception type and message in both (or neither raises)."""
    outcomes = []
    for lib in (ember, torch):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = fn(lib)
            outcomes.append((None, None, tuple(result.shape)))
        except Exception as error:  # noqa: BLE001 (compared with torch's)
            outcomes.append((type(error).__name__, str(error), None))
    assert outcomes[0] == outcomes[1], outcomes


def seen_ops(fn, arrays):
    """(forward ops, backward ops) a dispatch mode records, in ember and torch."""
    result = []
    for lib in (ember, torch):
        inputs = tensors(lib, arrays, True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with recorder(lib) as forward:
                out = fn(lib, *inputs)
                out = out[0] if isinstance(out, tuple) else out
            grad = lib.ones_like(out)
            with recorder(lib) as backward:
                out.backward(grad)
        result.append((forward.ops, backward.ops))
    return result


def rng_arrays(seed, *shapes, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return [None if s is None else rng.standard_normal(s).astype(dtype) for s in shapes]
