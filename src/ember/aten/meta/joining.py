"""Meta functions of cat, tril and triu: output shape, dtype, layout and PyTorch's checks.

Layer: aten/meta. In: the functional arguments (tensors may be meta). Out: a
StructuredMeta. Mirrors TORCH_PRECOMPUTE_META_FUNC(cat) in
ATen/native/TensorShape.cpp (the legacy rule that skips 1-d empty tensors,
dtype promotion, the output memory format), for meta operands torch/_refs cat
(PyTorch's Meta kernel of cat is that Python reference), and
TORCH_META_FUNC(tril/triu) in ATen/native/TriangularOps.cpp.
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember.aten.native.common import wrap_dim
from ember.aten.native.layout import strides_for
from ember.aten.structured import StructuredMeta, _can_cast
from ember.aten.tensor_iterator import OutputSpec

__all__ = ["cat", "tril", "triu"]


def cat_should_skip(t) -> bool:
    """cat_should_skip_tensor: the legacy 1-d empty tensor that cat ignores."""
    return len(t._sizes) == 1 and t._sizes[0] == 0


def cat_wrap_dim(dim: int, tensors) -> int:
    """legacy_cat_wrap_dim: wrap against the first tensor that is not skipped."""
    for t in tensors:
        if cat_should_skip(t):
            continue
        return wrap_dim(dim, len(t._sizes))
    return dim


def _suggest_memory_format(t) -> str:
    ndim = len(t._sizes)
    if ndim in (4, 5) and not t.is_contiguous():
        name = "channels_last" if ndim == 4 else "channels_last_3d"
        if t._strides == strides_for(t._sizes, name):
            return name
    return "contiguous_format"


def _output_memory_format(tensors) -> str:
    """cat_compute_output_memory_format: one shared suggestion, else contiguous."""
    found = None
    for t in tensors:
        name = _suggest_memory_format(t)
        if name == "contiguous_format":
            return name
        if found is not None and found != name:
            return "contiguous_format"
        found = name
    return found


def _check_shape_except_dim(first, second, dim: int, index: int) -> None:
    if len(first._sizes) != len(second._sizes):
        raise RuntimeError(
            "Tensors must have same number of dimensions: got "
            f"{len(first._sizes)} and {len(second._sizes)}"
        )
    for d, (a, b) in enumerate(zip(first._sizes, second._sizes)):
        if d != dim and a != b:
            raise RuntimeError(
                f"Sizes of tensors must match except in dimension {dim}. Expected size {a} but "
                f"got size {b} for tensor number {index} in the list."
            )


def _python_reference_cat(tensors, dim) -> StructuredMeta:
    """torch._refs.cat, PyTorch's Meta kernel of cat (a meta operand takes a call there):
    devices first, then ranks (1-d empty tensors aside), the dim, prims.cat's sizes
    (counted among the tensors kept), a contiguous result in the shared memory format."""
    device = tensors[0].device
    for t in tensors:
        if t.device != device:
            raise RuntimeError(
                f"Tensor on device {t.device} is not on the expected device {device}!"
            )
    out_dtype = dtypes.result_type(tensors)
    example = next((t for t in tensors if len(t._sizes) != 1), None)
    if example is not None:
        for i, t in enumerate(tensors):
            if len(t._sizes) != 1 and len(t._sizes) != len(example._sizes):
                raise _rank_mismatch(example, t, i)
    else:
        example = tensors[0]
    kept = []
    for i, t in enumerate(tensors):
        if len(t._sizes) != len(example._sizes):
            if t._sizes[0] != 0:
                raise _rank_mismatch(example, t, i)
        elif not cat_should_skip(t):
            kept.append(t)
    memory_format = _output_memory_format(tensors)
    if not kept:
        return StructuredMeta(OutputSpec((0,), None, out_dtype, device))
    dim = wrap_dim(dim, len(kept[0]._sizes))
    sizes = list(kept[0]._sizes)
    for index, t in enumerate(kept):
        for d, (common, length) in enumerate(zip(kept[0]._sizes, t._sizes)):
            if d != dim and length != common:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {dim}. Expected {common} "
                    f"in dimension {d} but got {length} for tensor number {index} in the list"
                )
    if not sizes:  # all 0-dim: prims.cat's new_shape[dim] = ... on an empty list
        raise IndexError("list assignment index out of range")
    sizes[dim] = sum(t._sizes[dim] for t in kept)
    sizes = tuple(sizes)
    return StructuredMeta(OutputSpec(sizes, strides_for(sizes, memory_format), out_dtype, device))


def _rank_mismatch(example, t, index: int) -> RuntimeError:
    return RuntimeError(
        f"Number of dimensions of tensors must match.  Expected {len(example._sizes)}-D tensors, "
        f"but got {len(t._sizes)}-D for tensor number {index} in the list"
    )


class CatMeta(StructuredMeta):
    """TORCH_PRECOMPUTE_META_FUNC(cat): an out= tensor must be able to hold the result type
    (a TypeError there), and the output takes its dtype."""

    __slots__ = ()

    def resize_outputs(self, *outs) -> None:
        out, spec = outs[0], self.specs[0]
        if not _can_cast(spec.dtype, out.dtype):
            raise TypeError(
                "torch.cat(): input types can't be cast to the desired output type "
                f"{dtypes.scalar_type_name(out.dtype)}"
            )
        StructuredMeta.resize_outputs(self, *outs)


def cat(tensors, dim) -> StructuredMeta:
    tensors = list(tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    if any(t.device.type == "meta" for t in tensors):
        return _python_reference_cat(tensors, dim)
    for i, t in enumerate(tensors):
        if not t._sizes:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    dim = cat_wrap_dim(dim, tensors)
    memory_format = _output_memory_format(tensors)
    out_dtype = dtypes.result_type(tensors)
    valid = next((t for t in tensors if not cat_should_skip(t)), None)
    sizes = (0,)
    device = tensors[0].device
    if valid is not None:
        if dim > len(valid._sizes):
            raise RuntimeError(f"torch.cat(): dimension {dim}out of range")
        size_at_dim = 0
        for i, t in enumerate(tensors):
            if cat_should_skip(t):
                continue
            _check_shape_except_dim(valid, t, dim, i)
            size_at_dim += t._sizes[dim]
        sizes = list(valid._sizes)
        sizes[dim] = size_at_dim
        sizes = tuple(sizes)
        device = valid.device
    for t in tensors:
        if t.device != device:
            raise RuntimeError(
                "Expected all tensors to be on the same device, but found at least two devices, "
                f"{device} and {t.device}!"
            )
    strides = strides_for(sizes, memory_format)
    return CatMeta(OutputSpec(sizes, strides, out_dtype, device))


def _triangle(name: str, self) -> StructuredMeta:
    if len(self._sizes) < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    return StructuredMeta(OutputSpec(self._sizes, None, self.dtype, self.device), exact_out=True)


def tril(self, diagonal) -> StructuredMeta:
    return _triangle("tril", self)


def triu(self, diagonal) -> StructuredMeta:
    return _triangle("triu", self)
