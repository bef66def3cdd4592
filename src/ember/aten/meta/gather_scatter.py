"""Meta functions of gather, scatter (src / value) and advanced indexing (index.Tensor).

Layer: aten/meta. In: the functional arguments (tensors may be meta). Out: a
StructuredMeta. Mirrors TORCH_META_FUNC(gather) and scatter_meta_impl in
ATen/native/TensorAdvancedIndexing.cpp with the shape checks of
ScatterGatherChecks.h, and the index meta (make_info / build_index_op): the
result shape of PyTorch's advanced indexing rules, and the output strides
TensorIterator picks from the restrided source and the broadcast indices.
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember._c10.tensor_impl import shape_text
from ember._c10.warning import torch_warn_once
from ember.aten.memory_overlap import (
    assert_no_internal_overlap,
    assert_no_overlap,
    assert_no_partial_overlap,
)
from ember.aten.native.common import wrap_dim
from ember.aten.native.indexing_info import index_info
from ember.aten.structured import StructuredMeta
from ember.aten.tensor_iterator import OutputSpec, output_strides

__all__ = [
    "gather",
    "scatter_src",
    "scatter_value",
    "scatter_reduce",
    "scatter_value_reduce",
    "index_Tensor",
]


class _GatheringMeta(StructuredMeta):
    """A meta result that keeps the inputs its kernel's overlap checks need. These kernels
    refuse any overlap between the written-to tensor and what they gather from
    (assert_no_overlap, Note [Memory overlap checks]), so an out= that is also an input is
    refused by those checks, and check_read_write has nothing to add."""

    __slots__ = ("inputs",)

    def __init__(self, spec, inputs) -> None:
        StructuredMeta.__init__(self, spec, exact_out=True)
        self.inputs = inputs

    def check_read_write(self, out, index: int = 0) -> None:
        pass


class GatherMeta(_GatheringMeta):
    """TORCH_META_FUNC(gather): the checks follow the resize of `out`."""

    __slots__ = ()

    def resize_outputs(self, *outs) -> None:
        StructuredMeta.resize_outputs(self, *outs)
        self_tensor, index = self.inputs
        assert_no_internal_overlap(outs[0])
        assert_no_overlap(outs[0], self_tensor)
        assert_no_partial_overlap(outs[0], index)


class ScatterMeta(_GatheringMeta):
    """scatter_meta_impl: the written-to tensor is checked before any resize; a `reduce`
    (scatter.reduce, scatter.value_reduce) is validated once the output is set."""

    __slots__ = ("reduce",)

    def __init__(self, spec, inputs, reduce=None) -> None:
        _GatheringMeta.__init__(self, spec, inputs)
        self.reduce = reduce

    def _check(self, written) -> None:
        index, src = self.inputs
        assert_no_internal_overlap(written)
        assert_no_overlap(written, index)
        if src is not None:
            assert_no_overlap(written, src)

    def _check_reduce(self) -> None:
        """get_operator_enum (TensorAdvancedIndexing.cpp) with the old options only."""
        if self.reduce is not None and self.reduce not in ("add", "multiply"):
            raise RuntimeError("reduce argument must be either add or multiply.")

    def allocate(self):
        out = StructuredMeta.allocate(self)
        self._check_reduce()
        return out

    def check_inplace(self, self_tensor) -> None:
        self._check(self_tensor)
        StructuredMeta.check_inplace(self, self_tensor)
        self._check_reduce()

    def resize_outputs(self, *outs) -> None:
        self._check(outs[0])
        StructuredMeta.resize_outputs(self, *outs)
        self._check_reduce()


class IndexMeta(_GatheringMeta):
    """TORCH_PRECOMPUTE_META_FUNC2(index, Tensor): `out` is checked before any resize."""

    __slots__ = ()

    def resize_outputs(self, *outs) -> None:
        out = outs[0]
        self_tensor, indices = self.inputs
        assert_no_internal_overlap(out)
        assert_no_overlap(out, self_tensor)
        for index in indices:
            if index is not None:
                assert_no_overlap(out, index)
        StructuredMeta.resize_outputs(self, *outs)


def _nonempty_dim(t) -> int:
    return max(len(t._sizes), 1)


def _nonempty_size(t, d: int) -> int:
    """ensure_nonempty_size: 1 for a 0-dim tensor, else t.size(d) (which may raise)."""
    if not t._sizes:
        return 1
    return t._sizes[wrap_dim(d, len(t._sizes))]


def gather(self, dim, index, sparse_grad) -> StructuredMeta:
    dim = wrap_dim(dim, len(self._sizes))
    if index.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    if index.numel() != 0:
        if _nonempty_dim(self) != _nonempty_dim(index):
            raise RuntimeError(
                "Index tensor must have the same number of dimensions as input tensor"
            )
        for d in range(_nonempty_dim(self)):
            if d != dim and _nonempty_size(index, d) > _nonempty_size(self, d):
                raise RuntimeError(
                    f"Size does not match at dimension {d} expected index "
                    f"{shape_text(index._sizes)} to be no larger than self "
                    f"{shape_text(self._sizes)} apart from dimension {dim}"
                )
    return GatherMeta(OutputSpec(index._sizes, None, self.dtype, self.device), (self, index))


def _scatter_meta(self, dim, index, src, reduce=None) -> StructuredMeta:
    dim = wrap_dim(dim, len(self._sizes))
    if index.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if src is not None and src.dtype is not self.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index.numel() != 0:
        if _nonempty_dim(self) != _nonempty_dim(index):
            raise RuntimeError(
                "Index tensor must have the same number of dimensions as self tensor"
            )
        wrong = False
        for d in range(_nonempty_dim(self)):
            if d != dim and _nonempty_size(index, d) > _nonempty_size(self, d):
                wrong = True
                break
        if not wrong and src is not None:
            for d in range(_nonempty_dim(self)):
                if _nonempty_size(index, d) > _nonempty_size(src, d):
                    wrong = True
                    break
        if src is not None and _nonempty_dim(src) != _nonempty_dim(index):
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
        if wrong:
            text = (
                f"Expected index {shape_text(index._sizes)} to be no larger than self "
                f"{shape_text(self._sizes)} apart from dimension {dim}"
            )
            if src is not None:
                text += f" and to be no larger size than src {shape_text(src._sizes)}"
            raise RuntimeError(text)
    spec = OutputSpec(self._sizes, None, self.dtype, self.device)
    return ScatterMeta(spec, (index, src), reduce)


def scatter_src(self, dim, index, src) -> StructuredMeta:
    return _scatter_meta(self, dim, index, src)


def scatter_value(self, dim, index, value) -> StructuredMeta:
    return _scatter_meta(self, dim, index, None)


def scatter_reduce(self, dim, index, src, reduce) -> StructuredMeta:
    """TORCH_META_FUNC2(scatter, reduce): deprecated in favour of scatter_reduce."""
    torch_warn_once(
        "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed "
        "in a future PyTorch release. Use torch.scatter_reduce instead for more reduction "
        "options.",
        "aten/src/ATen/native/TensorAdvancedIndexing.cpp:225",
    )
    return _scatter_meta(self, dim, index, src, reduce)


def scatter_value_reduce(self, dim, index, value, reduce) -> StructuredMeta:
    return _scatter_meta(self, dim, index, None, reduce)


class _Geometry:
    """An operand as TensorIterator sees it: sizes and strides only."""

    __slots__ = ("_sizes", "_strides")

    def __init__(self, sizes, strides) -> None:
        self._sizes = tuple(sizes)
        self._strides = tuple(strides)


def index_Tensor(self, indices) -> StructuredMeta:  # noqa: N802 (kernel names follow overloads)
    info = index_info(self, indices)
    shape = info.result_shape
    # TensorIterator's operands: self restrided (stride 0 over the indexed dims), then the
    # broadcast index tensors; the output takes the layout they suggest.
    operands = [_Geometry(shape, info.src_strides)]
    operands += [_Geometry(shape, strides) for strides in info.index_strides]
    strides = output_strides(operands, shape)
    return IndexMeta(OutputSpec(shape, strides, self.dtype, self.device), (self, indices))
