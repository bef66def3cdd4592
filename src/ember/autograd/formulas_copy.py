"""The backward of as_strided_scatter (derivatives.yaml's AsStridedScatterBackward0).

Layer: autograd. In: the gradient, self's geometry, the window's size, stride and storage
offset. Out: self's gradient, as PyTorch computes it. Mirrors
torch/csrc/autograd/FunctionsManual.cpp (as_strided_scatter_backward), which assumes, as
here, the contiguous geometry autograd works with (its note "as_strided_scatter backward
support"): the gradient is made contiguous and the window read off it.
"""

from __future__ import annotations

from ember.aten.native import at

__all__ = ["as_strided_scatter_backward", "as_strided_scatter_src_backward"]


def as_strided_scatter_backward(grad, self_sizes, self_strides, size, stride, storage_offset):
    """PyTorch's formula as it is: the window of the gradient, in a zero buffer of self's
    sizes (read with self's strides); the elements outside the window get zero."""
    contiguous = at.contiguous(grad, 0)
    window = at.as_strided(contiguous, list(size), list(stride), storage_offset)
    buffer = at.new_zeros(contiguous, list(self_sizes), None, None, None, None)
    result = at.as_strided(buffer, list(self_sizes), list(self_strides), None)
    at.copy_(at.as_strided(buffer, list(size), list(stride), storage_offset), window, False)
    return result


def as_strided_scatter_src_backward(grad, size, stride, storage_offset):
    """src's gradient: grad.contiguous().as_strided(size, stride, storage_offset)."""
    return at.as_strided(at.contiguous(grad, 0), list(size), list(stride), storage_offset)
