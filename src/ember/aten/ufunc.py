"""ufunc inner loops: the formulas that `ufunc_inner_loop` names in native_functions.yaml.

Layer: aten (CPU backend). In: a StructuredMeta (its compute_dtype), the input
tensors (or Python numbers for Scalar overloads) and the output tensor,
already shaped by the meta function. Out: the values written into the
output's NumPy view. Mirrors ATen/native/ufunc/*.h and the CPU kernels of
ATen/native/cpu/{Binary,Unary}OpsKernel.cpp: one small function per formula;
the generated CPU kernels (aten/_generated/register_cpu.py) call them from
the functional, in-place and out= variants alike. See Note [Structured kernels].

Their shared machinery (NumPy's error state, casts, dense unary targets) is in
ufunc_loops.py; maximum / minimum / clamp, with their signed-zero rule, in
ufunc_minmax.py; the bitwise and special formulas in ufunc_bitwise.py and
ufunc_special.py. All are reached as U.<name> from here.
"""

from __future__ import annotations

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
from ember.aten.ufunc_fma import fma
from ember.aten.ufunc_loops import (  # noqa: F401 (quiet, error_state, unary_into: also U.<name>)
    SILENT_ERRORS,
    apply,
    binary,
    compute_np,
    error_state,
    quiet,
    scaled,
    store,
    unary,
    unary_into,
    unary_opmath,
)
from ember.aten.ufunc_minmax import clamp, has_zero, maximum, minimum, settle_zero_ties  # noqa: F401
from ember.aten.ufunc_onednn import gelu_onednn, gelu_onednn_bfloat16, use_onednn
from ember.aten.ufunc_reduced_scalar import reduced_fused_add, with_cpu_scalar
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

# -- arithmetic ----------------------------------------------------------------


# Note [Barebones unsigned types]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# uint16, uint32 and uint64 reach a CPU kernel only where its AT_DISPATCH lists
# AT_BAREBONES_UNSIGNED_TYPES: mul, eq / ne, the bitwise ops, copies, fills and
# factories compute them; add / sub (add_stub), neg, abs, the ordered comparisons,
# max / min and arange refuse them with PyTorch's "not implemented for 'UInt64'".
# Each refusing kernel calls check_barebones with its own kernel name.


_BAREBONES = frozenset(dtypes.BAREBONES_UNSIGNED)  # a set: one hash on the common path


def check_barebones(kernel: str, dtype) -> None:
    """See Note [Barebones unsigned types]: PyTorch's kernel has no case for this type."""
    if dtype in _BAREBONES:
        not_implemented_for(kernel, dtype)


def _check_uint64(kernel: str, meta) -> None:
    """See Note [uint64 Scalars] and Note [Barebones unsigned types]."""
    if meta.compute_dtype in _BAREBONES:
        not_implemented_for(kernel, meta.compute_dtype)


@quiet
def add(meta, self, other, alpha, out) -> None:
    _check_uint64("add_stub", meta)
    if alpha == 1:
        binary(np.add, meta, self, other, out)
        return
    compute = meta.compute_dtype.np_dtype
    if compute in _FMA_DTYPES:
        _fused_add(compute, self, other, alpha, out)
        return
    if reduced_fused_add(meta, self, other, alpha, out):
        return
    arrays = (operand(self), scaled(compute, other, alpha))
    apply(np.add, compute, arrays, out.ndarray(), dtype=compute)


# Note [Fused multiply-add in PyTorch's CPU kernels]: add's kernel computes
# fmadd(other, alpha, self) for float and double (sub adds -alpha).
_FMA_DTYPES = frozenset({np.dtype(np.float32), np.dtype(np.float64)})


def _fused_add(compute, self, other, alpha, out) -> None:
    factor = compute.type(alpha)
    np.copyto(out.ndarray(), fma(operand(other), factor, operand(self), compute), casting="unsafe")


