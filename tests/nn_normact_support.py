"""Helpers of the nn.functional tests: one program run under ember and torch, compared.

`compare_autograd(fn, arrays)` builds float64 leaves from the same NumPy arrays in both
libraries, runs `fn(lib, *leaves)` under a TorchDispatchMode, then its backward (and, with
`double=True`, the backward of the gradients' sum, create_graph=True), and checks that
values, gradients, the grad_fn's name and the operators each stage dispatched agree.
`same_error(fn)` checks that both raise the same exception type and message.
"""

from __future__ import annotations

import warnings

import numpy as np
from oracle import torch

import ember


def _recorder(lib):
    if lib is ember:
        from ember.utils._python_dispatch import TorchDispatchMode
    else:
        from torch.utils._python_dispatch import TorchDispatchMode

    class Recorder(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.ops = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.ops.append(str(func))
            return func(*args, **(kwargs or {}))

    return Recorder


def _numpy(t):
    return None if t is None else np.asarray(t.detach().numpy())


def _run(lib, fn, arrays, double, dtype):
    recorder = _recorder(lib)
    leaves = [lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True) for a in arrays]
    stages = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with recorder() as mode:
            result = fn(lib, *leaves)
        stages["forward"] = mode.ops
        name = type(result.grad_fn).__name__
        with recorder() as mode:
            grads = lib.autograd.grad(result.sum(), leaves, create_graph=double, allow_unused=True)
        stages["backward"] = mode.ops
        second = None
        if double:
            total = sum(g.sum() for g in grads if g is not None and g.requires_grad)
            with recorder() as mode:
                second = lib.autograd.grad(total, leaves, allow_unused=True)
            stages["double"] = mode.ops
    return {
        "value": _numpy(result),
        "dtype": str(result.dtype).removeprefix("torch.").removeprefix("ember."),
        "name": name,
        "grads": [_numpy(g) for g in grads],
        "second": None if second is None else [_numpy(g) for g in second],
        "stages": stages,
    }


def _close(a, b, rtol, atol):
    if a is None or b is None:
        assert a is None and b is None
        return
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)


def compare_autograd(fn, arrays, *, double=False, ops=True, rtol=1e-7, atol=1e-7,
                     dtype="float64"):  # fmt: skip
    e = _run(ember, fn, arrays, double, dtype)
    t = _run(torch, fn, arrays, double, dtype)
    assert e["name"] == t["name"]
    assert e["dtype"] == t["dtype"]
    _close(e["value"], t["value"], rtol, atol)
    for a, b in zip(e["grads"], t["grads"], strict=True):
        _close(a, b, rtol, atol)
    if double:
        for a, b in zip(e["second"], t["second"], strict=True):
            _close(a, b, 10 * rtol, 10 * atol)
    if ops:  # True: every stage; "first": the forward and the first backward only
        for stage in e["stages"] if ops is True else ("forward", "backward"):
            assert e["stages"][stage] == t["stages"][stage], stage
    return e, t


def _outcome(fn, lib):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(lib), None
    except Exception as error:  # noqa: BLE001 (compared with torch's)
        return None, error


def same_error(fn):
    """Both libraries raise: the same exception type and message."""
    _, e_error = _outcome(fn, ember)
    _, t_error = _outcome(fn, torch)
    assert t_error is not None, "torch did not raise"
    assert type(e_error).__name__ == type(t_error).__name__, (e_error, t_error)
    # ember names its own types (ember.Size) where torch prints torch.Size: See Note
    # [The name ember prints]
    assert str(e_error).replace("ember.", "torch.") == str(t_error)


def same_values(fn, rtol=1e-7, atol=1e-7):
    """Both return a tensor with the same dtype, shape and (close) values."""
    e, e_error = _outcome(fn, ember)
    t, t_error = _outcome(fn, torch)
    assert e_error is None and t_error is None, (e_error, t_error)
    assert str(e.dtype).removeprefix("ember.") == str(t.dtype).removeprefix("torch.")
    assert tuple(e.shape) == tuple(t.shape)
    a, b = e.detach(), t.detach()
    if "bfloat16" in str(t.dtype):
        a, b = a.float(), b.float()
    _close(_numpy(a), _numpy(b), rtol, atol)
    return e, t
