"""ufunc inner loops of the bitwise operators: and, or, xor, not, left and right shift.

Layer: aten (CPU backend). In: a StructuredMeta (its compute_dtype), the
input tensors and the output tensor, shaped by the meta function. Out: the
values written into the output's NumPy view. Mirrors bitwise_and_kernel and
friends, lshift_kernel and rshift_kernel of ATen/native/cpu/BinaryOpsKernel.cpp
and bitwise_not_kernel of UnaryOpsKernel.cpp: integers and bool only (bool
shifts are refused), and C++ shift semantics, which NumPy leaves undefined:

* `a << b` is 0 when b is negative (read as signed) or at least the width in
  bits; else `(unsigned) a << b`, wrapped back into the type.
* `a >> b` is `a >> (width - 1)` for signed types (the sign fill) and 0 for
  unsigned ones when b is negative or at least that limit; else `a >> b`.

aten/ufunc.py re-exports these, so the generated kernels reach them as `U.<name>`.
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember.aten.ufunc_special import not_implemented_for, operand

__all__ = [
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_not",
    "bitwise_left_shift",
    "bitwise_right_shift",
]


def _integral(dtype) -> bool:
    return not (dtype.is_floating_point or dtype.is_complex or dtype is dtypes.bool)


def _operands(meta, self, other, kernel: str, *, bool_ok: bool):
    """Both operands cast (as C++ casts, wrapping) into the compute dtype."""
    dtype = meta.compute_dtype
    if not (_integral(dtype) or (bool_ok and dtype is dtypes.bool)):
        not_implemented_for(kernel, dtype)
    compute = dtype.np_dtype
    a = np.asarray(operand(self)).astype(compute, copy=False)
    b = np.asarray(operand(other)).astype(compute, copy=False)
    return a, b, compute


def _logic(ufunc, kernel: str):
    def formula(meta, self, other, out) -> None:
        a, b, _ = _operands(meta, self, other, kernel, bool_ok=True)
        ufunc(a, b, out=out.ndarray(), casting="unsafe")

    formula.__name__ = ufunc.__name__
    return formula


bitwise_and = _logic(np.bitwise_and, "bitwise_and_cpu")
bitwise_or = _logic(np.bitwise_or, "bitwise_or_cpu")
bitwise_xor = _logic(np.bitwise_xor, "bitwise_xor_cpu")


def bitwise_not(meta, self, out) -> None:
    dtype = meta.compute_dtype
    values = self.ndarray()
    if dtype is dtypes.bool:
        np.logical_not(values, out=out.ndarray(), casting="unsafe")
        return
    if not _integral(dtype) or dtype in dtypes.BAREBONES_UNSIGNED:
        not_implemented_for("bitwise_not_cpu", dtype)
    np.invert(values.astype(dtype.np_dtype, copy=False), out=out.ndarray(), casting="unsafe")


def _bits(compute) -> tuple[int, np.dtype, np.dtype]:
    """(width in bits, the signed and the unsigned integer type of that width)."""
    size = compute.itemsize
    return 8 * size, np.dtype(f"i{size}"), np.dtype(f"u{size}")


def bitwise_left_shift(meta, self, other, out) -> None:
    a, b, compute = _operands(meta, self, other, "lshift_cpu", bool_ok=False)
    width, signed, unsigned = _bits(compute)
    outside = (b.astype(signed) < 0) | (b >= width)
    shift = np.where(outside, 0, b).astype(unsigned)
    shifted = np.left_shift(a.astype(unsigned), shift)
    result = np.where(outside, unsigned.type(0), shifted).astype(compute)
    np.copyto(out.ndarray(), result, casting="unsafe")


def bitwise_right_shift(meta, self, other, out) -> None:
    a, b, compute = _operands(meta, self, other, "rshift_cpu", bool_ok=False)
    width, signed, _ = _bits(compute)
    is_signed = compute.kind == "i"
    limit = width - 1 if is_signed else width
    outside = (b.astype(signed) < 0) | (b >= limit)
    # width - 1 is the sign fill of a signed type; an unsigned one's result is replaced below
    shift = np.where(outside, width - 1, b).astype(compute)
    result = np.right_shift(a, shift)
    if not is_signed:  # a >> width is 0 for an unsigned type
        result = np.where(outside, compute.type(0), result)
    np.copyto(out.ndarray(), result, casting="unsafe")
