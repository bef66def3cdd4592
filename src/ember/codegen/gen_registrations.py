"""Write the aten registrations: definitions, per-backend kernels, BackendSelect, ADInplaceOrView.

Layer: codegen. In: NativeFunctions and StructuredGroups. Out: the source of
aten/_generated/{definitions,register_cpu,register_meta,register_composite,
register_backend_select,register_inplace_or_view}.py.
Mirrors torchgen/gen.py (RegisterCPU.cpp, RegisterMeta.cpp,
RegisterCompositeExplicitAutograd.cpp, RegisterBackendSelect.cpp) and
gen_inplace_or_view_type.py.

Note [Structured kernels]
-------------------------
A structured out= overload owns one meta function (aten/meta/: shapes,
dtypes, strides, checks) and one implementation (a ufunc formula in
aten/ufunc.py when `ufunc_inner_loop` names one, else the CPU kernel its
dispatch names). The functional, in-place and out= variants are three short
generated functions that share both: functional allocates what the meta
function describes, in-place checks `self` against it, out= resizes `out`.
The Meta backend runs the same meta function and never computes. The CPU
kernels that FAST_PATHS names first try a fast path (Note [Arithmetic fast
paths]; aten/ufunc_fast.py and aten/nn_fast.py).

The in-place and out= CPU kernels of a TensorIterator op (`structured_inherits:
TensorIteratorBase`) open with TensorIterator's memory-overlap check, before
the fast path and the meta function (Note [Memory overlap checks]); an out=
CPU kernel whose `out` is one of its tensor inputs asks the meta result
whether it may be resized (check_read_write, Note [Resizing out= arguments]).
"""

from __future__ import annotations

from .gen_python import HEADER
from .model import NativeFunction, StructuredGroup

COMPOSITE_KEYS = (
    "CompositeExplicitAutogradNonFunctional",
    "CompositeExplicitAutograd",
    "CompositeImplicitAutograd",
)


# The module aliases of the generated files; an argument of the same name (triangular_solve's
# out M) is spelled with a trailing underscore there.
_ALIASES = frozenset({"M", "LO", "O", "N", "NF", "U", "UF"})


def _local(name: str) -> str:
    return name + "_" if name in _ALIASES else name


def _arg_names(f: NativeFunction, *, outs: bool) -> list[str]:
    return [_local(a.name) for a in f.func.arguments if outs or not a.is_out]


def _out_names(f: NativeFunction) -> list[str]:
    return [_local(a.name) for a in f.func.arguments if a.is_out]


def _impl_call(group: StructuredGroup, out_exprs: list[str], inputs: list[str]) -> str:
    out = group.out
    args = ", ".join(["meta", *inputs, *out_exprs])
    if "Generic" in out.ufunc_inner_loop:
        return f"U.{out.ufunc_inner_loop['Generic']}({args})"
    return f"N.{out.dispatch['CPU']}({args})"


# ufunc formulas (or CPU kernels) with a fast path in aten/ufunc_fast.py (UF) or
# aten/nn_fast.py (NF) (Note [Arithmetic fast paths]): the functional and in-place
# kernels try it first.
FAST_PATHS = {"add": "UF.add", "sub": "UF.sub", "mul": "UF.mul", "div": "UF.div",
              "mm_out": "UF.mm", "sum_IntList_out": "UF.sum_dim", "clamp": "NF.clamp",
              "threshold_backward_out": "NF.threshold_backward",
              "_log_softmax_out": "NF.log_softmax",
              "log_softmax_backward_cpu_out": "NF.log_softmax_backward",
              "nll_loss_forward_output": "NF.nll_loss_forward",
              "nll_loss_backward_grad_input": "NF.nll_loss_backward"}  # fmt: skip


# TensorIterator ops whose PyTorch kernel does not make TensorIterator's overlap check:
# threshold_backward sets set_check_mem_overlap(false); index makes assert_no_overlap in its
# meta function; mse_loss is one TensorIterator only when unreduced (its kernel checks).
NO_MEM_OVERLAP_CHECK = {"threshold_backward.grad_input", "index.Tensor_out", "mse_loss.out"}


