"""What advanced indexing (index.Tensor, index_put_) needs to know about its indices.

Layer: aten/native. In: `self` and a `Tensor?[]` list (None, long / int
tensors, bool / uint8 masks). Out: an IndexInfo: the result shape, the
strides TensorIterator sees for the restrided source and each broadcast
index, and (when the indices hold data) the NumPy index tuple that computes
it. Mirrors make_info / expandTensors / hasContiguousSubspace /
transposeToFront / restride_src in ATen/native/TensorAdvancedIndexing.cpp
and IndexingUtils.h, with their IndexError texts.
"""

from __future__ import annotations

import warnings

import numpy as np

from ember._c10 import dtypes
from ember._c10.tensor_impl import shape_text
from ember.aten.tensor_iterator import broadcast_all

__all__: list[str] = []

_META_NONZERO = (
    "The register_meta function for torch.nonzero() raises unimplemented by default, as a "
    "correct data-independent implementation does not exist. This implementation returns a "
    "fake value, assuming all elements of the tensor are non-zero. To enable this registration, "
    "please set 'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' to True."
)


_INDEX_DTYPES = (dtypes.int64, dtypes.int32, dtypes.uint8, dtypes.bool)


class _Index:
    """One long index after mask expansion: sizes, strides, values (None on meta)."""

    __slots__ = ("sizes", "strides", "values")

    def __init__(self, sizes, strides, values) -> None:
        self.sizes = tuple(sizes)
        self.strides = tuple(strides)
        self.values = values


def _expand_mask(self, mask, position: int) -> list[_Index]:
    if mask.dtype is dtypes.uint8:
        warnings.warn(
            "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool "
            "instead.",
            UserWarning,
            stacklevel=4,
        )
    for j, size in enumerate(mask._sizes):
        source = position + j
        self_size = self.size(source)
        if size != self_size:
            raise IndexError(
                f"The shape of the mask {shape_text(mask._sizes)} at index {j} does not match "
                f"the shape of the indexed tensor {shape_text(self._sizes)} at index {source}"
            )
    if mask.device.type == "meta":
        raise NotImplementedError(_META_NONZERO)
    columns = np.nonzero(mask.ndarray())
    count = len(columns[0]) if columns else 0
    return [_Index((count,), (max(mask.dim(), 1),), column) for column in columns]


def expand_indices(self, indices) -> list:
    """expandTensors + padding: one entry per indexed dim of self (None where not indexed)."""
    indices = list(indices)
    if len(indices) > len(self._sizes):
        raise IndexError(
            f"too many indices for tensor of dimension {len(self._sizes)} (got {len(indices)})"
        )
    for index in indices:  # checkIndexTensorTypes runs before any mask is expanded
        if index is not None and index.dtype not in _INDEX_DTYPES:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    result: list = []
    for index in indices:
        if index is None:
            result.append(None)
        elif index.dtype in (dtypes.bool, dtypes.uint8):
            result.extend(_expand_mask(self, index, len(result)))
        else:
            values = None if index.device.type == "meta" else index.ndarray()
            result.append(_Index(index._sizes, index._strides, values))
    while len(result) < len(self._sizes):
        result.append(None)
    return result


def _expanded_strides(index: _Index, shape: tuple) -> tuple:
    offset = len(shape) - len(index.sizes)
    strides = [0] * offset
    for size, stride, full in zip(index.sizes, index.strides, shape[offset:]):
        strides.append(0 if size == 1 and full != 1 else stride)
    return tuple(strides)


class IndexInfo:
    """make_info's AdvancedIndex, reduced to what ember's kernels use."""

    __slots__ = ("result_shape", "src_strides", "index_strides", "positions", "entries")

    def __init__(self, self_tensor, entries: list) -> None:
        self.entries = entries
        positions = [i for i, e in enumerate(entries) if e is not None]
        self.positions = positions
        try:
            index_shape = broadcast_all(entries[i].sizes for i in positions)
        except RuntimeError:
            shapes = ", ".join(shape_text(entries[i].sizes) for i in positions)
            raise IndexError(
                f"shape mismatch: indexing tensors could not be broadcast together with shapes "
                f"{shapes}"
            ) from None
        sizes, strides = self_tensor._sizes, self_tensor._strides
        if any(sizes[i] == 0 for i in positions) and 0 not in index_shape:
            # No index is valid for an empty dim (AdvancedIndex's early check).
            raise IndexError("index is out of bounds for dimension with size 0")
        if not positions:
            self.result_shape, self.src_strides, self.index_strides = sizes, strides, []
            return
        contiguous = (
            positions == list(range(positions[0], positions[-1] + 1)) if positions else True
        )
        if contiguous and positions:
            before = list(range(positions[0]))
            after = list(range(positions[-1] + 1, len(sizes)))
        else:  # transposeToFront: the indexed dims first, in order
            before = []
            after = [d for d in range(len(sizes)) if d not in positions]
        ndim_index = len(index_shape)
        self.result_shape = (
            tuple(sizes[d] for d in before) + index_shape + tuple(sizes[d] for d in after)
        )
        self.src_strides = (
            tuple(strides[d] for d in before) + (0,) * ndim_index + tuple(strides[d] for d in after)
        )
        self.index_strides = [
            (0,) * len(before) + _expanded_strides(entries[i], index_shape) + (0,) * len(after)
            for i in positions
        ]

    def numpy_index(self, self_tensor) -> tuple:
        """The index tuple for NumPy (same result layout rules), after PyTorch's bounds check."""
        parts = []
        # PyTorch checks each index as its loop reads it: an empty result reads none.
        positions = self.positions if 0 not in self.result_shape else ()
        for indexer, position in enumerate(positions):
            values = self.entries[position].values
            size = self_tensor._sizes[position]
            outside = (values >= size) | (values < -size)
            if outside.any():
                bad = int(values[outside].flat[0])
                raise IndexError(
                    f"index {bad} is out of bounds for dimension {indexer} with size {size}"
                )
        for entry in self.entries:
            parts.append(slice(None) if entry is None else entry.values)
        return tuple(parts)


def index_info(self, indices) -> IndexInfo:
    return IndexInfo(self, expand_indices(self, indices))
