"""Check and convert one Python argument for one parameter type.

Layer: aten (imports ``ember._c10`` lazily, when a converter is built). In: a Python
object and a parameter kind; out: the value the binding hands on (an int, a list of
ints, a dtype, the tensor itself...), or ``FAIL``. Mirrors FunctionParameter::check and
the PythonArgs unpack helpers of torch/csrc/utils/python_arg_parser.{h,cpp}.
"""

from __future__ import annotations

import operator

import numpy as np

from ember._c10.stream import Stream
from ember._tensor import Tensor
from ember._torch_function import TorchFunctionCall, overrides
from ember._torch_function import state as _tf_state

FAIL = object()  # a converter's answer when the object does not fit the type

# isinstance() classes, built once (``A | B`` would build a union on every call).
SEQUENCES = (tuple, list)
_BOOLS = (bool, np.bool_)
_NUMPY_SCALARS = (np.number, np.bool_)
_NUMBERS = (int, float, complex)
_REALS = (int, float)
_PLAIN = (int, float, str)

# Parameter kinds (ParameterType in python_arg_parser.h).
TENSOR, SCALAR, INT64, SYM_INT, DOUBLE, BOOL, STRING = range(7)
SCALARTYPE, LAYOUT, DEVICE, MEMORY_FORMAT, GENERATOR = range(7, 12)
TENSOR_LIST, INT_LIST, SYM_INT_LIST, FLOAT_LIST, BOOL_LIST = range(12, 17)
PYOBJECT = 17  # any object (torch.tensor's data)
STORAGE = 18  # a storage (the legacy torch.Tensor(storage) constructor)
STREAM = 19  # a Stream (record_stream)
SCALAR_LIST = 20  # Scalar[] (torch.gradient's spacing)

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
    SCALAR_LIST: "tuple of Scalars",
    PYOBJECT: "object",
    STORAGE: "ember.Storage",
    # PyTorch's FunctionParameter::type_name has no name for a Stream: it throws "unknown
    # parameter type" (python_arg_parser.cpp), which is the error a wrong argument gets.
    STREAM: None,
}

# ---------------------------------------------------------------------------
# Python type names as CPython's tp_name prints them ("int", "numpy.int64",
# "torch.dtype"); ember's C-level look-alikes print as "ember.X".
_EMBER_STATIC_TYPES = {"dtype", "device", "layout", "memory_format", "Size", "Generator", "Stream"}
# The storage classes print qualified in PyTorch's errors ("torch.storage.UntypedStorage").
_QUALIFIED_MODULES = {"ember.storage"}
_HEAPTYPE = 1 << 9
_tp_names: dict[type, str] = {}


def tp_name(obj) -> str:
    return type_name_of(type(obj))


def type_name_of(tp) -> str:
    """A class's tp_name: ``int``, ``numpy.int64``, ``MyTensor`` (a class defined in
    Python), ``ember.Size``."""
    name = _tp_names.get(tp)
    if name is None:
        module = getattr(tp, "__module__", "builtins") or "builtins"
        if module.startswith("ember") and tp.__name__ in _EMBER_STATIC_TYPES:
            name = "ember." + tp.__name__
        elif module in _QUALIFIED_MODULES:
            name = f"{module}.{tp.__name__}"
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
    if obj.__class__ is int:
        return True
    return (isinstance(obj, int) and obj.__class__ is not bool) or isinstance(obj, np.integer)


def _is_index(obj) -> bool:
    """THPUtils_checkIndex: not a bool, and ``__index__`` works."""
    if obj.__class__ is int:
        return True
    if isinstance(obj, _BOOLS):
        return False
    try:
        operator.index(obj)
    except Exception:
        return False
    return True


def _is_numpy_scalar(obj) -> bool:
    return isinstance(obj, _NUMPY_SCALARS)


