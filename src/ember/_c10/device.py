"""Device: where a tensor lives, and the dispatch keys a device contributes.

Layer: _c10 (imports nothing of ember outside _c10). Mirrors c10/core/Device.h,
c10/core/DeviceType.h and torch/csrc/Device.cpp (parsing and printing).
In: a device string, a ``device``, or a type and an index. Out: ``device``
objects (``cpu`` and ``meta`` are the backends ember has) and their backend
component / dispatch key.
"""

from __future__ import annotations

import re

from .dispatch_key import BackendComponent, DispatchKey
from .warning import torch_warn_once

# Every type PyTorch's parser accepts, in the order its error message lists them.
_KNOWN_TYPES = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
    "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)  # fmt: skip
SUPPORTED_TYPES = ("cpu", "meta")

_BACKEND = {
    "cpu": BackendComponent.CPUBit, "cuda": BackendComponent.CUDABit,
    "hip": BackendComponent.HIPBit, "xla": BackendComponent.XLABit,
    "mps": BackendComponent.MPSBit, "ipu": BackendComponent.IPUBit,
    "xpu": BackendComponent.XPUBit, "hpu": BackendComponent.HPUBit,
    "ve": BackendComponent.VEBit, "lazy": BackendComponent.LazyBit,
    "mtia": BackendComponent.MTIABit, "maia": BackendComponent.MAIABit,
    "privateuseone": BackendComponent.PrivateUse1Bit, "meta": BackendComponent.MetaBit,
}  # fmt: skip
# The backend key of each type; the grandfathered Caffe2 types (mkldnn, opengl, opencl,
# ideep) have none (computeDispatchKey asserts).
_DISPATCH_KEY = {
    "cpu": DispatchKey.CPU, "cuda": DispatchKey.CUDA, "hip": DispatchKey.HIP,
    "xla": DispatchKey.XLA, "mps": DispatchKey.MPS, "ipu": DispatchKey.IPU,
    "xpu": DispatchKey.XPU, "hpu": DispatchKey.HPU, "ve": DispatchKey.VE,
    "lazy": DispatchKey.Lazy, "mtia": DispatchKey.MTIA, "maia": DispatchKey.MAIA,
    "privateuseone": DispatchKey.PrivateUse1, "meta": DispatchKey.Meta,
    "fpga": DispatchKey.FPGA, "vulkan": DispatchKey.Vulkan,
}  # fmt: skip

# Note [Devices ember has no backend for]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Every device type PyTorch parses makes a device object (`ember.device('cuda:1')`), as in
# a CPU build of PyTorch; using one fails as that build fails: the lazy initialisation of
# an accelerator module first (device_lazy_init: `Torch not compiled with CUDA enabled`),
# then, for a factory, the missing kernel of its backend key (BackendSelect dispatches
# there, aten/registration.py), and for `to()` / `tensor()` the missing device guard
# (check_linked: `PyTorch is not linked with support for xla devices`).
_LAZY_INIT = {
    "cuda": (AssertionError, "Torch not compiled with CUDA enabled"),
    "xpu": (AssertionError, "Torch not compiled with XPU enabled"),
    "mtia": (
        AssertionError,
        "Torch not compiled with MTIA enabled. Ensure you have `import "
        "mtia.host_runtime.torch_mtia.dynamic_library` in your python src file and include "
        "`//mtia/host_runtime/torch_mtia:torch_mtia` as your target dependency!",
    ),
    "hpu": (ModuleNotFoundError, "No module named 'ember.hpu'"),
    "privateuseone": (ModuleNotFoundError, "No module named 'ember.privateuseone'"),
}
_NO_ACCELERATOR = "Cannot access accelerator device when none is available."
_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::([1-9]\d*|0))?")


def device_lazy_init(device_type: str) -> None:
    """torch::utils::device_lazy_init: the accelerator module of `device_type` refuses."""
    found = _LAZY_INIT.get(device_type)
    if found is not None:
        raise found[0](found[1])


def check_linked(device_type: str) -> None:
    """A tensor made or copied on `device_type`: only cpu and meta have a device guard."""
    device_lazy_init(device_type)
    if device_type not in SUPPORTED_TYPES:
        raise RuntimeError(f"PyTorch is not linked with support for {device_type} devices")


def no_dispatch_key(device_type: str) -> RuntimeError:
    """computeDispatchKey's assertion for a grandfathered Caffe2 device type."""
    return RuntimeError(
        '0 INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/c10/core/TensorOptions.h":663, '
        "please report a bug to PyTorch. This is a grandfathered Caffe2 device type "
        f"{device_type}, it shouldn't ever convert to a DispatchKey.  File a bug describing "
        "what you were doing if you think this is in error."
    )


def _parse(text: str) -> tuple[str, int | None]:
    """c10::Device(const std::string&): the pattern first, then the type's name."""
    if not text:
        raise RuntimeError("Device string must not be empty")
    match = _DEVICE_STRING.fullmatch(text)
    if match is None:
        raise RuntimeError(f"Invalid device string: '{text}'")
    type_name, index_text = match.groups()
    if type_name == "mkldnn":
        torch_warn_once(
            "'mkldnn' is no longer used as device type. So torch.device('mkldnn') will be "
            "deprecated and removed in the future. Please use other valid device types instead.",
            "c10/core/Device.cpp:40",
        )
    if type_name not in _KNOWN_TYPES:
        raise RuntimeError(
            "Expected one of " + ", ".join(_KNOWN_TYPES)
            + f" device type at start of device string: {text}"
        )  # fmt: skip
    return type_name, None if index_text is None else int(index_text)


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

    __module__ = "ember"  # printed `ember.device`, as torch.device names its module
    __slots__ = ("type", "index", "_str", "backend_component", "dispatch_key")

    def __new__(cls, *args, **kwargs):
        if not kwargs and len(args) == 1 and args[0].__class__ is str:
            cached = _CANONICAL.get(args[0])  # device("cpu"): the common case
            if cached is not None:
                return cached
        type, index = _device_arguments(args, kwargs)  # noqa: A001 (PyTorch's parameter name)
        if isinstance(type, device):
            return type
        if type is None:
            raise TypeError("device() missing required argument 'type' (pos 1)")
        if _is_int(type):
            if type < 0:
                raise RuntimeError("Device index must not be negative")
            raise RuntimeError(_NO_ACCELERATOR)  # torch.device(0): the accelerator's device 0
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
        return cls._of(type_name, parsed_index)

    @classmethod
    def _of(cls, type_name: str, index: int | None) -> device:
        """THPDevice_New: the device of a c10 DeviceType by name (any of them, the Caffe2
        ones and metal too) and an index, without parsing."""
        if index is None:
            cached = _CANONICAL.get(type_name)
            if cached is not None:
                return cached
        self = object.__new__(cls)
        self.type = type_name
        self.index = index
        self._str = type_name if index is None else f"{type_name}:{index}"
        # See Note [Devices ember has no backend for]
        self.backend_component = _BACKEND.get(type_name, BackendComponent.InvalidBit)
        self.dispatch_key = _DISPATCH_KEY.get(type_name)
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
