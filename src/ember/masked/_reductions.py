"""torch.masked's reductions: sum, prod, amax, amin, argmax, argmin, mean, median,
logsumexp and norm of the elements a boolean mask keeps.

Layer: masked (the Python face, above nn). In: a strided input, dims, keepdim, dtype and
a mask broadcastable to the input. Out: the plain reduction (torch.sum, Tensor.prod,
torch.amax, torch.nanmedian, torch.linalg.vector_norm, ...) of the input whose
masked-out elements hold the reduction's identity (see Note [Masked operations on
strided tensors]), so gradients come from those operators' own formulas. Mirrors the
reductions of torch/masked/_ops.py; std and var live in _variance.py.
"""

from __future__ import annotations

from ember import _type_helpers as _types
from ember._c10 import dtypes as _dtypes
from ember.aten._generated import python_functions as _functions
from ember.aten._generated import python_linalg_functions as _linalg
from ember.masked._docs import reduction_doc
from ember.masked._mask import (
    PROMOTED_TO_INT64,
    _canonical_dim,
    _combine_input_and_mask,
    _input_mask,
    refuse_layouts,
)

__all__ = [
    "sum",
    "prod",
    "amax",
    "amin",
    "argmax",
    "argmin",
    "mean",
    "median",
    "logsumexp",
    "norm",
]


def _promoted(input, dtype):  # noqa: A002
    """sum's and prod's result dtype: small integers and bool accumulate in int64."""
    if dtype is not None:
        return dtype
    return _dtypes.int64 if input.dtype in PROMOTED_TO_INT64 else input.dtype


def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):  # noqa: A001,A002
    refuse_layouts("sum", input, masks=(mask,))
    dtype = _promoted(input, dtype)
    dims = _canonical_dim(dim, input.ndim)
    mask_input = _combine_input_and_mask(sum, input, mask)
    return _functions.sum(mask_input, dims, bool(keepdim), dtype=dtype)


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):  # noqa: A002
    refuse_layouts("prod", input, masks=(mask,))
    dtype = _promoted(input, dtype)
    dims = _canonical_dim(dim, input.ndim)
    result = _combine_input_and_mask(prod, input, mask).to(dtype=dtype)
    for d in reversed(dims):  # prod reduces one dim at a time
        result = result.prod(dim=d, keepdim=bool(keepdim))
    return result


def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):  # noqa: A002
    dtype = input.dtype if dtype is None else dtype
    refuse_layouts("amax", input, masks=(mask,))
    mask_input = _combine_input_and_mask(amax, input, mask)
    dims = _canonical_dim(dim, mask_input.ndim)
    return _functions.amax(mask_input, dims, bool(keepdim)).to(dtype=dtype)


def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):  # noqa: A002
    dtype = input.dtype if dtype is None else dtype
    refuse_layouts("amin", input, masks=(mask,))
    mask_input = _combine_input_and_mask(amin, input, mask)
    dims = _canonical_dim(dim, mask_input.ndim)
    return _functions.amin(mask_input, dims, bool(keepdim)).to(dtype=dtype)


def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None):  # noqa: A002
    dtype = input.dtype if dtype is None else dtype  # the indices are cast to it, as in PyTorch
    refuse_layouts("argmax", input, masks=(mask,))
    mask_input = _combine_input_and_mask(argmax, input, mask)
    return _functions.argmax(mask_input, dim, bool(keepdim)).to(dtype=dtype)


def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None):  # noqa: A002
    dtype = input.dtype if dtype is None else dtype
    refuse_layouts("argmin", input, masks=(mask,))
    mask_input = _combine_input_and_mask(argmin, input, mask)
    return _functions.argmin(mask_input, dim, bool(keepdim)).to(dtype=dtype)


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):  # noqa: A002
    source = "Optional"
    if dtype is None:
        dtype, source = input.dtype, "Input"
    if not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(
            f"mean(): Could not infer output dtype. {source} dtype must be either "
            f"a floating point or complex dtype. Got: {dtype}"
        )
    refuse_layouts("mean", input, masks=(mask,))
    if mask is None:
        ones = _functions.ones(input.shape, dtype=_dtypes.int64, device=input.device)
        count = sum(ones, dim, keepdim=keepdim)
        total = sum(input, dim, keepdim=keepdim, dtype=dtype)
    else:
        inmask = _input_mask(input, mask=mask)
        count = inmask.sum(dim=dim, keepdim=bool(keepdim))
        total = sum(input, dim, keepdim=keepdim, dtype=dtype, mask=inmask)
    return total / count


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):  # noqa: A002
    dtype = input.dtype if dtype is None else dtype
    refuse_layouts("median", input, masks=(mask,))
    index = _canonical_dim(dim, input.ndim)[0]
    is_float = _types.is_floating_point(input)
    if not is_float:
        input = input.to(dtype=_dtypes.float32)  # noqa: A001
    mask_input = _combine_input_and_mask(median, input, mask)
    output = _functions.nanmedian(mask_input, index, keepdim).values
    if is_float:
        return output  # `dtype` is not applied to floating inputs, as in PyTorch
    if not _functions.isnan(output).any():
        return output.to(dtype=dtype)
    raise ValueError(
        "masked median expects no fully masked out rows if dtype is not floating point"
    )


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):  # noqa: A002
    dtype = input.dtype if dtype is None else dtype
    refuse_layouts("logsumexp", input, masks=(mask,))
    dims = _canonical_dim(dim, input.ndim)
    mask_input = _combine_input_and_mask(logsumexp, input, mask)
    return _functions.logsumexp(mask_input, dims, keepdim=keepdim).to(dtype=dtype)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):  # noqa: A002
    dtype = input.dtype if dtype is None else dtype
    refuse_layouts("norm", input, masks=(mask,))
    mask_input = _combine_input_and_mask(norm, input, mask, ord)
    dims = _canonical_dim(dim, input.ndim)
    return _linalg.linalg_vector_norm(mask_input, ord, dims, bool(keepdim), dtype=dtype)


_IDENTITY = {
    "sum": "``0``",
    "prod": "``1``",
    "amax": "``-inf`` for floating inputs and the dtype's minimum for integers",
    "amin": "``inf`` for floating inputs and the dtype's maximum for integers",
    "argmax": "``-inf`` for floating inputs and the dtype's minimum for integers",
    "argmin": "``inf`` for floating inputs and the dtype's maximum for integers",
    "logsumexp": "``-inf`` (the dtype's minimum for integers)",
    "norm": "``0``, except ``inf`` for ``ord=-inf``",
    "mean": "undefined: fully masked-out slices give ``nan``",
    "median": "``nan`` (nanmedian skips it): fully masked-out slices give ``nan``",
}
_SIGNATURE = {
    "norm": "norm(input, ord, dim, *, keepdim=False, dtype=None, mask=None) -> Tensor",
    "median": "median(input, dim=-1, *, keepdim=False, dtype=None, mask=None) -> Tensor",
}
for _name in __all__:
    _fn = globals()[_name]
    _fn.__doc__ = reduction_doc(
        _name,
        _SIGNATURE.get(
            _name, f"{_name}(input, dim, *, keepdim=False, dtype=None, mask=None) -> Tensor"
        ),
        _IDENTITY[_name],
    )
del _name, _fn