@quiet
def sub(meta, self, other, alpha, out) -> None:
    _check_uint64("add_stub", meta)
    if alpha == 1:
        binary(np.subtract, meta, self, other, out)
        return
    compute = meta.compute_dtype.np_dtype
    if compute in _FMA_DTYPES:
        _fused_add(compute, self, other, -alpha, out)
        return
    if reduced_fused_add(meta, self, other, -alpha, out):
        return
    arrays = (operand(self), scaled(compute, other, alpha))
    apply(np.subtract, compute, arrays, out.ndarray(), dtype=compute)


@quiet
def mul(meta, self, other, out) -> None:
    if not with_cpu_scalar(np.multiply, meta, self, other, out):
        binary(np.multiply, meta, self, other, out)


@quiet
def div(meta, self, other, *mode_and_out) -> None:
    """div.out (true division) and div.out_mode (rounding_mode None, 'trunc' or 'floor')."""
    out = mode_and_out[-1]
    rounding_mode = mode_and_out[0] if len(mode_and_out) == 2 else None
    if rounding_mode is None:
        if not with_cpu_scalar(np.true_divide, meta, self, other, out):
            binary(np.true_divide, meta, self, other, out)
        return
    dtype = meta.compute_dtype
    if dtype is dtypes.bool or dtype.is_complex or dtype in dtypes.BAREBONES_UNSIGNED:
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
    if dtype is dtypes.bool or dtype.is_complex or dtype in dtypes.BAREBONES_UNSIGNED:
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
    check_barebones("pow", dtype)
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
        if dtype.is_complex:  # std::pow of complex operands is glibc's cpow: exp(y log x)
            with np.errstate(all="ignore"):
                store(out, np.exp(power * np.log(base)), meta)
        elif dtype.is_floating_point:
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
    power = np.asarray(exponent).astype(base.dtype, casting="unsafe")
    if base.dtype.kind == "c":  # std::pow of complex operands is glibc's cpow: exp(y log x)
        with np.errstate(all="ignore"):
            return np.exp(power * np.log(base))
    return np.power(base, power)


# -- unary ---------------------------------------------------------------------


@quiet
def neg(meta, self, out) -> None:
    if meta.compute_dtype in _BAREBONES:
        not_implemented_for("neg_cpu", meta.compute_dtype)
    unary(np.negative, meta, self, out)


@quiet
def sign(meta, self, out) -> None:
    """(0 < x) - (x < 0): zero for NaN and -0.0, as PyTorch's sign_kernel; bool is unchanged."""
    dtype = meta.compute_dtype
    check_barebones("sign_cpu", dtype)
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
    unary(np.exp, meta, self, out)


@quiet
def log(meta, self, out) -> None:
    unary(np.log, meta, self, out)


@quiet
def log1p(meta, self, out) -> None:
    unary(np.log1p, meta, self, out)


@quiet
def sqrt(meta, self, out) -> None:
    unary(np.sqrt, meta, self, out)


@quiet
def acos(meta, self, out) -> None:
    unary(np.arccos, meta, self, out)


@quiet
def asin(meta, self, out) -> None:
    unary(np.arcsin, meta, self, out)


@quiet
def atan(meta, self, out) -> None:
    unary(np.arctan, meta, self, out)


@quiet
def tan(meta, self, out) -> None:
    unary(np.tan, meta, self, out)


@quiet
def sinh(meta, self, out) -> None:
    unary(np.sinh, meta, self, out)


@quiet
def cosh(meta, self, out) -> None:
    unary(np.cosh, meta, self, out)


@quiet
def expm1(meta, self, out) -> None:
    unary(np.expm1, meta, self, out)


@quiet
def log2(meta, self, out) -> None:
    unary(np.log2, meta, self, out)


@quiet
def log10(meta, self, out) -> None:
    unary(np.log10, meta, self, out)


@quiet
def rsqrt(meta, self, out) -> None:
    unary_opmath(lambda x: 1 / np.sqrt(x), meta, self, out)


@quiet
def reciprocal(meta, self, out) -> None:
    unary_opmath(np.reciprocal, meta, self, out)


@quiet
def sin(meta, self, out) -> None:
    unary(np.sin, meta, self, out)


