"""The names PyTorch's checkpoints use (torch._utils._rebuild_tensor_v2, torch.FloatStorage,
torch.float32, torch.Size, torch.device) and the ember objects they load as.

Layer: serialization. In: a global's dotted name; out: ember's rebuild function, dtype,
Size or device (TORCH_GLOBALS), and the markers ember's pickler writes as those names
(Global). Tensor subclasses (nn.Parameter) register both directions here. Mirrors
torch/_utils.py's rebuild functions and torch/storage.py's storage-type names.
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember._c10.device import META, device
from ember._c10.storage import Storage
from ember._c10.tensor_impl import CONJ_BITS, NEG_BITS
from ember._size import Size
from ember._tensor import Tensor

__all__ = ["register_weights_only_global", "register_tensor_subclass"]


class Global:
    """A global that data.pkl names by module and name (written as a GLOBAL opcode)."""

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def __call__(self, *args):  # pickle's save_reduce wants a callable; it is never called
        raise TypeError(f"{self.module}.{self.name} is a name in a checkpoint, not a function")


class StorageType:
    """torch.FloatStorage & co. as a checkpoint names them: the dtype of a storage."""

    def __init__(self, name: str, dtype) -> None:
        self.name = name
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"torch.{self.name}"


STORAGE_NAMES = {
    "float64": "DoubleStorage",
    "float32": "FloatStorage",
    "float16": "HalfStorage",
    "int64": "LongStorage",
    "int32": "IntStorage",
    "int16": "ShortStorage",
    "int8": "CharStorage",
    "uint8": "ByteStorage",
    "bool": "BoolStorage",
    "bfloat16": "BFloat16Storage",
    "complex128": "ComplexDoubleStorage",
    "complex64": "ComplexFloatStorage",
}
_STORAGE_TYPES = {
    name: StorageType(name, dtypes._dtype_by_name(dtype_name))
    for dtype_name, name in STORAGE_NAMES.items()
    if dtype_name in dtypes._BY_NAME
}


_MATH_BITS = {"conj": CONJ_BITS, "neg": NEG_BITS}


def _rebuild_tensor_v2(
    storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None
):
    storage, dtype = storage
    tensor = Tensor._from_storage(storage, size, stride, storage_offset, dtype, storage.device)
    for name, value in (metadata or {}).items():  # torch._utils.set_tensor_metadata
        if name not in _MATH_BITS:
            raise NotImplementedError(f"ember.load: unknown tensor metadata {name!r}")
        if value:
            tensor._key_bits |= _MATH_BITS[name]
    if requires_grad:
        tensor.requires_grad_(True)
    return tensor


def _rebuild_meta_tensor_no_storage(dtype, size, stride, requires_grad):
    storage = Storage(None, 0, META)
    tensor = Tensor._from_storage(storage, size, stride, 0, dtype, META)
    if requires_grad:
        tensor.requires_grad_(True)
    return tensor


def _rebuild_parameter(data, requires_grad, backward_hooks):
    raise NotImplementedError(
        "ember.load: this checkpoint holds an nn.Parameter, which this ember cannot rebuild "
        "(no Parameter type is registered with ember.serialization)"
    )


# torch's global names in a checkpoint -> ember's objects (Note [ember's checkpoint format])
TORCH_GLOBALS: dict = {
    "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
    "torch._utils._rebuild_meta_tensor_no_storage": _rebuild_meta_tensor_no_storage,
    "torch._utils._rebuild_parameter": _rebuild_parameter,
    "torch.Size": Size,
    "torch.device": device,
    **{f"torch.{name}": kind for name, kind in _STORAGE_TYPES.items()},
    **{f"torch.{d.name}": d for d in dtypes._BY_NAME.values()},
}


SUBCLASS_REDUCERS: dict = {}  # Tensor subclass -> (torch's rebuild global, its arguments)


def register_weights_only_global(obj, path: str) -> None:
    """Let the checkpoint global ``path`` (a torch name, e.g. "torch._utils._rebuild_parameter")
    load as ``obj``, with or without weights_only."""
    TORCH_GLOBALS[path] = obj


def register_tensor_subclass(cls, path: str, arguments, rebuild) -> None:
    """Save instances of the Tensor subclass ``cls`` as the call ``path(*arguments(obj))``
    (PyTorch's global, e.g. "torch._utils._rebuild_parameter" with (data, requires_grad,
    OrderedDict())) and load that call as ``rebuild(*arguments)``: how nn.Parameter joins."""
    module, name = path.rsplit(".", 1)
    SUBCLASS_REDUCERS[cls] = (Global(module, name), arguments)
    register_weights_only_global(rebuild, path)
