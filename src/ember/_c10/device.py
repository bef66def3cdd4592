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


_SIGNATURES = ("(torch.device device)", "(str type, int index = -1)")


def _type_name(value) -> str:
    if isinstance(value, device):
        return "torch.device"
    if isinstance(value, list):
        names = dict.fromkeys(_type_name(item) for item in value)
        return f"list of [{', '.join(names)}]"
    return value.__class__.__name__


def _is_int(value) -> bool:
    return (isinstance(value, int) or hasattr(value, "__index__")) and not isinstance(
        value, (bool, str, bytes, device)
    )


def _invalid_combination(args, kwargs) -> TypeError:
    """The parser's summary: no signature of device() takes these arguments."""
    got = ", ".join("torch.device" if isinstance(a, device) else a.__class__.__name__ for a in args)
    got += "".join(f"{key}={_type_name(value)}, " for key, value in kwargs.items())
    lines = [f"device() received an invalid combination of arguments - got ({got}), but "
             "expected one of:", f" * {_SIGNATURES[0]}"]  # fmt: skip
    if len(args) + len(kwargs) == 1:
        why = (
            f"some of the keywords were incorrect: {', '.join(kwargs)}"
            if kwargs
            else f"some of the arguments have invalid types: (!{_type_name(args[0])}!)"
        )
        lines.append(f"      didn't match because {why}")
    lines.append(f" * {_SIGNATURES[1]}")
    return TypeError("\n".join(lines) + "\n")


def _device_arguments(args: tuple, kwargs: dict):
    """THPDevice_pynew's parser: device(Device device) | device(str type, int? index=-1),
    with its errors; (type, index): a device, a device string (or an int) and an index."""
    count = len(args) + len(kwargs)
    if count == 1 and args:
        (value,) = args
        if isinstance(value, (device, str)) or (_is_int(value) and not isinstance(value, bool)):
            return value, None
        if isinstance(value, bytes):
            return value.decode(), None
    if count == 1 and list(kwargs) == ["type"] and isinstance(kwargs["type"], (str, bytes)):
        value = kwargs["type"]
        return value.decode() if isinstance(value, bytes) else value, None
    if count != 2 or len(args) > 2:
        raise _invalid_combination(args, kwargs)
    # only (str type, int? index) can take two arguments: its own errors
    for key in kwargs:
        if key not in ("type", "index"):
            raise TypeError(f"device() got an unexpected keyword argument '{key}'")
    if args and "type" in kwargs:
        raise TypeError("device() got multiple values for argument 'type'")
    values = dict(zip(("type", "index"), args)) | kwargs
    if "type" not in values:
        raise _invalid_combination(args, kwargs)
    for position, (name, expected) in enumerate((("type", "str"), ("index", "int"))):
        value = values.get(name)
        where = f" (position {position + 1})" if len(args) > position else ""
        ok = isinstance(value, (str, bytes)) if name == "type" else value is None or _is_int(value)
        if not ok:
            raise TypeError(
                f"device(): argument '{name}'{where} must be {expected}, not {_type_name(value)}"
            )
    type_value, index = values["type"], values.get("index")
    if index is not None:
        index = int(index.__index__())
        if not -(2**63) <= index < 2**63:
            raise ValueError("Overflow when unpacking long long")
    return type_value.decode() if isinstance(type_value, bytes) else type_value, index


class device:  # noqa: N801 (PyTorch's name)
    """``device('cpu')``, ``device('meta')``, ``device('cpu', 0)``, ``device('cpu:0')``."""

    __slots__ = ("type", "index", "_str", "backend_component", "dispatch_key")

    def __new__(cls, *args, **kwargs):
        if not kwargs and len(args) == 1 and args[0].__class__ is str:
            cached = _CANONICAL.get(args[0])  # device("cpu"): the common case
            if cached is not None:
                return cached
        type, index = _device_arguments(args, kwargs)  # noqa: A001 (PyTorch's parameter name)
        if isinstance(type, device):
            return type
        if _is_int(type):
            if type < 0:
                raise RuntimeError("Device index must not be negative")
            # an int is an accelerator index (torch.device(0) is cuda:0 in a CUDA build)
            raise RuntimeError("Cannot access accelerator device when none is available.")
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