# The out= overloads whose PyTorch Meta kernel is a Python reference under out_wrapper
# (torch/_prims_common/wrappers.py): their Meta kernels compare the first argument's device
# with `out`'s before anything else (aten/meta/out_wrapper.py); the composite ones (zeros.out)
# have no Meta kernel of their own. tests/test_python_meta_out.py derives the list from torch.
PYTHON_META_OUT = frozenset(
    {"abs.out", "add.out", "bernoulli.out", "all.out", "all.dims_out", "all.all_out", "any.out", "any.dims_out",
     "any.all_out", "logical_not.out", "logical_and.out", "logical_or.out", "logical_xor.out",
     "bitwise_not.out", "bitwise_and.Tensor_out", "bitwise_and.Scalar_out",
     "bitwise_or.Tensor_out", "bitwise_or.Scalar_out", "bitwise_xor.Tensor_out",
     "bitwise_xor.Scalar_out", "bitwise_left_shift.Tensor_out",
     "bitwise_left_shift.Tensor_Scalar_out", "bitwise_right_shift.Tensor_out",
     "bitwise_right_shift.Tensor_Scalar_out", "bmm.out", "cat.out", "clamp.out",
     "clamp.Tensor_out", "cos.out", "div.out", "div.out_mode", "exp.out", "log.out",
     "log1p.out", "_log_softmax.out", "_log_softmax_backward_data.out", "mm.out", "mul.out",
     "neg.out", "threshold_backward.grad_input", "gelu.out", "rsqrt.out", "reciprocal.out",
     "sigmoid.out", "sigmoid_backward.grad_input", "tanh_backward.grad_input", "sin.out", "_softmax.out", "_softmax_backward_data.out", "sqrt.out",
     "std.correction_out", "tanh.out", "var.correction_out", "where.self_out", "norm.out",
     "norm.dtype_out", "sub.out", "addmm.out", "triu.out", "tril.out", "ne.Scalar_out",
     "ne.Tensor_out", "eq.Scalar_out", "eq.Tensor_out", "ge.Scalar_out", "ge.Tensor_out",
     "le.Scalar_out", "le.Tensor_out", "gt.Scalar_out", "gt.Tensor_out", "lt.Scalar_out",
     "lt.Tensor_out", "index_select.out", "sign.out", "remainder.Tensor_out", "maximum.out",
     "minimum.out", "pow.Tensor_Tensor_out", "pow.Scalar_out", "pow.Tensor_Scalar_out",
     "mse_loss.out", "nll_loss_forward.output", "nll_loss_backward.grad_input",
     "floor_divide.out", "arange.out", "arange.start_out", "linspace.out", "max.unary_out",
     "min.unary_out", "remainder.Scalar_out", "stack.out", "mm.dtype_out",
     "bmm.dtype_out", "addmm.dtype_out", "full.out", "ones.out", "zeros.out", "rand.out",
     "randint.out", "randint.low_out", "conj_physical.out", "linalg_vector_norm.out",
     "acos.out", "asin.out", "atan.out", "tan.out", "sinh.out", "cosh.out", "expm1.out",
     "log2.out", "log10.out", "addmv.out", "mv.out",
     "addcmul.out", "addcdiv.out", "lerp.Scalar_out", "lerp.Tensor_out",
     "elu.out", "elu_backward.grad_input", "gelu_backward.grad_input", "glu.out",
     "glu_backward.grad_input", "hardshrink.out", "hardsigmoid.out",
     "hardsigmoid_backward.grad_input", "hardswish.out", "hardtanh.out",
     "hardtanh_backward.grad_input", "leaky_relu.out", "leaky_relu_backward.grad_input",
     "mish.out", "silu.out", "silu_backward.grad_input", "softplus.out",
     "softplus_backward.grad_input", "softshrink.out", "threshold.out", "smooth_l1_loss.out"}
)  # fmt: skip


# Those of them whose out_wrapper has exact_dtype=True.
PYTHON_META_OUT_EXACT_DTYPE = frozenset(
    {"abs.out", "bmm.out", "_log_softmax.out", "mm.out", "where.self_out", "norm.out",
     "addmm.out", "sign.out", "norm.dtype_out", "mm.dtype_out", "bmm.dtype_out",
     "addmm.dtype_out", "linalg_vector_norm.out", "addmv.out", "mv.out", "silu.out"}
)  # fmt: skip


