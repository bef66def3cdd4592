"""The input side of multi-head attention: shape checks, mask canonicalisation and the
in-projections of query, key and value.

Layer: nn. In: the query / key / value tensors, masks, projection weights. Out: whether
the call is batched, additive float masks (a boolean mask becomes 0 / -inf in the query's
dtype), the projected q, k, v. Mirrors _mha_shape_check, _canonical_mask, _none_or_dtype,
_check_key_padding_mask, _in_projection_packed and _in_projection of
torch/nn/functional.py (the same operators in the same order, so a dispatch mode sees
PyTorch's list).
"""

from __future__ import annotations

import warnings

from ember._c10 import dtypes
from ember._tensor import Tensor
from ember._type_helpers import is_floating_point
from ember.aten._generated import python_functions as _functions
from ember.aten._generated import python_nn_functions as _nn

__all__: list[str] = []  # private helpers, re-exported by name as F._canonical_mask etc.


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads) -> bool:
    """Whether the call is batched (3-D query) or not (2-D), after checking that the key,
    value and masks have the matching number of dimensions."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D"
                f" but found {key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D"
                f" but found {key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                f" but found {attn_mask.dim()}-D tensor instead"
            )
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D"
                f" but found {key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D"
                f" but found {key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                    f" but found {attn_mask.dim()}-D tensor instead"
                )
            if attn_mask.dim() == 3:
                expected_shape = (num_heads, query.shape[0], key.shape[0])
                if attn_mask.shape != expected_shape:
                    raise AssertionError(
                        f"Expected `attn_mask` shape to be {expected_shape} but got "
                        f"{attn_mask.shape}"
                    )
        return False
    raise AssertionError(
        "query should be unbatched 2D or batched 3D tensor but received "
        f"{query.dim()}-D query tensor"
    )


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A float mask as it is; a boolean one as zeros of ``target_type`` with -inf where it
    is True. Other dtypes are refused; a dtype differing from ``other_type`` warns."""
    if mask is None:
        return None
    mask_dtype = mask.dtype
    mask_is_float = is_floating_point(mask)
    if mask_dtype is not dtypes.bool and not mask_is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask_dtype != other_type:
        warnings.warn(
            f"Support for mismatched {mask_name} and {other_name} "
            "is deprecated. Use same type for both instead.",
            stacklevel=2,
        )
    if not mask_is_float:
        mask = _functions.zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _none_or_dtype(input):  # noqa: A002 (PyTorch's name)
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _check_key_padding_mask(key_padding_mask, src_len: int, bsz: int) -> None:
    if key_padding_mask.shape[0] != bsz:
        raise AssertionError(
            f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}"
        )
    if key_padding_mask.shape[1] != src_len:
        raise AssertionError(
            f"Expected key_padded_mask.shape[1] to be {src_len}, "
            f"but got {key_padding_mask.shape[1]}"
        )


def _packed_split(proj, parts: int, embed_dim: int):
    """(..., parts * E) -> `parts` contiguous (..., E) tensors, through the layout
    PyTorch uses (unflatten, unsqueeze, transpose, squeeze, contiguous, then select)."""
    proj = proj.unflatten(-1, (parts, embed_dim)).unsqueeze(0).transpose(0, -2).squeeze(-2)
    proj = proj.contiguous()
    return [proj[i] for i in range(parts)]


def _in_projection_packed(q, k, v, w, b=None):
    """q, k, v projected by one packed (3E, E) weight: one linear for self-attention, two
    for encoder-decoder attention (k is v), else three."""
    embed_dim = q.size(-1)
    if k is v:
        if q is k:
            return _packed_split(_nn.linear(q, w, b), 3, embed_dim)
        w_q, w_kv = w.split([embed_dim, embed_dim * 2])
        if b is None:
            b_q = b_kv = None
        else:
            b_q, b_kv = b.split([embed_dim, embed_dim * 2])
        q_proj = _nn.linear(q, w_q, b_q)
        kv = _packed_split(_nn.linear(k, w_kv, b_kv), 2, embed_dim)
        return [q_proj, kv[0], kv[1]]
    w_q, w_k, w_v = w.chunk(3)
    if b is None:
        b_q = b_k = b_v = None
    else:
        b_q, b_k, b_v = b.chunk(3)
    return [_nn.linear(q, w_q, b_q), _nn.linear(k, w_k, b_k), _nn.linear(v, w_v, b_v)]


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    """q, k, v projected by their own weights, whose shapes are checked first."""
    eq, ek, ev = q.size(-1), k.size(-1), v.size(-1)
    for name, weight, shape in (
        ("query", w_q, (eq, eq)),
        ("key", w_k, (eq, ek)),
        ("value", w_v, (eq, ev)),
    ):
        if weight.shape != shape:
            raise AssertionError(
                f"expecting {name} weights shape of {shape}, but got {weight.shape}"
            )
    for name, bias in (("query", b_q), ("key", b_k), ("value", b_v)):
        if bias is not None and bias.shape != (eq,):
            raise AssertionError(f"expecting {name} bias shape of {(eq,)}, but got {bias.shape}")
    return _nn.linear(q, w_q, b_q), _nn.linear(k, w_k, b_k), _nn.linear(v, w_v, b_v)
