"""Stream: a device's in-order queue of work, named by (stream id, device index, device type).

Layer: _c10 (imports only _c10). Mirrors c10/core/Stream.h (unpack3, query, synchronize)
and the Python type of torch/csrc/Stream.cpp (attributes, repr, hash, comparison). In: the
three numbers. Out: a value object that an operator may take (``record_stream``) or return,
and that a ``__torch_dispatch__`` handler sees as it is. ember's constructor, which parses
PyTorch's two signatures, is installed from above (``ember._stream``): parsing needs aten.

ember has the cpu and meta devices: their streams are the default ones, always idle (query
is True, synchronize returns at once), as their device guards have them in PyTorch; lazy
has a guard that supports no stream operation; a stream of any other device type is
refused by every operation, as a CPU build of PyTorch refuses it.
"""

from __future__ import annotations

from .device import SUPPORTED_TYPES, device
from .naming import prefix

# c10::DeviceType, by number (DeviceTypeName(type, lower_case=true); PrivateUse1 prints
# the name the backend registered, "privateuseone" by default).
DEVICE_TYPE_NAMES = (
    "cpu", "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip", "fpga", "maia", "xla",
    "vulkan", "metal", "xpu", "mps", "meta", "hpu", "ve", "lazy", "ipu", "mtia",
    "privateuseone",
)  # fmt: skip
DEVICE_TYPE_NUMBERS = {name: number for number, name in enumerate(DEVICE_TYPE_NAMES)}
_U64 = 2**64
_READONLY = frozenset({"stream_id", "device_index", "device_type"})
# at::accelerator::isAccelerator: the device types whose streams a ``with`` makes current.
ACCELERATOR_TYPES = frozenset({"cuda", "mtia", "xpu", "hip", "mps", "hpu", "privateuseone"})
_NO_ACCELERATOR = "Cannot access accelerator device when none is available."


def _no_arguments(name: str, args: tuple, kwargs: dict) -> None:
    """CPython's refusal of arguments to a METH_NOARGS method of torch.Stream."""
    if kwargs:
        raise TypeError(f"Stream.{name}() takes no keyword arguments")
    if args:
        raise TypeError(f"Stream.{name}() takes no arguments ({len(args)} given)")


def _int8(value: int) -> int:
    """static_cast to an 8-bit signed integer (c10::DeviceIndex, and DeviceType's storage)."""
    return (value + 128) % 256 - 128


def _hash_combine(seed: int, value: int) -> int:
    """c10::hash_combine on size_t: both operands as unsigned 64-bit numbers."""
    seed %= _U64
    return (seed ^ ((value % _U64) + 0x9E3779B9 + (seed << 6) + (seed >> 2))) % _U64


class Stream:
    """``Stream(device=None, *, priority=0)`` or ``Stream(stream_id, device_index, device_type)``."""

    __module__ = "ember"
    __slots__ = ("_stream_id", "_device_index", "_device_type")

    @classmethod
    def unpack3(cls, stream_id: int, device_index: int, device_type: int) -> Stream:
        """c10::Stream::unpack3: the stream these numbers name; the device type must be one
        c10 has (the index is cast to DeviceIndex, as PyTorch casts it)."""
        device_type = _int8(device_type)
        if not 0 <= device_type < len(DEVICE_TYPE_NAMES):
            raise RuntimeError(
                "Expected isValidDeviceType(device_type) to be true, but got false.  (Could "
                "this error message be improved?  If so, please report an enhancement request "
                "to PyTorch.)"
            )
        stream = object.__new__(cls)
        object.__setattr__(stream, "_stream_id", stream_id)
        object.__setattr__(stream, "_device_index", _int8(device_index))
        object.__setattr__(stream, "_device_type", device_type)
        return stream

    @property
    def stream_id(self) -> int:
        return self._stream_id

    @property
    def device_index(self) -> int:
        return self._device_index

    @property
    def device_type(self) -> int:
        return self._device_type

    @property
    def device(self) -> device:
        name = DEVICE_TYPE_NAMES[self._device_type]
        index = None if self._device_index < 0 else self._device_index
        return device._of(name, index)

    def _guard(self) -> None:
        """The device guard a stream operation finds (c10::impl::getDeviceGuardImpl)."""
        name = DEVICE_TYPE_NAMES[self._device_type]
        if name not in SUPPORTED_TYPES and name != "lazy":
            raise RuntimeError(f"PyTorch is not linked with support for {name} devices")

    def query(self, *args, **kwargs) -> bool:
        """Whether all the work queued on the stream is done (always, on cpu and meta)."""
        _no_arguments("query", args, kwargs)
        self._guard()
        if DEVICE_TYPE_NAMES[self._device_type] == "lazy":
            raise RuntimeError("Backend doesn't support querying streams.")
        return True

    def synchronize(self, *args, **kwargs) -> None:
        """Wait for the stream's work (there is none to wait for on cpu and meta)."""
        _no_arguments("synchronize", args, kwargs)
        self._guard()
        if DEVICE_TYPE_NAMES[self._device_type] == "lazy":
            raise RuntimeError("Backend doesn't support synchronizing streams.")

    def is_capturing(self, *args, **kwargs) -> bool:
        """Whether the stream is capturing a graph (no device ember has captures)."""
        _no_arguments("is_capturing", args, kwargs)
        self._guard()
        return False

    @property
    def native_handle(self):
        self._guard()
        raise RuntimeError("Backend doesn't support getting stream native handle.")

    def __enter__(self, *args, **kwargs) -> Stream:
        """Make the stream current: a stream of no accelerator needs nothing done, and no
        accelerator is available to make one of its streams current."""
        _no_arguments("__enter__", args, kwargs)
        if DEVICE_TYPE_NAMES[self._device_type] in ACCELERATOR_TYPES:
            raise RuntimeError(_NO_ACCELERATOR)
        return self

    def __exit__(self, *exc_info) -> None:
        if DEVICE_TYPE_NAMES[self._device_type] in ACCELERATOR_TYPES:
            raise RuntimeError(_NO_ACCELERATOR)

    def __setattr__(self, name: str, value) -> None:
        if name in _READONLY:
            raise AttributeError("readonly attribute")
        if name in ("device", "native_handle"):  # getters without setters
            raise AttributeError(f"attribute '{name}' of 'ember.Stream' objects is not writable")
        if type(self) is Stream:
            if hasattr(Stream, name):  # a method
                raise AttributeError(f"'ember.Stream' object attribute '{name}' is read-only")
            raise AttributeError(f"'ember.Stream' object has no attribute '{name}'")
        object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return (
            f"{prefix()}.Stream device_type={DEVICE_TYPE_NAMES[self._device_type]}, "
            f"device_index={self._device_index}, stream_id={self._stream_id}"
        )

    def __hash__(self) -> int:
        inner = _hash_combine(self._stream_id, self._device_index)
        value = _hash_combine(self._device_type, inner)
        signed = value - _U64 if value >= 2**63 else value
        return signed

    def _same(self, other) -> bool:
        return (
            self._stream_id == other._stream_id
            and self._device_index == other._device_index
            and self._device_type == other._device_type
        )

    # THPStream_richcompare: == and != compare the three numbers (another object is unequal),
    # None is unequal to a stream either way, and every ordering comparison is False.
    def __eq__(self, other) -> bool:
        return isinstance(other, Stream) and self._same(other)

    def __ne__(self, other) -> bool:
        if other is None:
            return False
        return not (isinstance(other, Stream) and self._same(other))

    def __lt__(self, other) -> bool:
        return False

    __le__ = __gt__ = __ge__ = __lt__
