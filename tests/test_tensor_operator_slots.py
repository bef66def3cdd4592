"""Tensor's operator slots against PyTorch 2.13: called on an object that is no tensor
(``Tensor.__radd__(1, t)``), a slot of torch's C TensorBase refuses with CPython's
descriptor error while torch/_tensor.py's own run (or return NotImplemented); and each slot
carries torch's ``__name__`` / ``__qualname__``."""

from __future__ import annotations

import pytest
from oracle import torch

import ember

NAMES = (
    "__add__ __radd__ __iadd__ __sub__ __rsub__ __isub__ __mul__ __rmul__ __imul__ __truediv__ "
    "__rtruediv__ __rdiv__ __itruediv__ __floordiv__ __rfloordiv__ __ifloordiv__ __mod__ "
    "__rmod__ __imod__ __pow__ __rpow__ __ipow__ __matmul__ __rmatmul__ __and__ __rand__ "
    "__iand__ __or__ __ror__ __ior__ __xor__ __rxor__ __ixor__ __lshift__ __rlshift__ "
    "__ilshift__ __rshift__ __rrshift__ __irshift__ __eq__ __ne__ __lt__ __le__ __gt__ __ge__ "
    "__invert__"
).split()


def _called_on_a_number(lib, name):
    args = (1,) if name == "__invert__" else (1, lib.ones(2))
    try:
        result = getattr(lib.Tensor, name)(*args)
        return ("ok", type(result).__name__, result is NotImplemented)
    except Exception as error:  # noqa: BLE001 (the differential compares the error)
        return (type(error).__name__, str(error).replace("ember.", "torch."))


@pytest.mark.parametrize("name", NAMES)
def test_a_slot_called_on_a_number_answers_as_torchs(name):
    if name in ("__rdiv__", "__rtruediv__"):  # both: `1.reciprocal()`, an AttributeError
        assert _called_on_a_number(ember, name)[0] == _called_on_a_number(torch, name)[0]
        return
    assert _called_on_a_number(ember, name) == _called_on_a_number(torch, name)


@pytest.mark.parametrize("name", NAMES)
def test_a_slot_has_torchs_name(name):
    ours, theirs = getattr(ember.Tensor, name), getattr(torch.Tensor, name)
    assert (ours.__name__, ours.__qualname__) == (theirs.__name__, theirs.__qualname__)
