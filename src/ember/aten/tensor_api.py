"""The Tensor methods and Python operators, installed onto ember.Tensor at import.

Layer: aten. In: the generated methods (aten/_generated/tensor_methods.py)
and the hand-written ones (indexing, `to`, type conversions). Out: attributes
of `ember.Tensor`. Mirrors torch/_tensor.py and the operator table of
torch/csrc/autograd/python_variable_methods.cpp: `a * 2` is the `mul` method,
which reaches `aten::mul.Tensor`; a TypeError raised while parsing the
arguments of a binary operator becomes NotImplemented, so Python reports
`unsupported operand type(s)`. Reflected operators with a tensor on both sides
compute what PyTorch's do (`t.__rsub__(u)` is `u - t`).
"""

from __future__ import annotations

import functools

from ember._c10.naming import prefix
from ember._c10.storage import translate_memory_error
from ember._tensor import Tensor
from ember._torch_function import state as tf_state
from ember.aten import tensor_complex_parts
from ember.aten._generated import python_functions, tensor_methods
from ember.aten.binding import handle, scalar_to_tensor


def _not_a_tensor(name: str, self) -> TypeError:
    """CPython's refusal of a method descriptor of torch's TensorBase called on another
    object (``Tensor.__radd__(1, t)``)."""
    return TypeError(
        f"descriptor '{name}' for '{prefix()}._C.TensorBase' objects doesn't apply to a "
        f"'{type(self).__name__}' object"
    )


def _binary(method, name: str | None = None):
    """A binary operator: its method, with argument-type errors turned into NotImplemented
    (PyTorch's TypeError_to_NotImplemented_, which also covers a wrong argument count).
    ``name``: the operator is a method of torch's C TensorBase (python_variable_methods.cpp),
    which refuses a ``self`` that is no tensor; None for torch/_tensor.py's own."""

    @functools.wraps(method)
    def operator(self, *args, **kwargs):
        if name is not None and self.__class__ is not Tensor and not isinstance(self, Tensor):
            raise _not_a_tensor(name, self)
        try:
            return method(self, *args, **kwargs)
        except TypeError:
            return NotImplemented

    return operator


def _reflected(function):
    """`2 ** t`, `u.__rpow__(t)`: torch/_tensor.py's `torch.pow(other, self)`, with a
    TypeError turned into NotImplemented."""

    def operator(self, other):
        try:
            return function(other, self)
        except TypeError:
            return NotImplemented

    operator.__name__ = f"__r{function.__name__}__"
    return operator


def _floordiv(self, other):
    """torch/_tensor.py's __floordiv__: `torch.floor_divide(self, other)` (any `self`)."""
    return python_functions.floor_divide(self, other)


def _pow(self, other):
    """torch/_tensor.py's __pow__: TensorBase.pow, whose refusal of a `self` that is no
    tensor (a TypeError) becomes NotImplemented."""
    if not isinstance(self, Tensor):
        return NotImplemented
    return tensor_methods.pow(self, other)


def _ipow(self, other):
    """torch/_tensor.py's __ipow__: as __pow__, in place."""
    if not isinstance(self, Tensor):
        return NotImplemented
    return tensor_methods.pow_(self, other)


def _rsub(self, other):
    """torch/_tensor.py's __rsub__: `_C._VariableFunctions.rsub(self, other)`."""
    return python_functions.rsub(self, other)


def _rdiv(self, other):
    """torch/_tensor.py's __rdiv__: `self.reciprocal() * other` (so `2 / t` rounds as
    PyTorch's does, and a trace sees aten.reciprocal, then aten.mul)."""
    return self.reciprocal() * other


def _invert(self):
    """THPVariable_invert: `~t` for integer and bool tensors only, checked before dispatch."""
    if not isinstance(self, Tensor):
        raise _not_a_tensor("__invert__", self)
    dtype = self.dtype
    if dtype.is_floating_point or dtype.is_complex:
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        )
    return tensor_methods.bitwise_not(self)


