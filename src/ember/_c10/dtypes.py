"""dtype objects, the default dtype, and type promotion.

Layer: _c10 (imports nothing of ember outside _c10). Mirrors c10/core/ScalarType.h
(the dtypes, their ScalarType numbers and ``promoteTypes``), torch/csrc/Dtype.cpp
(printing and attributes) and aten/src/ATen/native/TypeProperties.cpp
(``ResultTypeState``: ``result_type`` over tensors and Python scalars).
In: dtype objects, tensors (anything with ``_key_bits`` and ``dtype``), Python
scalars. Out: promoted dtypes.

Note [Type promotion]
---------------------
``promote_types(a, b)`` is PyTorch's lattice: bool < integers < floats <
complex; uint8 with a signed integer needs int16 at least; float16 with
bfloat16 gives float32; a float with a complex gives the complex of the wider
real part. ``result_type(*operands)`` sorts operands into three priorities:
tensors with at least one dimension, zero-dim tensors, and wrapped numbers
(Python scalars). Each priority promotes within itself; the priorities are then
combined by *category*: a lower priority only changes the result when it is of
a higher category (``int32 tensor + 2.5 -> default float``, ``int32 tensor +
int64 zero-dim -> int32``). A Python float counts as the default dtype, a
Python complex as the default complex dtype, a Python int as int64.
``binary_result_dtype(a, b)`` is the cached fast path binary kernels call.
"""

from __future__ import annotations

import builtins as _builtins
import sys as _sys

import numpy as np

from .naming import prefix

try:  # ml_dtypes supplies bfloat16 for NumPy
    import ml_dtypes

    _NP_BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - a declared dependency
    _NP_BFLOAT16 = None

_BOOL, _INT, _FLOAT, _COMPLEX = 0, 1, 2, 3  # promotion categories


class dtype:  # noqa: N801 (PyTorch's name)
    """A scalar type. One object per type; compare with ``is`` or ``==``."""

    __module__ = "ember"  # printed `ember.dtype`, as torch.dtype names its module
    __slots__ = (
        "name",
        "scalar_type",
        "itemsize",
        "is_floating_point",
        "is_complex",
        "is_signed",
        "np_dtype",
        "_category",
        "_real",
        "_complex",
    )

    def __new__(cls, *args, **kwargs):
        """Only this module makes dtypes (torch.dtype has no constructor either)."""
        if _sys._getframe(1).f_globals.get("__name__") != __name__:
            raise TypeError("cannot create 'ember.dtype' instances")
        return object.__new__(cls)

    def __init__(self, name, scalar_type, itemsize, category, signed, np_dtype):
        self.name = name
        self.scalar_type = scalar_type  # c10::ScalarType number
        self.itemsize = itemsize
        self._category = category
        self.is_floating_point = category == _FLOAT
        self.is_complex = category == _COMPLEX
        self.is_signed = signed
        self.np_dtype = np_dtype  # None where NumPy has no such type (complex32)
        self._real = self
        self._complex = None

    def __repr__(self) -> str:
        return prefix() + "." + self.name

    __str__ = __repr__

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))

    def to_real(self) -> dtype:
        return self._real

    def to_complex(self) -> dtype:
        if self._complex is None:
            raise RuntimeError(f"Unknown Complex ScalarType for {_SCALAR_TYPE_NAMES[self.name]}")
        return self._complex


def _np(name):
    return np.dtype(name)


