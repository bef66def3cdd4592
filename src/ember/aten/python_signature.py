"""Python signatures and their parameters: parse a signature string once, plan its binding.

Layer: aten (imports only ``ember._c10``, lazily). In: signature strings such as
``"sum(Tensor input, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)"``;
out: ``FunctionSignature`` objects, each parameter with its converter (from
python_arg_convert.py), each signature with positional binders built once.
Mirrors FunctionParameter / FunctionSignature in torch/csrc/utils/python_arg_parser.cpp;
the binding itself lives in python_arg_parser.py.

Signature syntax (native_functions.yaml types, Python argument names):
``name(TYPE NAME[=DEFAULT], ..., *, KWONLY...)``, optionally followed by ``|hidden``
or ``|deprecated``. Types: Tensor, Scalar, int, SymInt, float, bool, str, ScalarType,
Layout, Device, MemoryFormat, Generator, PyObject* (any object); ``T?`` also accepts None; ``T[]`` is a list,
``T[N]`` a list of N (``int[N]`` also takes one int and repeats it); ``Tensor?[]``
binds like ``Tensor[]``, as in PyTorch. A tuple out is ``Tensor[2]? out=None``
(printed "tuple of Tensors"; a tuple of another length fails after the match).
Defaults: ``None``, ints, floats, ``True``/``False``, ``[1,2]``/``{1,2}``, quoted
strings, dtype names (``torch.int64`` / ``ember.int64``). A parameter with a default
is optional; one without is required even when typed ``T?``. Alias annotations such
as ``Tensor(a!)`` are ignored.
"""

from __future__ import annotations

import re

from ember.aten.python_arg_convert import (
    BOOL,
    BOOL_LIST,
    DEVICE,
    DOUBLE,
    FAIL,
    FLOAT_LIST,
    GENERATOR,
    INT64,
    INT_LIST,
    LAYOUT,
    MEMORY_FORMAT,
    PYOBJECT,
    SCALAR,
    SCALAR_LIST,
    SCALARTYPE,
    SEQUENCES,
    STORAGE,
    STREAM,
    STRING,
    SYM_INT,
    SYM_INT_LIST,
    TENSOR,
    TENSOR_LIST,
    TYPE_NAMES,
    first_fails,
    make_converter,
    nullable,
)

_BASE_TYPES = {
    "Tensor": TENSOR,
    "Scalar": SCALAR,
    "int": INT64,
    "int64_t": INT64,
    "SymInt": SYM_INT,
    "float": DOUBLE,
    "double": DOUBLE,
    "bool": BOOL,
    "str": STRING,
    "std::string": STRING,
    "c10::string_view": STRING,
    "ScalarType": SCALARTYPE,
    "Layout": LAYOUT,
    "Device": DEVICE,
    "MemoryFormat": MEMORY_FORMAT,
    "Generator": GENERATOR,
    "TensorList": TENSOR_LIST,
    "IntArrayRef": INT_LIST,
    "SymIntArrayRef": SYM_INT_LIST,
    "ArrayRef<double>": FLOAT_LIST,
    "PyObject*": PYOBJECT,
    "Storage": STORAGE,
    "Stream": STREAM,
}
_LIST_OF = {TENSOR: TENSOR_LIST, INT64: INT_LIST, SYM_INT: SYM_INT_LIST, DOUBLE: FLOAT_LIST}
_LIST_OF[BOOL] = BOOL_LIST
_LIST_OF[SCALAR] = SCALAR_LIST
# Kinds whose converter may hand on an UnpackError, raised once the signature matched
# (the others raise DeferredError: see Note [Python ints are int64] in python_arg_convert.py).
_LISTS = frozenset({INT_LIST, SYM_INT_LIST, FLOAT_LIST, BOOL_LIST, TENSOR_LIST})
_DEFERRED = frozenset({INT_LIST, SYM_INT_LIST, FLOAT_LIST, TENSOR_LIST})

# numpy_compatibility_arg_names in python_arg_parser.cpp.
NUMPY_NAMES = {
    "dim": ("axis",),
    "keepdim": ("keepdims",),
    "input": ("x", "a", "x1"),
    "other": ("x2",),
}

# should_allow_numbers_as_tensors() in python_arg_parser.cpp.
NUMBERS_AS_TENSORS = frozenset(
    f"{stem}{suffix}"
    for stem in ("add", "div", "divide", "mul", "multiply", "sub", "subtract", "true_divide")
    + ("floor_divide",)
    for suffix in ("", "_", "_out")
) | {"to", "_to_copy", "copy_"}


def should_allow_numbers_as_tensors(name: str) -> bool:
    return name in NUMBERS_AS_TENSORS


# ---------------------------------------------------------------------------