def _direct(overload: str, extra: tuple, method, name: str):
    """`a + b`, `a * 2`: straight to the operator when the other operand is a tensor or a
    plain number (what the method's argument parser would decide anyway), else `method`,
    as `_binary(method)` (in this frame: a subclass's operators take this path). ``extra``
    is () or (alpha,): each has its own closure, so the call passes no ``*extra``."""
    op = handle(overload)
    numbers = (int, float, bool)
    if extra:
        (alpha,) = extra

        def operator(self, other):
            # Exact tensors only: a subclass or a mode takes the method, which consults
            # __torch_function__ (Note [Torch function checks])
            if self.__class__ is Tensor and not tf_state.anywhere:
                try:
                    if other.__class__ is Tensor:
                        return op.call(self, other, alpha)
                    if type(other) in numbers:
                        return op.call(self, scalar_to_tensor(other), alpha)
                except TypeError:  # as PyTorch's operators: a TypeError becomes NotImplemented
                    return NotImplemented
                except MemoryError as error:  # See Note [Allocation errors]
                    raise translate_memory_error(error) from None
            if not isinstance(self, Tensor):
                raise _not_a_tensor(name, self)
            try:
                return method(self, other)
            except TypeError:
                return NotImplemented

    else:

        def operator(self, other):  # the same, without alpha
            if self.__class__ is Tensor and not tf_state.anywhere:
                try:
                    if other.__class__ is Tensor:
                        return op.call(self, other)
                    if type(other) in numbers:
                        return op.call(self, scalar_to_tensor(other))
                except TypeError:
                    return NotImplemented
                except MemoryError as error:
                    raise translate_memory_error(error) from None
            if not isinstance(self, Tensor):
                raise _not_a_tensor(name, self)
            try:
                return method(self, other)
            except TypeError:
                return NotImplemented

    operator.__name__ = method.__name__
    return operator


def _operators(m) -> dict:
    """The operator table of python_variable_methods.cpp and torch/_tensor.py. The
    reflected forms of add, mul and the bitwise operators are the methods themselves
    (`self + other`: both commute); the others swap the operands as torch/_tensor.py does."""
    f = python_functions
    table = {
        "__add__": _direct("add.Tensor", (1,), m.add, "__add__"),
        "__radd__": _direct("add.Tensor", (1,), m.add, "__radd__"),
        "__iadd__": _binary(m.add_, "__iadd__"),
        "__sub__": _direct("sub.Tensor", (1,), m.sub, "__sub__"),
        "__rsub__": _binary(_rsub),
        "__isub__": _binary(m.sub_, "__isub__"),
        "__mul__": _direct("mul.Tensor", (), m.mul, "__mul__"),
        "__rmul__": _direct("mul.Tensor", (), m.mul, "__rmul__"),
        "__imul__": _binary(m.mul_, "__imul__"),
        "__truediv__": _direct("div.Tensor", (), m.div, "__truediv__"),
        "__rtruediv__": _binary(_rdiv),
        "__rdiv__": _binary(_rdiv),
        "__itruediv__": _binary(m.div_, "__idiv__"),
        "__floordiv__": _binary(_floordiv),
        "__rfloordiv__": _reflected(f.floor_divide),
        "__ifloordiv__": _binary(m.floor_divide_, "__ifloordiv__"),
        "__mod__": _binary(m.remainder, "__mod__"),
        "__rmod__": _reflected(f.remainder),
        "__imod__": _binary(m.remainder_, "__imod__"),
        "__pow__": _binary(_pow),
        "__rpow__": _reflected(f.pow),
        "__ipow__": _binary(_ipow),
        "__matmul__": _binary(m.matmul, "__matmul__"),
        "__rmatmul__": _reflected(f.matmul),
        "__and__": _binary(m.__and__, "__and__"),
        "__rand__": _binary(m.bitwise_and, "__rand__"),
        "__iand__": _binary(m.__iand__, "__iand__"),
        "__or__": _binary(m.__or__, "__or__"),
        "__ror__": _binary(m.bitwise_or, "__ror__"),
        "__ior__": _binary(m.__ior__, "__ior__"),
        "__xor__": _binary(m.__xor__, "__xor__"),
        "__rxor__": _binary(m.bitwise_xor, "__rxor__"),
        "__ixor__": _binary(m.__ixor__, "__ixor__"),
        "__lshift__": _binary(m.__lshift__, "__lshift__"),
        "__rlshift__": _reflected(f.bitwise_left_shift),
        "__ilshift__": _binary(m.__ilshift__, "__ilshift__"),
        "__rshift__": _binary(m.__rshift__, "__rshift__"),
        "__rrshift__": _reflected(f.bitwise_right_shift),
        "__irshift__": _binary(m.__irshift__, "__irshift__"),
        "__invert__": _invert,
        "__eq__": _binary(m.eq, "__eq__"),
        "__ne__": _binary(m.ne, "__ne__"),
        "__lt__": _binary(m.lt, "__lt__"),
        "__le__": _binary(m.le, "__le__"),
        "__gt__": _binary(m.gt, "__gt__"),
        "__ge__": _binary(m.ge, "__ge__"),
        "__neg__": m.neg,
        "__abs__": m.abs,
        "__hash__": object.__hash__,
    }
    for key, operator in table.items():
        if key in _NAMED_AS_THEIR_METHOD:
            continue
        name, owner = _TORCH_NAMES.get(key, (key, "TensorBase"))
        operator.__name__ = name
        operator.__qualname__ = f"{owner}.{name}"
    return table


