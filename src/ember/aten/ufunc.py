"""ufunc inner loops: the formulas that `ufunc_inner_loop` names in native_functions.yaml.

Layer: aten (CPU backend). In: a StructuredMeta (its compute_dtype), the input
tensors and the output tensor, already shaped by the meta function. Out: the
values written into the output's NumPy view. Mirrors ATen/native/ufunc/*.h:
one small function per formula; the generated CPU kernels
(aten/_generated/register_cpu.py) call them from the functional, in-place
and out= variants alike. See Note [Structured kernels].
"""

from __future__ import annotations

import numpy as np


def _dtype(meta):
    return meta.compute_dtype.np_dtype


def _binary(ufunc, meta, self, other, out) -> None:
    ufunc(self.ndarray(), other.ndarray(), out=out.ndarray(), dtype=_dtype(meta), casting="unsafe")


def _unary(ufunc, meta, self, out) -> None:
    ufunc(self.ndarray(), out=out.ndarray(), dtype=_dtype(meta), casting="unsafe")


def _scaled(meta, other, alpha):
    """`alpha * other` in the compute dtype (alpha == 1 costs nothing)."""
    values = other.ndarray()
    if alpha == 1:
        return values
    return np.multiply(values, alpha, dtype=_dtype(meta), casting="unsafe")


def add(meta, self, other, alpha, out) -> None:
    target = out.ndarray()
    np.add(self.ndarray(), _scaled(meta, other, alpha), out=target, dtype=_dtype(meta),
           casting="unsafe")  # fmt: skip


def sub(meta, self, other, alpha, out) -> None:
    target = out.ndarray()
    np.subtract(self.ndarray(), _scaled(meta, other, alpha), out=target, dtype=_dtype(meta),
                casting="unsafe")  # fmt: skip


def mul(meta, self, other, out) -> None:
    _binary(np.multiply, meta, self, other, out)


def sin(meta, self, out) -> None:
    _unary(np.sin, meta, self, out)


def __getattr__(name: str):
    from ember.aten._dev import missing

    return missing(__name__, name)