# wELEM: the elementwise operators' out= overloads with a Python meta kernel in torch.
PYTHON_META_OUT = PYTHON_META_OUT | frozenset(
    {"acosh.out", "asinh.out", "atanh.out", "ceil.out", "deg2rad.out", "digamma.out",
     "erf.out", "erfc.out", "erfinv.out", "exp2.out", "floor.out", "frac.out", "i0.out",
     "isneginf.out", "isposinf.out", "lgamma.out", "logit.out", "mvlgamma.out",
     "nan_to_num.out", "polygamma.out", "rad2deg.out", "round.decimals_out", "round.out",
     "sgn.out", "signbit.out", "sinc.out", "trunc.out", "atan2.out", "clamp_max.Tensor_out",
     "clamp_max.out", "clamp_min.Tensor_out", "clamp_min.out", "copysign.Scalar_out",
     "copysign.out", "fmax.out", "fmin.out", "fmod.Scalar_out", "fmod.Tensor_out", "gcd.out",
     "heaviside.out", "hypot.out", "igamma.out", "igammac.out", "lcm.out", "ldexp.out",
     "logaddexp.out", "logaddexp2.out", "nextafter.out", "special_bessel_j0.out",
     "special_bessel_j1.out", "special_bessel_y0.out", "special_bessel_y1.out",
     "special_entr.out", "special_erfcx.out", "special_i0e.out", "special_i1.out",
     "special_i1e.out", "special_log_ndtr.out", "special_modified_bessel_i0.out",
     "special_modified_bessel_i1.out", "special_modified_bessel_k0.out",
     "special_modified_bessel_k1.out", "special_ndtri.out",
     "special_scaled_modified_bessel_k0.out", "special_scaled_modified_bessel_k1.out",
     "special_spherical_bessel_j0.out", "special_xlog1py.other_scalar_out",
     "special_xlog1py.out", "special_xlog1py.self_scalar_out",
     "special_zeta.other_scalar_out", "special_zeta.out", "special_zeta.self_scalar_out",
     "xlogy.OutScalar_Other", "xlogy.OutScalar_Self", "xlogy.OutTensor",
     "special_airy_ai.out", "frexp.Tensor_out", "isin.Scalar_Tensor_out",
     "isin.Tensor_Scalar_out", "isin.Tensor_Tensor_out"}
    | {f"special_{name}_polynomial_{kind}.{overload}"
       for name, kind in (("chebyshev", "t"), ("chebyshev", "u"), ("chebyshev", "v"),
                          ("chebyshev", "w"), ("hermite", "h"), ("hermite", "he"),
                          ("laguerre", "l"), ("legendre", "p"))
       for overload in ("out", "x_scalar_out", "n_scalar_out")}
)  # fmt: skip
PYTHON_META_OUT_EXACT_DTYPE = PYTHON_META_OUT_EXACT_DTYPE | frozenset(
    {"ceil.out", "floor.out", "frac.out", "isneginf.out", "isposinf.out", "sgn.out",
     "signbit.out", "trunc.out"}
)  # fmt: skip


# The out= overloads of the copy variants, complex views, linalg, logspace, renorm and the
# random factories (wcopy, wcomplex, wlinalg, wstats) with a Python meta kernel in torch.
PYTHON_META_OUT = PYTHON_META_OUT | frozenset(
    {"alias_copy.out", "as_strided_copy.out", "as_strided_scatter.out", "cholesky.out",
     "cholesky_inverse.out", "cholesky_solve.out", "complex.out", "diagonal_copy.out",
     "expand_copy.out", "linalg_cross.out", "linalg_householder_product.out", "linalg_lu.out",
     "linalg_lu_factor_ex.out", "linalg_lu_solve.out", "logspace.Scalar_Tensor_out",
     "logspace.Tensor_Scalar_out", "logspace.Tensor_Tensor_out", "logspace.out",
     "lu_unpack.out", "multinomial.out", "narrow_copy.out", "nonzero_static.out",
     "normal.Tensor_Tensor_out", "normal.Tensor_float_out", "normal.float_Tensor_out",
     "normal.float_float_out", "ormqr.out", "permute_copy.out", "polar.out", "renorm.out",
     "squeeze_copy.dim_out", "squeeze_copy.dims_out", "squeeze_copy.out", "t_copy.out",
     "transpose_copy.int_out", "triangular_solve.X", "unbind_copy.int_out", "unfold_copy.out",
     "unsqueeze_copy.out", "view_copy.dtype_out", "view_copy.out"}
)  # fmt: skip
PYTHON_META_OUT_EXACT_DTYPE = PYTHON_META_OUT_EXACT_DTYPE | frozenset(
    {"alias_copy.out", "as_strided_copy.out", "diagonal_copy.out", "expand_copy.out",
     "narrow_copy.out", "permute_copy.out", "polar.out", "squeeze_copy.dim_out",
     "squeeze_copy.dims_out", "squeeze_copy.out", "t_copy.out", "transpose_copy.int_out",
     "unbind_copy.int_out", "unsqueeze_copy.out", "view_copy.dtype_out", "view_copy.out"}
)  # fmt: skip


