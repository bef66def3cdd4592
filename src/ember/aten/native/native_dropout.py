"""native_dropout and native_dropout_backward on CPU.

Layer: aten/native. In: the input, p and train (None counts as training). Out: (output,
mask). Mirrors ATen/native/Dropout.cpp's native_dropout_cpu: in training a bool mask drawn
with bernoulli_(1 - p) from the default generator (PyTorch's stream, Note [Random values
are PyTorch's]), output = input * mask * 1 / (1 - p) (0 when p is 1); otherwise a clone and
an all-true mask; an empty input is returned as it is, with an empty mask of its dtype.
native_dropout_backward is grad * mask * scale.
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember.aten.native import at

__all__ = ["native_dropout_backward_cpu", "native_dropout_cpu"]


def native_dropout_cpu(input, p, train):  # noqa: A002 (the schema's name)
    if input.numel() == 0:
        return input, at.empty_like(input, None, None, None, None, None)
    if train is None or train:
        p1m = 1.0 - p
        scale = 0.0 if p1m == 0 else 1.0 / p1m
        mask = at.empty_like(input, dtypes.bool, None, None, None, 0)
        at.bernoulli__float(mask, p1m, None)
        output = at.mul__Scalar(at.mul_Tensor(input, mask), scale)
        return output, mask
    mask = at.ones_like(input, dtypes.bool, None, None, None, None)
    return at.clone(input, None), mask


def native_dropout_backward_cpu(grad_output, mask, scale):
    return at.mul_Scalar(at.mul_Tensor(grad_output, mask), scale)
