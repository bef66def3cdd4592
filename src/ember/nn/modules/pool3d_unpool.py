"""torch.nn's AdaptiveAvgPool3d, AdaptiveMaxPool3d, MaxUnpool1d/2d/3d and ChannelShuffle.

Layer: nn. In: PyTorch's constructor arguments (unpool sizes as tuples, a missing stride
is the kernel size). Out: modules whose forward calls the nn.functional op; they print as
PyTorch's (`MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))`,
`ChannelShuffle(groups=2)`). Mirrors torch/nn/modules/pooling.py and channelshuffle.py.
"""

from __future__ import annotations

from ember.nn import functional as F
from ember.nn.modules.module import Module
from ember.nn.modules.pooling import _AdaptiveAvgPoolNd, _AdaptiveMaxPoolNd
from ember.nn.modules.utils import _pair, _single, _triple

__all__ = [
    "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
    "ChannelShuffle",
]  # fmt: skip


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    def forward(self, input):  # noqa: A002 (PyTorch's names)
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    def forward(self, input):  # noqa: A002
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _MaxUnpoolNd(Module):
    _tuple = staticmethod(_single)
    _function = staticmethod(F.max_unpool1d)

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        self.kernel_size = self._tuple(kernel_size)
        self.stride = self._tuple(stride if stride is not None else kernel_size)
        self.padding = self._tuple(padding)

    def forward(self, input, indices, output_size=None):  # noqa: A002
        return self._function(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)  # fmt: skip

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    pass


class MaxUnpool2d(_MaxUnpoolNd):
    _tuple = staticmethod(_pair)
    _function = staticmethod(F.max_unpool2d)


class MaxUnpool3d(_MaxUnpoolNd):
    _tuple = staticmethod(_triple)
    _function = staticmethod(F.max_unpool3d)


class ChannelShuffle(Module):
    __constants__ = ["groups"]

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input):  # noqa: A002
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
