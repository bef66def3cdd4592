"""MultiheadAttention's fast path: _native_multi_head_attention and the two operators it
calls, _transform_bias_rescale_qkv and _masked_softmax (with _masked_softmax_backward).

Layer: aten/native. In: batched (B, T, D) query / key / value, the packed (3D, D)
in-projection and its bias, the out-projection, an optional mask with its type (0: an
(L, L) attention mask, 1: a (B, L) padding mask, 2: a mask of the scores' shape; True
masks out). Out: the (B, T, D) output and the (head-averaged) weights, or None for them.
The fast path calls the operators attention.cpp calls, in its order (the projection's
mm, the bias-and-rescale, bmm, softmax, bmm into q's storage, addmm); the bias-and-rescale
and the masked softmax compute in NumPy. Mirrors native_multi_head_attention_cpu and
transform_bias_rescale_qkv_cpu of ATen/native/transformers/attention.cpp and
masked_softmax_cpu / masked_softmax_backward_cpu of ATen/native/SoftMax.cpp.
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._tensor import empty_tensor
from ember.aten.native import at
from ember.aten.native.common import wrap_dim
from ember.aten.native.reduction import store
from ember.aten.ufunc_loops import quiet
from ember.aten.ufunc_special import not_implemented_for, opmath

__all__ = [
    "native_multi_head_attention_cpu",
    "native_multi_head_attention_meta",
    "transform_bias_rescale_qkv_cpu",
    "masked_softmax_cpu",
    "masked_softmax_backward_cpu",
]

_FLOATING = (dtypes.float32, dtypes.float64, dtypes.float16, dtypes.bfloat16)


def _failed_check(condition: str) -> RuntimeError:
    """TORCH_CHECK without a message."""
    return RuntimeError(
        f"Expected {condition} to be true, but got false.  (Could this error message be "
        "improved?  If so, please report an enhancement request to PyTorch.)"
    )


def transform_bias_rescale_qkv_cpu(qkv, qkv_bias, num_heads):
    """(B, T, 3D) -> q, k, v of (B, num_heads, T, D // num_heads): the bias added, q
    multiplied by 1 / sqrt(head_dim), as three views of one (3, B, num_heads, T,
    head_dim) buffer."""
    batch, length, three_d = (qkv.shape[wrap_dim(d, qkv.dim(), False)] for d in range(3))
    embed = three_d // 3
    if num_heads <= 0:
        # PyTorch's kernel divides by it unchecked
        raise RuntimeError(
            f"_transform_bias_rescale_qkv: num_heads must be positive, got {num_heads}"
        )
    if embed % num_heads != 0:
        raise _failed_check("D % num_head == 0")
    if three_d % 3 != 0:
        raise _failed_check("_3D % 3 == 0")
    if qkv.dtype not in _FLOATING:
        not_implemented_for("transform_bias_rescale_qkv", qkv.dtype)
    if qkv_bias.dtype is not qkv.dtype:
        raise NotImplementedError(
            f"_transform_bias_rescale_qkv: a {qkv_bias.dtype} qkv_bias for a {qkv.dtype} qkv "
            "(PyTorch's kernel reads the bias's bytes as the qkv's dtype)"
        )
    if qkv_bias.numel() != three_d:
        # PyTorch's kernel reads 3D values of the bias unchecked
        raise RuntimeError(
            f"_transform_bias_rescale_qkv: expected qkv_bias with {three_d} elements, got "
            f"{qkv_bias.numel()}"
        )
    head_dim = embed // num_heads
    # computed in the opmath type and rounded once; the constant 1.0 / sqrt(head_dim)
    # takes the root in that type
    compute = opmath(qkv.dtype.np_dtype)
    inv_sqrt = compute.type(1.0 / float(np.sqrt(compute.type(head_dim))))
    values = qkv.ndarray().astype(compute).reshape(batch, length, 3, num_heads, head_dim)
    bias = qkv_bias.ndarray().astype(compute).reshape(3, num_heads, head_dim)
    with np.errstate(all="ignore"):
        shifted = values + bias
        shifted[:, :, 0] *= inv_sqrt
    q_k_v = empty_tensor((3, batch, num_heads, length, head_dim), qkv.dtype, qkv.device)
    store(q_k_v, np.transpose(shifted, (2, 0, 3, 1, 4)))
    packed = at.view(q_k_v, [3 * batch, num_heads, length, head_dim])
    return tuple(at.split_Tensor(packed, batch, 0))


def _broadcast_mask(values_shape, mask, mask_type):
    """The mask as a boolean array broadcast to the scores' shape, after PyTorch's checks."""
    if mask.dtype is not dtypes.bool:
        raise RuntimeError("Mask should be a boolean tensor")
    if mask.dim() != 2 or len(values_shape) != 4:
        mask_type = 2
    if mask_type == 2:
        if tuple(mask.shape) != tuple(values_shape):
            raise RuntimeError("For mask_type == 2 mask shape should match input shape")
        return mask.ndarray()
    if mask_type == 1:
        if values_shape[0] != mask.shape[0] or values_shape[2] != mask.shape[1]:
            raise RuntimeError("For mask_type == 1 mask shape should be (B, L)")
        if values_shape[2] != values_shape[3]:
            raise NotImplementedError(
                "_masked_softmax: a (B, L) padding mask (mask_type 1) for scores whose last "
                "two sizes differ is read out of its bounds by PyTorch's kernel"
            )
        rows = mask.ndarray().reshape(mask.shape[0], 1, 1, mask.shape[1])
        return np.broadcast_to(rows, values_shape)
    if mask_type == 0:
        square = values_shape[2] == mask.shape[0] and values_shape[2] == mask.shape[1]
        if not square or values_shape[3] != values_shape[2]:
            raise RuntimeError("For mask_type == 0 mask shape should be (L, L)")
        return np.broadcast_to(mask.ndarray(), values_shape)
    return None  # an undefined or unknown type: refused once the dtype is checked


@quiet
def masked_softmax_cpu(self, mask, dim=None, mask_type=None):
    """softmax with the masked entries at -inf (computed in the opmath type): they give
    0, and a row with every entry masked gives NaN, as PyTorch's kernel does."""
    masked = _broadcast_mask(tuple(self.shape), mask, mask_type)
    if self.dtype not in _FLOATING:
        not_implemented_for("masked_softmax", self.dtype)
    if masked is None:
        if mask_type is None:
            raise RuntimeError("Mask Type should be defined")
        raise RuntimeError(
            "Mask Type should be 0 (src_mask) or 1 (src_key_padding_mask), or 2 (default_mask)"
        )
    axis = wrap_dim(self.dim() - 1 if dim is None else dim, self.dim())
    compute = opmath(self.dtype.np_dtype)
    values = self.ndarray().astype(compute)
    if values.ndim == 0:
        values, masked = values.reshape(1), np.asarray(masked).reshape(1)
    scores = np.where(masked, -np.inf, values)
    weights = np.exp(scores - np.max(scores, axis=axis, keepdims=True))
    out = weights / weights.sum(axis=axis, keepdims=True)
    result = empty_tensor(tuple(self.shape), self.dtype, self.device)
    store(result, out.reshape(result.shape))
    return result


@quiet
def masked_softmax_backward_cpu(grad_output, output, mask, dim=None):
    """output * (grad - sum(grad * output)) over the unmasked entries, 0 where masked."""
    if tuple(grad_output.shape) != tuple(mask.shape):
        raise RuntimeError("Mask shape should match grad shape")
    if mask.dtype is not dtypes.bool:
        raise RuntimeError("Mask should be a boolean tensor")
    if grad_output.dtype not in _FLOATING:
        not_implemented_for("masked_softmax_backward", grad_output.dtype)
    axis = wrap_dim(output.dim() - 1 if dim is None else dim, grad_output.dim())
    compute = opmath(grad_output.dtype.np_dtype)
    grad = grad_output.ndarray().astype(compute).reshape(grad_output.shape or (1,))
    out = output.ndarray().astype(compute).reshape(output.shape or (1,))
    masked = mask.ndarray().reshape(mask.shape or (1,))
    kept = np.where(masked, 0, grad * out)
    dot = kept.sum(axis=axis, keepdims=True)
    values = np.where(masked, 0, out * (grad - dot))
    result = empty_tensor(tuple(grad_output.shape), grad_output.dtype, grad_output.device)
    store(result, values.reshape(result.shape))
    return result


def _gemm_nt(inputs, weight):
    """at::native::matmul(inputs, weight.t()) for a (B, T, E) input: t, reshape, mm and
    _unsafe_view (matmul itself is not dispatched)."""
    batch, length, features = inputs.shape
    weight_t = at.t(weight)
    folded = at.reshape(inputs, [batch * length, features])
    product = at.mm(folded, weight_t)
    return at._unsafe_view(product, [batch, length, weight.shape[0]])


def _qkv_projection(query, key, value, embed_dim, qkv_weight):
    """(B, T, 3D): one product for self-attention, else one per part, concatenated."""
    if key is value:
        if query is key:
            return _gemm_nt(query, qkv_weight)
        w_q, w_kv = at.split_with_sizes(qkv_weight, [embed_dim, embed_dim * 2], 0)
        return at.cat([_gemm_nt(query, w_q), _gemm_nt(key, w_kv)], 2)
    w_q, w_k, w_v = at.chunk(qkv_weight, 3, 0)
    parts = [_gemm_nt(query, w_q), _gemm_nt(key, w_k), _gemm_nt(value, w_v)]
    return at.cat(parts, 2)


def _check_arguments(query, key, value, embed_dim, num_head, qkv_weight, qkv_bias) -> None:
    """native_multi_head_attention_cpu's checks, in its order."""
    checks = (
        (lambda: query.dim() == 3, lambda: f"expected 3-D `query`, got {query.dim()}-D tensor"),
        (
            lambda: query.shape[2] == embed_dim,
            lambda: (
                f"passed-in embed_dim {embed_dim} didn't match last dim of query {query.shape[2]}"
            ),
        ),
        (lambda: key.dim() == 3, lambda: f"expected 3-D `key`, got {key.dim()}-D tensor"),
        (lambda: value.dim() == 3, lambda: f"expected 3-D `value`, got {value.dim()}-D tensor"),
        (
            lambda: tuple(query.shape) == tuple(key.shape) == tuple(value.shape),
            lambda: "expected `query`/`key`/`value` shapes to match",
        ),
        (
            lambda: qkv_weight.dim() == 2,
            lambda: f"expected 2-D `qkv_weight`, got {qkv_weight.dim()}-D tensor",
        ),
        (
            lambda: embed_dim * 3 == qkv_weight.shape[0],
            lambda: "expected `qkv_weight` first dim to be 3x embed_dim",
        ),
        (
            lambda: embed_dim == qkv_weight.shape[1],
            lambda: "expected `qkv_weight` second dim to be embed_Dim",
        ),
        (
            lambda: qkv_bias.dim() == 1,
            lambda: f"expected 1-D `qkv_bias`, got {qkv_bias.dim()}-D tensor",
        ),
        (
            lambda: qkv_bias.shape[0] == 3 * embed_dim,
            lambda: "expected `qkv_bias` first dim and first dim of query to be equal",
        ),
        (
            lambda: embed_dim % num_head == 0,
            lambda: "`embed_dim` must divide evenly by `num_heads`",
        ),
    )
    for holds, message in checks:
        if not holds():
            raise RuntimeError(message())


def native_multi_head_attention_cpu(query, key, value, embed_dim, num_head, qkv_weight,
                                    qkv_bias, proj_weight, proj_bias, mask=None,
                                    need_weights=True, average_attn_weights=True,
                                    mask_type=None):  # fmt: skip
    _check_arguments(query, key, value, embed_dim, num_head, qkv_weight, qkv_bias)
    qkv = _qkv_projection(query, key, value, embed_dim, qkv_weight)
    if qkv.numel() == 0:
        return at.empty_like(query, None, None, None, None, None), None
    q, k, v = at._transform_bias_rescale_qkv(qkv, qkv_bias, num_head)
    del qkv
    batch, heads, length, head_dim = q.shape
    # scores: (B, H, T, T)
    q_ = at.view(q, [batch * heads, length, head_dim])
    k_ = at.view(k, [batch * heads, length, head_dim])
    scores = at.view(at.bmm(q_, at.transpose_int(k_, 2, 1)), [batch, heads, length, length])
    scores = _masked_softmax(scores, mask, mask_type)
    # the context is written into q's storage: (B, H, T, head_dim)
    weights_ = at.view(scores, [batch * heads, length, length])
    v_ = at.view(v, [batch * heads, length, head_dim])
    out_ = at.reshape(q, [batch * heads, length, head_dim])
    context = at.view(at.bmm_out(weights_, v_, out_), [batch, heads, length, head_dim])
    # (B, T, H * head_dim), then the out-projection
    merged = at.contiguous(at.permute(context, [0, 2, 1, 3]), None)
    merged = at.view(merged, [batch, length, heads * head_dim])
    folded = at.view(merged, [batch * length, heads * head_dim])
    projected = at.addmm(proj_bias, folded, at.t(proj_weight), 1, 1)
    projected = at.view(projected, [batch, length, projected.shape[1]])
    if not need_weights:
        return projected, None
    if average_attn_weights:
        scores = at.sum_dim_IntList(scores, [1], False, None)
        scores = at.div__Scalar(scores, num_head)
    return projected, scores


def _masked_softmax(scores, mask, mask_type):
    """attention.cpp's masked_softmax: the mask cast to bool, then _masked_softmax, or an
    in-place softmax without one."""
    dim = scores.dim() - 1
    if mask is None:
        return at._softmax_out(scores, dim, False, scores)
    if mask.dtype is not dtypes.bool:
        mask = at.to_dtype(mask, dtypes.bool, False, False, None)
    return at._masked_softmax(scores, mask, dim, mask_type)


def native_multi_head_attention_meta(query, key, value, embed_dim, num_head, qkv_weight,
                                     qkv_bias, proj_weight, proj_bias, mask=None,
                                     need_weights=True, average_attn_weights=True,
                                     mask_type=None):  # fmt: skip
    """PyTorch's Python meta kernel (torch/_meta_registrations.py): only the shapes, and
    an empty (0,) tensor, not None, for the weights it is not asked for."""
    device, dtype = query.device, query.dtype
    if query.numel() == 0:
        return empty_tensor(tuple(query.shape), dtype, device), empty_tensor((0,), dtype, device)
    batch, length = query.size(0), query.size(1)
    output = empty_tensor((batch, length, proj_weight.size(0)), dtype, device)
    if not need_weights:
        return output, empty_tensor((0,), dtype, device)
    shape = (batch, length, length) if average_attn_weights else (batch, num_head, length, length)
    return output, empty_tensor(shape, dtype, device)
