"""aten's test operators: `_foobar`, which PyTorch's own tests use to check argument printing.

Layer: aten/native. In: the schema's arguments. Out: a fresh tensor. Mirrors
ATen/native/TestOps.cpp (`_foobar` ignores its flags and returns a clone).
"""

from __future__ import annotations

from ember.aten.native import at

__all__ = ["_foobar"]


def _foobar(self, arg1, arg2, arg3):
    return at.clone(self, None)
