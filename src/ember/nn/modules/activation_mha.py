"""`nn.MultiheadAttention`.

Layer: nn. In: embed_dim, num_heads and PyTorch's other constructor arguments. Out: a
module with PyTorch's parameters (in_proj_weight or q/k/v_proj_weight, in_proj_bias,
out_proj, bias_k / bias_v) initialised as _reset_parameters does, whose forward takes
the fast path (torch._native_multi_head_attention) under PyTorch's conditions (eval,
batched batch_first self-attention, no grad needed, even heads, ...) and else calls
F.multi_head_attention_forward. Mirrors MultiheadAttention of
torch/nn/modules/activation.py.
"""

from __future__ import annotations

from ember._torch_function import has_torch_function
from ember._type_helpers import is_floating_point, is_grad_enabled
from ember.amp.state import is_autocast_enabled
from ember.aten._generated import python_functions as _functions
from ember.backends import mha as _mha_backend
from ember.nn import functional as F
from ember.nn.init import constant_, xavier_normal_, xavier_uniform_
from ember.nn.modules.linear import NonDynamicallyQuantizableLinear
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = ["MultiheadAttention"]

# PyTorch defines the class in torch/nn/modules/activation.py, which re-exports it here
_ACTIVATION_MODULE = __name__.rsplit(".", 1)[0] + ".activation"
# the devices the fast path accepts: cpu, cuda and the PrivateUse1 backend (which ember
# does not rename)
_FAST_PATH_DEVICES = ("cpu", "cuda", "privateuseone")


def _is_nested(tensor) -> bool:
    """ember has no nested tensors: no tensor is one."""
    return getattr(tensor, "is_nested", False)


