"""`F.multi_head_attention_forward`: multi-head attention on (L, N, E) inputs, as
MultiheadAttention's slow path runs it.

Layer: nn. In: query (L, N, E) or (L, E), key / value (S, N, E*) or (S, E*), the packed or
separate projection weights, optional bias_k / bias_v, static_k / static_v, masks. Out:
the attention output and, with ``need_weights``, the (head-averaged) weights, or None.
With weights it computes them explicitly (baddbmm / bmm, softmax, dropout, bmm); without,
it calls scaled_dot_product_attention. Mirrors multi_head_attention_forward of
torch/nn/functional.py, operator for operator.
"""

from __future__ import annotations

import math

from ember._torch_function import handle_torch_function, has_torch_function
from ember.aten._generated import python_functions as _functions
from ember.aten._generated import python_nn_functions as _nn
from ember.nn._functional.attention_mha_inputs import (
    _canonical_mask,
    _check_key_padding_mask,
    _in_projection,
    _in_projection_packed,
    _mha_shape_check,
    _none_or_dtype,
)
from ember.nn.functional import dropout, softmax  # defined before this module is imported

__all__ = ["multi_head_attention_forward"]


def multi_head_attention_forward(
    query,
    key,
    value,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight,
    in_proj_bias,
    bias_k,
    bias_v,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight,
    out_proj_bias,
    training: bool = True,
    key_padding_mask=None,
    need_weights: bool = True,
    attn_mask=None,
    use_separate_proj_weight: bool = False,
    q_proj_weight=None,
    k_proj_weight=None,
    v_proj_weight=None,
    static_k=None,
    static_v=None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
):
    tens_ops = (query, key, value, in_proj_weight, in_proj_bias, bias_k, bias_v,
                out_proj_weight, out_proj_bias)  # fmt: skip
    if has_torch_function(tuple(t for t in tens_ops if t is not None)):
        return handle_torch_function(
            multi_head_attention_forward, tens_ops, query, key, value, embed_dim_to_check,
            num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
            dropout_p, out_proj_weight, out_proj_bias, training=training,
            key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, is_causal=is_causal,
            use_separate_proj_weight=use_separate_proj_weight, q_proj_weight=q_proj_weight,
            k_proj_weight=k_proj_weight, v_proj_weight=v_proj_weight, static_k=static_k,
            static_v=static_v, average_attn_weights=average_attn_weights,
        )  # fmt: skip

    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        # an unbatched call runs as a batch of one (dim 1), squeezed again at the end
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)

    tgt_len, bsz, embed_dim = query.shape
    src_len, _, _ = key.shape

    key_padding_mask = _canonical_mask(
        mask=key_padding_mask,
        mask_name="key_padding_mask",
        other_type=_none_or_dtype(attn_mask),
        other_name="attn_mask",
        target_type=query.dtype,
    )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. "
            "You may use the Transformer module method "
            "`generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        # the hint alone goes on to scaled_dot_product_attention
        attn_mask = None
    else:
        attn_mask = _canonical_mask(
            mask=attn_mask,
            mask_name="attn_mask",
            other_type=None,
            other_name="",
            target_type=query.dtype,
            check_other=False,
        )
        if key_padding_mask is not None:
            is_causal = False  # the merged mask is no longer causal

    head_dim = _check_dims(query, key, value, embed_dim, embed_dim_to_check, num_heads,
                           use_separate_proj_weight)  # fmt: skip
    q, k, v = _project(query, key, value, in_proj_weight, in_proj_bias,
                       use_separate_proj_weight, q_proj_weight, k_proj_weight,
                       v_proj_weight)  # fmt: skip

    if attn_mask is not None:
        attn_mask = _mask_to_3d(attn_mask, bsz * num_heads, tgt_len, src_len)

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = _functions.cat([k, bias_k.repeat(1, bsz, 1)])
        v = _functions.cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    # heads folded into the batch, batch first: (N * H, L, head_dim)
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _heads_first(k, static_k, "static_k", bsz * num_heads, head_dim)
    v = _heads_first(v, static_v, "static_v", bsz * num_heads, head_dim)

    if add_zero_attn:
        zero_attn_shape = (bsz * num_heads, 1, head_dim)
        k = _functions.cat(
            [k, _functions.zeros(zero_attn_shape, dtype=k.dtype, device=k.device)], dim=1
        )
        v = _functions.cat(
            [v, _functions.zeros(zero_attn_shape, dtype=v.dtype, device=v.device)], dim=1
        )
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)

    src_len = k.size(1)
    if key_padding_mask is not None:
        _check_key_padding_mask(key_padding_mask, src_len, bsz)
        key_padding_mask = (
            key_padding_mask.view(bsz, 1, 1, src_len)
            .expand(-1, num_heads, -1, -1)
            .reshape(bsz * num_heads, 1, src_len)
        )
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0
    shape = (tgt_len, bsz, embed_dim, num_heads, src_len, head_dim)
    if need_weights:
        return _attend_with_weights(q, k, v, attn_mask, dropout_p, is_causal, out_proj_weight,
                                    out_proj_bias, shape, average_attn_weights,
                                    is_batched)  # fmt: skip
    return _attend_sdpa(q, k, v, attn_mask, dropout_p, is_causal, out_proj_weight,
                        out_proj_bias, shape, is_batched)  # fmt: skip


