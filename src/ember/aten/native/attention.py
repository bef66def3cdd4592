"""scaled_dot_product_attention as PyTorch's CPU build runs it: the CPU flash kernel for
4-d inputs without dropout, else the math path (_scaled_dot_product_attention_math), with
_safe_softmax and the flash kernel's backward.

Layer: aten/native. In: query (..., L, E), key (..., S, E), value (..., S, Ev), an
optional boolean or additive mask, dropout_p, is_causal, scale, enable_gqa. Out: the
attention output (and the flash kernel's logsumexp). The flash kernel and its backward
compute in NumPy in the opmath dtype; the math path calls operators in attention.cpp's
order, so a dispatch mode sees PyTorch's list. Mirrors
ATen/native/transformers/attention.cpp and ATen/native/cpu/FlashAttentionKernel.cpp.
"""

from __future__ import annotations

import math

import numpy as np

from ember._c10 import dtypes
from ember._tensor import empty_tensor
from ember.aten.native import at
from ember.aten.native.common import type_meta_name
from ember.aten.native.layout import preserved_strides
from ember.aten.native.reduction import store
from ember.aten.tensor_subclass_like import is_tensor_subclass_like
from ember.aten.ufunc_loops import quiet
from ember.aten.ufunc_special import not_implemented_for, opmath

__all__ = [
    "scaled_dot_product_attention",
    "_scaled_dot_product_attention_math",
    "_scaled_dot_product_flash_attention_cpu",
    "_scaled_dot_product_flash_attention_cpu_backward",
    "_safe_softmax",
]


def _check_inputs(query, key, value, attn_mask, dropout_p, is_causal) -> None:
    if not (query.dtype is key.dtype is value.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{type_meta_name(query.dtype)} key.dtype: {type_meta_name(key.dtype)} and "
            f"value.dtype: {type_meta_name(value.dtype)} instead."
        )
    if (
        attn_mask is not None
        and attn_mask.dtype is not dtypes.bool
        and (attn_mask.dtype is not query.dtype)
    ):
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {type_meta_name(attn_mask.dtype)} and  query.dtype: "
            f"{type_meta_name(query.dtype)} instead."
        )
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
            f"{query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} instead."
        )
    del dropout_p, is_causal


def _convert_boolean_attn_mask(attn_mask):
    """A boolean mask becomes 0 where attended and -inf elsewhere: at::where(mask, 0.0,
    -inf), whose two numbers become scalar_tensors of the default dtype, as in PyTorch."""
    if attn_mask is None or attn_mask.dtype is not dtypes.bool:
        return attn_mask
    return at.where_Scalar(attn_mask, 0.0, -math.inf)


def _minus_inf(dtype, device):
    out = empty_tensor((), dtype, device)
    out.ndarray()[...] = -np.inf
    return out


def scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal, scale,
                                 enable_gqa):  # fmt: skip
    _check_inputs(query, key, value, attn_mask, dropout_p, is_causal)
    if query.dim() == 4 and key.dim() == 4 and value.dim() == 4 and dropout_p == 0.0:
        mask = _convert_boolean_attn_mask(attn_mask)
        return at._scaled_dot_product_flash_attention_for_cpu(
            query, key, value, dropout_p, is_causal, mask, scale
        )[0]
    mask = _convert_boolean_attn_mask(attn_mask)
    return at._scaled_dot_product_attention_math(
        query, key, value, mask, dropout_p, is_causal, None, scale, enable_gqa
    )[0]


def _scale_factor(query, scale) -> float:
    """sdp::calculate_scale: 1 / sqrt(E) in double (inf for E == 0)."""
    if scale is not None:
        return scale
    size = query._sizes[-1]
    return 1.0 / math.sqrt(size) if size else math.inf


def _scaled_dot_product_attention_math(query, key, value, attn_mask, dropout_p, is_causal,
                                       dropout_mask, scale, enable_gqa):  # fmt: skip
    origin = query.dtype  # half / bfloat16 compute in float32, return in their own dtype
    if query.dtype in (dtypes.float16, dtypes.bfloat16):
        query = at._to_copy(query, dtypes.float32, None, None, None, False, None)
        key = at._to_copy(key, dtypes.float32, None, None, None, False, None)
        value = at._to_copy(value, dtypes.float32, None, None, None, False, None)
    negative = scale is not None and scale < 0.0
    factor = math.sqrt(_scale_factor(query, abs(scale) if negative else scale))
    query = at.mul_Scalar(query, -factor if negative else factor)
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError(
                "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                "is_causal=True"
            )
        length, source = query._sizes[-2], key._sizes[-2]
        ones = at.ones([length, source], dtypes.bool, None, query.device, None)
        attn_mask = _convert_boolean_attn_mask(at.tril(ones, 0))
    if enable_gqa and query.dim() >= 3 and query._sizes[-3] != key._sizes[-3]:
        repeats = query._sizes[-3] // key._sizes[-3]
        key = at.repeat_interleave_self_int(key, repeats, -3, None)
        value = at.repeat_interleave_self_int(value, repeats, -3, None)
    attn = at.matmul(query, at.mul_Scalar(at.transpose_int(key, -2, -1), factor))
    if attn_mask is not None:
        if is_tensor_subclass_like(attn) or is_tensor_subclass_like(attn_mask):
            attn = at.add_Tensor(attn, attn_mask, 1)
        else:
            attn = at.add__Tensor(attn, attn_mask, 1)
    attn = at._safe_softmax(attn, -1, None)
    if dropout_p > 0.0:
        if dropout_mask is not None:
            scaled = at.mul_Scalar(dropout_mask, 1.0 / (1.0 - dropout_p))
            attn = at.mul_Tensor(attn, scaled)
        else:
            attn = at.dropout(attn, dropout_p, True)
    output = at.matmul(attn, value)
    return at.to_dtype(output, origin, False, False, None), at.to_dtype(
        attn, origin, False, False, None
    )