class MultiheadAttention(Module):
    """Attention over num_heads heads of embed_dim // num_heads features each."""

    __module__ = _ACTIVATION_MODULE
    __constants__ = ["batch_first"]

    def __init__(
        self,
        embed_dim,
        num_heads,
        dropout=0.0,
        bias=True,
        add_bias_kv=False,
        add_zero_attn=False,
        kdim=None,
        vdim=None,
        batch_first=False,
        device=None,
        dtype=None,
    ) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0,"
                f" got embed_dim={embed_dim} and num_heads={num_heads} instead"
            )
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(
                _functions.empty((embed_dim, embed_dim), **factory_kwargs)
            )
            self.k_proj_weight = Parameter(
                _functions.empty((embed_dim, self.kdim), **factory_kwargs)
            )
            self.v_proj_weight = Parameter(
                _functions.empty((embed_dim, self.vdim), **factory_kwargs)
            )
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(
                _functions.empty((3 * embed_dim, embed_dim), **factory_kwargs)
            )
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_functions.empty(3 * embed_dim, **factory_kwargs))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(
            embed_dim, embed_dim, bias=bias, **factory_kwargs
        )
        if add_bias_kv:
            self.bias_k = Parameter(_functions.empty((1, 1, embed_dim), **factory_kwargs))
            self.bias_v = Parameter(_functions.empty((1, 1, embed_dim), **factory_kwargs))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            xavier_uniform_(self.in_proj_weight)
        else:
            xavier_uniform_(self.q_proj_weight)
            xavier_uniform_(self.k_proj_weight)
            xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            constant_(self.in_proj_bias, 0.0)
            constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            xavier_normal_(self.bias_v)

    def __setstate__(self, state):
        # checkpoints of PyTorch 1.1 have no _qkv_same_embed_dim
        if "_qkv_same_embed_dim" not in state:
            state["_qkv_same_embed_dim"] = True
        super().__setstate__(state)

    def forward(self, query, key, value, key_padding_mask=None, need_weights: bool = True,
                attn_mask=None, average_attn_weights: bool = True, is_causal: bool = False):  # fmt: skip
        why_not_fast_path = ""
        if (attn_mask is not None and is_floating_point(attn_mask)) or (
            key_padding_mask is not None and is_floating_point(key_padding_mask)
        ):
            why_not_fast_path = "floating-point masks are not supported for fast path."
        is_batched = query.dim() == 3
        key_padding_mask = F._canonical_mask(
            mask=key_padding_mask,
            mask_name="key_padding_mask",
            other_type=F._none_or_dtype(attn_mask),
            other_name="attn_mask",
            target_type=query.dtype,
        )
        attn_mask = F._canonical_mask(
            mask=attn_mask,
            mask_name="attn_mask",
            other_type=None,
            other_name="",
            target_type=query.dtype,
            check_other=False,
        )
        reason = self._why_not_fast_path(query, key, value, key_padding_mask, attn_mask)
        why_not_fast_path = reason or why_not_fast_path
        if not why_not_fast_path and self.in_proj_bias is not None:
            merged_mask, mask_type = self.merge_masks(attn_mask, key_padding_mask, query)
            return _functions._native_multi_head_attention(
                query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
                self.in_proj_bias, self.out_proj.weight, self.out_proj.bias, merged_mask,
                need_weights, average_attn_weights, mask_type,
            )  # fmt: skip
        if _is_nested(query) or _is_nested(key) or _is_nested(value):
            raise AssertionError(
                "MultiheadAttention does not support NestedTensor outside of its fast path. "
                + f"The fast path was not hit because {why_not_fast_path}"
            )
        if self.batch_first and is_batched:
            # transpose so that the `is` relations between query, key and value survive
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = {}
        if not self._qkv_same_embed_dim:
            separate = {
                "use_separate_proj_weight": True,
                "q_proj_weight": self.q_proj_weight,
                "k_proj_weight": self.k_proj_weight,
                "v_proj_weight": self.v_proj_weight,
            }
        attn_output, attn_output_weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, **separate, average_attn_weights=average_attn_weights,
            is_causal=is_causal,
        )  # fmt: skip
        if self.batch_first and is_batched:
            return attn_output.transpose(1, 0), attn_output_weights
        return attn_output, attn_output_weights

    def _why_not_fast_path(self, query, key, value, key_padding_mask, attn_mask) -> str:
        """PyTorch's reasons, in its order, for not taking the fast path ("" to take it);
        ``is_batched`` and the mask dtypes are checked by the caller."""
        if not _mha_backend.get_fastpath_enabled():
            return "torch.backends.mha.get_fastpath_enabled() was not True"
        if query.dim() != 3:
            return f"input not batched; expected query.dim() of 3 but got {query.dim()}"
        if query is not key or key is not value:
            return "non-self attention was used (query, key, and value are not the same Tensor)"
        if self.in_proj_bias is not None and query.dtype != self.in_proj_bias.dtype:
            return (
                f"dtypes of query ({query.dtype}) and self.in_proj_bias "
                f"({self.in_proj_bias.dtype}) don't match"
            )
        if self.in_proj_weight is None:
            return "in_proj_weight was None"
        if query.dtype != self.in_proj_weight.dtype:
            return (
                f"dtypes of query ({query.dtype}) and self.in_proj_weight "
                f"({self.in_proj_weight.dtype}) don't match"
            )
        simple = (
            (self.training, "training is enabled"),
            ((self.num_heads % 2) != 0, "self.num_heads is not even"),
            (not self.batch_first, "batch_first was not True"),
            (self.bias_k is not None, "self.bias_k was not None"),
            (self.bias_v is not None, "self.bias_v was not None"),
            (self.add_zero_attn, "add_zero_attn was enabled"),
            (not self._qkv_same_embed_dim, "_qkv_same_embed_dim was not True"),
            (
                _is_nested(query) and (key_padding_mask is not None or attn_mask is not None),
                "supplying both src_key_padding_mask and src_mask at the same time "
                "is not supported with NestedTensor input",
            ),
            (is_autocast_enabled(), "autocast is enabled"),
        )
        for refused, reason in simple:
            if refused:
                return reason
        tensor_args = (query, key, value, self.in_proj_weight, self.in_proj_bias,
                       self.out_proj.weight, self.out_proj.bias)  # fmt: skip
        present = tuple(t for t in tensor_args if t is not None)
        if has_torch_function(present):
            return "some Tensor argument has_torch_function"
        if not all(t.device.type in _FAST_PATH_DEVICES for t in present):
            return (
                "some Tensor argument's device is neither one of cpu, cuda or "
                f"{_FAST_PATH_DEVICES[2]}"
            )
        if is_grad_enabled() and any(t.requires_grad for t in present):
            return (
                "grad is enabled and at least one of query or the "
                "input/output projection weights or biases requires_grad"
            )
        return ""

    def merge_masks(self, attn_mask, key_padding_mask, query):
        """The fast path's one mask and its type: 1 for a key padding mask alone, 2 for
        an attention mask (with the padding mask added), both as (N, H, L, S)."""
        mask_type = None
        merged_mask = None
        if key_padding_mask is not None:
            mask_type = 1
            merged_mask = key_padding_mask
        if attn_mask is not None:
            batch_size, seq_len, _ = query.shape
            mask_type = 2
            if attn_mask.dim() == 3:
                attn_mask_expanded = attn_mask.view(batch_size, -1, seq_len, seq_len)
            else:
                attn_mask_expanded = attn_mask.view(1, 1, seq_len, seq_len).expand(
                    batch_size, self.num_heads, -1, -1
                )
            merged_mask = attn_mask_expanded
            if key_padding_mask is not None:
                key_padding_mask_expanded = key_padding_mask.view(batch_size, 1, 1, seq_len).expand(
                    -1, self.num_heads, -1, -1
                )
                merged_mask = attn_mask_expanded + key_padding_mask_expanded
        return merged_mask, mask_type
