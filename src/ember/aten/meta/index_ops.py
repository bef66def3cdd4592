"""Meta functions of index_add, index_copy, scatter_add and scatter_reduce.two.

Layer: aten/meta. In: the functional arguments. Out: a StructuredMeta shaped like self.
Mirrors index_func_meta_impl, TORCH_META_FUNC(index_copy), TORCH_META_FUNC(scatter_add)
and TORCH_META_FUNC2(scatter_reduce, two) of ATen/native/TensorAdvancedIndexing.cpp.
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember._c10.tensor_impl import shape_text
from ember.aten.meta.gather_scatter import ScatterMeta, _scatter_meta
from ember.aten.native.common import wrap_dim
from ember.aten.structured import StructuredMeta
from ember.aten.tensor_iterator import OutputSpec

__all__ = ["index_add", "index_copy", "index_func_meta", "scatter_add", "scatter_reduce_two"]

SCATTER_REDUCES = ("sum", "prod", "mean", "amax", "amin", "max", "min")  # max, min: aliases


def _like_self(self) -> StructuredMeta:
    return StructuredMeta(OutputSpec(self._sizes, None, self.dtype, self.device))


def _size(t, dim: int) -> int:
    return t._sizes[wrap_dim(dim, t.dim())] if t._sizes else 1


def index_add(self, dim, index, source, alpha) -> StructuredMeta:
    return index_func_meta(self, dim, index, source, "index_add")


def index_func_meta(self, dim, index, source, func: str) -> StructuredMeta:
    """index_func_meta_impl: the checks index_add and index_reduce share."""
    dim = wrap_dim(dim, self.dim())
    if index.dim() > 1:
        raise IndexError(
            f"{func}_(): Index is supposed to be a vector, but got dim: {index.dim()} with type: "
            f"{dtypes.scalar_type_name(index.dtype)} and size: {shape_text(index._sizes)}"
        )
    if index.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(
            f"{func}_(): Expected dtype int32/int64 for index but got: "
            f"{dtypes.scalar_type_name(index.dtype)}"
        )
    if self.dtype is not source.dtype:
        raise RuntimeError(
            f"{func}_(): self ({dtypes.scalar_type_name(self.dtype)}) and source "
            f"({dtypes.scalar_type_name(source.dtype)}) must have the same scalar type"
        )
    if not (dim == 0 or dim < source.dim()):
        raise RuntimeError(
            f"{func}_(): Indexing dim {dim} is out of bounds of the source tensor with dim "
            f"{source.dim()}"
        )
    if source.dim() != 0 and self.dim() != 0:
        self_rest = [s for d, s in enumerate(self._sizes) if d != dim]
        source_rest = [s for d, s in enumerate(source._sizes) if d != dim]
        if self.dim() != source.dim() or self_rest != source_rest:
            raise RuntimeError(
                "source tensor shape must match self tensor shape, excluding the specified "
                f"dimension. Got self.shape = {shape_text(self._sizes)} source.shape = "
                f"{shape_text(source._sizes)}"
            )
    expected = 1 if source.dim() == 0 else _size(source, dim)
    if index.numel() != expected:
        raise RuntimeError(
            f"{func}_(): Number of indices ({index.numel()}) should be equal to "
            f"source.size(dim): ({_size(source, dim)}), for dim: {dim}"
        )
    return _like_self(self)


def index_copy(self, dim, index, source) -> StructuredMeta:
    dim = wrap_dim(dim, self.dim())
    if index.dim() >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.dim()})")
    num_indices = index.numel()
    if source.dim() == 0 and num_indices != 1:
        raise IndexError(
            "index_copy_(): When source is scalar, index should have one element "
            f"(got {num_indices})"
        )
    if source.dim() != self.dim() and source.dim() != 0 and self.dim() != 0:
        raise IndexError(
            "index_copy_(): When source and destination are not scalars, their dimensionality "
            f"must match. Source dimensionality ({source.dim()}), destination dimensionality "
            f"({self.dim()})"
        )
    if index.dtype is not dtypes.int64:
        raise RuntimeError(
            "index_copy_(): Expected a long tensor for index, but got "
            f"{dtypes.scalar_type_name(index.dtype)}"
        )
    if self.dtype is not source.dtype:
        raise RuntimeError(
            "index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{dtypes.scalar_type_name(self.dtype)} and (source) "
            f"{dtypes.scalar_type_name(source.dtype)}"
        )
    self_sliced = list(self._sizes)
    if self_sliced:
        del self_sliced[dim]
    source_sliced = list(source._sizes)
    if source_sliced:
        del source_sliced[dim]
    if self_sliced != source_sliced:
        raise RuntimeError(
            "index_copy_(): Source/destination tensor must have same slice shapes. Destination "
            f"slice shape: {_vector_text(self_sliced)} at dimension {dim} and source slice "
            f"shape: {_vector_text(source_sliced)} at dimension 0."
        )
    if not (source.dim() == 0 or num_indices == source._sizes[dim]):
        raise IndexError(
            f"index_copy_(): Number of indices ({num_indices}) should be equal to "
            f"source.size(dim) ({source._sizes[dim]})"
        )
    return _like_self(self)


def _vector_text(sizes) -> str:
    """A std::vector<int64_t> as c10's operator<< prints it: the elements, space-separated."""
    return " ".join(str(s) for s in sizes)


def scatter_add(self, dim, index, src) -> StructuredMeta:
    return _scatter_meta(self, dim, index, src)


class ScatterReduceMeta(ScatterMeta):
    """scatter_meta_impl with the reduce names of scatter_reduce.two."""

    __slots__ = ()

    def _check_reduce(self) -> None:
        if self.reduce not in SCATTER_REDUCES:
            raise RuntimeError(
                f"reduce argument must be either sum, prod, mean, amax or amin, got {self.reduce}"
            )


def scatter_reduce_two(self, dim, index, src, reduce, include_self) -> StructuredMeta:
    meta = _scatter_meta(self, dim, index, src)
    return ScatterReduceMeta(meta.specs[0], (index, src), reduce)
