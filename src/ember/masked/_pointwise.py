"""torch.masked's binary operation: logaddexp of two masked tensors.

Layer: masked (the Python face, above nn). In: two strided tensors and a mask for each.
Out: torch.logaddexp of both after each one's masked-out elements were replaced by -inf
(so a masked-out element contributes nothing, and two masked-out elements give -inf).
Mirrors logaddexp of torch/masked/_ops.py.
"""

from __future__ import annotations

from ember.aten._generated import python_functions as _functions
from ember.masked._mask import _combine_input_and_mask, refuse_layouts

__all__ = ["logaddexp"]


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):  # noqa: A002
    """logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None) -> Tensor

    log(exp(input) + exp(other)) elementwise, where `input_mask` drops elements of
    `input` and `other_mask` elements of `other` (a dropped element counts as -inf).
    Each mask is boolean, broadcastable to its tensor, and of no more dimensions; None
    keeps every element. `dtype` is the result's dtype (cast after the operation).
    """
    dtype = input.dtype if dtype is None else dtype
    refuse_layouts("logaddexp", input, other, masks=(input_mask, other_mask))
    mask_input = _combine_input_and_mask(logaddexp, input, input_mask)
    mask_other = _combine_input_and_mask(logaddexp, other, other_mask)
    return _functions.logaddexp(mask_input, mask_other).to(dtype=dtype)
