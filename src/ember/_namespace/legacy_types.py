"""The legacy tensor types: torch.FloatTensor, torch.LongTensor, ... and
torch.set_default_tensor_type.

Layer: _namespace. In: a legacy constructor's arguments, or an object to test with
isinstance. Out: a CPU tensor of the type's dtype. Mirrors torch/csrc/tensor/python_tensor.cpp:
each name is an instance of the metaclass `tensortype` (not a subclass of Tensor);
`isinstance(t, torch.FloatTensor)` holds for a CPU float32 tensor; the constructor is the
legacy one (tensor_new.cpp's legacy_tensor_ctor) with the type's dtype; a class attribute it
lacks is looked up on Tensor (torch.FloatTensor.add).
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember._c10.layout import strided
from ember._c10.naming import prefix
from ember._c10.warning import torch_warn_once
from ember._tensor import Tensor
from ember._tensor_subclass import _legacy_tensor
from ember.aten.native.common import type_meta_name

__all__ = [
    "BFloat16Tensor",
    "BoolTensor",
    "ByteTensor",
    "CharTensor",
    "DoubleTensor",
    "FloatTensor",
    "HalfTensor",
    "IntTensor",
    "LongTensor",
    "ShortTensor",
    "set_default_tensor_type",
    "tensortype",
]


class tensortype(type):  # noqa: N801 (PyTorch's name)
    """The metaclass of the legacy tensor types (PyTensorType)."""

    dtype: dtypes.dtype

    def __instancecheck__(cls, instance) -> bool:
        return (
            isinstance(instance, Tensor)
            and instance.dtype is cls.dtype
            and instance.device.type == "cpu"
            and instance.layout is strided
        )

    def __subclasscheck__(cls, subclass) -> bool:
        return type.__subclasscheck__(cls, subclass)

    def __getattr__(cls, name):
        try:
            return getattr(Tensor, name)
        except AttributeError:
            raise AttributeError(
                f"type object '{prefix()}.{cls.__name__}' has no attribute '{name}'"
            ) from None

    def __call__(cls, *args, **kwargs):
        dtype = cls.dtype
        if len(args) == 1 and not kwargs and isinstance(args[0], Tensor):
            other = args[0]
            if other.dtype is not dtype or other.device.type != "cpu":
                raise TypeError(f"expected {_options(dtype)} (got {_options(other.dtype)})")
        return _legacy_tensor(args, kwargs, dtype)

    def __repr__(cls) -> str:
        return f"<class '{prefix()}.{cls.__name__}'>"


tensortype.__module__ = "ember"


def _options(dtype) -> str:
    return (
        f"TensorOptions(dtype={type_meta_name(dtype)}, device=cpu, layout=Strided, "
        "requires_grad=false (default), pinned_memory=false (default), "
        "memory_format=(nullopt))"
    )


def _legacy_type(name: str, dtype):
    return tensortype(
        name,
        (),
        {
            "__module__": "ember",
            "__doc__": None,
            "dtype": dtype,
            "layout": strided,
            "is_sparse": False,
            "is_cuda": False,
        },
    )


FloatTensor = _legacy_type("FloatTensor", dtypes.float32)
DoubleTensor = _legacy_type("DoubleTensor", dtypes.float64)
HalfTensor = _legacy_type("HalfTensor", dtypes.float16)
BFloat16Tensor = _legacy_type("BFloat16Tensor", dtypes.bfloat16)
LongTensor = _legacy_type("LongTensor", dtypes.int64)
IntTensor = _legacy_type("IntTensor", dtypes.int32)
ShortTensor = _legacy_type("ShortTensor", dtypes.int16)
CharTensor = _legacy_type("CharTensor", dtypes.int8)
ByteTensor = _legacy_type("ByteTensor", dtypes.uint8)
BoolTensor = _legacy_type("BoolTensor", dtypes.bool)

_BY_NAME = {
    t.__name__: t
    for t in (
        FloatTensor, DoubleTensor, HalfTensor, BFloat16Tensor, LongTensor,
        IntTensor, ShortTensor, CharTensor, ByteTensor, BoolTensor,
    )
}  # fmt: skip


def _resolve(name: str):
    """torch._utils._import_dotted_name for the names ember can answer."""
    first, _, rest = name.partition(".")
    if first not in ("torch", "ember"):
        raise ModuleNotFoundError(f"No module named '{first}'", name=first)
    if rest in _BY_NAME:
        return _BY_NAME[rest]
    raise AttributeError(f"module '{first}' has no attribute '{rest}'")


def set_default_tensor_type(t) -> None:
    """Deprecated: sets the default floating dtype from a legacy type (or its name)."""
    if isinstance(t, str):
        t = _resolve(t)
    torch_warn_once(
        f"{prefix()}.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
        f"{prefix()}.set_default_dtype() and {prefix()}.set_default_device() as alternatives.",
        "torch/csrc/tensor/python_tensor.cpp:434",
    )
    if not isinstance(t, tensortype):
        raise TypeError(
            "invalid type object: only floating-point types are supported as the default type"
        )
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    dtypes.set_default_dtype(t.dtype)
