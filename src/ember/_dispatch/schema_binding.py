"""Binding Python call arguments to a schema, and back.

Layer `_dispatch`. In: a FunctionSchema and a call's `(args, kwargs)`. Out:
the full argument list of Note [Dispatcher calling convention] (every schema
argument, in order, defaults filled), the indices of tensor-carrying
arguments, and the `(args, kwargs)` that PyTorch hands to Python kernels
(facts §8.6). Mirrors torch/csrc/jit/python/pybind_utils.h
(`createStackForSchema`, `argumentToIValue`) and its error messages.

Everything that can be decided per schema is decided once, in `BindPlan`,
so that `bind` does one pass of cheap per-argument checks on each call.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ember._dispatch.schema import Argument, FunctionSchema, SchemaType

_PYBIND_DETAILS = (
    "Unable to cast Python instance of type {} to C++ type '?' "
    "(#define PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode for details)"
)
# Types bind does not check: ember's own objects (dtypes, devices, ...) stand
# in for them and are validated by the kernels that use them.
_UNCHECKED = frozenset(
    {"ScalarType", "Layout", "MemoryFormat", "Device", "Generator", "Storage", "Stream",
     "QScheme", "Any", "Quantizer", "Capsule", "AnyClassType", "AnyEnumType"}
)  # fmt: skip


class _Mismatch(Exception):
    """Raised by a checker; carries the 'Cast error details' text."""


def _pybind_failure(value: object) -> _Mismatch:
    return _Mismatch(_PYBIND_DETAILS.format(type(value)))


def _is_tensor(value: object) -> bool:
    return hasattr(type(value), "_key_bits")


def _check_tensor(value: object) -> object:
    if _is_tensor(value):
        return value
    raise _Mismatch(f"Unable to cast {value} to Tensor")


def _check_tensor_argument(value: object) -> object:
    """A `Tensor` argument (not a list element): None is an undefined tensor, as
    argumentToIValue makes it; aten's kernels refuse it after binding (BindPlan)."""
    if value is None or _is_tensor(value):
        return value
    raise _Mismatch(f"Unable to cast {value} to Tensor")


def _check_int(value: object) -> object:
    if type(value) is int:
        return value
    if isinstance(value, float | str | complex) or value is None:
        raise _pybind_failure(value)
    try:
        return operator.index(value)
    except TypeError:
        raise _pybind_failure(value) from None


def _check_float(value: object) -> object:
    if type(value) is float:
        return value
    if isinstance(value, int | float):
        return float(value)
    raise _pybind_failure(value)


def _check_bool(value: object) -> object:
    if type(value) is bool:
        return value
    if type(value) is int:
        return bool(value)
    raise _pybind_failure(value)


def _check_str(value: object) -> object:
    if type(value) is str:
        return value
    raise _pybind_failure(value)


_NUMBER_TYPES = frozenset({int, float, bool, complex})


def _check_scalar(value: object) -> object:
    if (
        type(value) in _NUMBER_TYPES
        or isinstance(value, int | float | complex)
        or _is_tensor(value)
    ):
        return value
    raise _Mismatch(f"Cannot cast {value} to number")


_BASE_CHECKERS: dict[str, Callable[[object], object]] = {
    "Tensor": _check_tensor, "int": _check_int, "SymInt": _check_int, "float": _check_float,
    "bool": _check_bool, "str": _check_str, "Scalar": _check_scalar,
}  # fmt: skip


def _checker(real: SchemaType, size: int | None) -> Callable[[object], object] | None:
    """A function value -> converted value (raising _Mismatch), or None when
    any value is accepted."""
    if real.kind == "optional":
        inner = _checker(real.element, size)
        if inner is None:
            return None

        def check_optional(value: object) -> object:
            return None if value is None else inner(value)

        return check_optional
    if real.kind == "list":
        element = _checker(real.element, None)
        # lists already of the exact Python type pass without a copy
        exact = {_check_int: int, _check_float: float, _check_bool: bool, _check_str: str}.get(
            element
        )
        broadcast = size is not None and real.element.kind == "base" and real.element.name in (
            "int", "SymInt", "bool", "float"
        )  # fmt: skip

        def check_list(value: object) -> object:
            if exact is not None and type(value) is list:
                for item in value:
                    if type(item) is not exact:
                        break
                else:
                    return value
            if broadcast and isinstance(value, int | float) and element is not None:
                return [element(value)] * size
            if not isinstance(value, list | tuple):
                raise _pybind_failure(value)
            if element is None:
                return list(value)
            try:
                return [element(item) for item in value]
            except _Mismatch:
                raise _pybind_failure(value) from None

        return check_list
    if real.kind == "base" and real.name not in _UNCHECKED:
        return _BASE_CHECKERS.get(real.name)
    return None


