"""Python signatures and their parameters: parse a signature string once, check and convert values.

Layer: aten (imports only ``ember._c10``, lazily). In: signature strings such as
``"sum(Tensor input, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)"``;
out: ``FunctionSignature`` objects whose parameters carry one converter each
(object -> value, or ``FAIL``). Mirrors FunctionParameter / FunctionSignature in
torch/csrc/utils/python_arg_parser.{h,cpp}; the binding loop lives in python_arg_parser.py.

Signature syntax (native_functions.yaml types, Python argument names):
``name(TYPE NAME[=DEFAULT], ..., *, KWONLY...)`` optionally followed by ``|hidden``
or ``|deprecated``. ``T?`` accepts None; ``T[]`` is a list, ``T[N]`` a list of N
(``int[N]`` also accepts one int, broadcast); a tuple out is ``Tensor[2]? out=None``.
Alias annotations such as ``Tensor(a!)`` are ignored.
"""

from __future__ import annotations

import operator
import re

import numpy as np

FAIL = object()  # a converter's answer when the object does not fit the type

# Parameter kinds (ParameterType in python_arg_parser.h).
TENSOR, SCALAR, INT64, SYM_INT, DOUBLE, BOOL, STRING = range(7)
SCALARTYPE, LAYOUT, DEVICE, MEMORY_FORMAT, GENERATOR = range(7, 12)
TENSOR_LIST, INT_LIST, SYM_INT_LIST, FLOAT_LIST, BOOL_LIST = range(12, 17)

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
}
_LIST_OF = {TENSOR: TENSOR_LIST, INT64: INT_LIST, SYM_INT: SYM_INT_LIST, DOUBLE: FLOAT_LIST}
_LIST_OF[BOOL] = BOOL_LIST

# FunctionParameter::type_name(); torch spells its own types "torch.X", ember "ember.X".
TYPE_NAMES = {
    TENSOR: "Tensor",
    SCALAR: "Number",
    INT64: "int",
    SYM_INT: "int",
    DOUBLE: "float",
    BOOL: "bool",
    STRING: "str",
    SCALARTYPE: "ember.dtype",
    LAYOUT: "ember.layout",
    DEVICE: "ember.device",
    MEMORY_FORMAT: "ember.memory_format",
    GENERATOR: "ember.Generator",
    TENSOR_LIST: "tuple of Tensors",
    INT_LIST: "tuple of ints",
    SYM_INT_LIST: "tuple of ints",
    FLOAT_LIST: "tuple of floats",
    BOOL_LIST: "tuple of bools",
}

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
# Python type names as CPython's tp_name prints them ("int", "numpy.int64",
# "torch.dtype"); ember's C-level look-alikes print as "ember.X".
_EMBER_STATIC_TYPES = {"dtype", "device", "layout", "memory_format", "Size", "Generator"}
_HEAPTYPE = 1 << 9
_tp_names: dict[type, str] = {}


def tp_name(obj) -> str:
    tp = type(obj)
    name = _tp_names.get(tp)
    if name is None:
        module = getattr(tp, "__module__", "builtins") or "builtins"
        if module.startswith("ember") and tp.__name__ in _EMBER_STATIC_TYPES:
            name = "ember." + tp.__name__
        elif tp.__flags__ & _HEAPTYPE or module == "builtins":
            name = tp.__name__
        else:
            name = f"{module}.{tp.__name__}"
        _tp_names[tp] = name
    return name


# ---------------------------------------------------------------------------
# Checks (THPUtils_check*) used by the converters.


def is_tensor(obj) -> bool:
    return hasattr(obj, "_key_bits")


def _is_long(obj) -> bool:
    """THPUtils_checkLong: an int that is not a bool, or a NumPy integer."""
    return (isinstance(obj, int) and obj.__class__ is not bool) or isinstance(obj, np.integer)


def _is_index(obj) -> bool:
    """THPUtils_checkIndex: not a bool, and ``__index__`` works."""
    if obj.__class__ is int:
        return True
    if isinstance(obj, bool | np.bool_):
        return False
    try:
        operator.index(obj)
    except Exception:
        return False
    return True


def _is_numpy_scalar(obj) -> bool:
    return isinstance(obj, np.number | np.bool_)


def _is_scalar(obj) -> bool:
    """THPUtils_checkScalar: a Python or NumPy number (bools included)."""
    return isinstance(obj, int | float | complex) or _is_numpy_scalar(obj)


