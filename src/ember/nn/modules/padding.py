"""torch.nn's padding layers: ConstantPad, ZeroPad, ReflectionPad, ReplicationPad and
CircularPad in 1, 2 and 3 dims.

Layer: nn. In: an int or a tuple of padding sizes (last dim first, as F.pad). Out:
modules whose forward calls F.pad with their mode. Mirrors torch/nn/modules/padding.py.
"""

from __future__ import annotations

from ember.nn import functional as F
from ember.nn.modules.module import Module
from ember.nn.modules.utils import _ntuple, _pair, _quadruple

__all__ = [
    "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
    "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d",
]  # fmt: skip

_TUPLES = {1: _pair, 2: _quadruple, 3: _ntuple(6)}


class _ConstantPadNd(Module):
    __constants__ = ["padding", "value"]
    _dims = 0

    def __init__(self, padding, value: float) -> None:
        super().__init__()
        self.value = value
        self.padding = _TUPLES[self._dims](padding)

    def forward(self, input):  # noqa: A002
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    _dims = 3


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ModePadNd(Module):
    __constants__ = ["padding"]
    _dims = 0
    _mode = ""

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _TUPLES[self._dims](padding)

    def forward(self, input):  # noqa: A002
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_ModePadNd):
    _dims, _mode = 1, "reflect"


class ReflectionPad2d(_ModePadNd):
    _dims, _mode = 2, "reflect"


class ReflectionPad3d(_ModePadNd):
    _dims, _mode = 3, "reflect"


class ReplicationPad1d(_ModePadNd):
    _dims, _mode = 1, "replicate"


class ReplicationPad2d(_ModePadNd):
    _dims, _mode = 2, "replicate"


class ReplicationPad3d(_ModePadNd):
    _dims, _mode = 3, "replicate"


class _CircularPadNd(_ModePadNd):
    _mode = "circular"

    def forward(self, input):  # noqa: A002
        if input.dim() not in (self._dims + 1, self._dims + 2):
            raise ValueError(
                f"expected {self._dims + 1}D or {self._dims + 2}D input (got {input.dim()}D input)"
            )
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    _dims = 1


class CircularPad2d(_CircularPadNd):
    _dims = 2


class CircularPad3d(_CircularPadNd):
    _dims = 3
