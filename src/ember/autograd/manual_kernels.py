"""Autograd kernels PyTorch writes by hand (VariableTypeManual.cpp): resize_, resize_as_.

Layer: autograd. In: calls at the Autograd keys. Out: the same redispatch as
the generated kernels, with the checks PyTorch's manual kernels make.
"""

from __future__ import annotations

from ember.aten.binding import handle
from ember.aten.registration import impl

from .variable_type import AFTER_AUTOGRAD, BELOW_AUTOGRAD, per_thread

_resize_ = handle("resize_")


def resize_(ks, self, size, memory_format):
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    ts = per_thread.state  # as the generated kernels do
    prev = ts.excluded
    ts.excluded = prev | BELOW_AUTOGRAD
    try:
        _resize_.redispatch(ks & AFTER_AUTOGRAD, self, size, memory_format)
    finally:
        ts.excluded = prev
    return self


impl("resize_", "Autograd", resize_, keyset_arg="raw")


_resize_as_ = handle("resize_as_")


def resize_as_(ks, self, the_template, memory_format):
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    ts = per_thread.state
    prev = ts.excluded
    ts.excluded = prev | BELOW_AUTOGRAD
    try:
        _resize_as_.redispatch(ks & AFTER_AUTOGRAD, self, the_template, memory_format)
    finally:
        ts.excluded = prev
    return self


impl("resize_as_", "Autograd", resize_as_, keyset_arg="raw")
