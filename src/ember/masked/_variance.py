"""torch.masked's var and std: the sample variance (and its square root) of the elements
a boolean mask keeps.

Layer: masked (the Python face, above nn). In: a strided input, dims, unbiased or
correction, keepdim, dtype and a mask. Out: the variance computed from masked sums as
PyTorch computes it (mean = masked sum / count; masked sum of |x - mean|^2 divided by
max(count - correction, 0)), with the same operators, so a fully masked-out slice gives
NaN and gradients come from sum, sub, mul, div and sqrt. Mirrors _std_var, var and std
of torch/masked/_ops.py.
"""

from __future__ import annotations

from ember._c10 import dtypes as _dtypes
from ember.aten._generated import python_functions as _functions
from ember.masked._docs import reduction_doc
from ember.masked._mask import _input_mask, refuse_layouts
from ember.masked._reductions import sum as _masked_sum

__all__ = ["var", "std"]


def _std_var(input, dim, unbiased, *, correction, keepdim, dtype, mask, take_sqrt):  # noqa: A002
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    correction_value = 1.0
    if unbiased is not None:
        correction_value = 1.0 if unbiased else 0.0
    if correction is not None:
        correction_value = float(correction)
    if dtype is None:
        dtype = input.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            dtype = _dtypes.float32
    compute_dtype = dtype
    if not (compute_dtype.is_floating_point or compute_dtype.is_complex):
        compute_dtype = _dtypes.float32
    refuse_layouts("std" if take_sqrt else "var", input, masks=(mask,))
    if mask is None:
        inmask = None
        ones = _functions.ones(input.shape, dtype=_dtypes.int64, device=input.device)
        count = _masked_sum(ones, dim, keepdim=True)
        sample_total = _masked_sum(input, dim, keepdim=True, dtype=dtype)
    else:
        inmask = _input_mask(input, mask=mask)
        count = inmask.sum(dim=dim, keepdim=True)
        sample_total = _masked_sum(input, dim, keepdim=True, dtype=dtype, mask=inmask)
    sample_mean = _functions.divide(sample_total, count)
    x = _functions.subtract(input, sample_mean)
    total = _masked_sum(x * x.conj(), dim, keepdim=keepdim, dtype=compute_dtype, mask=inmask)
    if not keepdim:
        count = count.reshape(total.shape)
    if correction_value != 0:
        count = count.to(compute_dtype.to_real())
        count = _functions.subtract(count, correction_value)
        count = _functions.maximum(count, count.new_zeros([]))
    output = _functions.divide(total, count).to(dtype=dtype)
    if take_sqrt:
        output = _functions.sqrt(output)
    return output


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):  # noqa: A002
    return _std_var(
        input,
        dim,
        unbiased,
        correction=correction,
        keepdim=keepdim,
        dtype=dtype,
        mask=mask,
        take_sqrt=False,
    )


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):  # noqa: A002
    return _std_var(
        input,
        dim,
        unbiased,
        correction=correction,
        keepdim=keepdim,
        dtype=dtype,
        mask=mask,
        take_sqrt=True,
    )


_UNDEFINED = "undefined: fully masked-out slices give ``nan``"
var.__doc__ = reduction_doc(
    "variance",
    "var(input, dim, unbiased, *, correction=None, keepdim=False, dtype=None, mask=None) -> Tensor",
    _UNDEFINED,
)
std.__doc__ = reduction_doc(
    "standard deviation",
    "std(input, dim, unbiased, *, correction=None, keepdim=False, dtype=None, mask=None) -> Tensor",
    _UNDEFINED,
)