def _check_dims(query, key, value, embed_dim, embed_dim_to_check, num_heads, separate) -> int:
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if separate:
        # separate projection weights allow key and value their own embedding sizes
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                f"{value.shape[:2]}"
            )
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    return head_dim


def _project(query, key, value, in_proj_weight, in_proj_bias, separate, q_w, k_w, v_w):
    if not separate:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        return _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    for name, weight in (("q", q_w), ("k", k_w), ("v", v_w)):
        if weight is None:
            raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
    if in_proj_bias is None:
        b_q = b_k = b_v = None
    else:
        b_q, b_k, b_v = in_proj_bias.chunk(3)
    return _in_projection(query, key, value, q_w, k_w, v_w, b_q, b_k, b_v)


def _mask_to_3d(attn_mask, batch_heads: int, tgt_len: int, src_len: int):
    if attn_mask.dim() == 2:
        correct_2d_size = (tgt_len, src_len)
        if attn_mask.shape != correct_2d_size:
            raise RuntimeError(
                f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                f"{correct_2d_size}."
            )
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        correct_3d_size = (batch_heads, tgt_len, src_len)
        if attn_mask.shape != correct_3d_size:
            raise RuntimeError(
                f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                f"{correct_3d_size}."
            )
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def _pad_last(mask):
    """One more (unmasked) key position for bias_k / the zero attention."""
    return None if mask is None else _nn.pad(mask, (0, 1))


def _heads_first(projected, static, name: str, batch_heads: int, head_dim: int):
    if static is None:
        return projected.view(projected.shape[0], batch_heads, head_dim).transpose(0, 1)
    if static.size(0) != batch_heads:
        raise AssertionError(f"expecting {name}.size(0) of {batch_heads}, but got {static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.size(2)}")
    return static


def _attend_with_weights(q, k, v, attn_mask, dropout_p, is_causal, out_proj_weight,
                         out_proj_bias, shape, average_attn_weights, is_batched):  # fmt: skip
    tgt_len, bsz, embed_dim, num_heads, src_len, _ = shape
    q_scaled = q * math.sqrt(1.0 / float(q.shape[2]))
    if is_causal and attn_mask is None:
        raise AssertionError("FIXME: is_causal not implemented for need_weights")
    if attn_mask is not None:
        weights = _functions.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
    else:
        weights = _functions.bmm(q_scaled, k.transpose(-2, -1))
    weights = softmax(weights, dim=-1)
    if dropout_p > 0.0:
        weights = dropout(weights, p=dropout_p)
    output = _functions.bmm(weights, v)
    output = output.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    output = _nn.linear(output, out_proj_weight, out_proj_bias)
    output = output.view(tgt_len, bsz, output.size(1))
    weights = weights.view(bsz, num_heads, tgt_len, src_len)
    if average_attn_weights:
        weights = weights.mean(dim=1)
    if not is_batched:
        output, weights = output.squeeze(1), weights.squeeze(0)
    return output, weights


def _attend_sdpa(q, k, v, attn_mask, dropout_p, is_causal, out_proj_weight, out_proj_bias,
                 shape, is_batched):  # fmt: skip
    tgt_len, bsz, embed_dim, num_heads, src_len, head_dim = shape
    # a (1, L, S) mask becomes (1, 1, L, S); an (N * H, L, S) one (N, H, L, S)
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    output = _nn.scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    output = output.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    output = _nn.linear(output, out_proj_weight, out_proj_bias)
    output = output.view(tgt_len, bsz, output.size(1))
    if not is_batched:
        output = output.squeeze(1)
    return output, None