class FunctionParameter:
    """One parameter of a signature: kind, name, default and converter."""

    __slots__ = (
        "kind", "name", "index", "signature_name", "allow_none", "optional", "keyword_only",
        "size", "default", "default_str", "numpy_names", "type_name", "convert", "none_value",
    )  # fmt: skip

    def __init__(
        self,
        fmt: str,
        index: int,
        keyword_only: bool,
        signature_name: str,
        numbers_as_tensors: bool,
    ):
        declaration, eq_sign, default_text = fmt.strip().partition("=")  # `dims=[0, 1]`
        type_str, _, name_str = declaration.rpartition(" ")
        name_str += eq_sign + default_text
        if not type_str:
            raise ValueError(f"FunctionParameter(): missing type: {fmt}")
        type_str = re.sub(r"\([^)]*\)", "", type_str)
        self.allow_none = type_nullable = type_str.endswith("?")
        type_str = type_str.rstrip("?")
        self.size = 0
        if "[" in type_str:
            base, _, size_str = type_str.partition("[")
            base = base.rstrip("?")
            self.size = int(size_str.rstrip("]")) if size_str.rstrip("]") else 0
            if base not in _BASE_TYPES or _BASE_TYPES[base] not in _LIST_OF:
                raise ValueError(f"FunctionParameter(): invalid type string: {type_str}")
            self.kind = _LIST_OF[_BASE_TYPES[base]]
        elif type_str in _BASE_TYPES:
            self.kind = _BASE_TYPES[type_str]
        else:
            raise ValueError(f"FunctionParameter(): invalid type string: {type_str}")
        self.name, eq, self.default_str = name_str.partition("=")
        self.optional = bool(eq)
        self.index = index
        self.keyword_only = keyword_only
        self.signature_name = signature_name
        self.numpy_names = NUMPY_NAMES.get(self.name, ())
        self.type_name = TYPE_NAMES[self.kind]
        self.default = None
        self.none_value = None  # what None binds to
        if self.optional:
            self.default = self._parse_default(self.default_str)
            if self.default is None and not type_nullable and self.kind in _LISTS:
                self.default = self.none_value = []  # `int[1] dim=[]`, printed `dim=None`
        convert = make_converter(self, numbers_as_tensors)
        if self.none_value is not None:
            convert = none_as_empty(convert)
        elif self.allow_none:
            convert = nullable(convert)
        self.convert = convert

    def _parse_default(self, text: str):
        """FunctionParameter::set_default_str: the default as a Python value."""
        if text == "None":
            self.allow_none = True
            return None
        kind = self.kind
        if kind == TENSOR:
            raise ValueError(f"default value for Tensor must be none, got: {text}")
        if kind in (INT64, SYM_INT):
            return int(text)
        if kind == BOOL:
            return text in ("True", "true")
        if kind == DOUBLE:
            return float(text)
        if kind == SCALAR:
            try:
                return int(text)
            except ValueError:
                return float(text)
        if kind in (INT_LIST, SYM_INT_LIST, BOOL_LIST):
            if text[0] in "[{":
                items = [item for item in text[1:-1].split(",") if item.strip()]
                return [_literal(item.strip()) for item in items]
            return [_literal(text)] * self.size
        if kind == STRING and text[0] in "'\"" and text[-1] == text[0]:
            return text[1:-1].encode().decode("unicode_escape")
        if kind == SCALARTYPE:
            from ember._c10 import dtypes

            return getattr(dtypes, text.rpartition(".")[2])
        if kind == LAYOUT and text.rpartition(".")[2] == "strided":
            from ember._c10.layout import strided

            return strided
        raise ValueError(f"invalid default value for {self.type_name} {self.name}: {text}")

    def failed_index(self, obj) -> int:
        """The ``failed_idx`` PyTorch reports for an int list whose first item is wrong."""
        if self.kind in (INT_LIST, SYM_INT_LIST) and isinstance(obj, SEQUENCES):
            return 0 if first_fails(obj) else -1
        return -1

    def __str__(self) -> str:
        text = f"{self.type_name} {self.name}"
        return f"{text} = {self.default_str}" if self.optional else text


def none_as_empty(convert):
    def none_as_empty(obj):
        return [] if obj is None else convert(obj)

    return none_as_empty


def _literal(text: str):
    if text in ("True", "False", "true", "false"):
        return text in ("True", "true")
    return int(text)


def split_params(inner: str) -> list[str]:
    """Split a parameter list on commas outside brackets and quotes."""
    parts, depth, quote, start = [], 0, "", 0
    for position, char in enumerate(inner):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(inner[start:position].strip())
            start = position + 1
    tail = inner[start:].strip()
    if tail or parts:
        parts.append(tail)
    return parts