def _zero_dim_tensor(obj, integral: bool) -> bool:
    if not is_tensor(obj):
        return False
    try:
        if obj.requires_grad or obj.dim() != 0:
            return False
        dtype = obj.dtype
        return not integral or not (
            dtype.is_floating_point or dtype.is_complex or dtype.name == "bool"
        )
    except AttributeError:
        return False


class UnpackError:
    """A conversion error PyTorch raises only once the signature has matched."""

    __slots__ = ("message",)

    def __init__(self, message: str):
        self.message = message


# ---------------------------------------------------------------------------
# Converters: object -> value, or FAIL. One is built per parameter.


def _tensor(obj):
    return obj if hasattr(obj, "_key_bits") else FAIL


def _tensor_or_number(obj):
    return obj if hasattr(obj, "_key_bits") or _is_scalar(obj) else FAIL


def _scalar(obj):
    cls = obj.__class__
    if cls is int or cls is float or cls is bool or cls is complex:
        return obj
    if isinstance(obj, int | float | complex):
        return obj
    if _is_numpy_scalar(obj):
        return obj.item()
    if _zero_dim_tensor(obj, integral=False):
        return obj.item()
    return FAIL


def _int(obj):
    if obj.__class__ is int:
        return obj
    if _is_long(obj):
        return int(obj)
    if _zero_dim_tensor(obj, integral=True):
        return int(obj.item())
    return FAIL


def _symint(obj):
    if obj.__class__ is int:
        return obj
    return operator.index(obj) if _is_index(obj) else FAIL


def _float(obj):
    if obj.__class__ is float:
        return obj
    if isinstance(obj, int | float) or _is_numpy_scalar(obj):
        return float(obj)
    if _zero_dim_tensor(obj, integral=False):
        return float(obj.item())
    return FAIL


def _bool(obj):
    return obj if obj.__class__ is bool else FAIL


def _string(obj):
    return obj if isinstance(obj, str) else FAIL


def _generator(obj):
    return FAIL if obj is None else obj


def _make_scalar_type():
    from ember._c10 import dtypes

    dtype_class = dtypes.dtype
    python_types = {float: dtypes.float64, int: dtypes.int64, bool: dtypes.bool}
    python_types[complex] = dtypes.complex128

    def scalar_type(obj):
        if obj.__class__ is dtype_class:
            return obj
        if obj.__class__ is type:
            return python_types.get(obj, FAIL)
        return FAIL

    return scalar_type


def _make_device():
    from ember._c10 import device as device_module

    device_class, as_device = device_module.device, device_module.as_device

    def device(obj):
        if obj.__class__ is device_class:
            return obj
        if isinstance(obj, str) or _is_long(obj):
            return as_device(obj)
        return FAIL

    return device


def _named_enum(class_name: str, suffix: str):
    """Layout and MemoryFormat: any object of that class name, or printed ``...<suffix>``."""

    def convert(obj):
        if type(obj).__name__ == class_name or repr(obj).endswith(suffix):
            return obj
        return FAIL

    return convert


def _first_fails(obj) -> bool:
    """is_int_list's test: a non-empty tuple/list whose first item is no index."""
    return len(obj) > 0 and not _is_index(obj[0])


def _make_int_list(param: FunctionParameter):
    size = param.size
    broadcastable = _is_long if param.kind == INT_LIST else _is_index
    prefix = (
        f"{param.signature_name}(): argument '{param.name}' failed to unpack the object at pos "
    )
    type_name = param.type_name

    def int_list(obj):
        if isinstance(obj, tuple | list):
            if _first_fails(obj):
                return FAIL
            return unpack_int_list(obj, prefix, type_name)
        if size and broadcastable(obj):
            return [operator.index(obj)] * size
        return FAIL

    return int_list


def unpack_int_list(items, prefix: str, type_name: str):
    """PythonArgs::intlist: every element to an int, or the deferred unpack error."""
    values = []
    for position, item in enumerate(items):
        if item.__class__ is int:
            values.append(item)
            continue
        try:
            if is_tensor(item):
                if item.numel() != 1 or item.dtype.is_floating_point or item.dtype.is_complex:
                    raise TypeError
                values.append(int(item.item()))
            else:
                values.append(operator.index(item))
        except Exception:
            detail = f"type must be {type_name},but got {tp_name(item)}"
            return UnpackError(f'{prefix}{position + 1} with error "{detail}"')
    return values