# In-place overloads whose PyTorch Meta kernel is a Python function of
# torch/_meta_registrations.py (aten/meta/python_inplace.py mirrors them): their Meta kernel
# is that function alone (its checks, then `self`). A meta operand of a cpu `self` takes that
# kernel too, and `self` comes back unchanged, as in PyTorch.
PYTHON_META_INPLACE = {
    "mul_.Tensor": "binop_inplace",
    "add_.Tensor": "binop_inplace_alpha",
    "sub_.Tensor": "binop_inplace_alpha",
    "div_.Tensor": "div_inplace",
}


# wLINALG: the decompositions' and fft's out= overloads with a Python meta kernel in torch.
PYTHON_META_OUT = PYTHON_META_OUT | frozenset({'_fft_c2c.out', '_fft_c2r.out', '_fft_r2c.out', '_linalg_eigh.eigenvalues', '_linalg_slogdet.sign', 'linalg_eig.out', 'linalg_eigvals.out', 'linalg_qr.out'})  # fmt: skip
PYTHON_META_OUT_EXACT_DTYPE = PYTHON_META_OUT_EXACT_DTYPE | frozenset({})  # fmt: skip


# wSHAPEIDX / wCONV: their out= overloads with a Python meta kernel in torch (out_wrapper).
PYTHON_META_OUT = PYTHON_META_OUT | frozenset(
    {"_upsample_nearest_exact1d.out", "_upsample_nearest_exact2d.out",
     "_upsample_nearest_exact3d.out", "addbmm.out", "addr.out", "aminmax.out",
     "baddbmm.dtype_out", "baddbmm.out", "bucketize.Tensor_out", "cummax.out", "cummin.out",
     "histc.out", "index_add.out", "index_copy.out", "kthvalue.values", "logcumsumexp.out",
     "median.dim_values", "mode.values", "nanmedian.dim_values", "nansum.out", "nonzero.out",
     "scatter_reduce.two_out", "searchsorted.Scalar_out", "searchsorted.Tensor_out",
     "take.out", "upsample_bicubic2d.out", "upsample_bilinear2d.out", "upsample_linear1d.out",
     "upsample_nearest1d.out", "upsample_nearest2d.out", "upsample_nearest3d.out",
     "upsample_trilinear3d.out"}
)  # fmt: skip
PYTHON_META_OUT_EXACT_DTYPE = PYTHON_META_OUT_EXACT_DTYPE | frozenset(
    {"_upsample_nearest_exact1d.out", "_upsample_nearest_exact2d.out",
     "_upsample_nearest_exact3d.out", "addbmm.out", "baddbmm.dtype_out", "baddbmm.out",
     "upsample_nearest1d.out", "upsample_nearest2d.out", "upsample_nearest3d.out"}
)  # fmt: skip


def _copy_devices_check(f: NativeFunction) -> list[str]:
    """out_wrapper's device check, where the first argument is a Tensor (PYTHON_META_OUT)."""
    first = f.func.arguments[0]
    outs = _out_names(f)
    if f.name not in PYTHON_META_OUT or str(first.type) != "Tensor" or len(outs) != 1:
        return []
    return [f"    M.check_copy_devices({first.name}, {outs[0]})"]


def _tensor_inputs(f: NativeFunction) -> list[str]:
    """The Tensor and Tensor? arguments that are not outputs (lists excluded)."""
    return [
        _local(a.name)
        for a in f.func.arguments
        if not a.is_out and a.type.is_tensor_like() == (True, False)
    ]