class FunctionSignature:
    """One Python signature, with the plans the binding loop needs precomputed."""

    def __init__(self, fmt: str, index: int, numbers_as_tensors: bool = False):
        open_paren = fmt.find("(")
        close_paren = fmt.rfind(")")
        if open_paren < 0 or close_paren < open_paren:
            raise ValueError(f"malformed signature: {fmt}")
        self.name = fmt[:open_paren].strip()
        self.index = index
        suffix = fmt[close_paren + 1 :].strip()
        self.deprecated = suffix == "|deprecated"
        self.hidden = self.deprecated or suffix == "|hidden"
        self.params: list[FunctionParameter] = []
        keyword_only = False
        for part in split_params(fmt[open_paren + 1 : close_paren]):
            if not part:
                raise ValueError(f"malformed signature: {fmt}")
            if part == "*":
                keyword_only = True
                continue
            param = FunctionParameter(
                part, len(self.params), keyword_only, self.name, numbers_as_tensors
            )
            self.params.append(param)
        params = self.params
        self.max_args = len(params)
        self.min_args = sum(not p.optional for p in params)
        self.max_pos_args = sum(not p.keyword_only for p in params)
        first = params[0] if params else None
        self.intlist_first = (
            self.max_pos_args == 1 and first is not None and first.kind in (INT_LIST, SYM_INT_LIST)
        )
        self.names = {p.name: p.index for p in params}
        self.rest_params = tuple(tuple(params[count:]) for count in range(self.max_pos_args + 1))
        self.pos_converts = tuple(p.convert for p in params[: self.max_pos_args])
        rest = params[1:]
        self.varargs_tail = [p.default for p in rest] if all(p.optional for p in rest) else None
        # See Note [Positional fast path].
        self.binders = tuple(
            positional_binder(
                [p.convert for p in params[:count]],
                [p.default for p in params[count:]],
            )
            if all(p.optional for p in params[count:])
            else _no_match
            for count in range(self.max_pos_args + 1)
        )
        # Values that may hold an UnpackError, and whether a match needs more than
        # returning the values (deferred errors to raise, a deprecation to warn).
        self.deferred = tuple(p.index for p in params if p.kind in _DEFERRED)
        self.needs_finish = bool(self.deferred) or self.deprecated
        # A factory's binding reads its TensorOptions, and initialises their device, before
        # it unpacks the other arguments (python_torch_functions.cpp)
        factory = "requires_grad" in self.names
        self.device_index = self.names.get("device") if factory else None

    def __str__(self) -> str:
        """FunctionSignature::toString: ``(Tensor input, *, Number alpha = 1)``."""
        parts, keyword_already = [], False
        for param in self.params:
            if param.keyword_only and not keyword_already:
                parts.append("*")
                keyword_already = True
            parts.append(str(param))
        return "(" + ", ".join(parts) + ")"

    def __repr__(self) -> str:
        return f"FunctionSignature({self.name}{self})"


# Note [Positional fast path]
# Most calls pass only positional arguments (``ember.add(x, y)``, ``x.view(2, 3)``
# aside). For each count of positional arguments a signature keeps one binder:
# a closure, unrolled for up to four arguments, that converts them and appends
# the defaults of the remaining parameters, or ``_no_match`` where a remaining
# parameter is required. A binder answers None when a converter fails; the
# caller then falls back to the full FunctionSignature::parse loop only where
# var-args int lists make that necessary.


def _no_match(args):
    return None


def positional_binder(converts: list, tail: list):
    """A function ``args -> values | None`` for exactly ``len(converts)`` arguments."""
    count = len(converts)
    if count == 0:
        return lambda args: [*tail]
    if count == 1:
        (c0,) = converts

        def bind1(args):
            a0 = c0(args[0])
            return None if a0 is FAIL else [a0, *tail]

        return bind1
    if count == 2:
        c0, c1 = converts

        def bind2(args):
            a0, a1 = args
            a0 = c0(a0)
            if a0 is FAIL:
                return None
            a1 = c1(a1)
            return None if a1 is FAIL else [a0, a1, *tail]

        return bind2
    if count == 3:
        c0, c1, c2 = converts

        def bind3(args):
            a0, a1, a2 = args
            a0 = c0(a0)
            if a0 is FAIL:
                return None
            a1 = c1(a1)
            if a1 is FAIL:
                return None
            a2 = c2(a2)
            return None if a2 is FAIL else [a0, a1, a2, *tail]

        return bind3

    def bind_many(args):
        values = []
        for convert, obj in zip(converts, args):
            value = convert(obj)
            if value is FAIL:
                return None
            values.append(value)
        values += tail
        return values

    return bind_many
