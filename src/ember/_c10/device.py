"""Device: where a tensor lives, and the dispatch keys a device contributes.

Layer: _c10 (imports nothing of ember outside _c10). Mirrors c10/core/Device.h,
c10/core/DeviceType.h and torch/csrc/Device.cpp (parsing and printing).
In: a device string, a ``device``, or a type and an index. Out: ``device``
objects (``cpu`` and ``meta`` are the backends ember has) and their backend
component / dispatch key.
"""

from __future__ import annotations

from .dispatch_key import BackendComponent, DispatchKey

# Every type PyTorch's parser accepts, in the order its error message lists them.
_KNOWN_TYPES = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
    "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)  # fmt: skip
SUPPORTED_TYPES = ("cpu", "meta")

_BACKEND = {"cpu": BackendComponent.CPUBit, "meta": BackendComponent.MetaBit}
_DISPATCH_KEY = {"cpu": DispatchKey.CPU, "meta": DispatchKey.Meta}


def _unsupported(type_name: str) -> RuntimeError:
    return RuntimeError(
        f"ember has no {type_name} backend: only cpu and meta are available "
        f"(PyTorch would need a build with {type_name} support)"
    )


def _parse(text: str) -> tuple[str, int | None]:
    type_name, sep, index_text = text.partition(":")
    if type_name not in _KNOWN_TYPES:
        raise RuntimeError(
            "Expected one of " + ", ".join(_KNOWN_TYPES)
            + f" device type at start of device string: {text}"
        )  # fmt: skip
    if not sep:
        return type_name, None
    if not index_text.isdigit() or (len(index_text) > 1 and index_text[0] == "0"):
        raise RuntimeError(f"Invalid device string: '{text}'")
    return type_name, int(index_text)


class device:  # noqa: N801 (PyTorch's name)
    """``device('cpu')``, ``device('meta')``, ``device('cpu', 0)``, ``device('cpu:0')``."""

    __slots__ = ("type", "index", "_str", "backend_component", "dispatch_key")

    def __new__(cls, type=None, index=None):  # noqa: A002 (PyTorch's parameter name)
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device(): a device object takes no index")
            return type
        if type is None:
            raise TypeError("device() missing required argument 'type' (pos 1)")
        if isinstance(type, int) and not isinstance(type, bool):
            raise _unsupported("cuda")  # torch.device(0) means cuda:0
        if not isinstance(type, str):
            raise TypeError(
                f"device() received an invalid combination of arguments - got ({type.__class__.__name__})"
            )
        type_name, parsed_index = _parse(type)
        if index is not None:
            if parsed_index is not None:
                raise RuntimeError(
                    f"type (string) must not include an index because index was passed explicitly: {type}"
                )
            parsed_index = index
        if parsed_index is not None and parsed_index < 0:
            raise RuntimeError("Device index must not be negative")
        if type_name not in SUPPORTED_TYPES:
            raise _unsupported(type_name)
        if parsed_index is None:
            cached = _CANONICAL.get(type_name)
            if cached is not None:
                return cached
        self = object.__new__(cls)
        self.type = type_name
        self.index = parsed_index
        self._str = type_name if parsed_index is None else f"{type_name}:{parsed_index}"
        self.backend_component = _BACKEND[type_name]
        self.dispatch_key = _DISPATCH_KEY[type_name]
        return self

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self._str

    def __eq__(self, other: object) -> bool:
        if isinstance(other, device):
            return self.type == other.type and self.index == other.index
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))


_CANONICAL: dict[str, device] = {}
CPU = _CANONICAL["cpu"] = device("cpu")
META = _CANONICAL["meta"] = device("meta")


def as_device(value) -> device:
    """A ``device`` from a device, a string, or None (None means cpu)."""
    if value is None:
        return CPU
    if value.__class__ is device:
        return value
    return device(value)