# How torch names its operators (``Tensor.__radd__.__qualname__``): most are methods of the
# C TensorBase named after their slot; torch/_tensor.py defines the rest on Tensor.
_TORCH_NAMES = {
    "__itruediv__": ("__idiv__", "TensorBase"),
    "__pow__": ("pow", "TensorBase"),
    "__ipow__": ("pow_", "TensorBase"),
    "__rtruediv__": ("__rdiv__", "Tensor"),
    **{
        key: (key, "Tensor")
        for key in (
            "__rsub__ __rdiv__ __floordiv__ __rfloordiv__ __rmod__ __rpow__ __rmatmul__ "
            "__rlshift__ __rrshift__"
        ).split()
    },
}
_NAMED_AS_THEIR_METHOD = {"__neg__", "__abs__", "__hash__"}  # the methods themselves


def _contiguous(self, *args, **kwargs):
    """Tensor.contiguous: `self` itself, without dispatching, when already contiguous."""
    memory_format = None
    if args or kwargs:  # the binding's parser checks what it is given
        if kwargs.get("memory_format", 0) is None:  # torch's memory_format is no Optional
            raise TypeError(
                "contiguous(): argument 'memory_format' must be ember.memory_format, not NoneType"
            )
        memory_format = tensor_methods._parser_m_contiguous.parse(args, kwargs, self=self)[1][0]
    if self.is_contiguous(memory_format=memory_format):
        return self
    if memory_format is None:
        return tensor_methods.contiguous(self)
    return tensor_methods.contiguous(self, memory_format=memory_format)


def _properties(m) -> dict:
    """The view properties of python_variable.cpp: `T`, `mT`, `H`, `mH` (`x.T` is
    aten::numpy_T, `x.H` aten::matrix_H)."""
    return {
        "T": property(lambda self: m.numpy_T(self)),
        "mT": property(lambda self: m.mT(self)),
        "H": property(lambda self: m.matrix_H(self)),
        "mH": property(lambda self: m.mH(self)),
        "real": tensor_complex_parts.real_property,
        "imag": tensor_complex_parts.imag_property,
    }


def install(tensor_class) -> None:
    """Set every generated method and operator on `tensor_class` (ember.Tensor)."""
    hidden = {"numpy_T", "mT", "matrix_H", "mH"}  # properties in PyTorch, not methods
    for name in tensor_methods.__all__:
        if name not in hidden:
            setattr(tensor_class, name, getattr(tensor_methods, name))
    for name, fn in _operators(tensor_methods).items():
        setattr(tensor_class, name, fn)
    for name, prop in _properties(tensor_methods).items():
        setattr(tensor_class, name, prop)
    tensor_class.contiguous = _contiguous
