"""renorm: each slice along a dimension scaled down so that its p-norm is at most maxnorm.

Layer: aten/native (the structured CPU kernel `(meta, self, p, dim, maxnorm, out)`; its
meta function is aten/meta/renorm.py). In: a tensor of at least 2 dims, p > 0, dim,
maxnorm >= 0. Out: self times a per-slice factor, maxnorm / (norm + 1e-7) where the
slice's norm exceeds maxnorm and 1 elsewhere. Mirrors TORCH_IMPL_FUNC(renorm_out) of
ATen/native/Normalization.cpp (the norm by aten::linalg_vector_norm over every other
dimension, in float for half types; the factor in the norm's type, cast to self's; then
aten::mul.out) and renorm_scale_factor of ATen/native/cpu/ (floating types and halves).
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._tensor import empty_tensor
from ember.aten.native import at
from ember.aten.native.common import wrap_dim

__all__ = ["renorm_out", "renorm_reduce_dims", "renorm_accumulate_type"]

_HALF_TYPES = (dtypes.float16, dtypes.bfloat16)


def renorm_reduce_dims(self, dim) -> list:
    dim = wrap_dim(dim, self.dim())
    return [d for d in range(self.dim()) if d != dim]


def renorm_accumulate_type(dtype, cuda: bool):
    """at::toAccumulateType: half types accumulate in float; on the cpu (cuda False) float
    in double and complex64 in complex128 too."""
    if dtype in _HALF_TYPES:
        return dtypes.float32
    if not cuda and dtype is dtypes.float32:
        return dtypes.float64
    if not cuda and dtype is dtypes.complex64:
        return dtypes.complex128
    return dtype


def renorm_out(meta, self, p, dim, maxnorm, out) -> None:
    reduce_dims = renorm_reduce_dims(self, dim)
    dtype = self.dtype
    acc = renorm_accumulate_type(dtype, cuda=True)  # as the kernel asks: "for cuda half"
    norm = at.linalg_vector_norm(
        self, float(p), reduce_dims, True, acc if acc is not dtype else None
    )
    if acc is dtype.to_real():
        factor = norm  # the factor overwrites the norm
    else:
        factor = empty_tensor(norm._sizes, dtype, self.device)
    if factor.device.type != "meta":
        values = norm.ndarray()
        kind = values.dtype.type
        limit = kind(maxnorm)
        with np.errstate(all="ignore"):
            scaled = np.where(values > limit, limit / (values + kind(1e-7)), kind(1))
        factor.ndarray()[...] = scaled.astype(values.dtype)
    at.mul_out(self, factor, out)