bool = dtype("bool", 11, 1, _BOOL, False, _np("bool"))  # noqa: A001
uint8 = dtype("uint8", 0, 1, _INT, False, _np("uint8"))
int8 = dtype("int8", 1, 1, _INT, True, _np("int8"))
int16 = dtype("int16", 2, 2, _INT, True, _np("int16"))
int32 = dtype("int32", 3, 4, _INT, True, _np("int32"))
int64 = dtype("int64", 4, 8, _INT, True, _np("int64"))
float16 = dtype("float16", 5, 2, _FLOAT, True, _np("float16"))
bfloat16 = dtype("bfloat16", 15, 2, _FLOAT, True, _NP_BFLOAT16)
float32 = dtype("float32", 6, 4, _FLOAT, True, _np("float32"))
float64 = dtype("float64", 7, 8, _FLOAT, True, _np("float64"))
complex32 = dtype("complex32", 8, 4, _COMPLEX, True, None)
complex64 = dtype("complex64", 9, 8, _COMPLEX, True, _np("complex64"))
complex128 = dtype("complex128", 10, 16, _COMPLEX, True, _np("complex128"))

# Note [uint64 Scalars]
# ~~~~~~~~~~~~~~~~~~~~
# PyTorch holds a Python int from 2**63 to 2**64 - 1 as a uint64 Scalar; wrapped as a
# number it is a 0-dim UInt64 tensor. uint16, uint32 and uint64 are PyTorch's "barebones"
# unsigned types (AT_BAREBONES_UNSIGNED_TYPES): factories, copies, comparisons for
# equality and a few kernels take them, most kernels refuse them (Note [Barebones unsigned
# types] in aten/ufunc.py). Promotion of one with a bool, an integer or a complex
# type is PyTorch's refusal ("Promotion for uint16, uint32, uint64 types is not supported"),
# a float type wins, and an integer tensor keeps its dtype (a wrapped number of the same
# category changes nothing), taking the value modulo 2**64 as PyTorch's cast does. Two such
# numbers compute in uint64 where PyTorch's kernel has it (mul, true division) and refuse
# where it has not (add_stub, div_floor_cpu: ufunc.py).
uint16 = dtype("uint16", 27, 2, _INT, False, _np("uint16"))
uint32 = dtype("uint32", 28, 4, _INT, False, _np("uint32"))
uint64 = dtype("uint64", 29, 8, _INT, False, _np("uint64"))
BAREBONES_UNSIGNED = (uint16, uint32, uint64)
UINT64_SCALARS_FROM = 2**63

for _c, _r in ((complex32, float16), (complex64, float32), (complex128, float64)):
    _c._real = _r
    _r._complex = _c
    _c._complex = _c
bfloat16._complex = complex64  # as torch.bfloat16.to_complex()

# PyTorch's aliases (torch.float is torch.float32, ...).
half = float16
float = float32  # noqa: A001
double = float64
short = int16
int = int32  # noqa: A001
long = int64
chalf = complex32
cfloat = complex64
cdouble = complex128

ALL_DTYPES = (
    bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
    complex32, complex64, complex128,
)  # fmt: skip
# The dtypes a CPU tensor can hold (NumPy-backed).
STORABLE_DTYPES = tuple(d for d in ALL_DTYPES if d.np_dtype is not None)

_BY_NAME = {d.name: d for d in ALL_DTYPES + BAREBONES_UNSIGNED}
_BY_NUMPY = {d.np_dtype: d for d in STORABLE_DTYPES}
_SCALAR_TYPE_NAMES = {
    "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
    "int64": "Long", "float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
    "float64": "Double", "complex32": "ComplexHalf", "complex64": "ComplexFloat",
    "complex128": "ComplexDouble", "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64",
}  # fmt: skip


def _dtype_by_name(name: str) -> dtype:
    return _BY_NAME[name]


def scalar_type_name(dt: dtype) -> str:
    """c10's name for a dtype: ``Float`` for float32 (used in error messages)."""
    return _SCALAR_TYPE_NAMES[dt.name]


def from_numpy_dtype(np_dtype) -> dtype:
    """The ember dtype of a NumPy dtype; TypeError as torch.from_numpy for others."""
    found = _BY_NUMPY.get(np.dtype(np_dtype))
    if found is None:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype)}. The only supported "
            "types are: float64, float32, float16, complex64, complex128, int64, int32, int16, "
            "int8, uint8, and bool."
        )
    return found


