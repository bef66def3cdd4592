"""Advanced indexing kernels: index.Tensor (its out= implementation), index_put_, index_put.

Layer: aten/native. In: `self`, a `Tensor?[]` list of indices and, for the
puts, the values. Out: the gathered result written into `out`, or `self`
updated in place. Mirrors index_out / index_put_ / _index_put_impl_ in
ATen/native/TensorAdvancedIndexing.cpp (including the masked_fill shortcut
for a single boolean mask and a one-element value) and the CPU index
kernels of ATen/native/cpu/IndexKernel.cpp. See indexing_info.py for the
shape rules.
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._c10.tensor_impl import shape_text
from ember._c10.warning import torch_warn
from ember.aten.memory_overlap import (
    YES,
    assert_no_overlap,
    assert_no_partial_overlap,
    has_internal_overlap,
)
from ember.aten.native import at
from ember.aten.native.copy import converted
from ember.aten.native.factories import checked_value
from ember.aten.native.indexing_info import index_info
from ember.aten.native.pointwise_select import warn_masked_fill_expanded

__all__ = ["index_out", "index_put_", "index_put"]


def index_out(meta, self, indices, out) -> None:
    info = index_info(self, indices)
    if out.numel() == 0:
        if info.positions:
            info.numpy_index(self)  # PyTorch's bounds check (none for an empty result)
        return
    values = self.ndarray()[info.numpy_index(self)]
    if out.numel():
        out.ndarray()[...] = values


def _single_mask(self, indices, values):
    """canDispatchToMaskedFill: the mask (unsqueezed to self's rank) when it applies, else None."""
    if values.numel() != 1 or values.device.type != "cpu":
        return None
    mask, start = None, 0
    position = 0
    for index in indices:
        if index is None:
            position += 1
            continue
        if index.dtype not in (dtypes.bool, dtypes.uint8) or index.device != self.device:
            return None
        if mask is not None:
            return None
        for j, size in enumerate(index._sizes):
            source = position + j
            if size != self.size(source):
                raise IndexError(
                    f"The shape of the mask {shape_text(index._sizes)} at index {j} does not "
                    f"match the shape of the indexed tensor {shape_text(self._sizes)} at index "
                    f"{source}"
                )
        mask, start = index, position
        position += index.dim()
    if mask is None:
        return None
    if mask.dtype is dtypes.uint8:
        raise RuntimeError(
            "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char"
        )
    return mask, start


def _masked_fill(self, mask, start: int, value) -> None:
    """self.masked_fill_(mask, value.item()) with the mask placed at dim `start`."""
    warn_masked_fill_expanded(self)
    assert_no_partial_overlap(self, mask)
    fill = checked_value(at._local_scalar_dense(value), self.dtype)
    if self.device.type == "meta" or self.numel() == 0:
        return
    where = mask.ndarray().astype(bool)
    trailing = self.dim() - start - where.ndim
    where = where.reshape((1,) * start + where.shape + (1,) * trailing)
    target = self.ndarray()
    np.copyto(target, fill, where=np.broadcast_to(where, target.shape))


def _expandable(shape: tuple, desired: tuple) -> bool:
    if len(shape) > len(desired):
        return False
    for size, target in zip(reversed(shape), reversed(desired)):
        if size != target and size != 1:
            return False
    return True


def index_put_(self, indices, values, accumulate):
    indices = list(indices)
    if len(indices) > self.dim():
        raise IndexError(
            f"too many indices for tensor of dimension {self.dim()} (got {len(indices)})"
        )
    if self.device.type != "meta" and has_internal_overlap(self) is YES:
        torch_warn(
            "Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor "
            "before performing this operation. This also applies to advanced indexing e.g. "
            "tensor[indices] = tensor",
            "aten/src/ATen/native/TensorAdvancedIndexing.cpp:976",
        )
    if not accumulate:
        found = _single_mask(self, indices, values)
        if found is not None:
            _masked_fill(self, found[0], found[1], values)
            return self
    # _index_put_impl_ (Note [Memory overlap checks])
    assert_no_overlap(self, values)
    for index in indices:
        if index is not None:
            assert_no_overlap(self, index)
    info = index_info(self, indices)
    if not _expandable(values._sizes, info.result_shape):
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {shape_text(values._sizes)} cannot be "
            f"broadcast to indexing result of shape {shape_text(info.result_shape)}"
        )
    if values.dtype is not self.dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{dtypes.scalar_type_name(self.dtype)} for the destination and "
            f"{dtypes.scalar_type_name(values.dtype)} for the source."
        )
    if self.device.type == "meta" or self.numel() == 0 or 0 in info.result_shape:
        return self
    where = info.numpy_index(self)
    source = converted(values.ndarray(), values.dtype, self.dtype)
    target = self.ndarray()
    if accumulate:
        np.add.at(target, where, np.broadcast_to(source, info.result_shape))
    else:
        target[where] = source
    return self


def index_put(self, indices, values, accumulate):
    return at.index_put_(at.clone(self, None), indices, values, accumulate)
