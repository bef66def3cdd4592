"""ufunc inner loops: the formulas that `ufunc_inner_loop` names in native_functions.yaml.

Layer: aten (CPU backend). In: a StructuredMeta (its compute_dtype), the input
tensors (or Python numbers for Scalar overloads) and the output tensor,
already shaped by the meta function. Out: the values written into the
output's NumPy view. Mirrors ATen/native/ufunc/*.h and the CPU kernels of
ATen/native/cpu/{Binary,Unary}OpsKernel.cpp: one small function per formula;
the generated CPU kernels (aten/_generated/register_cpu.py) call them from
the functional, in-place and out= variants alike. See Note [Structured kernels].

Note [Quiet floating point]
---------------------------
PyTorch never warns about 1/0, log(-1) or overflow; NumPy does. Every formula
runs with NumPy's floating-point error reporting switched off for the
duration of the call (`@quiet`), which costs one context-variable set and
reset, not a `np.errstate` object.
"""

from __future__ import annotations

import functools

import numpy as np

from ember._c10 import dtypes
from ember.aten.ufunc_bitwise import (  # noqa: F401 (the bitwise formulas, reached as U.<name>)
    bitwise_and,
    bitwise_left_shift,
    bitwise_not,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
)
from ember.aten.ufunc_onednn import gelu_onednn, gelu_onednn_bfloat16, use_onednn
from ember.aten.ufunc_special import (
    check_integer_divisor,
    div_floor,
    div_trunc,
    erf,
    not_implemented_for,
    operand,
    opmath,
    pow_integer,
    remainder_float,
)

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


def _dtype(meta):
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


def _binary(ufunc, meta, self, other, out) -> None:
    """Fast path: operands and output already in the compute dtype need no casting options."""
    compute = meta.compute_dtype.np_dtype
    a = operand(self)
    b = operand(other)
    target = out.ndarray()
    if a.dtype is compute and b.dtype is compute and target.dtype is compute:
        ufunc(a, b, out=target)
    else:
        apply(ufunc, compute, (a, b), target, dtype=compute)


def _unary(ufunc, meta, self, out) -> None:
    compute = meta.compute_dtype.np_dtype
    values = self.ndarray()
    target = out.ndarray()
    if values.dtype is compute and target.dtype is compute:
        ufunc(values, out=target)
    else:
        apply(ufunc, compute, (values,), target, dtype=compute)


def _unary_opmath(formula, meta, self, out) -> None:
    """A composed formula, evaluated in float32 for float16/bfloat16 (PyTorch's opmath)."""
    compute = opmath(_dtype(meta))
    values = self.ndarray().astype(compute, copy=False)
    store(out, formula(values), meta)


def _scaled(compute, other, alpha):
    """`alpha * other` in the compute dtype (alpha == 1 costs nothing)."""
    values = operand(other)
    if alpha == 1:
        return values
    return apply(np.multiply, compute, (values, np.asarray(alpha)), dtype=compute)


# -- arithmetic ----------------------------------------------------------------


def _check_uint64(kernel: str, meta) -> None:
    """See Note [uint64 Scalars]: PyTorch's kernel has no UInt64 case."""
    if meta.compute_dtype is dtypes.uint64:
        not_implemented_for(kernel, dtypes.uint64)


@quiet
def add(meta, self, other, alpha, out) -> None:
    _check_uint64("add_stub", meta)
    if alpha == 1:
        _binary(np.add, meta, self, other, out)
        return
    compute = meta.compute_dtype.np_dtype
    arrays = (operand(self), _scaled(compute, other, alpha))
    apply(np.add, compute, arrays, out.ndarray(), dtype=compute)


@quiet
def sub(meta, self, other, alpha, out) -> None:
    _check_uint64("add_stub", meta)
    if alpha == 1:
        _binary(np.subtract, meta, self, other, out)
        return
    compute = meta.compute_dtype.np_dtype
    arrays = (operand(self), _scaled(compute, other, alpha))
    apply(np.subtract, compute, arrays, out.ndarray(), dtype=compute)


@quiet
def mul(meta, self, other, out) -> None:
    _binary(np.multiply, meta, self, other, out)


@quiet
def div(meta, self, other, *mode_and_out) -> None:
    """div.out (true division) and div.out_mode (rounding_mode None, 'trunc' or 'floor')."""
    out = mode_and_out[-1]
    rounding_mode = mode_and_out[0] if len(mode_and_out) == 2 else None
    if rounding_mode is None:
        _binary(np.true_divide, meta, self, other, out)
        return
    dtype = meta.compute_dtype
    if dtype is dtypes.bool or dtype.is_complex or dtype is dtypes.uint64:
        not_implemented_for(f"div_{rounding_mode}_cpu", dtype)
    compute = opmath(dtype.np_dtype)
    a = np.asarray(operand(self)).astype(compute, copy=False)
    b = np.asarray(operand(other)).astype(compute, copy=False)
    if not (dtype.is_floating_point or dtype.is_complex):
        check_integer_divisor(b, out)
    if rounding_mode == "trunc" and compute != dtype.np_dtype and dtype.is_floating_point:
        # Half and BFloat16: `std::trunc(a / b)` with scalar_t division, so the quotient
        # is rounded to the low-precision type before it is truncated.
        result = np.trunc((a / b).astype(dtype.np_dtype).astype(compute))
    elif rounding_mode == "trunc":
        result = div_trunc(a, b)
    else:
        result = div_floor(a, b)
    store(out, result, meta)


