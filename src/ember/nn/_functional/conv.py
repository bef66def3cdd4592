"""`F.conv1d/2d/3d`, `F.conv_transpose1d/2d/3d`: PyTorch's own torch.* bindings.

Layer: the Python face, above aten. As in torch/nn/functional.py, these are the
generated `torch.conv2d` & co. themselves (so a bad argument meets the argument
parser with PyTorch's message), which reach aten::convolution.
"""

from __future__ import annotations

from ember.aten._generated import python_functions as _functions

__all__ = [
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
]  # fmt: skip

conv1d = _functions.conv1d
conv2d = _functions.conv2d
conv3d = _functions.conv3d
conv_transpose1d = _functions.conv_transpose1d
conv_transpose2d = _functions.conv_transpose2d
conv_transpose3d = _functions.conv_transpose3d
