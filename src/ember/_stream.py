"""The constructor of ember.Stream: PyTorch's two signatures, parsed as PyTorch parses them.

Layer: torch face (with _tensor_ctors: it uses aten's argument parser). In: ``Stream()``,
``Stream(device, *, priority=0)`` or ``Stream(stream_id, device_index, device_type)``. Out:
a ``_c10.stream.Stream``. Mirrors THPStream_pynew of torch/csrc/Stream.cpp; installing it
on the type (``install``) is what lets the value type stay in _c10.
"""

from __future__ import annotations

from ember._c10.device import SUPPORTED_TYPES
from ember._c10.stream import DEVICE_TYPE_NUMBERS, Stream
from ember.aten.python_arg_parser import PythonArgParser

__all__ = ["install"]

_parser = PythonArgParser(
    [
        "Stream(Device device=None, *, int64_t priority=0)",
        "Stream(int64_t stream_id, int64_t device_index, int64_t device_type, *, "
        "int64_t priority=0)",
    ]
)


def _stream_new(cls, *args, **kwargs):
    index, values = _parser.parse(args, kwargs)
    if index == 1:
        stream_id, device_index, device_type, _priority = values
        return cls.unpack3(stream_id, device_index, device_type)
    device, _priority = values
    type_name = "cpu" if device is None else device.type  # no accelerator: the CPU
    if type_name not in SUPPORTED_TYPES:  # the DeviceGuard of the device
        raise RuntimeError(f"PyTorch is not linked with support for {type_name} devices")
    # The cpu and meta guards' getNewStream: the device's default stream, whatever the
    # index or priority asked for.
    return cls.unpack3(0, -1, DEVICE_TYPE_NUMBERS[type_name])


def install() -> None:
    Stream.__new__ = staticmethod(_stream_new)
