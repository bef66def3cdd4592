"""torch.memory_format: the order a dense tensor's strides follow (c10/core/MemoryFormat.h).

Layer: _c10 (imports nothing of ember). In: nothing. Out: the ``memory_format`` type and
its four singletons, printed ``ember.contiguous_format`` as PyTorch prints
``torch.contiguous_format``. Kernels pass these objects on (contiguous's clone), so a
__torch_dispatch__ mode sees the object PyTorch hands it, not an enum's number.
"""

from __future__ import annotations

from .naming import prefix

__all__ = [
    "memory_format",
    "contiguous_format",
    "preserve_format",
    "channels_last",
    "channels_last_3d",
]


class memory_format:  # noqa: N801 (PyTorch's name)
    """torch.memory_format: four named singletons, printed as `ember.<name>`."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return prefix() + "." + self._name

    def __reduce__(self):
        return self._name


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
