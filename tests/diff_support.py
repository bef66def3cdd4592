"""Helpers of the wSHAPEIDX differential tests: the same program on ember and torch.

`grads_agree(fn, make)` runs `fn(lib, *inputs)` on float64 inputs that require grad,
back-propagates the same random cotangents and compares the outputs, the grad_fn names
and the input gradients. `ops_seen(fn, lib)` lists the aten overloads a
__torch_dispatch__ mode sees while `fn(lib)` runs.
"""

from __future__ import annotations

import numpy as np
from oracle import torch

import ember
from ember.utils import _python_dispatch as ember_dispatch


def _leaves(x):
    if isinstance(x, (list, tuple)):
        return [t for item in x for t in _leaves(item)]
    return [x] if hasattr(x, "grad_fn") else []


def grads_agree(fn, arrays, rtol=1e-7, atol=1e-10) -> None:
    """fn(lib, *tensors) on float64 copies of `arrays` (NumPy), requiring grad."""
    results = {}
    for lib in (torch, ember):
        inputs = [lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in arrays]
        outs = [t for t in _leaves(fn(lib, *inputs)) if t.requires_grad]
        rng = np.random.default_rng(0)
        cotangents = [lib.tensor(rng.standard_normal(tuple(t.shape))) for t in outs]
        grads = lib.autograd.grad(outs, inputs, cotangents, allow_unused=True)
        names = [type(t.grad_fn).__name__ for t in outs]
        values = [t.detach().numpy() for t in outs]
        results[lib] = (names, values, [None if g is None else g.numpy() for g in grads])
    (t_names, t_values, t_grads), (e_names, e_values, e_grads) = results[torch], results[ember]
    assert e_names == t_names
    for a, b in zip(e_values, t_values):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
    for a, b in zip(e_grads, t_grads):
        if b is None:
            assert a is None or not np.any(a)
        else:
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def ops_seen(fn, lib) -> list:
    if lib is ember:
        mode_module = ember_dispatch
    else:
        import torch.utils._python_dispatch as mode_module

    seen = []

    class Recorder(mode_module.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    with Recorder():
        fn(lib)
    return seen