def _iterates(group: StructuredGroup) -> bool:
    out = group.out
    return out.structured_inherits == "TensorIteratorBase" and out.name not in NO_MEM_OVERLAP_CHECK


def _shared_tests(group: StructuredGroup, written: str, skip: str | None) -> list[str]:
    """Identity tests: does an input live on the written tensor's storage object?"""
    out = group.out
    optional = {_local(a.name) for a in out.func.arguments if a.type.kind == "optional"}
    tests = []
    for name in _tensor_inputs(out):
        if name == skip:
            continue
        shared = f"{name}._storage is {written}._storage is not None"
        tests.append(f"({name} is not None and {shared})" if name in optional else shared)
    return tests


def _overlap_check(group: StructuredGroup, written: str, *, skip: str | None = None) -> list[str]:
    """TensorIterator's compute_mem_overlaps for the in-place / out= kernel writing `written`,
    behind the identity tests that clear the common case inline (no call): no zero stride,
    and no input on the written tensor's storage object."""
    out = group.out
    if not _iterates(group):
        return []
    inputs = [name for name in _tensor_inputs(out) if name != skip]
    tests = [f"0 in {written}._strides", *_shared_tests(group, written, skip)]
    check = f"        O.check_tensor_iterator({', '.join([written, *inputs])})"
    condition = f"    if {' or '.join(tests)}:"
    if len(condition) <= 100:
        return [condition, check]
    return [
        "    if (",
        f"        {tests[0]}",
        *[f"        or {t}" for t in tests[1:]],
        "    ):",
        check,
    ]


def _loop_order(group: StructuredGroup, written: str, inputs: list[str], skip=None) -> list[str]:
    """An input sharing the written tensor's memory in another layout: the formula runs in
    PyTorch's loop order (Note [Overlapping operands in loop order] in aten/loop_order.py)."""
    if not _iterates(group):
        return []
    tests = _shared_tests(group, written, skip)
    if skip == written:  # in place: the written tensor is an input, and may alias itself
        tests.append(f"LO.aliases_itself({written})")
    out = group.out
    if "Generic" in out.ufunc_inner_loop:
        formula = f"U.{out.ufunc_inner_loop['Generic']}"
    else:
        formula = f"N.{out.dispatch['CPU']}"
    args = ", ".join(inputs) + ("," if len(inputs) == 1 else "")
    call = f"LO.in_loop_order({formula}, meta, ({args}), {written})"
    condition = " or ".join(tests)
    if len(tests) > 1:
        condition = f"({condition})"
    lines = [f"    if {condition} and {call}:"]
    if len(lines[0]) > 100:
        lines = ["    if (", f"        {condition}", f"        and {call}", "    ):"]
    return [*lines, f"        return {written}"]


def _read_write_checks(group: StructuredGroup) -> list[str]:
    """For each out= tensor that may also be an input: meta.check_read_write."""
    inputs = _tensor_inputs(group.out)
    lines = []
    if not inputs:
        return lines
    for index, name in enumerate(_out_names(group.out)):
        aliased = " or ".join(f"{name} is {i}" for i in inputs)
        suffix = f", {index}" if index else ""
        lines.append(f"    if {aliased}:")
        lines.append(f"        meta.check_read_write({name}{suffix})")
    return lines


def _fast_path(group: StructuredGroup, inputs: list[str], into: str | None) -> list[str]:
    out = group.out
    implementation = out.ufunc_inner_loop.get("Generic") or out.dispatch.get("CPU")
    fast = FAST_PATHS.get(implementation)
    if fast is None:
        return []
    args = ", ".join(inputs + ([f"into={into}"] if into else []))
    return [
        f"    fast = {fast}({args})",
        "    if fast is not None:",
        "        return fast",
    ]


