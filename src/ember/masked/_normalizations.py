"""torch.masked's normalizations and scans: softmax, log_softmax, softmin, normalize,
cumsum and cumprod over the elements a boolean mask keeps.

Layer: masked (the Python face, above nn). In: a strided input, one dim, dtype and a
mask. Out: the plain operation (nn.functional.softmax, torch.cumsum, ...) of the input
whose masked-out elements hold an identity (see Note [Masked operations on strided
tensors]): -inf for softmax and log_softmax (their amax identity), +inf for softmin, 0
for cumsum and normalize, 1 for cumprod. Mirrors these functions of
torch/masked/_ops.py.
"""

from __future__ import annotations

from ember.aten._generated import python_functions as _functions
from ember.masked._docs import normalization_doc
from ember.masked._mask import _canonical_dim, _combine_input_and_mask, refuse_layouts
from ember.masked._reductions import amax, amin, norm, prod
from ember.masked._reductions import sum as _sum
from ember.nn import functional as _F

__all__ = ["cumsum", "cumprod", "softmax", "log_softmax", "softmin", "normalize"]


def cumsum(input, dim, *, dtype=None, mask=None):  # noqa: A002
    dtype = input.dtype if dtype is None else dtype
    refuse_layouts("cumsum", input, masks=(mask,))
    index = _canonical_dim(dim, input.ndim)[0]
    mask_input = _combine_input_and_mask(_sum, input, mask)
    return _functions.cumsum(mask_input, index, dtype=dtype).to(dtype=dtype)


def cumprod(input, dim, *, dtype=None, mask=None):  # noqa: A002
    dtype = input.dtype if dtype is None else dtype
    refuse_layouts("cumprod", input, masks=(mask,))
    index = _canonical_dim(dim, input.ndim)[0]
    mask_input = _combine_input_and_mask(prod, input, mask)
    return _functions.cumprod(mask_input, index, dtype=dtype).to(dtype=dtype)


def softmax(input, dim, *, dtype=None, mask=None):  # noqa: A002
    dtype = input.dtype if dtype is None else dtype
    refuse_layouts("softmax", input, masks=(mask,))
    index = _canonical_dim(dim, input.ndim)[0]
    mask_input = _combine_input_and_mask(amax, input, mask)
    return _F.softmax(mask_input, index, dtype=dtype)


def log_softmax(input, dim, *, dtype=None, mask=None):  # noqa: A002
    dtype = input.dtype if dtype is None else dtype
    refuse_layouts("log_softmax", input, masks=(mask,))
    index = _canonical_dim(dim, input.ndim)[0]
    mask_input = _combine_input_and_mask(amax, input, mask)
    return _F.log_softmax(mask_input, index, dtype=dtype)


def softmin(input, dim, *, dtype=None, mask=None):  # noqa: A002
    dtype = input.dtype if dtype is None else dtype
    refuse_layouts("softmin", input, masks=(mask,))
    index = _canonical_dim(dim, input.ndim)[0]
    mask_input = _combine_input_and_mask(amin, input, mask)
    return _F.softmin(mask_input, index, dtype=dtype)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):  # noqa: A002
    dtype = input.dtype if dtype is None else dtype
    refuse_layouts("normalize", input, masks=(mask,))
    mask_input = _combine_input_and_mask(_sum, input, mask)
    denominator = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    denominator = _functions.maximum(denominator, denominator.new_full([], eps))
    return _functions.divide(mask_input, denominator)


for _name in ("cumsum", "cumprod", "softmax", "log_softmax", "softmin"):
    globals()[_name].__doc__ = normalization_doc(
        _name, f"{_name}(input, dim, *, dtype=None, mask=None) -> Tensor"
    )
normalize.__doc__ = normalization_doc(
    "normalization by the `ord`-norm (divided by max(norm, eps))",
    "normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None) -> Tensor",
)
del _name
