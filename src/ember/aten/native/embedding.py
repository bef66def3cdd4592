"""aten::embedding and its backward: rows of a weight matrix picked by index.

Layer: aten (CompositeExplicitAutograd forward; CPU and Meta kernels of the dense
backward; the CPU kernel of embedding_renorm_). In: a 2-d weight and integer indices.
Out: ``weight.index_select(0, indices)`` shaped like the indices (plus the row), or the
gradient of the weight: each index's gradient row added into its row, the padding row
left out, divided by the index's count under scale_grad_by_freq. Mirrors
ATen/native/Embedding.cpp.
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._tensor import empty_tensor
from ember.aten.native import at
from ember.aten.native.views import type_string

__all__ = [
    "embedding",
    "embedding_backward",
    "embedding_dense_backward",
    "embedding_dense_backward_meta",
    "embedding_renorm_",
]

_INDEX_DTYPES = (dtypes.int64, dtypes.int32)


def _check_indices(indices, position: int, name: str, where: str) -> None:
    """checkScalarTypes(where, TensorArg(indices, name, position), {kLong, kInt})."""
    if indices.dtype not in _INDEX_DTYPES:
        raise RuntimeError(
            f"Expected tensor for argument #{position} '{name}' to have one of the following "
            f"scalar types: Long, Int; but got {type_string(indices)} instead "
            f"(while checking arguments for {where})"
        )


def embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse):
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    _check_indices(indices, 1, "indices", "embedding")
    if indices.dim() == 1:
        return at.index_select(weight, 0, indices)
    size = [*indices.size(), *weight.size()[1:]]
    return at.view(at.index_select(weight, 0, at.reshape(indices, [-1])), size)


def embedding_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq, sparse):
    if sparse:
        raise NotImplementedError(
            "embedding: sparse=True needs sparse gradients (embedding_sparse_backward), "
            "which ember does not have"
        )
    return at.embedding_dense_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq)


def _dense_backward_checks(grad_output, indices):
    _check_indices(indices, 2, "indices", "embedding_backward")


def embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    _dense_backward_checks(grad_output, indices)
    width = grad_output.size(-1) if grad_output.dim() else 1
    result = at.zeros([num_weights, width], grad_output.dtype, None, grad_output.device, None)
    index = indices.numpy(force=True).reshape(-1).astype(np.int64)
    grad = grad_output.numpy(force=True).reshape(index.size, width)
    keep = index != padding_idx
    index, grad = index[keep], grad[keep]
    if scale_grad_by_freq:
        counts = np.bincount(index, minlength=num_weights)
        grad = grad / counts[index].astype(grad.dtype)[:, None]
    np.add.at(result.ndarray(), index, grad)
    return result


def embedding_dense_backward_meta(
    grad_output, indices, num_weights, padding_idx, scale_grad_by_freq
):
    _dense_backward_checks(grad_output, indices)
    width = grad_output.size(-1) if grad_output.dim() else 1
    return empty_tensor((num_weights, width), grad_output.dtype, device=grad_output.device)


def embedding_renorm_(self, indices, max_norm, norm_type):
    """Rows of ``self`` named by ``indices`` whose norm exceeds max_norm, scaled down to it
    (each row once, in sorted order, with PyTorch's 1e-7 in the denominator)."""
    if self.dim() != 2:
        raise RuntimeError(
            f"Expected 2-dimensional tensor, but got {self.dim()}-dimensional tensor for "
            "argument #1 'self' (while checking arguments for embedding_renorm_)"
        )
    _check_indices(indices, 2, "indices", "embedding_renorm_")
    for row_index in np.unique(indices.numpy(force=True).reshape(-1)):
        row = at.select_int(self, 0, int(row_index))
        norm = at.linalg_vector_norm(row, norm_type, None, False, None).item()
        if norm > max_norm:
            at.mul__Scalar(row, max_norm / (norm + 1e-7))
    return self