def structured_kernels(group: StructuredGroup, *, compute: bool) -> list[str]:
    """The functional / in-place / out= kernels of one structured group."""
    out = group.out
    inputs = _arg_names(out, outs=False)
    outs = _out_names(out)
    meta_call = f"M.{group.meta_name}({', '.join(inputs)})"
    lines = [
        f"# {out.name}: structured"
        + (
            f", ufunc {out.ufunc_inner_loop['Generic']}"
            if "Generic" in out.ufunc_inner_loop
            else ""
        )
    ]
    if group.functional is not None:
        lines += ["", "", f"def {group.functional.kernel}({', '.join(inputs)}):"]
        if compute:
            lines += _fast_path(group, inputs, None)
        lines.append(f"    meta = {meta_call}")
        lines.append(
            f"    {', '.join(outs)} = meta.allocate()"
            if len(outs) > 1
            else f"    {outs[0]} = meta.allocate()"
        )
        if compute:
            lines.append(f"    {_impl_call(group, outs, inputs)}")
        lines.append(f"    return {', '.join(outs)}")
    python_meta = None if compute or group.inplace is None else group.inplace.name
    if python_meta in PYTHON_META_INPLACE:
        lines += ["", "", f"def {group.inplace.kernel}({', '.join(inputs)}):"]
        lines.append(f"    return M.{PYTHON_META_INPLACE[python_meta]}({', '.join(inputs)})")
    elif group.inplace is not None:
        lines += ["", "", f"def {group.inplace.kernel}({', '.join(inputs)}):"]
        if compute:
            lines += _overlap_check(group, "self", skip="self")
            lines += _fast_path(group, inputs, "self")
        lines.append(f"    meta = {meta_call}")
        lines.append("    meta.check_inplace(self)")
        if compute:
            lines += _loop_order(group, "self", inputs, skip="self")
            lines.append(f"    {_impl_call(group, ['self'], inputs)}")
        lines.append("    return self")
    lines += ["", "", f"def {out.kernel}({', '.join(inputs + outs)}):"]
    if compute:
        for name in outs:
            lines += _overlap_check(group, name)
    else:
        lines += _copy_devices_check(out)
    lines.append(f"    meta = {meta_call}")
    if compute:
        lines += _read_write_checks(group)
    if not compute and _copy_devices_check(out):  # as the Python reference copies out
        exact = ", exact_dtype=True" if out.name in PYTHON_META_OUT_EXACT_DTYPE else ""
        lines.append(f"    M.copy_out(meta, {outs[0]}{exact})")
    else:
        lines.append(f"    meta.resize_outputs({', '.join(outs)})")
    if compute:
        if len(outs) == 1:
            lines += _loop_order(group, outs[0], inputs)
        lines.append(f"    {_impl_call(group, outs, inputs)}")
    lines.append(f"    return {', '.join(outs)}")
    return lines


def write_default_backend(groups: list[StructuredGroup]) -> str:
    """The CompositeExplicitAutogradNonFunctional kernels of the structured ops (mirrors
    RegisterCompositeExplicitAutogradNonFunctional.cpp). See Note [Default backend kernels]."""
    doc = (
        "The CompositeExplicitAutogradNonFunctional kernels of the structured operators\n"
        "(mirrors RegisterCompositeExplicitAutogradNonFunctional.cpp): see\n"
        "Note [Default backend kernels] in ember/codegen/gen_registrations.py."
    )
    lines = [HEADER + f'"""{doc}"""', ""]
    lines.append("from ember.aten import meta as M")
    lines.append("from ember.aten.native import at")
    lines.append("from ember.aten.registration import impl")
    registrations = []
    for group in groups:
        out = group.out
        inputs = _arg_names(out, outs=False)
        outs = _out_names(out)
        meta_call = f"M.{group.meta_name}({', '.join(inputs)})"
        out_call = f"at.{out.kernel}({', '.join(inputs + ['{}'])})"
        if group.functional is not None:
            name = f"{group.functional.kernel}_default_backend"
            lines += ["", "", f"def {name}({', '.join(inputs)}):"]
            lines.append(f"    meta = {meta_call}")
            lines.append(f"    {', '.join(outs)} = meta.allocate_through(at.empty_strided)")
            lines.append(f"    return {out_call.format(', '.join(outs))}")
            registrations.append((group.functional.name, name))
        if group.inplace is not None:
            name = f"{group.inplace.kernel}_default_backend"
            lines += ["", "", f"def {name}({', '.join(inputs)}):"]
            lines.append(f"    meta = {meta_call}")
            lines.append("    meta.check_inplace(self)")
            lines.append(f"    {out_call.format('self')}")
            lines.append("    return self")
            registrations.append((group.inplace.name, name))
    lines += ["", ""]
    for name, kernel in registrations:
        lines.append(f'impl("{name}", "CompositeExplicitAutogradNonFunctional", {kernel})')
    return "\n".join(lines) + "\n"


