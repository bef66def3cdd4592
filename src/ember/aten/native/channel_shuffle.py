"""channel_shuffle and native_channel_shuffle: (N, g * k, *) -> (N, k * g, *) channels.

Layer: aten/native. In: the tensor and the number of groups. Out: a fresh tensor in the
input's suggested memory format (an alias when it has no element). channel_shuffle checks,
then calls native_channel_shuffle (whose CompositeImplicitAutograd kernel, for backends
without their own, ember leaves out: it has the CPU one only). Mirrors ATen/native/ChannelShuffle.cpp.
"""

from __future__ import annotations

import numpy as np

from ember._c10.memory_format import channels_last, channels_last_3d, contiguous_format
from ember._tensor import wrap_array
from ember.aten.native import at
from ember.aten.native.views import fmt_ints

__all__ = ["channel_shuffle", "channel_shuffle_cpu"]


def _check(self, groups) -> None:
    if self.dim() <= 2:
        raise RuntimeError(
            "channel_shuffle expects input with > 2 dims, but got input with sizes "
            f"{fmt_ints(self._sizes)}"
        )
    channels = self._sizes[1]
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    if channels % groups != 0:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {channels} channels and "
            f"{groups} groups."
        )


def channel_shuffle(self, groups):
    _check(self, groups)
    if self.numel() == 0:
        return at.alias(self)
    return at.native_channel_shuffle(self, groups)


def _suggested_format(self):
    if self.is_contiguous():
        return contiguous_format
    if self.dim() == 4 and self.is_contiguous(memory_format=channels_last):
        return channels_last
    if self.dim() == 5 and self.is_contiguous(memory_format=channels_last_3d):
        return channels_last_3d
    return contiguous_format


def channel_shuffle_cpu(self, groups):
    _check(self, groups)
    if self.numel() == 0:
        return at.alias(self)
    sizes = self._sizes
    x = self.ndarray().reshape((sizes[0], groups, sizes[1] // groups, -1))
    shuffled = wrap_array(np.ascontiguousarray(x.transpose(0, 2, 1, 3)).reshape(sizes),
                          self.dtype)  # fmt: skip
    memory_format = _suggested_format(self)
    if memory_format is contiguous_format:
        return shuffled
    return at.clone(shuffled, memory_format)
