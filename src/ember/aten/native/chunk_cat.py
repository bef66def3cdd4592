"""_chunk_cat: each tensor split into num_chunks chunks along dim (zero-padded to a multiple),
and the chunks concatenated along dim + 1.

Layer: aten/native (CompositeExplicitAutograd: new_zeros, narrow, copy_, view and cat
through `at`; no derivative, as in PyTorch). In: a tensor list, dim, num_chunks. Out: one
tensor of sizes (leading dims..., num_chunks, sum of the chunks' widths). Mirrors
ATen/native/TensorShape.cpp (_chunk_cat, _chunk_cat_out, _pad_chunk,
preprocess_chunk_cat_inputs).
"""

from __future__ import annotations

from ember.aten.native import at
from ember.aten.native.common import wrap_dim

__all__ = ["_chunk_cat", "_chunk_cat_out"]


def _preprocess(tensors, dim: int, num_chunks: int) -> int:
    if num_chunks < 1:
        raise RuntimeError("_chunk_cat expects positive num_chunks")
    if not tensors:
        raise RuntimeError("_chunk_cat expects a non-empty input tensor list")
    first = tensors[0]
    for tensor in tensors:
        if tensor.numel() == 0:
            raise RuntimeError("_chunk_cat expects non-empty tensor")
        if tensor.dtype is not first.dtype:
            raise RuntimeError("_chunk_cat expects all input tensors with the same dtype")
        if tensor.device != first.device:
            raise RuntimeError("_chunk_cat expects all inputs tensors on the same device")
    if all(t.dim() == first.dim() for t in tensors):
        dim = wrap_dim(dim, first.dim())
    else:
        if dim < 0:
            raise RuntimeError(
                "_chunk_cat expects non-negative dim when input tensors have different ndims"
            )
        for tensor in tensors:
            if dim >= tensor.dim():
                raise RuntimeError("_chunk_cat expects dim < ndim for all input tensors")
    leading = first._sizes[:dim]
    for tensor in tensors:
        if tensor._sizes[:dim] != leading:
            raise RuntimeError(
                "_chunk_cat expects same sizes of 0,...,dim-1 dimensions for all tensors"
            )
    return dim


def _pad_chunk(tensors, dim: int, num_chunks: int) -> list:
    padded = []
    for tensor in tensors:
        sizes = list(tensor._sizes)
        width = sizes[dim]
        padded_sizes = list(sizes)
        padded_sizes[dim] = (width + num_chunks - 1) // num_chunks * num_chunks
        piece = tensor
        if padded_sizes != sizes:
            piece = at.new_zeros(tensor, padded_sizes, None, None, None, None)
            at.copy_(at.narrow(piece, dim, 0, width), tensor, False)
        padded.append(at.view(piece, sizes[:dim] + [num_chunks, -1]))
    return padded


def _chunk_cat(tensors, dim, num_chunks):
    tensors = list(tensors)
    dim = _preprocess(tensors, dim, num_chunks)
    return at.cat(_pad_chunk(tensors, dim, num_chunks), dim + 1)


def _chunk_cat_out(tensors, dim, num_chunks, out):
    tensors = list(tensors)
    dim = _preprocess(tensors, dim, num_chunks)
    return at.cat_out(_pad_chunk(tensors, dim, num_chunks), dim + 1, out)
