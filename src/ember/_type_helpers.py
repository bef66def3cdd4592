"""The small type helpers of the torch namespace: is_tensor, numel, promote_types and friends.

Layer: torch face (above aten: the parser, the dtype rules). In: Python arguments.
Out: bools, ints and dtypes, with PyTorch's argument errors. Mirrors torch/__init__.py
(is_tensor, is_storage, typename) and the bindings of torch's numel,
is_floating_point, is_complex (python_torch_functions_manual.cpp) and of the
promote_types, result_type and can_cast operators (native_functions.yaml).
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember._c10.grad_mode import is_grad_enabled as _is_grad_enabled
from ember._c10.storage import Storage
from ember._tensor import Tensor
from ember.aten.python_arg_parser import PythonArgParser, no_arguments_function
from ember.aten.structured import _can_cast
from ember.aten.torch_function import overridable
from ember.storage import TypedStorage

__all__ = [
    "is_tensor",
    "is_storage",
    "typename",
    "numel",
    "is_floating_point",
    "is_complex",
    "is_inference",
    "promote_types",
    "result_type",
    "can_cast",
    "get_default_dtype",
    "is_grad_enabled",
]


def get_default_dtype(*args, **kwargs):
    """torch.get_default_dtype, a METH_NOARGS function of torch._C."""
    if args or kwargs:
        no_arguments_function("ember.get_default_dtype", args, kwargs)
    return dtypes.get_default_dtype()


def is_grad_enabled(*args, **kwargs) -> bool:
    if args or kwargs:
        no_arguments_function("ember.is_grad_enabled", args, kwargs)
    return _is_grad_enabled()


def is_tensor(obj, /) -> bool:
    return isinstance(obj, Tensor)


def is_storage(obj, /) -> bool:
    return type(obj) is Storage or type(obj) is TypedStorage


def typename(obj, /) -> str:
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module in {"", "builtins"}:
        return qualname
    return f"{module}.{qualname}"


_numel = PythonArgParser(["numel(Tensor input)"])
_is_floating_point = PythonArgParser(["is_floating_point(Tensor input)"])
_is_complex = PythonArgParser(["is_complex(Tensor input)"])
_is_inference = PythonArgParser(["is_inference(Tensor input)"])
_promote_types = PythonArgParser(["promote_types(ScalarType type1, ScalarType type2)"])
_can_cast_parser = PythonArgParser(["can_cast(ScalarType from_, ScalarType to)"])
_result_type = PythonArgParser(
    [
        "result_type(Tensor tensor, Tensor other)",
        "result_type(Scalar scalar, Tensor tensor)",
        "result_type(Tensor tensor, Scalar other)",
        "result_type(Scalar scalar1, Scalar scalar2)",
    ]
)


@overridable(_numel)
def numel(*args, **kwargs) -> int:
    return _numel.parse(args, kwargs)[1][0].numel()


@overridable(_is_floating_point)
def is_floating_point(*args, **kwargs) -> bool:
    return _is_floating_point.parse(args, kwargs)[1][0].is_floating_point()


@overridable(_is_complex)
def is_complex(*args, **kwargs) -> bool:
    return _is_complex.parse(args, kwargs)[1][0].is_complex()


def is_inference(*args, **kwargs) -> bool:
    return _is_inference.parse(args, kwargs)[1][0]._is_inference


def promote_types(*args, **kwargs):
    type1, type2 = _promote_types.parse(args, kwargs)[1]
    return dtypes.promote_types(type1, type2)


@overridable(_result_type)
def result_type(*args, **kwargs):
    """The dtype an operator over the two would compute in (a Python number promotes as a
    wrapped number)."""
    first, second = _result_type.parse(args, kwargs)[1]
    return dtypes.result_type(first, second)


def can_cast(*args, **kwargs) -> bool:
    from_, to = _can_cast_parser.parse(args, kwargs)[1]
    return _can_cast(from_, to)
