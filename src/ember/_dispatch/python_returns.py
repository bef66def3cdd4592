"""What a Python kernel returned, checked against the schema's returns as PyTorch checks it.

Layer: _dispatch (imports _c10 only). Mirrors pushPyOutToStack
(torch/csrc/autograd/python_variable.cpp) and the parts of torch::jit::toIValue
(torch/csrc/jit/python/pybind_utils.h) it reaches for the return types a user
kernel has. In: a schema and the Python object that a ``Library.impl`` kernel,
a custom op, a fake impl, a fallback or a ``__torch_dispatch__`` handler
returned. Out: the result as PyTorch hands it on (a tuple for several
returns, a list for ``Tensor[]``, Python numbers cast to the schema's type),
or PyTorch's error.

Note [Results of Python kernels]
--------------------------------
PyTorch pushes a Python kernel's result onto the IValue stack before anyone
sees it, so a kernel that returns ``"oops"`` for a ``Tensor`` fails at once
(``Unable to cast oops to Tensor``) instead of handing a string on. The
rules, per return type (PyTorch's own, quirks included):

* no returns: the result must be None (``Expected <holder> for <op> to return
  None but it returned something else instead.``; the holder is
  ``PythonKernelHolder`` for kernels and fallbacks, ``__torch_dispatch__`` for
  the Python key);
* several returns: the result must be a sequence (``Object of type 'int' is
  not an instance of 'sequence'``, a TypeError where the call came through
  ``ember.ops`` and a RuntimeError where it came through a Python binding,
  see ``_ops.OpOverload.__call__``); its items are cast one by one, so a
  string fails on its first character. PyTorch reads past the schema's
  returns when the lengths differ (its result is undefined and often a
  crash), so ember refuses a wrong length; a ``__torch_dispatch__`` result
  short of a Tensor gets the error PyTorch's caller then raises, reading the
  missing place (``Expected Tensor but got None``);
* ``Tensor`` and ``Tensor?``: a tensor or None, else ``Unable to cast X to
  Tensor``; ``Tensor[]`` and lists of int/float/bool: a list or tuple (no
  string) whose items all cast, else pybind11's ``Unable to cast Python
  instance of type <class 'list'> to C++ type '?' ...``; ``Tensor?[]`` and
  ``SymInt[]`` iterate their value as Python does;
* ``int`` (and ``ScalarType``, ``Layout``, ``MemoryFormat``), ``float``, ``bool``,
  ``str``, ``Scalar``, ``Device``: pybind11's casts (``True`` becomes 1, ``3``
  becomes 3.0, None becomes False, a float is no int, a string names a device).

Other return types pass unchanged.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence

from .._c10.device import device
from .._c10.dtypes import dtype
from .._c10.tensor_impl import TensorImpl

__all__ = ["returns_converter", "returns_one_tensor", "PYBIND_TYPE_ERROR"]

# Set on a RuntimeError that pybind11 raises as a TypeError where the call entered
# through ember.ops (see _ops.OpOverload.__call__) and torch's bindings as a RuntimeError.
PYBIND_TYPE_ERROR = "_ember_pybind_type_error"


class _CastFailed(Exception):
    """A pybind11 cast that did not load; the caller words the error."""


def _pybind_error(value) -> RuntimeError:
    return RuntimeError(
        f"Unable to cast Python instance of type {type(value)} to C++ type '?' (#define "
        "PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode for details)"
    )


# -- pybind11's scalar casters (convert=true) ---------------------------------------


def _load_int_or_dtype(value) -> int:
    """IntType: toIValue reads a dtype as its ScalarType number, the rest as pybind11."""
    if isinstance(value, dtype):
        return value.scalar_type
    return _load_int(value)


def _load_int(value) -> int:
    if isinstance(value, float):
        raise _CastFailed
    try:
        return operator.index(value)
    except TypeError:
        pass
    kind = type(value)
    if hasattr(kind, "__int__") or hasattr(kind, "__float__"):  # PyNumber_Check
        try:
            return int(value)
        except (TypeError, ValueError, OverflowError, RuntimeError):
            pass
    raise _CastFailed


def _load_float(value) -> float:
    kind = type(value)
    if hasattr(kind, "__float__") or hasattr(kind, "__index__"):  # PyFloat_AsDouble
        try:
            return float(value)
        except (TypeError, ValueError, OverflowError, RuntimeError):
            pass
    raise _CastFailed


def _load_bool(value) -> bool:
    if value is True or value is False:
        return value
    if value is None:
        return False
    if hasattr(type(value), "__bool__"):  # the type's nb_bool
        try:
            return bool(value)
        except (TypeError, ValueError, RuntimeError):
            pass
    raise _CastFailed


def _load_symint(value) -> int:
    """c10::SymInt's caster: an index, or a one-element integral tensor."""
    if isinstance(value, TensorImpl):
        if value.numel() == 1 and not value.dtype.is_floating_point and not value.dtype.is_complex:
            return int(value.item())
        raise _CastFailed
    try:
        return operator.index(value)
    except TypeError:
        raise _CastFailed from None


def _load_str(value) -> str:
    if isinstance(value, str):
        return value
    raise _CastFailed


_SCALAR_LOADERS: dict[str, Callable] = {
    "int": _load_int_or_dtype,
    "ScalarType": _load_int_or_dtype,
    "SymInt": _load_int,
    "Layout": _load_int,
    "MemoryFormat": _load_int,
    "float": _load_float,
    "bool": _load_bool,
    "SymBool": _load_bool,
    "str": _load_str,
}


