"""How the unary math kernels run: the dtypes each one accepts, opmath, the rounding store.

Layer: aten/native (CPU). In: a StructuredMeta (its compute_dtype), the input tensor and
the output tensor the meta function shaped. Out: the formula's values in the output.
Mirrors the AT_DISPATCH_* lists and cpu_kernel loops of ATen/native/cpu/UnaryOpsKernel.cpp:
half and bfloat16 compute in float32 and round once when stored (at::opmath_type), an
integer input was already cast to the result's float dtype by TensorIterator, and a dtype
a kernel's dispatch list lacks is refused with PyTorch's "not implemented for" message.
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember.aten.memory_overlap import check_tensor_iterator
from ember.aten.ufunc_loops import quiet, store
from ember.aten.ufunc_special import not_implemented_for, operand, opmath

__all__: list[str] = []

_REDUCED = (dtypes.float16, dtypes.bfloat16)


def check_dtype(kernel: str, dtype, *, reduced=True, complex_ok=False, integral=False) -> None:
    """Refuse what the kernel's AT_DISPATCH list does not name (floating types always)."""
    if dtype.is_complex:
        if not complex_ok:
            not_implemented_for(kernel, dtype)
    elif dtype.is_floating_point:
        if dtype in _REDUCED and not reduced:
            not_implemented_for(kernel, dtype)
    elif not integral or dtype is dtypes.bool:
        not_implemented_for(kernel, dtype)


def operand_values(meta, tensor):
    """The tensor's (or Python number's) values in the compute dtype's opmath type (float32 for half types)."""
    dtype = meta.compute_dtype.np_dtype
    return np.asarray(operand(tensor)).astype(dtype, copy=False).astype(opmath(dtype), copy=False)


def float_kernel(kernel: str, formula, *, reduced=True, complex_ok=False):
    """A structured CPU kernel ``(meta, self, out)`` computing ``formula`` elementwise."""

    @quiet
    def run(meta, self, out) -> None:
        check_dtype(kernel, meta.compute_dtype, reduced=reduced, complex_ok=complex_ok)
        store(out, np.asarray(formula(operand_values(meta, self))), meta)

    run.__name__ = kernel
    return run


def binary_float_kernel(kernel: str, formula, *, reduced=True, complex_ok=False, integral=False):
    """A structured CPU kernel ``(meta, self, other, out)`` computing ``formula(a, b)``."""

    @quiet
    def run(meta, self, other, out) -> None:
        check_dtype(
            kernel, meta.compute_dtype, reduced=reduced, complex_ok=complex_ok, integral=integral
        )
        a = operand_values(meta, self)
        b = operand_values(meta, other)
        store(out, np.asarray(formula(a, b)), meta)

    run.__name__ = kernel
    return run


def computes(tensor) -> bool:
    """Whether a kernel registered for CPU and Meta has data to compute (not a meta tensor)."""
    return tensor.device.type != "meta"


def functional(meta_fn, kernel, self, *args):
    """A unary TensorIterator op outside the structured machinery (``meta_fn(self)`` shapes
    it; the other arguments go to the kernel only): functional variant."""
    meta = meta_fn(self)
    out = meta.allocate()
    if computes(out):
        kernel(meta, self, *args, out)
    return out


def inplace(meta_fn, kernel, self, *args):
    check_tensor_iterator(self)  # Note [Memory overlap checks]
    meta = meta_fn(self)
    meta.check_inplace(self)
    if computes(self):
        kernel(meta, self, *args, self)
    return self


def out_variant(meta_fn, kernel, self, *args_and_out):
    *args, out = args_and_out
    check_tensor_iterator(out, self)
    meta = meta_fn(self)
    if out is self:
        meta.check_read_write(out)
    meta.resize_outputs(out)
    if computes(out):
        kernel(meta, self, *args, out)
    return out