def _same_as_default(value: object, default: object) -> bool:
    if default is None or value is None:
        return value is default
    if _is_tensor(value):
        return False
    if isinstance(default, tuple):
        return isinstance(value, list | tuple) and tuple(value) == default
    if type(value) is type(default):
        return value == default
    # A ScalarType default is its number (dtype=long is 4), as in PyTorch's IValue compare.
    return type(default) is int and getattr(value, "scalar_type", None) == default


class BindPlan:
    """Per-schema precomputation behind FunctionSchema.bind & co."""

    __slots__ = (
        "schema", "names", "checkers", "defaults", "has_default", "num_positional",
        "index_of", "dispatch_arguments", "checked", "default_tails", "list_defaults",
        "proper_tensors",
    )  # fmt: skip

    def __init__(self, schema: FunctionSchema) -> None:
        from ember._dispatch.schema import NO_DEFAULT

        arguments: tuple[Argument, ...] = schema.arguments
        self.schema = schema
        self.names = tuple(arg.name for arg in arguments)
        checkers = [_checker(arg.real_type, arg.N) for arg in arguments]
        checkers = [_check_tensor_argument if c is _check_tensor else c for c in checkers]
        self.checkers = tuple(checkers)
        # aten's autograd kernels unpack a `Tensor` argument that is None (undefined) with an
        # error; an operator of another namespace gets None in its kernel, as in torch
        self.proper_tensors = (
            tuple(i for i, c in enumerate(checkers) if c is _check_tensor_argument)
            if schema.name.startswith("aten::")
            else ()
        )
        self.defaults = tuple(arg.default for arg in arguments)
        self.has_default = tuple(arg.default is not NO_DEFAULT for arg in arguments)
        self.num_positional = sum(1 for arg in arguments if not arg.kwarg_only)
        self.index_of = {arg.name: i for i, arg in reversed(list(enumerate(arguments)))}
        self.checked = tuple((i, c) for i, c in enumerate(self.checkers) if c is not None)
        # default_tails[g]: the defaults of arguments g.. when all have one
        count = len(arguments)
        self.default_tails = tuple(
            self.defaults[g:] if all(self.has_default[g:]) else None for g in range(count + 1)
        )
        self.list_defaults = tuple(i for i, d in enumerate(self.defaults) if type(d) is tuple)
        dispatch = []
        for index, arg in enumerate(arguments):
            carries, is_list = arg.real_type.is_tensor_like()
            if carries:
                dispatch.append((index, is_list))
        self.dispatch_arguments = tuple(dispatch)

    def check_defined(self, full: list) -> None:
        """After the overload is chosen: aten's kernels refuse an undefined `Tensor`."""
        for index in self.proper_tensors:
            if full[index] is None:
                raise RuntimeError(
                    "Expected a proper Tensor but got None (or an undefined Tensor in C++) for "
                    f"argument #{index} '{self.names[index]}'"
                )

    def bind(self, args: tuple, kwargs: dict) -> list:
        given = len(args)
        if given > self.num_positional and not self.schema.is_vararg:
            self._too_many(given, kwargs)
        if kwargs and given + len(kwargs) > len(self.names) and not self.schema.is_vararg:
            self._too_many(given, kwargs)
        full = list(args)
        index = 0
        try:
            for index, check in self.checked:
                if index >= given:
                    break
                full[index] = check(full[index])
        except _Mismatch as mismatch:
            raise self._type_error(index, full[index], mismatch) from None
        if not kwargs and given < len(self.default_tails):
            tail = self.default_tails[given]
            if tail is not None:
                full.extend(tail)
                for index in self.list_defaults:
                    if index >= given:
                        full[index] = list(full[index])
                return full
        return self._bind_rest(full, given, kwargs)

    def _bind_rest(self, full: list, given: int, kwargs: dict) -> list:
        """Keyword arguments and defaults, after the positional ones."""
        schema = self.schema
        checkers = self.checkers
        used = 0
        for index in range(given, len(checkers)):
            name = self.names[index]
            if kwargs and name in kwargs:
                value = kwargs[name]
                check = checkers[index]
                if check is not None:
                    try:
                        value = check(value)
                    except _Mismatch as mismatch:
                        raise self._type_error(index, value, mismatch) from None
                full.append(value)
                used += 1
            elif self.has_default[index]:
                default = self.defaults[index]
                full.append(list(default) if type(default) is tuple else default)
            else:
                raise RuntimeError(
                    f"{schema.name}() is missing value for argument '{name}'. Declaration: {schema}"
                )
        if kwargs and used != len(kwargs):
            self._reject_keywords(given, kwargs)
        return full

    def _too_many(self, given: int, kwargs: dict) -> None:
        schema = self.schema
        total = given + (len(kwargs) if kwargs else 0)
        if total > len(self.names):  # createStackForSchema counts all of them first
            raise RuntimeError(
                f"{schema.name}() expected at most {len(self.names)} argument(s) but received "
                f"{total} argument(s). Declaration: {schema}"
            )
        raise RuntimeError(
            f"{schema.name}() takes {self.num_positional} positional argument(s) but "
            f"{given} was/were given.  Declaration: {schema}"
        )

    def _type_error(self, index: int, value: object, mismatch: _Mismatch) -> RuntimeError:
        schema = self.schema
        arg = schema.arguments[index]
        return RuntimeError(
            f"{schema.name}() Expected a value of type '{arg.type}' for argument "
            f"'{arg.name}' but instead found type '{type(value).__name__}'.\n"
            f"Position: {index}\nValue: {value!r}\nDeclaration: {schema}\n"
            f"Cast error details: {mismatch}"
        )

    def _reject_keywords(self, given: int, kwargs: dict) -> None:
        schema = self.schema
        for name in kwargs:
            index = self.index_of.get(name)
            if index is None:
                raise RuntimeError(
                    f"Unknown keyword argument '{name}' for operator '{schema.name}'. "
                    f"Schema: {schema}"
                )
            if index < given:
                raise RuntimeError(
                    f"Argument '{name}' specified both as positional and keyword argument. "
                    f"Schema: {schema}"
                )

    def exact_types(self, tensor_type: type) -> tuple[type, ...] | None:
        """Per argument, the one type that ``bind`` passes through unchanged, or None.

        None unless every argument is positional, the schema has no varargs and
        each argument is a plain Tensor, int, SymInt, float, bool or str. A call
        with exactly these types, positionally and without keywords, binds to
        its own arguments (OpOverload's fast path relies on this).
        """
        exact = {_check_tensor_argument: tensor_type, _check_int: int, _check_float: float,
                 _check_bool: bool, _check_str: str}  # fmt: skip
        if self.schema.is_vararg or self.num_positional != len(self.names):
            return None
        types = tuple(exact.get(check) for check in self.checkers)
        return None if None in types else types

    def default_tails_after_exact(self, tensor_type: type) -> tuple[tuple, dict[int, tuple]]:
        """``(prefix, tails)``: the leading positional arguments' exact types (as in
        ``exact_types``, up to the first argument of another type), and, for each count
        ``g`` of them that a call may give, the defaults ``bind`` appends after them,
        when those are all immutable (no list default, no defaulted proper Tensor)."""
        exact = {_check_tensor_argument: tensor_type, _check_int: int, _check_float: float,
                 _check_bool: bool, _check_str: str}  # fmt: skip
        if self.schema.is_vararg:
            return (), {}
        prefix = []
        for check in self.checkers[: self.num_positional]:
            kind = exact.get(check)
            if kind is None:
                break
            prefix.append(kind)
        tails = {}
        for given in range(1, len(prefix) + 1):
            tail = self.default_tails[given] if given < len(self.names) else None
            if tail is None:
                continue
            if any(index >= given for index in self.list_defaults + self.proper_tensors):
                continue
            tails[given] = tail
        return tuple(prefix), tails

    def is_plain(self) -> bool:
        """No varargs, defaults or keyword-only arguments: Python kernels get the full list as-is."""
        if self.schema.is_vararg or self.num_positional != len(self.names):
            return False
        return not any(self.has_default)

    def python_kernel_args(self, full_args: list) -> tuple[tuple, dict]:
        positional = self.num_positional
        end = positional
        while end > 0 and self.has_default[end - 1]:
            if not _same_as_default(full_args[end - 1], self.defaults[end - 1]):
                break
            end -= 1
        kwargs = {}
        for index in range(positional, len(self.names)):
            value = full_args[index]
            if self.has_default[index] and _same_as_default(value, self.defaults[index]):
                continue
            kwargs[self.names[index]] = value
        return tuple(full_args[:end]), kwargs
