"""Helpers of the vmap tests: run one program against ember and PyTorch and compare.

Layer: tests. ``same(program)`` calls ``program(lib)`` with ``lib`` = ember and = torch (the
oracle) and compares what each returned -- tensors by values (PyTorch's float tolerances),
dtype, shape; containers element by element; anything else by ``==`` -- or, when one
raised, the exception types and messages.
"""

from __future__ import annotations

import numpy as np
from oracle import torch

import ember


def outcome(program, lib):
    try:
        return "ok", program(lib)
    except Exception as error:  # noqa: BLE001 (the error is the outcome compared)
        return "error", (type(error).__name__, str(error))


def _plain(value):
    """Tensors as (dtype name, shape, values); containers recursively."""
    if isinstance(value, (ember.Tensor, torch.Tensor)):
        array = value.detach().numpy() if hasattr(value, "detach") else value.numpy()
        return ("tensor", str(value.dtype).split(".")[-1], tuple(value.shape), array)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_plain(v) for v in value])
    if isinstance(value, dict):
        return ("dict", {k: _plain(v) for k, v in value.items()})
    return value


def assert_same_values(ours, theirs, rtol=1.3e-6, atol=1e-5) -> None:
    a, b = _plain(ours), _plain(theirs)
    _compare(a, b, rtol, atol)


def _compare(a, b, rtol, atol) -> None:
    if isinstance(a, tuple) and a and a[0] == "tensor":
        assert isinstance(b, tuple) and b[0] == "tensor", (a, b)
        assert a[1:3] == b[1:3], (a[1:3], b[1:3])
        np.testing.assert_allclose(a[3], b[3], rtol=rtol, atol=atol, equal_nan=True)
    elif isinstance(a, tuple) and len(a) == 2 and isinstance(a[1], list):
        assert a[0] == b[0] and len(a[1]) == len(b[1]), (a, b)
        for x, y in zip(a[1], b[1]):
            _compare(x, y, rtol, atol)
    elif isinstance(a, tuple) and a and a[0] == "dict":
        assert a[1].keys() == b[1].keys()
        for k in a[1]:
            _compare(a[1][k], b[1][k], rtol, atol)
    else:
        assert a == b, (a, b)


def same(program, **tolerances):
    """``program(lib)`` under ember and under PyTorch: the same values, or the same error."""
    ours, theirs = outcome(program, ember), outcome(program, torch)
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "error":
        assert ours[1] == theirs[1]
    else:
        assert_same_values(ours[1], theirs[1], **tolerances)
    return ours[1]