# Note [Default backend kernels]
# ------------------------------
# Every structured operator's functional and in-place overloads also get a
# CompositeExplicitAutogradNonFunctional kernel, as torchgen writes for PyTorch: the meta
# function, outputs from at::empty_strided, then the out= overload through the dispatcher.
# Its table fills the slots no backend kernel serves ([default backend kernel]): Undefined
# (a call with no tensor, as `cat([])`, reaches the meta function's own error), CUDA,
# PrivateUse1 and the other backends ember has no kernels for (a device that registers only
# out= kernels runs the functional op through them).


def write_definitions(functions: list[NativeFunction]) -> str:
    lines = [
        HEADER + '"""Every aten operator of native_functions.yaml, defined in the dispatcher."""',
        "",
    ]
    lines.append("from ember.aten.registration import define")
    lines.append("")
    for f in functions:
        schema = str(f.func).removeprefix("aten::")
        lines.append(f"define({schema!r}, tags={f.tags!r})")
    return "\n".join(lines) + "\n"


def write_backend(functions, groups, key: str) -> str:
    compute = key == "CPU"
    doc = f"The {key} kernels of the aten operators (mirrors Register{key}.cpp)."
    lines = [HEADER + f'"""{doc}"""', ""]
    lines.append("from ember.aten import meta as M")
    if compute:
        lines.append("from ember.aten import loop_order as LO")
        lines.append("from ember.aten import memory_overlap as O")
        lines.append("from ember.aten import native as N")
        lines.append("from ember.aten import nn_fast as NF")
        lines.append("from ember.aten import ufunc as U")
        lines.append("from ember.aten import ufunc_fast as UF")
    else:
        lines.append("from ember.aten import native as N")
    lines.append("from ember.aten.registration import impl")
    registrations = []
    for group in groups:
        lines += ["", ""] + structured_kernels(group, compute=compute)
        registrations += [(f.name, f.kernel) for f in group.members]
    for f in functions:
        if f.structured or f.structured_delegate:
            continue
        if key not in f.dispatch:
            continue
        check = [] if compute else _copy_devices_check(f)
        if check:  # the shared kernel, behind the check of the Python meta kernel
            args = ", ".join(_arg_names(f, outs=True))
            lines += ["", "", f"def {f.kernel}({args}):", *check]
            lines.append(f"    return N.{f.dispatch[key]}({args})")
            registrations.append((f.name, f.kernel))
        else:
            registrations.append((f.name, f"N.{f.dispatch[key]}"))
    lines += ["", ""]
    for name, kernel in registrations:
        lines.append(f'impl("{name}", "{key}", {kernel})')
    return "\n".join(lines) + "\n"


def write_composite(functions: list[NativeFunction]) -> str:
    doc = "The composite kernels of the aten operators (CompositeImplicitAutograd and friends)."
    lines = [HEADER + f'"""{doc}"""', ""]
    lines.append("from ember.aten import native as N")
    lines.append("from ember.aten.registration import impl")
    lines.append("")
    for f in functions:
        for key in COMPOSITE_KEYS:
            if key in f.dispatch:
                lines.append(f'impl("{f.name}", "{key}", N.{f.dispatch[key]})')
    return "\n".join(lines) + "\n"


def _handle_name(f: NativeFunction, kernels: frozenset = frozenset()) -> str:
    """The module-level name of an operator's handle: `_<kernel>`, or `_op_<kernel>` where
    that is the name of another kernel in the module (the handle of logcumsumexp.out would
    be `_logcumsumexp_out`, the kernel of _logcumsumexp.out)."""
    name = f"_{f.kernel}"
    return f"_op_{f.kernel}" if name in kernels else name