def _safe_softmax(self, dim, dtype):
    """softmax, with rows that are -inf throughout giving 0 instead of NaN."""
    out = at.softmax_int(self, dim, dtype)
    minus_inf = _minus_inf(self.dtype, self.device)
    masked_rows = at.all_dim(at.eq_Tensor(self, minus_inf), dim, True)
    zero = empty_tensor((), out.dtype, out.device)
    zero.ndarray()[...] = 0
    return at.where_self(masked_rows, zero, out)


# -- the CPU flash kernel ---------------------------------------------------------------


def _operands(kernel, query, *tensors):
    dtype = query.dtype
    if not (dtype.is_floating_point):
        not_implemented_for(kernel, dtype)
    compute = opmath(dtype.np_dtype)
    return compute, [None if t is None else t.ndarray().astype(compute) for t in (query, *tensors)]


def _expand_heads(values, heads: int):
    """GQA: each key / value head serves heads // its count query heads."""
    if values.shape[1] == heads:
        return values
    return np.repeat(values, heads // values.shape[1], axis=1)


def _scores(q, k, mask, is_causal, scale, compute):
    """q k^T, its causal entries set to -inf before the scaling (so a negative scale turns
    them into +inf and their rows into NaN, as the CPU kernel's do), plus the mask."""
    scores = np.matmul(q, np.swapaxes(k, -1, -2))
    if is_causal:
        length, source = scores.shape[-2:]
        allowed = np.tril(np.ones((length, source), bool))
        scores = np.where(allowed, scores, -np.inf)
    scores = scores * compute.type(scale)
    if mask is not None:
        scores = scores + mask
    return scores


def _check_flash(query, key, value) -> None:
    if query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        raise RuntimeError(
            "scaled_dot_product_attention_flash_attention: Accept only 4 dims inputs shape "
            "of {B, H, T, K}"
        )


@quiet
def _scaled_dot_product_flash_attention_cpu(query, key, value, dropout_p, is_causal,
                                            attn_mask, scale):  # fmt: skip
    _check_flash(query, key, value)
    compute, (q, k, v, mask) = _operands("flash_attention", query, key, value, attn_mask)
    heads = q.shape[1]
    k, v = _expand_heads(k, heads), _expand_heads(v, heads)
    scores = _scores(q, k, mask, is_causal, _scale_factor(query, scale), compute)
    top = np.max(scores, axis=-1, keepdims=True)
    top = np.where(top == -np.inf, 0, top)
    weights = np.exp(scores - top)
    total = weights.sum(axis=-1, keepdims=True)
    # a fully masked row sums to 0: the kernel counts it as 1, so its output and
    # logsumexp are 0 (not NaN)
    total = np.where(total == 0, 1, total)
    logsumexp = (np.log(total) + top)[..., 0]
    out = np.matmul(weights / total, v)
    batch, _, length, _ = out.shape
    # the output is empty_like(query) (the query's layout, when dense); the logsumexp
    # is written (B, L, H) and returned transposed to (B, H, L)
    shape = out.shape
    strides = preserved_strides(query) if tuple(shape) == tuple(query.shape) else None
    output = empty_tensor(shape, query.dtype, query.device, strides)
    store(output, out)
    lse_dtype = dtypes.float64 if query.dtype is dtypes.float64 else dtypes.float32
    lse_strides = (length * heads, 1, heads)
    lse = empty_tensor((batch, heads, length), lse_dtype, query.device, lse_strides)
    store(lse, logsumexp)
    return output, lse


@quiet
def _scaled_dot_product_flash_attention_cpu_backward(grad_out, query, key, value, out,
                                                     logsumexp, dropout_p, is_causal,
                                                     attn_mask, scale):  # fmt: skip
    compute, (q, k, v, dout, o, lse, mask) = _operands(
        "flash_attention_backward", query, key, value, grad_out, out, logsumexp, attn_mask
    )
    heads, kv_heads = q.shape[1], k.shape[1]
    k_full, v_full = _expand_heads(k, heads), _expand_heads(v, heads)
    factor = compute.type(_scale_factor(query, scale))
    scores = _scores(q, k_full, mask, is_causal, factor, compute)
    probs = np.exp(scores - lse[..., None])
    grad_v = np.matmul(np.swapaxes(probs, -1, -2), dout)
    grad_p = np.matmul(dout, np.swapaxes(v_full, -1, -2))
    grad_s = probs * (grad_p - (dout * o).sum(axis=-1, keepdims=True))
    grad_q = np.matmul(grad_s, k_full) * factor
    grad_k = np.matmul(np.swapaxes(grad_s, -1, -2), q) * factor
    if kv_heads != heads:
        group = heads // kv_heads
        grad_k = grad_k.reshape(grad_k.shape[0], kv_heads, group, *grad_k.shape[2:]).sum(2)
        grad_v = grad_v.reshape(grad_v.shape[0], kv_heads, group, *grad_v.shape[2:]).sum(2)
    results = []
    for values, like in ((grad_q, query), (grad_k, key), (grad_v, value)):
        tensor = empty_tensor(tuple(values.shape), like.dtype, like.device)
        store(tensor, values)
        results.append(tensor)
    return tuple(results)