@quiet
def remainder(meta, self, other, out) -> None:
    dtype = meta.compute_dtype
    if dtype is dtypes.bool or dtype.is_complex:
        not_implemented_for("remainder_cpu", dtype)
    compute = opmath(dtype.np_dtype)
    # TensorIterator casts each operand to the common dtype first, then to opmath
    a = np.asarray(operand(self)).astype(dtype.np_dtype, copy=False).astype(compute, copy=False)
    b = np.asarray(operand(other)).astype(dtype.np_dtype, copy=False).astype(compute, copy=False)
    if dtype.is_floating_point:
        reduced = dtype.np_dtype if compute != dtype.np_dtype else None
        result = remainder_float(a, b, reduced)
    else:
        check_integer_divisor(b, out)
        result = np.remainder(a, b)
    store(out, result, meta)


@quiet
def pow(meta, self, exponent, out) -> None:  # noqa: A001 (the operator's name)
    """pow.Tensor_Tensor_out and pow.Tensor_Scalar_out (exponent a Python number)."""
    dtype = meta.compute_dtype
    target = out.ndarray()
    if not isinstance(exponent, (bool, int, float, complex)):
        if dtype is dtypes.bool:
            not_implemented_for("pow", dtype)
        # TensorIterator casts both operands to the common dtype; the kernel then computes
        # in opmath (a float32 base of a float16 result is rounded to half first)
        common, compute = dtype.np_dtype, opmath(dtype.np_dtype)
        base = np.asarray(operand(self)).astype(common, copy=False).astype(compute, copy=False)
        power = np.asarray(operand(exponent)).astype(common, copy=False)
        power = power.astype(compute, copy=False)
        if dtype.is_floating_point or dtype.is_complex:
            store(out, np.power(base, power), meta)
        else:
            np.copyto(target, pow_integer(base, power), casting="unsafe")
        return
    if exponent == 0:
        target[...] = 1
        return
    if exponent == 1:
        np.copyto(target, operand(self), casting="unsafe")
        return
    compute = opmath(dtype.np_dtype)
    base = self.ndarray().astype(compute, copy=False)
    if dtype is dtypes.float16 and not isinstance(exponent, complex) and abs(exponent) > 65504:
        raise RuntimeError("value cannot be converted to type c10::Half without overflow")
    if dtype is dtypes.float16:  # PyTorch's Half kernel: std::pow, no special cases
        result = np.power(base, np.asarray(exponent).astype(base.dtype, casting="unsafe"))
    elif dtype.is_floating_point or dtype.is_complex:
        result = _pow_float_scalar(base, exponent)
    else:
        result = pow_integer(base, np.asarray(exponent).astype(compute))
    store(out, result, meta)


def _pow_float_scalar(base, exponent):
    """pow_tensor_scalar_optimized_kernel: the exponents PyTorch special-cases."""
    if exponent == 2:
        return base * base
    if exponent == 3:
        return base * base * base
    if exponent == 0.5:
        return np.sqrt(base)
    if exponent == -0.5:
        return 1 / np.sqrt(base)
    if exponent == -1:
        return 1 / base
    if exponent == -2:
        return 1 / (base * base)
    return np.power(base, np.asarray(exponent).astype(base.dtype, casting="unsafe"))


@quiet
def maximum(meta, self, other, out) -> None:
    _binary(np.maximum, meta, self, other, out)


@quiet
def minimum(meta, self, other, out) -> None:
    _binary(np.minimum, meta, self, other, out)


@quiet
def clamp(meta, self, low, high, out) -> None:
    """clamp.out (Python-number bounds) and clamp.Tensor_out (tensor bounds)."""
    dtype = meta.compute_dtype
    compute = dtype.np_dtype
    scalar_bounds = low.__class__ in _NUMBERS or high.__class__ in _NUMBERS
    if scalar_bounds:
        if dtype is dtypes.bool:
            not_implemented_for(_clamp_scalar_kernel(low, high), dtype)
        low = None if low is None else _checked_bound(low, dtype)
        high = None if high is None else _checked_bound(high, dtype)
    else:
        if low is not None and high is not None and dtype is dtypes.bool:
            not_implemented_for("clamp_cpu", dtype)
        low = None if low is None else low.ndarray()
        high = None if high is None else high.ndarray()
    values = self.ndarray()
    target = out.ndarray()

    # On ties NumPy returns its second operand. PyTorch keeps the value against a
    # Scalar bound (relu(-0.0) is -0.0) and the bound against a Tensor bound.
    def bound(ufunc, limit, source, into=None):
        pair = (limit, source) if scalar_bounds else (source, limit)
        return apply(ufunc, compute, pair, into, dtype=compute)

    if low is not None and high is not None:
        bound(np.minimum, high, bound(np.maximum, low, values), target)
    elif low is not None:
        bound(np.maximum, low, values, target)
    else:
        bound(np.minimum, high, values, target)