# ---------------------------------------------------------------------------
# Default dtype (global in PyTorch too: torch.set_default_dtype is process-wide)

_default = [float32]


def get_default_dtype() -> dtype:
    return _default[0]


def set_default_dtype(d: dtype) -> None:
    if not isinstance(d, dtype):
        raise TypeError(
            "invalid dtype object: only floating-point types are supported as the default type"
        )
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default[0] = d
    _BINARY_CACHE.clear()


def get_default_complex_dtype() -> dtype:
    """toComplexType(default dtype), as tensor construction infers it (bfloat16 has none)."""
    complex_type = _default[0]._complex
    if complex_type is None or _default[0] is bfloat16:
        raise RuntimeError("invalid default scalar type for complex")
    return complex_type


def _promotion_complex_dtype() -> dtype:
    """c10's default_complex_dtype, which type promotion uses for a wrapped complex number:
    set_default_dtype makes it ComplexHalf for half, ComplexDouble for double, else ComplexFloat."""
    default = _default[0]
    if default is float64 or default is float16:
        return default._complex
    return complex64


builtins_bool = _builtins.bool  # the names above shadow the builtins
builtins_int = _builtins.int
builtins_float = _builtins.float
builtins_complex = _builtins.complex

# ---------------------------------------------------------------------------
# promote_types (c10/core/ScalarType.cpp promoteTypes)


def _promote_rule(a: dtype, b: dtype) -> dtype:
    if a is b:
        return a
    if a._category < b._category:
        a, b = b, a  # a has the higher category
    if b._category == _BOOL:
        return a
    if a._category == _INT:  # two integers
        if a.is_signed != b.is_signed:  # uint8 with a signed one
            signed = a if a.is_signed else b
            return int16 if signed is int8 else signed
        return a if a.itemsize >= b.itemsize else b
    if a._category == _FLOAT:
        if b._category == _INT:
            return a
        if a.itemsize == b.itemsize:  # float16 with bfloat16
            return float32
        return a if a.itemsize > b.itemsize else b
    # a is complex
    if b._category == _INT:
        return a
    return _promote_rule(a._real, b._real)._complex


_PROMOTE = {(a, b): _promote_rule(a, b) for a in ALL_DTYPES for b in ALL_DTYPES}
for _unsigned in BAREBONES_UNSIGNED:  # See Note [uint64 Scalars]: missing pairs are refused
    _PROMOTE[_unsigned, _unsigned] = _unsigned
    for _other in ALL_DTYPES:
        if _other.is_floating_point:
            _PROMOTE[_unsigned, _other] = _PROMOTE[_other, _unsigned] = _other


def _unsupported_promotion(type1: dtype, type2: dtype) -> RuntimeError:
    return RuntimeError(
        "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
        f"{_SCALAR_TYPE_NAMES[type1.name]} and {_SCALAR_TYPE_NAMES[type2.name]}"
    )


def promote_types(type1: dtype, type2: dtype) -> dtype:
    try:
        return _PROMOTE[type1, type2]
    except KeyError:
        raise _unsupported_promotion(type1, type2) from None


# ---------------------------------------------------------------------------
# result_type (ATen/native/TypeProperties.cpp ResultTypeState)


def is_tensor(obj) -> bool:
    """Anything with ``_key_bits`` and ``dtype`` takes part in dispatch as a tensor."""
    return hasattr(obj, "_key_bits") and hasattr(obj, "dtype")


def _promote_skip_undefined(a, b):
    if a is None:
        return b
    if b is None:
        return a
    try:
        return _PROMOTE[a, b]
    except KeyError:
        raise _unsupported_promotion(a, b) from None


def _combine_categories(higher, lower):
    if higher is not None and higher._category == _COMPLEX:
        return higher
    if lower is not None and lower._category == _COMPLEX:
        if higher is not None and higher._category == _FLOAT:
            return higher._complex  # keep the higher priority's precision
        return lower
    if higher is not None and higher._category == _FLOAT:
        return higher
    if higher is bool or (lower is not None and lower._category == _FLOAT):
        return _promote_skip_undefined(higher, lower)
    if higher is not None:
        return higher
    return lower


