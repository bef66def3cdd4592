"""CPU kernels of the cumulative operators, cumsum and cumprod, computed by NumPy into out.

Layer: aten/native. In: a StructuredMeta (aten/meta/reduction.py's cumsum / cumprod),
the schema's arguments and the already-shaped out tensor. Out: values written into
`out.ndarray()`. Mirrors ATen/native/ReduceOps.cpp (impl_func_cum_ops: fill_ for a
0-dim self, nothing for an empty one, else the stub over self.to(out's dtype)) and
cpu_cum_base_kernel of ATen/native/cpu/ReduceOpsKernel.cpp (the running value is kept
in acc_type<scalar_t, /*is_cuda=*/false> and cast back at each step).
"""

from __future__ import annotations

import operator

import numpy as np

from ember._c10 import dtypes
from ember.aten import loop_order as LO
from ember.aten.memory_overlap import check_tensor_iterator
from ember.aten.meta import reduction as meta_reduction
from ember.aten.native.reduction import store

__all__ = ["cumsum_out", "cumprod_out"]


def cumsum_out(meta, self, dim, dtype, out) -> None:
    _cumulative("cumsum_out_cpu", meta, self, dim, out, np.cumsum, operator.add, 0)


def cumprod_out(meta, self, dim, dtype, out) -> None:
    _cumulative("cumprod_out_cpu", meta, self, dim, out, np.cumprod, operator.mul, 1)


def _cumulative(name, meta, self, dim, out, numpy_scan, step, start) -> None:
    if self.dim() != 0 and self.numel() != 0:
        # impl_func_cum_ops: a TensorIterator over out and self.to(out's dtype), a fresh
        # copy when the dtypes differ (Note [Memory overlap checks])
        check_tensor_iterator(out, self if self.dtype is out.dtype else None)
    # self.to(out's dtype), then the running value in acc_type<scalar_t, /*is_cuda=*/false>
    compute = meta.compute_dtype
    if self.dim() == 0:  # result.fill_(self)
        store(out, self.ndarray().astype(compute.np_dtype))
        return
    if self.numel() == 0:
        return
    if compute is dtypes.bool:  # AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(BFloat16, Half)
        raise NotImplementedError(f"\"{name}\" not implemented for 'Bool'")
    acc = _CUMULATIVE_ACC.get(compute.np_dtype, np.dtype(np.int64))
    axis = meta_reduction.reduced_dims(self, [dim])[0]
    if LO.cumulative_in_loop_order(self, axis, out, acc, step, start):
        return
    values = self.ndarray().astype(compute.np_dtype, copy=False)
    with np.errstate(all="ignore"):  # inf, NaN and integer wrap-around as C++ computes them
        store(out, numpy_scan(values, axis=axis, dtype=acc))


# at::acc_type on CPU: double for float, complex<double> for complex<float>, float for the
# half types; every integral type (and bool) accumulates in int64
_CUMULATIVE_ACC = {
    np.dtype(np.float64): np.dtype(np.float64),
    np.dtype(np.float32): np.dtype(np.float64),
    np.dtype(np.float16): np.dtype(np.float32),
    dtypes.bfloat16.np_dtype: np.dtype(np.float32),
    np.dtype(np.complex128): np.dtype(np.complex128),
    np.dtype(np.complex64): np.dtype(np.complex128),
}