def _is_scalar(obj) -> bool:
    """THPUtils_checkScalar: a Python or NumPy number (bools included)."""
    return isinstance(obj, _NUMBERS) or _is_numpy_scalar(obj)


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
    """A conversion error PyTorch raises only once the signature has matched: the
    signature checks a parameter's type, the unpacking after the match its value."""

    __slots__ = ("message", "kind")

    def __init__(self, message: str, kind: type[Exception] = TypeError):
        self.message = message
        self.kind = kind

    def error(self) -> Exception:
        return self.kind(self.message)


class DeferredError(Exception):
    """A converter's refusal of a value whose type matched: the parser raises ``error``
    only if the whole signature matches (see Note [Python ints are int64])."""

    def __init__(self, unpack_error: UnpackError):
        super().__init__(unpack_error.message)
        self.unpack_error = unpack_error


# Note [Python ints are int64]
# A Python int the parser hands on must fit the C++ type PyTorch unpacks it into:
# an int / SymInt parameter or an int-list element is an int64_t
# (THPUtils_unpackLong: "Overflow when unpacking long long", a ValueError for a
# parameter, a TypeError naming the element for a list), a Scalar holds an int64
# or, from 2**63 on, a uint64 (below -2**63 "can't convert negative int to
# unsigned", from 2**64 "int too big to convert", OverflowErrors). The type check
# that picks the signature accepts any int; the value is refused after the match.
# A converter raises DeferredError for such a value (nothing to check when there is
# none); the parser then re-binds that signature and raises the error only if every
# other argument matches, else tries the next signature, as PyTorch would.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
LONG_OVERFLOW = "Overflow when unpacking long long"
_INT_OVERFLOW = UnpackError(LONG_OVERFLOW, ValueError)
_SCALAR_TOO_BIG = UnpackError("int too big to convert", OverflowError)
_SCALAR_TOO_SMALL = UnpackError("can't convert negative int to unsigned", OverflowError)


def _scalar_int(value: int):
    """A Python int as a c10::Scalar holds it (int64 or uint64); DeferredError past that."""
    if value < INT64_MIN:
        raise DeferredError(_SCALAR_TOO_SMALL)
    if value >= 2**64:
        raise DeferredError(_SCALAR_TOO_BIG)
    return value


# ---------------------------------------------------------------------------
# Converters: object -> value, or FAIL. One is built per parameter.


def _tensor(obj):
    if obj.__class__ is Tensor:
        return obj
    return _overridable(obj, hasattr(obj, "_key_bits"))


def _overridable(obj, accepted: bool):
    """A Tensor parameter's argument that is no exact Tensor: one that overrides
    __torch_function__ (a subclass, or any tensor-like object) sends the call there (Note
    [Torch function checks]), or, while the handler binds again, is accepted."""
    if overrides(obj):
        if not _tf_state.local.collecting:
            raise TorchFunctionCall
        return obj
    return obj if accepted else FAIL


def _tensor_or_number(obj):
    cls = obj.__class__
    if cls is Tensor:
        return obj
    if cls is int:  # a number that stands for a tensor is unpacked as a Scalar
        return obj if INT64_MIN <= obj <= INT64_MAX else _scalar_int(obj)
    return _overridable(obj, hasattr(obj, "_key_bits") or _is_scalar(obj))


def _scalar(obj):
    cls = obj.__class__
    if cls is int:
        return obj if INT64_MIN <= obj <= INT64_MAX else _scalar_int(obj)
    if cls is float or cls is bool or cls is complex:
        return obj
    if isinstance(obj, int):
        return _scalar_int(int(obj))
    if isinstance(obj, _NUMBERS):
        return obj
    if _is_numpy_scalar(obj):
        return obj.item()
    if _zero_dim_tensor(obj, integral=False):
        return obj.item()
    return FAIL


def _int(obj):
    if obj.__class__ is int:
        return obj if INT64_MIN <= obj <= INT64_MAX else _int64(obj)
    if _is_long(obj):
        return _int64(int(obj))
    if _zero_dim_tensor(obj, integral=True):
        return int(obj.item())
    return FAIL


