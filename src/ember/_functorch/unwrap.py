"""Adding and removing a vmap level's batch dimension: _add_batch_dim / _remove_batch_dim.

Layer: _functorch. Mirrors _add_batch_dim / _remove_batch_dim of
aten/src/ATen/functorch/LegacyVmapTransforms.cpp and BatchedTensorImpl.cpp as
torch/_functorch/predispatch.py calls them. In: a tensor and a level. Out: the
BatchedTensor, or the plain result with the batch dim at ``out_dim``.
"""

from __future__ import annotations

from ..aten.native.common import wrap_dim
from .batched_tensor import batched_record, make_batched


def add_batch_dim(tensor, bdim: int, level: int):
    """torch._C._functorch._add_batch_dim: ``tensor`` batched along ``bdim`` at ``level``."""
    bdim = wrap_dim(bdim, tensor.dim())
    return make_batched(tensor, bdim, level)


def remove_batch_dim(tensor, level: int, batch_size: int, out_dim: int):
    """torch._C._functorch._remove_batch_dim: the value of ``tensor`` at ``level`` with its
    batch dim moved to ``out_dim``; a tensor not batched at ``level`` is expanded, its
    batch dim inserted at ``out_dim`` (fact A5: out_dims=0 broadcasts it)."""
    record = batched_record(tensor)
    if record is None or record.level != level:
        sizes = list(tensor.size())
        sizes.insert(wrap_dim(out_dim, len(sizes) + 1), batch_size)
        return tensor.expand(sizes)
    out_dim = wrap_dim(out_dim, tensor.dim() + 1)
    if record.bdim == out_dim:
        return record.value
    return record.value.movedim(record.bdim, out_dim)
