"""torch.finfo / torch.iinfo: the numeric limits of a dtype.

Layer: _namespace. In: a dtype (or a Python type the argument parser turns into one).
Out: a read-only object with PyTorch's attributes and repr. Mirrors
torch/csrc/TypeInfo.cpp: the values are std::numeric_limits of the scalar type (a
complex dtype reports its real part's), `resolution` is 10**-digits10, the repr prints
each number as C++'s default ostream does (six significant digits, `%g`).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ember._c10 import dtypes
from ember._c10.naming import prefix
from ember.aten.python_arg_parser import PythonArgParser

__all__ = ["finfo", "iinfo"]

# std::numeric_limits<T>::digits10 of each floating type (resolution = 10 ** -digits10)
_DIGITS10 = {"float16": 3, "bfloat16": 2, "float32": 6, "float64": 15}

_finfo_parser = PythonArgParser(["finfo(ScalarType type)", "finfo()"])
_iinfo_parser = PythonArgParser(["iinfo(ScalarType type)"])


class _Info:
    """The shared read-only behaviour of finfo and iinfo (a C type's READONLY members)."""

    __slots__ = ()
    _FIELDS: tuple[str, ...] = ()

    def __setattr__(self, name, value):
        if name in self._FIELDS:
            raise AttributeError(
                f"attribute '{name}' of '{prefix()}.{type(self).__name__}' objects is not writable"
            )
        raise AttributeError(f"'{prefix()}.{type(self).__name__}' object has no attribute '{name}'")

    def __eq__(self, other):
        if type(other) is not type(self):
            return False
        return all(getattr(self, f) == getattr(other, f) for f in self._FIELDS)

    def _unordered(self, other, op: str):
        other_name = type(other).__name__
        if isinstance(other, _Info):
            other_name = f"{prefix()}.{other_name}"
        raise TypeError(
            f"'{op}' not supported between instances of '{prefix()}.{type(self).__name__}' "
            f"and '{other_name}'"
        )

    def __lt__(self, other):
        self._unordered(other, "<")

    def __le__(self, other):
        self._unordered(other, "<=")

    def __gt__(self, other):
        self._unordered(other, ">")

    def __ge__(self, other):
        self._unordered(other, ">=")

    def __hash__(self):  # unhashable, as torch.finfo (it defines only richcompare)
        raise TypeError(f"unhashable type: '{prefix()}.{type(self).__name__}'")

    def __reduce__(self):
        raise TypeError(f"cannot pickle '{prefix()}.{type(self).__name__}' object")

    def _init(self, **values):
        for name, value in values.items():
            object.__setattr__(self, name, value)


def _g(value) -> str:
    """A number as `std::ostream << double` writes it (precision 6)."""
    return f"{float(value):g}"


class finfo(_Info):  # noqa: N801 (PyTorch's name)
    """torch.finfo(type=torch.get_default_dtype()): the limits of a floating dtype."""

    __module__ = "ember"
    _FIELDS = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")
    __slots__ = _FIELDS

    def __init__(self, *args, **kwargs):
        index, parsed = _finfo_parser.parse(args, kwargs)
        dtype = dtypes.get_default_dtype() if index == 1 else parsed[0]
        if not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(
                f"{prefix()}.finfo() requires a floating point input type. "
                f"Use {prefix()}.iinfo to handle '{prefix()}.finfo'"
            )
        real = dtype.to_real()
        limits = ml_dtypes.finfo(real.np_dtype)  # np.finfo, and bfloat16's too
        tiny = float(limits.smallest_normal)
        self._init(
            bits=real.itemsize * 8,
            eps=float(limits.eps),
            max=float(limits.max),
            min=float(limits.min),
            tiny=tiny,
            smallest_normal=tiny,
            resolution=float(f"1e-{_DIGITS10[real.name]}"),
            dtype=real.name,
        )

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={_g(self.resolution)}, min={_g(self.min)}, max={_g(self.max)}, "
            f"eps={_g(self.eps)}, smallest_normal={_g(self.smallest_normal)}, "
            f"tiny={_g(self.tiny)}, dtype={self.dtype})"
        )

    __str__ = __repr__


class iinfo(_Info):  # noqa: N801 (PyTorch's name)
    """torch.iinfo(type): the limits of an integer dtype."""

    __module__ = "ember"
    _FIELDS = ("bits", "max", "min", "dtype")
    __slots__ = _FIELDS

    def __init__(self, *args, **kwargs):
        dtype = _iinfo_parser.parse(args, kwargs)[1][0]
        if dtype is dtypes.bool:
            raise TypeError(f"{prefix()}.bool is not supported by {prefix()}.iinfo")
        if dtype.is_floating_point or dtype.is_complex:
            raise TypeError(
                f"{prefix()}.iinfo() requires an integer input type. "
                f"Use {prefix()}.finfo to handle '{prefix()}.iinfo'"
            )
        limits = np.iinfo(dtype.np_dtype)
        self._init(
            bits=dtype.itemsize * 8, max=int(limits.max), min=int(limits.min), dtype=dtype.name
        )

    def __repr__(self) -> str:
        return f"iinfo(min={_g(self.min)}, max={_g(self.max)}, dtype={self.dtype})"

    __str__ = __repr__
