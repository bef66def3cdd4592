"""Python numbers stored into tensors of every dtype, against PyTorch 2.13.

c10's Scalar::to<T> (checked_convert) decides what fill_, full, masked_fill and
clamp store or refuse: a complex with a nonzero imaginary part is refused for a
real dtype but is True for bool, a float truncates toward zero for an integer
dtype, NaN is True for bool and refused for integers. at::scalar_tensor (used
by ``where`` with a number and by ``tensor[i] = number``) relaxes the cast for
half and bfloat16: a value out of range is inf, not an error.
"""

import math

import numpy as np
import pytest
from ops_support import same_outcome

DTYPES = [
    "bool", "uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32", "float64",
    "complex64",
]  # fmt: skip
VALUES = [
    1j, 0j, 0.5, -0.5, 2.7, -2.7, 1e10, -1e10, 300, -1, 2**63 - 1, -(2**63), math.nan,
    math.inf, -math.inf, True, False, 0.0, -0.0, 1 + 1j, 0.5 + 0j, 1e39, 70000.0, 65504.0,
    65520.0,
]  # fmt: skip


def _setitem(lib, dtype, value):
    t = lib.zeros(2, dtype=dtype)
    t[0] = value
    return t


def _masked_setitem(lib, dtype, value):
    t = lib.zeros(2, dtype=dtype)
    t[lib.tensor([True, False])] = value
    return t


OPS = {
    "fill_": lambda lib, d, v: lib.zeros(2, dtype=d).fill_(v),
    "full": lambda lib, d, v: lib.full((2,), v, dtype=d),
    "masked_fill": lambda lib, d, v: lib.zeros(2, dtype=d).masked_fill(lib.tensor([True, False]), v),
    "masked_fill_": lambda lib, d, v: lib.zeros(2, dtype=d).masked_fill_(lib.tensor([1, 0]) > 0, v),
    "where(c, t, v)": lambda lib, d, v: lib.where(lib.tensor([True, False]), lib.zeros(2, dtype=d), v),
    "where(c, v, t)": lambda lib, d, v: lib.where(lib.tensor([True, False]), v, lib.zeros(2, dtype=d)),
    "clamp(min=v)": lambda lib, d, v: lib.zeros(2, dtype=d).clamp(min=v),
    "clamp(max=v)": lambda lib, d, v: lib.zeros(2, dtype=d).clamp(max=v),
    "clamp(v, v)": lambda lib, d, v: lib.zeros(2, dtype=d).clamp(v, v),
    "clamp_(min=v)": lambda lib, d, v: lib.zeros(2, dtype=d).clamp_(min=v),
    "t[0] = v": _setitem,
    "t[mask] = v": lambda lib, d, v: _masked_setitem(lib, d, v),
}  # fmt: skip


def _complex32(op, dtype, value):
    """where(half, complex) promotes to complex32, which ember cannot store (it says so)."""
    return op.startswith("where") and dtype == "float16" and isinstance(value, complex)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", sorted(OPS))
def test_numbers_into_tensors(op, dtype):
    for value in VALUES:
        if _complex32(op, dtype, value):
            continue
        ours, theirs = same_outcome(lambda lib, v=value: OPS[op](lib, getattr(lib, dtype), v))
        if theirs is not None and theirs.dtype.is_floating_point:
            signs = np.signbit(theirs.float().numpy())  # -0.0 and 0.0 are different values
            np.testing.assert_array_equal(np.signbit(ours.float().numpy()), signs, f"{value}")
