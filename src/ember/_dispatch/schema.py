"""FunctionSchema, Argument, AliasInfo and SchemaType: the operator signature.

Layer `_dispatch`. In: schema text (`parse_schema`, in schema_parser.py).
Out: frozen, hashable objects whose `str()` prints exactly as PyTorch 2.13
prints them, with torch's Python accessors, plus the helpers the dispatcher
and the ops layer use on every call (`dispatch_arguments`, `bind`,
`python_kernel_args`, see schema_binding.py). Mirrors
aten/src/ATen/core/function_schema.h (+ function_schema.cpp, alias_info.h)
and the type printing of aten/src/ATen/core/jit_type.h.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ember._dispatch import schema_binding


class _NoDefault:
    """The default of an argument that has none (None is a real default)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT = _NoDefault()

# Base types whose Python name differs from the schema name.
_PYTHON_NAMES = {"Scalar": "number", "SymInt": "int", "SymBool": "bool", "None": "NoneType"}
# Types that Python sees as plain ints or bools (the "fake" type).
_FAKE_TYPES = {"ScalarType": "int", "Layout": "int", "MemoryFormat": "int", "SymInt": "int",
               "SymBool": "bool"}  # fmt: skip
_BRACKETED = {"future": "Future", "await": "Await", "rref": "RRef"}


@dataclass(frozen=True, slots=True)
class SchemaType:
    """A schema type. `str()` is the Python spelling (`Optional[List[int]]`);
    `schema_str()` is the schema spelling (`int[]?`)."""

    kind: str  # base, var, list, optional, tuple, dict, union, future, await, rref
    name: str = ""  # for base: Tensor, int, Scalar, ...; for var: the variable
    elements: tuple[SchemaType, ...] = ()

    @property
    def element(self) -> SchemaType:
        return self.elements[0]

    def fake(self) -> SchemaType:
        """The type Python sees: ScalarType, Layout, MemoryFormat, SymInt -> int."""
        if self.kind == "base" and self.name in _FAKE_TYPES:
            return SchemaType("base", _FAKE_TYPES[self.name])
        if self.kind in ("list", "optional"):
            return SchemaType(self.kind, "", (self.element.fake(),))
        return self

    def schema_str(self) -> str:
        kind = self.kind
        if kind in ("base", "var"):
            return "NoneType" if self.name == "None" else self.name
        if kind == "list":
            return self.element.schema_str() + "[]"
        if kind == "optional":
            return self.element.schema_str() + "?"
        inner = ", ".join(e.schema_str() for e in self.elements)
        if kind == "tuple":
            return f"({inner})"
        if kind == "dict":
            return f"Dict({inner})"
        if kind == "union":
            return f"Union({inner})"
        return f"{_BRACKETED[kind]}({inner})"

    def __str__(self) -> str:
        kind = self.kind
        if kind in ("base", "var"):
            return _PYTHON_NAMES.get(self.name, self.name)
        inner = ", ".join(str(e) for e in self.elements)
        if kind == "list":
            return f"List[{inner}]"
        if kind == "optional":
            return f"Optional[{inner}]"
        if kind == "tuple":
            return f"Tuple[{inner}]"
        if kind in ("dict", "union"):
            return f"{kind.capitalize()}[{inner}]"
        return f"{_BRACKETED[kind]}[{inner}]"

    def __repr__(self) -> str:
        return str(self)

    def unwrap_optional(self) -> SchemaType:
        return self.element if self.kind == "optional" else self

    def is_tensor_like(self) -> tuple[bool, bool]:
        """(carries tensors for dispatch, is a list): Tensor, Tensor?,
        Tensor[], Tensor?[] (see Note [Dispatcher calling convention])."""
        base = self.unwrap_optional()
        if base.kind == "base" and base.name == "Tensor":
            return True, False
        if self.kind == "list":
            inner = self.element.unwrap_optional()
            return inner.kind == "base" and inner.name == "Tensor", True
        return False, False


INT = SchemaType("base", "int")


@dataclass(frozen=True, slots=True)
class AliasInfo:
    """`(a)`, `(a!)`, `(a -> *)`, and for lists a container holding the
    element's annotation. Sets are kept sorted; PyTorch's order is unspecified."""

    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    is_write: bool = False
    contained: tuple[AliasInfo, ...] = ()

    @property
    def before_set(self) -> set[str]:
        return set(self.before)

    @property
    def after_set(self) -> set[str]:
        return set(self.after)

    def __str__(self) -> str:
        text = "|".join(self.before) + ("!" if self.is_write else "")
        if set(self.before) != set(self.after):
            text += " -> " + "|".join(self.after)
        return f"({text})"


@dataclass(frozen=True, slots=True)
class DeviceDefault:
    """A `Device` default such as `'cuda:1'`; prints as PyTorch's Device."""

    type: str
    index: int = -1

    def __str__(self) -> str:
        return self.type if self.index == -1 else f"{self.type}:{self.index}"


def _format_float(value: float) -> str:
    """IValue printing of a double: `1.`, `0.`, else 17 significant digits."""
    if value == value and abs(value) != float("inf") and value == int(value):
        if -(2**63) <= int(value) < 2**63:
            return f"{int(value)}."
    return f"{value:.17g}"


def format_value(value: object) -> str:
    """Print a default as `operator<<(ostream, IValue)` does."""
    if value is None:
        return "None"
    if value is True:
        return "True"
    if value is False:
        return "False"
    if isinstance(value, float):
        return _format_float(value)
    if isinstance(value, complex):
        sign = "+" if value.imag >= 0 else "-"
        return f"{_format_float(value.real)}{sign}{_format_float(abs(value.imag))}j"
    if isinstance(value, tuple):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    return str(value)


