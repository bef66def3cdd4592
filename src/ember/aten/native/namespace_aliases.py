"""The CompositeImplicitAutograd aliases of torch's namespace: greater/greater_equal/less/
less_equal/not_equal (gt/ge/lt/le/ne), clip (clamp), concat/concatenate (cat), row_stack
(vstack), ger (outer); and chain_matmul, is_nonzero, is_same_size, is_signed.

Layer: aten/native. In: the full schema-ordered arguments. Out: what the aliased operator
returns. Mirrors ATen/native/BinaryOps.cpp (`greater(self, other)` is `at::gt`),
TensorCompare.cpp (clip), TensorShape.cpp (concat, concatenate, row_stack),
LinearAlgebra.cpp (ger, chain_matmul) and TypeProperties.cpp / TensorProperties.cpp
(is_signed, is_same_size, is_nonzero): they decompose before autograd, so a dispatch
mode sees the aliased operator and the grad_fn is its node.
"""

from __future__ import annotations

from ember._c10.warning import torch_warn_once
from ember.aten.native import at
from ember.aten.native.resize import resize_output

__all__ = [
    "chain_matmul",
    "chain_matmul_out",
    "ger_out",
    "is_nonzero",
    "is_same_size",
    "is_signed",
]

_TARGETS = {"greater": "gt", "greater_equal": "ge", "less": "lt", "less_equal": "le",
            "not_equal": "ne"}  # fmt: skip
_OVERLOADS = ("_Scalar_out", "_Scalar", "_Tensor_out", "_Tensor", "__Scalar", "__Tensor")
_SAME_ARGUMENTS = {
    "clip": "clamp", "clip_Tensor": "clamp_Tensor", "clip_": "clamp_",
    "clip__Tensor": "clamp__Tensor", "clip_out": "clamp_out", "clip_Tensor_out": "clamp_Tensor_out",
    "concat": "cat", "concat_out": "cat_out", "concatenate": "cat", "concatenate_out": "cat_out",
    "row_stack": "vstack", "row_stack_out": "vstack_out", "ger": "outer",
}  # fmt: skip
for _alias_name, _target in _TARGETS.items():
    for _suffix in _OVERLOADS:
        _SAME_ARGUMENTS[_alias_name + _suffix] = _target + _suffix


def _alias(name: str, target: str):
    def kernel(*args):
        return getattr(at, target)(*args)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


for _name, _target in _SAME_ARGUMENTS.items():
    globals()[_name] = _alias(_name, _target)
    __all__.append(_name)


def ger_out(self, vec2, out):
    """outer_out: the 1-D checks, then mul_out of self as a column with vec2."""
    for name, t in (("self", self), ("vec2", vec2)):
        if t.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.dim()}-D")
    return at.mul_out(at.reshape(self, [self._sizes[0], 1]), vec2, out)


_CHAIN_MATMUL_DEPRECATED = (
    "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
    "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
    "multiple parameters."
)


def _check_matrices(matrices) -> None:
    """checkAllSameDim(matrices, 2), then the non-empty check."""
    torch_warn_once(_CHAIN_MATMUL_DEPRECATED, "aten/src/ATen/native/LinearAlgebra.cpp:1102")
    for t in matrices:
        if t.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {t.dim()}, expected 2 instead.")
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")


def chain_matmul(matrices):
    _check_matrices(matrices)
    if len(matrices) == 1:
        return at.clone(matrices[0], None)
    return at.linalg_multi_dot(matrices)


def chain_matmul_out(matrices, out):
    _check_matrices(matrices)
    if len(matrices) == 1:
        resize_output(out, matrices[0]._sizes)
        return at.copy_(out, matrices[0], False)
    return at.linalg_multi_dot_out(matrices, out)


def is_signed(self) -> bool:
    return self.dtype.is_signed


def is_same_size(self, other) -> bool:
    return self._sizes == other._sizes


def is_nonzero(self) -> bool:
    """is_nonzero: a one-element tensor's value, read with item() (so a meta tensor refuses)."""
    n = self.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(at.item(self))