def _int64(value: int):
    if INT64_MIN <= value <= INT64_MAX:
        return value
    raise DeferredError(_INT_OVERFLOW)


def _symint(obj):
    if obj.__class__ is int:
        return obj if INT64_MIN <= obj <= INT64_MAX else _int64(obj)
    return _int64(operator.index(obj)) if _is_index(obj) else FAIL


def _float(obj):
    if obj.__class__ is float:
        return obj
    if isinstance(obj, _REALS) or _is_numpy_scalar(obj):
        return float(obj)
    if _zero_dim_tensor(obj, integral=False):
        return float(obj.item())
    return FAIL


def _bool(obj):
    return obj if obj.__class__ is bool else FAIL


def _string(obj):
    """THPUtils_checkString: str, or bytes (unpacked as its characters)."""
    if isinstance(obj, str):
        return obj
    return obj.decode("latin-1") if isinstance(obj, bytes) else FAIL


def _pyobject(obj):
    return obj


def _generator(obj):
    """THPGenerator_Check: an ember.Generator (ember.random's class, found by its name: the
    parser sits below the module that defines it)."""
    kind = type(obj)
    if kind.__name__ == "Generator" and kind.__module__ == "ember.random":
        return obj
    return FAIL


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


_NEGATIVE_INDEX = UnpackError("Device index must not be negative", RuntimeError)
_NO_ACCELERATOR = UnpackError(
    "Cannot access accelerator device when none is available.", RuntimeError
)


def _make_device():
    from ember._c10 import device as device_module

    device_class, as_device = device_module.device, device_module.as_device

    def device(obj):
        if obj.__class__ is device_class:
            return obj
        if isinstance(obj, str):
            try:
                return as_device(obj)
            except RuntimeError as error:  # the string is read once the signature matched
                raise DeferredError(UnpackError(str(error), RuntimeError)) from None
        if _is_long(obj):  # a device index: of the accelerator, which ember never has
            index = _int64(int(obj))
            raise DeferredError(_NEGATIVE_INDEX if index < 0 else _NO_ACCELERATOR)
        return FAIL

    return device


def _named_enum(class_name: str, suffix: str):
    """Layout and MemoryFormat: any object of that class name, or printed ``...<suffix>``."""

    def convert(obj):
        if type(obj).__name__ == class_name:
            return obj
        if not isinstance(obj, _PLAIN) and not hasattr(obj, "_key_bits"):
            if repr(obj).endswith(suffix):
                return obj
        return FAIL

    return convert


def first_fails(obj) -> bool:
    """is_int_list's test: a non-empty tuple/list whose first item is no index."""
    return len(obj) > 0 and not _is_index(obj[0])


def _make_int_list(param):
    size = param.size
    broadcastable = _is_index  # is_int_or_symint_list: `dim=t` with t a 0-dim int tensor too
    prefix = (
        f"{param.signature_name}(): argument '{param.name}' failed to unpack the object at pos "
    )
    type_name = param.type_name

    def int_list(obj):
        if isinstance(obj, SEQUENCES):
            if first_fails(obj):
                return FAIL
            return unpack_int_list(obj, prefix, type_name)
        if size and broadcastable(obj):
            value = operator.index(obj)
            if not INT64_MIN <= value <= INT64_MAX:
                return _INT_OVERFLOW  # unpacked as one int: THPUtils_unpackLong's own error
            return [value] * size
        return FAIL

    return int_list


def unpack_int_list(items, prefix: str, type_name: str):
    """PythonArgs::intlist: every element to an int64, or the deferred unpack error."""
    values = []
    for position, item in enumerate(items):
        if item.__class__ is int and INT64_MIN <= item <= INT64_MAX:
            values.append(item)
            continue
        try:
            if is_tensor(item):
                if item.numel() != 1 or item.dtype.is_floating_point or item.dtype.is_complex:
                    raise TypeError
                value = int(item.item())
            else:
                value = operator.index(item)
        except Exception:
            detail = f"type must be {type_name},but got {tp_name(item)}"
            return UnpackError(f'{prefix}{position + 1} with error "{detail}"')
        if not INT64_MIN <= value <= INT64_MAX:
            return UnpackError(f'{prefix}{position + 1} with error "{LONG_OVERFLOW}"')
        values.append(value)
    return values