_NUMBERS = (bool, int, float, complex)


def _clamp_scalar_kernel(low, high) -> str:
    if low is not None and high is not None:
        return "clamp_scalar_cpu"
    return "clamp_min_scalar_cpu" if high is None else "clamp_max_scalar_cpu"


def _checked_bound(value, dtype):
    """Scalar::to<scalar_t>(): clamp's bounds convert with the overflow check."""
    from ember.aten.native.factories import checked_value

    return np.asarray(checked_value(value, dtype))


# -- unary ---------------------------------------------------------------------


@quiet
def neg(meta, self, out) -> None:
    _unary(np.negative, meta, self, out)


@quiet
def sign(meta, self, out) -> None:
    """(0 < x) - (x < 0): zero for NaN and -0.0, as PyTorch's sign_kernel; bool is unchanged."""
    dtype = meta.compute_dtype
    if dtype is dtypes.bool:
        np.copyto(out.ndarray(), self.ndarray())
        return
    values = self.ndarray()
    compute = dtype.np_dtype
    positive = np.greater(values, 0).astype(compute)
    negative = np.less(values, 0).astype(compute)
    np.subtract(positive, negative, out=out.ndarray(), casting="unsafe")


@quiet
def exp(meta, self, out) -> None:
    _unary(np.exp, meta, self, out)


@quiet
def log(meta, self, out) -> None:
    _unary(np.log, meta, self, out)


@quiet
def log1p(meta, self, out) -> None:
    _unary(np.log1p, meta, self, out)


@quiet
def sqrt(meta, self, out) -> None:
    _unary(np.sqrt, meta, self, out)


@quiet
def rsqrt(meta, self, out) -> None:
    _unary_opmath(lambda x: 1 / np.sqrt(x), meta, self, out)


@quiet
def reciprocal(meta, self, out) -> None:
    _unary_opmath(np.reciprocal, meta, self, out)


@quiet
def sin(meta, self, out) -> None:
    _unary(np.sin, meta, self, out)


@quiet
def cos(meta, self, out) -> None:
    _unary(np.cos, meta, self, out)


@quiet
def tanh(meta, self, out) -> None:
    _unary(np.tanh, meta, self, out)


@quiet
def sigmoid(meta, self, out) -> None:
    _unary_opmath(lambda x: 1 / (1 + np.exp(-x)), meta, self, out)


_SQRT_HALF = 0.7071067811865476
_SQRT_2_OVER_PI = 0.7978845608028654


def _gelu_tanh(x):
    inner = _SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)
    return 0.5 * x * (1 + np.tanh(inner))


def _gelu_erf(x):
    return x * 0.5 * (1 + erf(x * _SQRT_HALF))


@quiet
def gelu(meta, self, approximate, out) -> None:
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    dtype = meta.compute_dtype
    if not dtype.is_floating_point:
        not_implemented_for("GeluKernelImpl", dtype)
    if approximate == "tanh":
        _unary_opmath(_gelu_tanh, meta, self, out)
    elif use_onednn(self):  # Note [gelu follows the host's oneDNN ISA]
        formula = gelu_onednn if dtype is dtypes.float32 else gelu_onednn_bfloat16
        _unary_opmath(formula, meta, self, out)
    else:
        # ATen's GeluKernel: std::erf in scalar loops, and over blocks of a contiguous
        # inner dim a vectorised Abramowitz-Stegun erf, up to ~5e-7 from the accurate
        # value that ember computes (tests/test_gelu_onednn.py states the bounds)
        _unary_opmath(_gelu_erf, meta, self, out)


# -- comparisons ---------------------------------------------------------------


def _compare(ufunc, meta, self, other, out) -> None:
    compute = _dtype(meta)
    arrays = (operand(self), operand(other))
    apply(ufunc, compute, arrays, out.ndarray(), signature=(compute, compute, np.bool_))


def _ordered(name, ufunc):
    @quiet
    def compare(meta, self, other, out) -> None:
        if meta.compute_dtype.is_complex:
            not_implemented_for(f"{name}_cpu", meta.compute_dtype)
        _compare(ufunc, meta, self, other, out)

    compare.__name__ = name
    return compare


@quiet
def eq(meta, self, other, out) -> None:
    _compare(np.equal, meta, self, other, out)


@quiet
def ne(meta, self, other, out) -> None:
    _compare(np.not_equal, meta, self, other, out)


lt = _ordered("lt", np.less)
le = _ordered("le", np.less_equal)
gt = _ordered("gt", np.greater)
ge = _ordered("ge", np.greater_equal)