@quiet
def cos(meta, self, out) -> None:
    unary(np.cos, meta, self, out)


@quiet
def tanh(meta, self, out) -> None:
    unary(np.tanh, meta, self, out)


@quiet
def sigmoid(meta, self, out) -> None:
    unary_opmath(lambda x: 1 / (1 + np.exp(-x)), meta, self, out)


def _backward_operands(kernel: str, meta, grad_output, output, opmath_half: bool = True):
    """The two operands for floating and complex dtypes only
    (AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2 in BinaryOpsKernel.cpp), float16 and
    bfloat16 in float32 unless ``opmath_half`` is off for float16."""
    dtype = meta.compute_dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        not_implemented_for(kernel, dtype)
    compute = compute_np(meta)
    if opmath_half or compute != np.float16:
        compute = opmath(compute)
    return operand(grad_output).astype(compute, copy=False), operand(output).astype(
        compute, copy=False
    )


def _one_minus_square(y):
    """1 - y * y rounded once, as the fused multiply-add of PyTorch's vectorized kernel:
    exactly in float64 for float32; for float64, the square split exactly (Dekker's
    product) and the difference summed with its error (Knuth's two-sum)."""
    if y.dtype == np.float32:
        wide = y.astype(np.float64)
        return (1 - wide * wide).astype(np.float32)
    if y.dtype != np.float64:
        return 1 - y * y
    square = y * y
    split = 134217729.0 * y  # 2**27 + 1
    high = split - (split - y)
    low = y - high
    error = ((high * high - square) + 2 * high * low) + low * low  # y*y == square + error
    difference = 1 - square
    back = difference - 1
    lost = (1 - (difference - back)) + (-square - back)
    fused = difference + (lost - error)
    return np.where(np.isfinite(fused), fused, difference)


@quiet
def tanh_backward(meta, grad_output, output, out) -> None:
    """grad * (1 - y * y), with the factor conjugated for complex y (tanh_backward_kernel)."""
    grad, y = _backward_operands("tanh_backward_cpu", meta, grad_output, output)
    if y.dtype.kind == "c":
        store(out, grad * np.conj(1 - y * y), meta)
    else:
        store(out, grad * _one_minus_square(y), meta)


@quiet
def sigmoid_backward(meta, grad_output, output, out) -> None:
    """grad * (1 - y) * y; grad * conj((1 - y) * y) for complex y (sigmoid_backward_kernel).
    float16 rounds after each operation (Vectorized<Half>), bfloat16 computes in float32."""
    grad, y = _backward_operands("sigmoid_backward_cpu", meta, grad_output, output, False)
    if y.dtype.kind == "c":
        store(out, grad * np.conj((1 - y) * y), meta)
    else:
        store(out, grad * (1 - y) * y, meta)


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
        unary_opmath(_gelu_tanh, meta, self, out)
    elif use_onednn(self):  # Note [gelu follows the host's oneDNN ISA]
        formula = gelu_onednn if dtype is dtypes.float32 else gelu_onednn_bfloat16
        unary_opmath(formula, meta, self, out)
    else:
        # ATen's GeluKernel: std::erf in scalar loops, and over blocks of a contiguous
        # inner dim a vectorised Abramowitz-Stegun erf, up to ~5e-7 from the accurate
        # value that ember computes (tests/test_gelu_onednn.py states the bounds)
        unary_opmath(_gelu_erf, meta, self, out)


# -- comparisons ---------------------------------------------------------------


def _compare(ufunc, meta, self, other, out) -> None:
    compute = compute_np(meta)
    arrays = (operand(self), operand(other))
    apply(ufunc, compute, arrays, out.ndarray(), signature=(compute, compute, np.bool_))


def _ordered(name, ufunc):
    @quiet
    def compare(meta, self, other, out) -> None:
        if meta.compute_dtype.is_complex:
            not_implemented_for(f"{name}_cpu", meta.compute_dtype)
        if meta.compute_dtype in _BAREBONES:
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
