"""torch.nn's convolution layers: Conv1d/2d/3d and ConvTranspose1d/2d/3d.

Layer: nn. In: channel counts, kernel / stride / padding / dilation (ints or tuples;
'same' / 'valid'), groups, bias, padding_mode, device / dtype. Out: modules whose
weights are initialised as PyTorch's reset_parameters does (kaiming_uniform_ with
a=sqrt(5), the bias uniform in +-1/sqrt(fan_in)), so the same seed gives the same
weights, and whose forward calls F.conv*d (after F.pad for a non-zeros padding_mode).
Mirrors torch/nn/modules/conv.py.
"""

from __future__ import annotations

import math

from ember.aten._generated import python_functions as _functions
from ember.autograd.grad_mode import no_grad
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.module import Module
from ember.nn.modules.utils import _pair, _reverse_repeat_tuple, _single, _triple
from ember.nn.parameter import Parameter

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


class _ConvNd(Module):
    __constants__ = [
        "stride", "padding", "dilation", "groups", "padding_mode", "output_padding",
        "in_channels", "out_channels", "kernel_size",
    ]  # fmt: skip

    def __init__(
        self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
        output_padding, groups, bias, padding_mode, device=None, dtype=None,
    ) -> None:  # fmt: skip
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        # sets, as PyTorch builds and prints them (in the process's hash order)
        valid_padding_strings = {"same", "valid"}
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {valid_padding_strings}"
                )
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in valid_padding_modes:
            raise ValueError(
                f"padding_mode must be one of {valid_padding_modes}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                    total = d * (k - 1)
                    self._reversed_padding_repeated_twice[2 * i] = total // 2
                    self._reversed_padding_repeated_twice[2 * i + 1] = total - total // 2
        else:
            self._reversed_padding_repeated_twice = _reverse_repeat_tuple(padding, 2)
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(_functions.empty(shape, **factory_kwargs))
        if bias:
            self.bias = Parameter(_functions.empty(out_channels, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        with no_grad():
            init.kaiming_uniform_(self.weight, a=math.sqrt(5))
            if self.bias is not None:
                fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
                bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


def _conv_class(dims, tuple_of, functional):
    class ConvNd(_ConvNd):
        def __init__(
            self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
            groups=1, bias=True, padding_mode="zeros", device=None, dtype=None,
        ) -> None:  # fmt: skip
            super().__init__(
                in_channels, out_channels, tuple_of(kernel_size), tuple_of(stride),
                padding if isinstance(padding, str) else tuple_of(padding), tuple_of(dilation),
                False, tuple_of(0), groups, bias, padding_mode, device=device, dtype=dtype,
            )  # fmt: skip

        def _conv_forward(self, input, weight, bias):  # noqa: A002
            if self.padding_mode != "zeros":
                padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
                return functional(
                    padded, weight, bias, self.stride, tuple_of(0), self.dilation, self.groups
                )
            return functional(
                input, weight, bias, self.stride, self.padding, self.dilation, self.groups
            )

        def forward(self, input):  # noqa: A002
            return self._conv_forward(input, self.weight, self.bias)

    ConvNd.__name__ = ConvNd.__qualname__ = f"Conv{dims}d"
    return ConvNd


Conv1d = _conv_class(1, _single, F.conv1d)
Conv2d = _conv_class(2, _pair, F.conv2d)
Conv3d = _conv_class(3, _triple, F.conv3d)


class _ConvTransposeNd(_ConvNd):
    def __init__(self, *args, **kwargs) -> None:
        padding_mode = args[10] if len(args) > 10 else kwargs.get("padding_mode")
        if padding_mode != "zeros":
            raise ValueError(
                f'Only "zeros" padding mode is supported for {self.__class__.__name__}'
            )
        super().__init__(*args, **kwargs)

    def _output_padding(
        self, input, output_size, stride, padding, kernel_size, num_spatial_dims, dilation=None
    ):  # noqa: A002,E501
        if output_size is None:
            return _single(self.output_padding)
        has_batch_dim = input.dim() == num_spatial_dims + 2
        non_spatial = 2 if has_batch_dim else 1
        if len(output_size) == non_spatial + num_spatial_dims:
            output_size = output_size[non_spatial:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(
                f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must "
                f"have {num_spatial_dims} or {non_spatial + num_spatial_dims} elements (got "
                f"{len(output_size)})"
            )
        min_sizes, max_sizes = [], []
        for d in range(num_spatial_dims):
            size = (
                (input.size(d + non_spatial) - 1) * stride[d] - 2 * padding[d]
                + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1
            )  # fmt: skip
            min_sizes.append(size)
            max_sizes.append(size + stride[d] - 1)
        for i, size in enumerate(output_size):
            if size < min_sizes[i] or size > max_sizes[i]:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range from "
                    f"{min_sizes} to {max_sizes} (for an input of {input.size()[2:]})"
                )
        return [output_size[d] - min_sizes[d] for d in range(num_spatial_dims)]


def _conv_transpose_class(dims, tuple_of, functional):
    class ConvTransposeNd(_ConvTransposeNd):
        def __init__(
            self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
            groups=1, bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None,
        ) -> None:  # fmt: skip
            super().__init__(
                in_channels, out_channels, tuple_of(kernel_size), tuple_of(stride),
                tuple_of(padding), tuple_of(dilation), True, tuple_of(output_padding), groups,
                bias, padding_mode, device, dtype,
            )  # fmt: skip

        def forward(self, input, output_size=None):  # noqa: A002
            if self.padding_mode != "zeros":
                raise ValueError(f"Only `zeros` padding mode is supported for ConvTranspose{dims}d")
            output_padding = self._output_padding(
                input, output_size, self.stride, self.padding, self.kernel_size, dims,
                self.dilation,
            )  # fmt: skip
            return functional(
                input, self.weight, self.bias, self.stride, self.padding, output_padding,
                self.groups, self.dilation,
            )  # fmt: skip

    ConvTransposeNd.__name__ = ConvTransposeNd.__qualname__ = f"ConvTranspose{dims}d"
    return ConvTransposeNd


ConvTranspose1d = _conv_transpose_class(1, _single, F.conv_transpose1d)
ConvTranspose2d = _conv_transpose_class(2, _pair, F.conv_transpose2d)
ConvTranspose3d = _conv_transpose_class(3, _triple, F.conv_transpose3d)
