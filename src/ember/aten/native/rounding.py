"""The rounding operators: floor, ceil, trunc, round (and round.decimals), frac, fix.

Layer: aten/native (CPU kernels of structured groups; fix is a composite alias). In: a
StructuredMeta, self, out. Out: the rounded values. Mirrors floor_kernel, ceil_kernel,
trunc_kernel, round_kernel, round_decimals_kernel and frac_kernel of
ATen/native/cpu/UnaryOpsKernel.cpp and TORCH_IMPL_FUNC(floor_out) & co. in UnaryOps.cpp:
an integral input is copied unchanged (floor, ceil, trunc and round only), round is
nearbyint (ties to even) and round.decimals scales by a power of ten in scalar_t.
"""

from __future__ import annotations

import math

import numpy as np

from ember._c10 import dtypes
from ember.aten.native import at
from ember.aten.native.unary_math import check_dtype, operand_values
from ember.aten.ufunc_loops import quiet, store
from ember.aten.ufunc_special import not_implemented_for

__all__ = [
    "floor_out",
    "ceil_out",
    "trunc_out",
    "round_out",
    "round_decimals_out",
    "frac_out",
    "fix",
    "fix_",
    "fix_out",
]


def _rounding(kernel: str, formula):
    @quiet
    def run(meta, self, out) -> None:
        dtype = meta.compute_dtype
        if dtype is dtypes.bool or dtype.is_complex:
            not_implemented_for(kernel, dtype)
        if not dtype.is_floating_point:  # TORCH_IMPL_FUNC: integers are already rounded
            np.copyto(out.ndarray(), self.ndarray(), casting="unsafe")
            return
        store(out, formula(operand_values(meta, self)), meta)

    return run


floor_out = _rounding("floor_vml_cpu", np.floor)
ceil_out = _rounding("ceil_vml_cpu", np.ceil)
trunc_out = _rounding("trunc_vml_cpu", np.trunc)
round_out = _rounding("round_vml_cpu", np.rint)


@quiet
def round_decimals_out(meta, self, decimals, out) -> None:
    dtype = meta.compute_dtype
    if decimals == 0:  # TORCH_IMPL_FUNC(round_decimals_out): round_stub, integers refused
        check_dtype("round_vml_cpu", dtype)
        store(out, np.rint(operand_values(meta, self)), meta)
        return
    check_dtype("round_cpu", dtype)
    scalar = dtype.np_dtype
    values = operand_values(meta, self)
    negative = decimals <= 0  # round_decimals_kernel's neg_flag
    exponent = -decimals if negative else decimals
    try:
        power = 10.0**exponent
    except OverflowError:  # std::pow(10, decimals) overflows to inf
        power = math.inf
    power = np.asarray(power).astype(scalar)
    power = power.astype(values.dtype)
    with np.errstate(all="ignore"):
        if negative:
            scaled = (values / power).astype(scalar).astype(values.dtype)
            result = np.rint(scaled) * power
        else:
            scaled = (values * power).astype(scalar).astype(values.dtype)
            result = np.rint(scaled) / power
    store(out, result, meta)


@quiet
def frac_out(meta, self, out) -> None:
    check_dtype("frac_cpu", meta.compute_dtype)
    values = operand_values(meta, self)
    store(out, values - np.trunc(values), meta)


def fix(self):
    return at.trunc(self)


def fix_(self):
    return at.trunc_(self)


def fix_out(self, out):
    return at.trunc_out(self, out)
