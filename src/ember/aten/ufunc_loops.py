"""How a ufunc formula runs: NumPy's error state off, casts into the compute dtype, dense
targets for the unary loops.

Layer: aten (CPU backend). In: a NumPy ufunc (or a composed formula), the operands
and the output tensor a meta function shaped. Out: the values in the output's
NumPy view. The formulas of aten/ufunc.py and ufunc_minmax.py are written with
these helpers; the fast paths (ufunc_fast.py, nn_fast.py) inline the error-state
switch.

Note [Quiet floating point]
---------------------------
PyTorch never warns about 1/0, log(-1) or overflow; NumPy does. Every formula
runs with NumPy's floating-point error reporting switched off for the
duration of the call (`@quiet`), which costs one context-variable set and
reset, not a `np.errstate` object.

Note [NumPy's strided unary loops]
----------------------------------
Some of NumPy's SIMD unary loops write wrong values into an output whose
inner stride is not one element: NumPy 2.4.6 on AVX-512 computes
``np.negative`` of a 32-bit (64-bit) input with an element stride of 4 (8)
into a strided output from the wrong elements (so ``x.view(2, 3).diagonal()
.neg_()`` negated x[1] into x[4]), and ``np.isnan`` / ``isinf`` / ``isfinite``
/ ``signbit`` into a strided bool output write garbage. Dense outputs (C or
F order) and NumPy's binary loops, casts and reductions are correct. So a
unary formula never hands NumPy a target that is not dense: it computes into
a fresh array and copies that into the view (``_unary``, ``unary_into``); tests/
test_view_chains.py checks every in-place unary op through strided views.
"""

from __future__ import annotations

import functools

import numpy as np

from ember.aten.ufunc_special import operand, opmath

try:  # NumPy 2: the error state lives in a context variable.
    from numpy._core.umath import _extobj_contextvar, _make_extobj

    _SILENT = _make_extobj(all="ignore")
    # For hot paths that inline the decorator: error_state.set(SILENT_ERRORS) ... reset.
    error_state, SILENT_ERRORS = _extobj_contextvar, _SILENT

    def quiet(formula):
        """Run ``formula`` with NumPy's floating-point warnings off. See Note [Quiet floating point]."""

        @functools.wraps(formula)
        def run(*args):
            token = _extobj_contextvar.set(_SILENT)
            try:
                return formula(*args)
            finally:
                _extobj_contextvar.reset(token)

        return run

except ImportError:  # pragma: no cover (older NumPy)

    class _ErrorState:
        """error_state's set / reset, through np.seterr (per thread in NumPy 1.x)."""

        def set(self, _silent):
            return np.seterr(all="ignore")

        def reset(self, previous) -> None:
            np.seterr(**previous)

    error_state, SILENT_ERRORS = _ErrorState(), None

    def quiet(formula):
        @functools.wraps(formula)
        def run(*args):
            with np.errstate(all="ignore"):
                return formula(*args)

        return run


def compute_np(meta):
    return meta.compute_dtype.np_dtype


def apply(ufunc, compute, arrays, target=None, **options):
    """``ufunc(*arrays)`` computed in ``compute``, written into ``target`` (or returned).

    ml_dtypes registers only some of bfloat16's casts with the ufunc machinery
    (int16 or float16 into a bfloat16 loop fails), so on a TypeError the
    inputs are converted with ``astype`` first and the result copied out.
    """
    try:
        return ufunc(*arrays, out=target, casting="unsafe", **options)
    except TypeError:
        arrays = [np.asarray(a).astype(compute, copy=False) for a in arrays]
        result = ufunc(*arrays, **options)
        if target is None:
            return result
        np.copyto(target, result, casting="unsafe")
        return target


def store(out, result, meta) -> None:
    """Write an opmath (float32) result: round to the compute dtype first, then cast to out."""
    compute = meta.compute_dtype.np_dtype
    if result.dtype != compute:
        result = result.astype(compute)
    np.copyto(out.ndarray(), result, casting="unsafe")


def binary(ufunc, meta, self, other, out) -> None:
    """Fast path: operands and output already in the compute dtype need no casting options."""
    compute = meta.compute_dtype.np_dtype
    a = operand(self)
    b = operand(other)
    target = out.ndarray()
    if a.dtype is compute and b.dtype is compute and target.dtype is compute:
        ufunc(a, b, out=target)
    else:
        apply(ufunc, compute, (a, b), target, dtype=compute)


def unary_into(ufunc, values, target, **options) -> None:
    """``ufunc(values, out=target, casting="unsafe")`` for a unary ufunc, through a fresh
    array when ``target`` is not dense. See Note [NumPy's strided unary loops]."""
    if target.flags.forc:
        ufunc(values, out=target, casting="unsafe", **options)
    else:
        np.copyto(target, ufunc(values, **options), casting="unsafe")


def unary(ufunc, meta, self, out) -> None:
    compute = meta.compute_dtype.np_dtype
    values = self.ndarray()
    target = out.ndarray()
    if not target.flags.forc:  # See Note [NumPy's strided unary loops]
        np.copyto(target, apply(ufunc, compute, (values,), dtype=compute), casting="unsafe")
    elif values.dtype is compute and target.dtype is compute:
        ufunc(values, out=target)
    else:
        apply(ufunc, compute, (values,), target, dtype=compute)


def unary_opmath(formula, meta, self, out) -> None:
    """A composed formula, evaluated in float32 for float16/bfloat16 (PyTorch's opmath)."""
    compute = opmath(compute_np(meta))
    values = self.ndarray().astype(compute, copy=False)
    store(out, formula(values), meta)


def scaled(compute, other, alpha):
    """`alpha * other` in the compute dtype (alpha == 1 costs nothing)."""
    values = operand(other)
    if alpha == 1:
        return values
    return apply(np.multiply, compute, (values, np.asarray(alpha)), dtype=compute)