def _make_tensor_list(param: FunctionParameter):
    size, argnum = param.size, param.index

    def tensor_list(obj):
        if not isinstance(obj, tuple | list):
            return FAIL
        for position, item in enumerate(obj):
            if not hasattr(item, "_key_bits"):
                raise TypeError(
                    f"expected Tensor as element {position} in argument {argnum}, "
                    f"but got {tp_name(item)}"
                )
        if size and len(obj) != size:
            return UnpackError(f"expected tuple of {size} elements but got {len(obj)}")
        return list(obj)

    return tensor_list


def _float_list(obj):
    if not isinstance(obj, tuple | list):
        return FAIL
    if obj and not (_float(obj[0]) is not FAIL or isinstance(obj[0], complex)):
        return FAIL
    return [float(item) for item in obj]


def _make_bool_list(param: FunctionParameter):
    size = param.size

    def bool_list(obj):
        if isinstance(obj, tuple | list) and all(item.__class__ is bool for item in obj):
            return list(obj)
        if size and obj.__class__ is bool:
            return [obj] * size
        return FAIL

    return bool_list


def _nullable(convert):
    def nullable(obj):
        return None if obj is None else convert(obj)

    return nullable


# ---------------------------------------------------------------------------


class FunctionParameter:
    """One parameter of a signature: kind, name, default and converter."""

    __slots__ = (
        "kind", "name", "index", "signature_name", "allow_none", "optional", "keyword_only",
        "size", "default", "default_str", "numpy_names", "type_name", "convert",
    )  # fmt: skip

    def __init__(
        self,
        fmt: str,
        index: int,
        keyword_only: bool,
        signature_name: str,
        numbers_as_tensors: bool,
    ):
        type_str, _, name_str = fmt.strip().rpartition(" ")
        if not type_str:
            raise ValueError(f"FunctionParameter(): missing type: {fmt}")
        type_str = re.sub(r"\([^)]*\)", "", type_str)
        self.allow_none = type_str.endswith("?")
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
        if self.optional:
            self.default = self._parse_default(self.default_str)
        convert = self._make_converter(numbers_as_tensors)
        self.convert = _nullable(convert) if self.allow_none else convert

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
        raise ValueError(f"invalid default value for {self.type_name} {self.name}: {text}")

    def _make_converter(self, numbers_as_tensors: bool):
        kind = self.kind
        simple = {SCALAR: _scalar, INT64: _int, SYM_INT: _symint, DOUBLE: _float, BOOL: _bool}
        simple.update({STRING: _string, GENERATOR: _generator, FLOAT_LIST: _float_list})
        if kind == TENSOR:
            return _tensor_or_number if numbers_as_tensors else _tensor
        if kind in simple:
            return simple[kind]
        if kind == SCALARTYPE:
            return _make_scalar_type()
        if kind == DEVICE:
            return _make_device()
        if kind == LAYOUT:
            return _named_enum("layout", "strided")
        if kind == MEMORY_FORMAT:
            return _named_enum("memory_format", "_format")
        if kind in (INT_LIST, SYM_INT_LIST):
            return _make_int_list(self)
        if kind == TENSOR_LIST:
            return _make_tensor_list(self)
        return _make_bool_list(self)

    def failed_index(self, obj) -> int:
        """The ``failed_idx`` PyTorch reports for an int list whose first item is wrong."""
        if self.kind in (INT_LIST, SYM_INT_LIST) and isinstance(obj, tuple | list):
            return 0 if _first_fails(obj) else -1
        return -1

    def __str__(self) -> str:
        text = f"{self.type_name} {self.name}"
        return f"{text} = {self.default_str}" if self.optional else text


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
        # The positional fast path: converters of the positional parameters, and for
        # each count n of positional arguments the defaults of parameters n.. (None
        # where one of them is required).
        self.pos_convert = tuple(p.convert for p in params[: self.max_pos_args])
        self.tail_defaults = []
        for count in range(self.max_pos_args + 1):
            tail = params[count:]
            ok = all(p.optional for p in tail)
            self.tail_defaults.append([p.default for p in tail] if ok else None)
        self.deferred = tuple(
            p.index for p in params if p.kind in (INT_LIST, SYM_INT_LIST, TENSOR_LIST)
        )

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