def write_backend_select(functions: list[NativeFunction]) -> str:
    doc = "BackendSelect kernels: factory functions pick their backend from their arguments."
    lines = [HEADER + f'"""{doc}"""', ""]
    lines.append("from ember.aten.binding import handle")
    lines.append("from ember.aten.registration import backend_select_bits, impl")
    kernels = frozenset(f.kernel for f in functions if f.is_factory)
    for f in functions:
        if not f.is_factory:
            continue
        args = _arg_names(f, outs=True)
        handle_name = _handle_name(f, kernels)
        lines += ["", "", f'{handle_name} = handle("{f.name}")', "", ""]
        lines.append(f"def {f.kernel}(keyset, {', '.join(args)}):")
        lines.append("    keyset = backend_select_bits(keyset, dtype, layout, device)")
        lines.append(f"    return {handle_name}.redispatch(keyset, {', '.join(args)})")
    lines += ["", ""]
    for f in functions:
        if f.is_factory:
            lines.append(f'impl("{f.name}", "BackendSelect", {f.kernel}, keyset_arg="raw")')
    return "\n".join(lines) + "\n"


# CompositeImplicitAutograd in ember's yaml, but PyTorch's entries also name NestedTensor
# kernels (a backend ember lacks), so PyTorch's codegen gives them ADInplaceOrView kernels.
_ABSTRACT_IN_PYTORCH = frozenset({"chunk", "narrow", "matmul.out"})


# An alias in its schema, but not in gen_inplace_or_view_type's view lists: no kernel.
_UNLISTED_VIEWS = frozenset({"lift_fresh"})


def _composite_implicit_only(f: NativeFunction) -> bool:
    return set(f.dispatch) == {"CompositeImplicitAutograd"}


def write_inplace_or_view(functions: list[NativeFunction]) -> str:
    doc = "ADInplaceOrView kernels: version bumps for in-place and out= ops, view bookkeeping."
    lines = [HEADER + f'"""{doc}"""', ""]
    lines.append("from ember.aten.binding import handle")
    lines.append(
        "from ember.aten.inplace_or_view import AFTER_AD_INPLACE_OR_VIEW as AFTER, BELOW, "
        "finish_inplace, finish_view, per_thread"
    )
    lines.append("from ember.aten.registration import impl")
    # gen_inplace_or_view_type.py: a view, or an op that writes an argument and returns it
    # (one that writes and returns nothing, as record_stream, gets no kernel: pytorch#53796).
    # Only for ops PyTorch's codegen calls abstract (use_derived): a CompositeImplicitAutograd
    # op decomposes into ops that have their own kernels.
    chosen = [
        f
        for f in functions
        if (f.is_view or ((f.is_out or f.func.is_mutable) and f.func.returns))
        and (not _composite_implicit_only(f) or f.name in _ABSTRACT_IN_PYTORCH)
        and f.name not in _UNLISTED_VIEWS
    ]
    kernels = frozenset(f.kernel for f in chosen)
    for f in chosen:
        args = _arg_names(f, outs=True)
        handle_name = _handle_name(f, kernels)
        mutated = [
            _local(a.name)
            for a in f.func.arguments
            if a.alias_info is not None and a.alias_info.is_write
        ]
        lines += ["", "", f'{handle_name} = handle("{f.name}")', "", ""]
        lines.append(f"def {f.kernel}(keyset, {', '.join(args)}):")
        # AutoDispatchBelowADInplaceOrView, spelled out (a guard object per call costs more)
        lines.append("    ts = per_thread.state  # Note [Thread state per OS thread]")
        lines.append("    prev = ts.excluded")
        lines.append("    ts.excluded = prev | BELOW")
        lines.append("    try:")
        lines.append(
            f"        result = {handle_name}.redispatch(keyset & AFTER, {', '.join(args)})"
        )
        lines.append("    finally:")
        lines.append("        ts.excluded = prev")
        if f.is_view:
            lines.append(f'    return finish_view("{f.name}", self, result)')
        else:
            lines.append(f"    return finish_inplace(result, {', '.join(mutated)})")
    lines += ["", ""]
    for f in chosen:
        lines.append(f'impl("{f.name}", "ADInplaceOrView", {f.kernel}, keyset_arg="raw")')
    return "\n".join(lines) + "\n"


# wcomplex: the shifted Chebyshev polynomials' out= overloads (torch's Python meta kernels).
PYTHON_META_OUT = PYTHON_META_OUT | frozenset(
    f"special_shifted_chebyshev_polynomial_{kind}.{overload}"
    for kind in "tuvw"
    for overload in ("out", "x_scalar_out", "n_scalar_out")
)
