"""`F.unfold` / `F.fold` (im2col / col2im) and `F.pixel_shuffle` / `F.pixel_unshuffle`.

Layer: the Python face, above aten. As torch/nn/functional.py: unfold and fold pair
their size arguments and call the torch._C._nn bindings; the pixel shuffles are the
torch.* bindings themselves.
"""

from __future__ import annotations

from ember._torch_function import handle_torch_function, has_torch_function
from ember.aten._generated import python_functions as _functions
from ember.aten._generated import python_nn_functions as _nn

__all__ = ["unfold", "fold", "pixel_shuffle", "pixel_unshuffle"]

pixel_shuffle = _functions.pixel_shuffle
pixel_unshuffle = _functions.pixel_unshuffle


def _pair(value):
    return tuple(value) if isinstance(value, (list, tuple)) else (value, value)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    if has_torch_function((input,)):
        return handle_torch_function(
            unfold, (input,), input, kernel_size, dilation=dilation, padding=padding, stride=stride
        )  # noqa: E501
    return _nn.im2col(input, _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    if has_torch_function((input,)):
        return handle_torch_function(
            fold,
            (input,),
            input,
            output_size,
            kernel_size,
            dilation=dilation,
            padding=padding,
            stride=stride,
        )  # noqa: E501
    return _nn.col2im(
        input, _pair(output_size), _pair(kernel_size), _pair(dilation), _pair(padding),
        _pair(stride),
    )  # fmt: skip