def _make_tensor_list(param):
    size, argnum = param.size, param.index

    def tensor_list(obj):
        if not isinstance(obj, SEQUENCES):
            return FAIL
        for position, item in enumerate(obj):
            if item.__class__ is Tensor:
                continue
            if overrides(item):  # See Note [Torch function checks]
                if not _tf_state.local.collecting:
                    raise TorchFunctionCall
            elif not hasattr(item, "_key_bits"):
                raise TypeError(
                    f"expected Tensor as element {position} in argument {argnum}, "
                    f"but got {tp_name(item)}"
                )
        if size and len(obj) != size:
            return UnpackError(f"expected tuple of {size} elements but got {len(obj)}")
        return list(obj)

    return tensor_list


def _make_float_list(param):
    """is_float_or_complex_list (the first element only), then PythonArgs::getDoublelist:
    an element that is no float is the deferred error naming its position."""
    message = f"{param.signature_name}(): argument '{param.name}' must be {param.type_name}, "

    def float_list(obj):
        if not isinstance(obj, SEQUENCES):
            return FAIL
        if obj and not (_float(obj[0]) is not FAIL or isinstance(obj[0], complex)):
            return FAIL
        values = []
        for position, item in enumerate(obj):
            try:
                values.append(float(item))
            except (TypeError, ValueError):
                found = f"but found element of type {tp_name(item)} at pos {position + 1}"
                return UnpackError(message + found)
        return values

    return float_list


def _scalar_list(obj):
    """is_scalar_list: a tuple or list of Python numbers (or NumPy scalars); no tensors."""
    if not isinstance(obj, SEQUENCES):
        return FAIL
    if not all(isinstance(item, _NUMBERS) or _is_numpy_scalar(item) for item in obj):
        return FAIL
    return [_scalar(item) for item in obj]


def _make_bool_list(param):
    size = param.size

    def bool_list(obj):
        if isinstance(obj, SEQUENCES) and all(item.__class__ is bool for item in obj):
            return list(obj)
        if size and obj.__class__ is bool:
            return [obj] * size
        return FAIL

    return bool_list


def nullable(convert):
    def nullable(obj):
        return None if obj is None else convert(obj)

    return nullable


def make_converter(param, numbers_as_tensors: bool):
    """The converter of one parameter: object -> value, or FAIL."""
    kind = param.kind
    simple = {SCALAR: _scalar, INT64: _int, SYM_INT: _symint, DOUBLE: _float, BOOL: _bool}
    simple.update({STRING: _string, GENERATOR: _generator})
    simple[SCALAR_LIST] = _scalar_list
    simple[PYOBJECT] = _pyobject
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
        return _make_int_list(param)
    if kind == FLOAT_LIST:
        return _make_float_list(param)
    if kind == TENSOR_LIST:
        return _make_tensor_list(param)
    if kind == PYOBJECT:
        return _any_object
    if kind == STORAGE:
        return _storage
    if kind == STREAM:
        return _stream
    return _make_bool_list(param)


def _any_object(obj):
    return obj


def _stream(obj):
    return obj if isinstance(obj, Stream) else FAIL


def _storage(obj):
    """An untyped storage, or a typed one (ember.storage.TypedStorage, which wraps one in
    ``_untyped_storage``): the binding reads its dtype (PythonArgs::storage)."""
    from ember._c10.storage import Storage

    if isinstance(obj, Storage) or isinstance(getattr(obj, "_untyped_storage", None), Storage):
        return obj
    return FAIL
