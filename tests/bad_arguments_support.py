"""Shared helpers of the bad-argument tests: run one source under ember and torch, compare.

``check(source)`` evaluates ``source`` with ``torch`` bound to each library (``t`` a
float and ``ti`` an int64 2x3 tensor, ``F`` the functional module, ``np``): both
must raise the same exception type with the same message (``ember`` read as
``torch``, C++ back-traces cut: bad_args_sweep.normalise), or return equal values.
"""

from __future__ import annotations

import warnings

import numpy as np
from bad_args_sweep import normalise  # noqa: E402
from oracle import torch

import ember


class UserObject:
    """A Python class: CPython names it by its bare name in TypeErrors."""


def outcome(lib, source: str):
    env = {"torch": lib, "F": lib.nn.functional, "np": np, "UserObject": UserObject}
    env["t"] = lib.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    env["ti"] = lib.tensor([[0, 1, 2], [3, 4, 5]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return eval(source, env), None
        except Exception as error:  # noqa: BLE001 (compared with torch's)
            return None, error


def describe(value):
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        if value.device.type == "meta":
            return ("meta", tuple(value.shape), str(value.dtype).split(".")[-1])
        values = None
        if value.numel() <= 1000:  # repr: nan equals nan
            plain = value.detach()
            plain = plain.float() if str(plain.dtype).endswith("bfloat16") else plain
            values = repr(plain.tolist())
        return (tuple(value.shape), str(value.dtype).split(".")[-1], values)
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [describe(v) for v in value]
    if type(value).__module__.split(".")[0] in ("ember", "torch"):  # a dtype, a device, a Size
        return normalise(repr(value))
    return value


def check(source: str):
    """``source`` does the same under both libraries (see the module docstring)."""
    ours, our_error = outcome(ember, source)
    theirs, their_error = outcome(torch, source)
    if their_error is None and our_error is None:
        assert describe(ours) == describe(theirs), source
        return
    assert type(our_error).__name__ == type(their_error).__name__, (source, our_error, their_error)
    assert normalise(str(our_error)) == normalise(str(their_error)), source