_ESCAPES = {
    "\\": "\\\\", "'": "\\'", '"': '\\"', "\a": "\\a", "\b": "\\b",
    "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
}  # fmt: skip


def quote_string(value: str) -> str:
    """c10::printQuotedString, byte by byte (non-printable bytes in octal,
    computed on a signed char as C++ does)."""
    out = ['"']
    for byte in value.encode("utf-8", errors="surrogateescape"):
        ch = chr(byte)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif 0x20 <= byte < 0x7F:
            out.append(ch)
        else:
            signed = byte - 256 if byte >= 128 else byte
            digits = []
            for _ in range(2):
                digits.append(chr(48 + int(_c_mod(signed, 8))))
                signed = int(signed / 8)
            digits.append(chr(48 + signed))
            out.append("\\" + "".join(reversed(digits)))
    out.append('"')
    return "".join(out)


def _c_mod(a: int, b: int) -> int:
    return a - b * int(a / b)


def _python_value(value: object) -> object:
    if isinstance(value, tuple):
        return [_python_value(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class Argument:
    """One argument or return. `type` is what Python sees (ScalarType -> int),
    `real_type` what the schema says; `N` is the size of `int[N]`."""

    name: str
    type: SchemaType
    real_type: SchemaType
    N: int | None = None
    default: object = NO_DEFAULT  # internal form: lists as tuples
    kwarg_only: bool = False
    alias_info: AliasInfo | None = None

    @property
    def default_value(self) -> object:
        return None if self.default is NO_DEFAULT else _python_value(self.default)

    def has_default_value(self) -> bool:
        return self.default is not NO_DEFAULT

    @property
    def is_write(self) -> bool:
        return self.alias_info is not None and self.alias_info.is_write

    @property
    def is_out(self) -> bool:
        return self.kwarg_only and self.is_write

    def __str__(self) -> str:
        real = self.real_type
        unopt = real.unwrap_optional()
        alias = self.alias_info
        if unopt.kind == "list":
            text = unopt.element.schema_str()
            if alias is not None and alias.contained:
                text += str(alias.contained[0])
            text += f"[{'' if self.N is None else self.N}]"
        else:
            text = unopt.schema_str()
        if alias is not None and alias.before:
            text += str(alias)
        if real.kind == "optional":
            text += "?"
        if self.name:
            text += " " + self.name
        if self.default is not NO_DEFAULT:
            text += "=" + self._format_default(real, unopt)
        return text

    def _format_default(self, real: SchemaType, unopt: SchemaType) -> str:
        value = self.default
        is_str = real.schema_str() == "str" or (unopt.schema_str() == "str" and value is not None)
        if is_str and isinstance(value, str):
            return quote_string(value)
        if real.kind == "list" and real.element == INT and isinstance(value, tuple):
            if len(value) > 1 and all(v == value[0] for v in value):
                return format_value(value[0])
        return format_value(value)


@dataclass(frozen=True)
class FunctionSchema:
    """`ns::name.overload(args) -> returns`; see module docstring."""

    name: str
    overload_name: str
    arguments: tuple[Argument, ...]
    returns: tuple[Argument, ...]
    is_vararg: bool = False
    is_varret: bool = False

    @staticmethod
    def parse(text: str) -> FunctionSchema:
        from ember._dispatch.schema_parser import parse_schema

        return parse_schema(text)

    @property
    def qualified_name(self) -> str:
        return f"{self.name}.{self.overload_name}" if self.overload_name else self.name

    @property
    def is_mutable(self) -> bool:
        return any(arg.is_write for arg in self.arguments)

    def __str__(self) -> str:
        parts = []
        seen_kwarg_only = False
        for arg in self.arguments:
            if arg.kwarg_only and not seen_kwarg_only:
                parts.append("*")
                seen_kwarg_only = True
            parts.append(str(arg))
        if self.is_vararg:
            parts.append("...")
        returns = [str(ret) for ret in self.returns]
        if self.is_varret:
            returns.append("...")
        single = len(self.returns) == 1 and not self.is_varret
        need_paren = not (single or (not self.returns and self.is_varret))
        if single:
            # `(str, t)[]` alone would read as a list of returns
            need_paren = returns[0].startswith("(")
        ret_text = ", ".join(returns)
        if need_paren:
            ret_text = f"({ret_text})"
        return f"{self.qualified_name}({', '.join(parts)}) -> {ret_text}"

    def __repr__(self) -> str:
        return f"FunctionSchema({str(self)!r})"

    # -- the calling-convention helpers (see schema_binding.py) --------------
    @cached_property
    def _plan(self) -> schema_binding.BindPlan:
        return schema_binding.BindPlan(self)

    def dispatch_arguments(self) -> tuple[tuple[int, bool], ...]:
        """`(index, is_list)` of every argument that carries tensors."""
        return self._plan.dispatch_arguments

    def bind(self, args: tuple, kwargs: dict) -> list:
        """Every schema argument, in order, defaults filled (see binding)."""
        return self._plan.bind(args, kwargs)

    def check_defined(self, full_args: list) -> None:
        """An aten operator's `Tensor` argument bound to None (undefined) is refused."""
        self._plan.check_defined(full_args)

    def python_kernel_args(self, full_args: list) -> tuple[tuple, dict]:
        """Arguments as PyTorch passes them to Python kernels (facts §8.6)."""
        return self._plan.python_kernel_args(full_args)