def scalar_dtype(value) -> dtype:
    """The dtype a wrapped Python number takes part in promotion with."""
    kind = type(value)
    if kind is builtins_bool:
        return bool
    if kind is builtins_int:
        return uint64 if value >= UINT64_SCALARS_FROM else int64
    if kind is builtins_float:
        return _default[0]
    if kind is builtins_complex:
        return _promotion_complex_dtype()
    if isinstance(value, builtins_bool):
        return bool
    if isinstance(value, builtins_int):
        return uint64 if value >= UINT64_SCALARS_FROM else int64
    if isinstance(value, builtins_float):
        return _default[0]
    if isinstance(value, builtins_complex):
        return _promotion_complex_dtype()
    raise TypeError(f"result_type: unsupported operand of type {kind.__name__}")


def _wrapped(kind: dtype) -> dtype:
    if kind._category == _FLOAT:
        return _default[0]
    if kind._category == _COMPLEX:
        return _promotion_complex_dtype()
    return kind


def result_type(*operands) -> dtype:
    """The dtype PyTorch computes for an operator over ``operands``. See Note [Type promotion]."""
    dim_result = zero_result = wrapped_result = None
    for operand in operands:
        if is_tensor(operand):
            if getattr(operand, "_is_wrapped_number", False):
                # A Python number wrapped into a 0-dim tensor (`a * 2.5`) promotes as a
                # number: a floating one counts as the default dtype.
                wrapped_result = _promote_skip_undefined(wrapped_result, _wrapped(operand.dtype))
            elif len(operand._sizes):
                dim_result = _promote_skip_undefined(dim_result, operand.dtype)
            else:
                zero_result = _promote_skip_undefined(zero_result, operand.dtype)
        elif isinstance(operand, (list, tuple)):
            for item in operand:  # a TensorList argument
                if len(item._sizes):
                    dim_result = _promote_skip_undefined(dim_result, item.dtype)
                else:
                    zero_result = _promote_skip_undefined(zero_result, item.dtype)
        else:
            wrapped_result = _promote_skip_undefined(wrapped_result, scalar_dtype(operand))
    return _combine_categories(dim_result, _combine_categories(zero_result, wrapped_result))


# Cache for binary_result_dtype: (dtype a, a has dims, dtype-or-scalar-type b, b has dims).
_BINARY_CACHE: dict = {}


def _operand_key(tensor) -> tuple:
    if getattr(tensor, "_is_wrapped_number", False):
        return (tensor.dtype, "wrapped")
    return (tensor.dtype, len(tensor._sizes) > 0)


def binary_result_dtype(a, b) -> dtype:
    """``result_type(a, b)`` for two operands, each a tensor or a Python scalar, cached.

    The common cases cost one comparison (two tensors of one dtype) or one dict
    lookup. The cache is cleared when the default dtype changes.
    """
    a_dtype = getattr(a, "dtype", None)
    b_dtype = getattr(b, "dtype", None)
    if a_dtype is not None and b_dtype is not None and a_dtype is b_dtype:
        # one dtype is the result unless both are wrapped numbers (`torch.add(2.5, 1.5)`
        # is float32: each promotes as the default dtype)
        if (
            hasattr(a, "_key_bits")
            and hasattr(b, "_key_bits")
            and not getattr(a, "_is_wrapped_number", False)
        ):
            return a_dtype
    a_key = _operand_key(a) if is_tensor(a) else (type(a), scalar_dtype(a))
    b_key = _operand_key(b) if is_tensor(b) else (type(b), scalar_dtype(b))
    key = (a_key, b_key)
    found = _BINARY_CACHE.get(key)
    if found is None:
        found = _BINARY_CACHE[key] = result_type(a, b)
    return found