# The items of int[], float[] and bool[] (pybind11's list caster over the scalar ones).
_LIST_LOADERS: dict[str, Callable] = {"int": _load_int, "float": _load_float, "bool": _load_bool}


def _scalar(loader: Callable) -> Callable:
    def convert(value):
        try:
            return loader(value)
        except _CastFailed:
            raise _pybind_error(value) from None

    return convert


# -- toIValue by type ----------------------------------------------------------------


def _tensor(value):
    # Objects that take part in dispatch like a tensor (``_key_bits``, docs/architecture.md)
    # pass too: the dispatcher's own tests stand them in for tensors.
    if value is None or isinstance(value, TensorImpl) or hasattr(value, "_key_bits"):
        return value
    raise RuntimeError(f"Unable to cast {value!s} to Tensor")


def _number(value):
    """NumberType (Scalar): a bool, int, complex or float (a c10::Scalar and back)."""
    if isinstance(value, dtype):
        return value.scalar_type
    for kind in (bool, int, complex, float):
        if isinstance(value, kind):
            return kind(value)
    raise RuntimeError(f"Cannot cast {value!s} to number")


def _device(value):
    if isinstance(value, device):
        return value
    if isinstance(value, str):
        return device(value)
    raise _pybind_error(value)


def _is_pybind_list(value) -> bool:
    """pybind11's list caster: a sequence that is not a string."""
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes, TensorImpl))


def _tensor_list(value) -> list:
    if _is_pybind_list(value) and all(isinstance(item, TensorImpl) for item in value):
        return list(value)
    raise _pybind_error(value)


def _scalar_list(loader: Callable) -> Callable:
    def convert(value) -> list:
        if _is_pybind_list(value):
            try:
                return [loader(item) for item in value]
            except _CastFailed:
                pass
        raise _pybind_error(value)

    return convert


def _iterated(element: Callable) -> Callable:
    """A list type that toIValue fills by iterating the value (Tensor?[], SymInt[])."""

    def convert(value) -> list:
        return [element(item) for item in value]

    return convert


def _optional(inner: Callable) -> Callable:
    def convert(value):
        return None if value is None else inner(value)

    return convert


def _unchanged(value):
    return value


def _for_type(kind) -> Callable:
    """The converter of one return's (real) schema type."""
    if kind.kind == "optional":
        inner = _for_type(kind.element)
        return _tensor if inner is _tensor else _optional(inner)
    if kind.kind == "base":
        if kind.name == "Tensor":
            return _tensor
        if kind.name == "Scalar":
            return _number
        if kind.name == "Device":
            return _device
        loader = _SCALAR_LOADERS.get(kind.name)
        return _unchanged if loader is None else _scalar(loader)
    if kind.kind == "list":
        element = kind.element
        if element.kind == "base" and element.name == "Tensor":
            return _tensor_list
        if element.kind == "optional" and element.element.name == "Tensor":
            return _iterated(_tensor)
        if element.kind == "base" and element.name == "SymInt":
            return _iterated(_scalar(_load_symint))
        if element.kind == "base" and element.name in _LIST_LOADERS:
            return _scalar_list(_LIST_LOADERS[element.name])
    return _unchanged


def _not_a_sequence(value) -> RuntimeError:
    error = RuntimeError(
        f"Object of type '{type(value).__name__}' is not an instance of 'sequence'"
    )
    setattr(error, PYBIND_TYPE_ERROR, True)
    return error


def returns_one_tensor(schema) -> bool:
    """One ``Tensor`` (or ``Tensor?``) return: a tensor result passes as it is."""
    if len(schema.returns) != 1 or schema.is_varret:
        return False
    return _for_type(schema.returns[0].real_type) is _tensor


# (id(schema), holder) -> (schema, converter); the schema is kept so its id stays its own.
_CONVERTERS: dict[tuple[int, str], tuple[object, Callable]] = {}


def returns_converter(schema, holder: str) -> Callable:
    """``convert(result)`` for ``schema``'s returns (Note [Results of Python kernels]).

    ``holder`` names the kernel in the no-returns error: ``PythonKernelHolder``
    or ``__torch_dispatch__``.
    """
    cached = _CONVERTERS.get((id(schema), holder))
    if cached is not None and cached[0] is schema:
        return cached[1]
    convert = _make_converter(schema, holder)
    _CONVERTERS[(id(schema), holder)] = (schema, convert)
    return convert


def _make_converter(schema, holder: str) -> Callable:
    returns = schema.returns
    if schema.is_varret:
        return _unchanged
    name = schema.qualified_name
    if not returns:

        def convert_none(result):
            if result is not None:
                raise RuntimeError(
                    f"Expected {holder} for {name} to return None but it returned something "
                    "else instead."
                )
            return result

        return convert_none
    if len(returns) == 1:
        return _for_type(returns[0].real_type)
    converters = [_for_type(ret.real_type) for ret in returns]
    expected = len(converters)
    short_reads_none = holder == "__torch_dispatch__"

    def convert_several(result) -> tuple:
        if not isinstance(result, Sequence) or isinstance(result, TensorImpl):
            raise _not_a_sequence(result)
        items = [convert(item) for convert, item in zip(converters, result)]
        if short_reads_none and len(result) < expected and converters[len(result)] is _tensor:
            # PyTorch pushes what the handler gave and its caller pops the schema's count:
            # the first missing Tensor reads as None
            raise RuntimeError("Expected Tensor but got None")
        if len(result) != expected:
            raise RuntimeError(
                f"Expected {holder} for {name} to return {expected} values but it returned "
                f"{len(result)} instead."
            )
        return tuple(items)

    return convert_several
