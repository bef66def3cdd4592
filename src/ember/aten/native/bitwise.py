"""The bitwise operators that are not structured: Scalar overloads, `__and__` and friends, shifts.

Layer: aten/native. In: the full schema-ordered arguments (Note [Dispatcher
calling convention]). Out: tensors. Mirrors ATen/native/BinaryOps.cpp: the
CompositeExplicitAutograd Scalar overloads wrap the number
(wrapped_scalar_tensor) and call the Tensor overload; the
CompositeImplicitAutograd `__and__` / `__or__` / `__xor__` (and their
in-place `__i*__`) are the bitwise_* operators (so a trace sees
aten.bitwise_and.Tensor for `a & b`, as in PyTorch); `__lshift__` /
`__rshift__` (and `__ilshift__` / `__irshift__`) are CPU kernels of their
own that run the shift over a binary TensorIterator without dispatching
again. These operators have no derivative: they compute only on integers
and bool, which never require grad.
"""

from __future__ import annotations

from ember.aten import ufunc
from ember.aten.binding import scalar_to_tensor
from ember.aten.meta.pointwise import binary_op
from ember.aten.native import at

__all__ = []


def _export(name: str, kernel) -> None:
    kernel.__name__ = kernel.__qualname__ = name
    globals()[name] = kernel
    __all__.append(name)


def _scalar_other(target: str):
    """`op.Scalar(self, other)`: the Tensor overload with `other` wrapped."""
    return lambda self, other: getattr(at, target)(self, scalar_to_tensor(other))


def _scalar_self(target: str):
    """`op.Scalar_Tensor(self, other)`: the Tensor overload with `self` wrapped."""
    return lambda self, other: getattr(at, target)(scalar_to_tensor(self), other)


def _scalar_out(target: str):
    return lambda self, other, out: getattr(at, target)(self, scalar_to_tensor(other), out)


def _same(target: str):
    """A CompositeImplicitAutograd alias: `__and__.Tensor` is `bitwise_and.Tensor`."""
    return lambda self, other: getattr(at, target)(self, other)


for _op, _dunder in (("bitwise_and", "and"), ("bitwise_or", "or"), ("bitwise_xor", "xor")):
    _export(f"{_op}_Scalar", _scalar_other(f"{_op}_Tensor"))
    _export(f"{_op}_Scalar_Tensor", _scalar_self(f"{_op}_Tensor"))
    _export(f"{_op}__Scalar", _scalar_other(f"{_op}__Tensor"))
    _export(f"{_op}_Scalar_out", _scalar_out(f"{_op}_Tensor_out"))
    _export(f"{_dunder}_Scalar", _same(f"{_op}_Scalar"))
    _export(f"{_dunder}_Tensor", _same(f"{_op}_Tensor"))
    _export(f"i{_dunder}_Scalar", _same(f"{_op}__Scalar"))
    _export(f"i{_dunder}_Tensor", _same(f"{_op}__Tensor"))

for _op in ("bitwise_left_shift", "bitwise_right_shift"):
    _export(f"{_op}_Tensor_Scalar", _scalar_other(f"{_op}_Tensor"))
    _export(f"{_op}__Tensor_Scalar", _scalar_other(f"{_op}__Tensor"))
    _export(f"{_op}_Tensor_Scalar_out", _scalar_out(f"{_op}_Tensor_out"))
    _export(f"{_op}_Scalar_Tensor", _scalar_self(f"{_op}_Tensor"))


# -- __lshift__ / __rshift__: TensorIterator::binary_op and the shift, no dispatch ---------


def _shift(formula):
    def functional(self, other):
        meta = binary_op(self, other)
        out = meta.allocate()
        if out.device.type != "meta":
            formula(meta, self, other, out)
        return out

    def inplace(self, other):
        meta = binary_op(self, other)
        meta.check_inplace(self)
        if self.device.type != "meta":
            formula(meta, self, other, self)
        return self

    return functional, inplace


for _short, _formula in (
    ("lshift", ufunc.bitwise_left_shift),
    ("rshift", ufunc.bitwise_right_shift),
):
    _functional, _inplace = _shift(_formula)
    _export(f"{_short}_Tensor", _functional)
    _export(f"i{_short}_Tensor", _inplace)
    _export(
        f"{_short}_Scalar", lambda self, other, _f=_functional: _f(self, scalar_to_tensor(other))
    )
    _export(f"i{_short}_Scalar", lambda self, other, _f=_inplace: _f(self, scalar_to_tensor(other)))
