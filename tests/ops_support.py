"""Shared helpers of the operator tests: run the same program under ember and torch, compare.

`same_outcome(fn)` calls `fn(ember)` and `fn(torch)`: both must raise the same
error type with the same text, or both return tensors with the same geometry,
dtype, device and values (lists and tuples element by element).
"""

import warnings

import numpy as np
from oracle import torch

import ember


def _values(t):
    if t.device.type == "meta":
        return None
    if str(t.dtype).endswith("bfloat16"):
        t = t.float()
    return np.asarray(t.numpy())


def same(e, t, values=True):
    """ember tensor ``e`` matches torch tensor ``t``: geometry, dtype, device, values."""
    assert tuple(e.shape) == tuple(t.shape)
    assert tuple(e.stride()) == tuple(t.stride())
    assert e.dtype.name == str(t.dtype).removeprefix("torch.")
    assert e.device.type == t.device.type
    if values and t.device.type != "meta":
        np.testing.assert_array_equal(_values(e), _values(t))


def outcome(fn, lib):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(lib), None
    except Exception as error:  # noqa: BLE001 (compared with torch's)
        return None, error


def same_outcome(fn, values=True):
    """Returns the two results (None, None when both raised the same error)."""
    e, e_error = outcome(fn, ember)
    t, t_error = outcome(fn, torch)
    if t_error is not None or e_error is not None:
        assert type(e_error).__name__ == type(t_error).__name__, (e_error, t_error)
        assert str(e_error) == str(t_error)
        return None, None
    if isinstance(t, (list, tuple)) and all(hasattr(item, "shape") for item in t):
        assert len(e) == len(t)
        for a, b in zip(e, t):
            same(a, b, values)
    elif hasattr(t, "shape"):
        same(e, t, values)
    else:
        assert e == t
    return e, t
