"""Meta functions of the reduction operators: sum, mean, prod, amax/amin, argmax/argmin,
max/min over a dim, all/any, norm, cumsum, cumprod.

Layer: aten/meta. In: the functional arguments (tensors may be meta). Out: a
StructuredMeta whose outputs are contiguous tensors of the reduced shape.
Mirrors the TORCH_META_FUNCs of ATen/native/ReduceOps.cpp and the helpers of
ReduceOpsUtils.h (make_dim_mask, resize_reduction, zero_numel_check_dims).
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember.aten.native.common import as_dtype, type_meta_name, wrap_dim, wrap_dims
from ember.aten.structured import StructuredMeta, resize_output
from ember.aten.tensor_iterator import OutputSpec

__all__ = [
    "reduced_dims",
    "reduction_shape",
    "reduction_spec",
    "sum_dim_IntList",
    "mean_dim",
    "prod_dim_int",
    "amax",
    "amin",
    "argmax",
    "argmin",
    "max_dim",
    "min_dim",
    "all",
    "all_dim",
    "all_dims",
    "any",
    "any_dim",
    "any_dims",
    "norm_ScalarOpt_dim",
    "norm_ScalarOpt_dim_dtype",
    "linalg_vector_norm",
    "cumsum",
    "cumprod",
    "zero_numel_check_dims",
]


def _is_integral(dtype, include_bool: bool = True) -> bool:
    if dtype is dtypes.bool:
        return include_bool
    return not (dtype.is_floating_point or dtype.is_complex)


def reduced_dims(self, dim, allow_empty_dims: bool = False) -> list[int]:
    """make_dim_mask: the wrapped dims a reduction removes (None or [] means every dim)."""
    ndim = self.dim()
    if dim is None:
        return list(range(ndim))
    if isinstance(dim, int):
        dim = [dim]
    if len(dim) == 0:
        return [] if allow_empty_dims else list(range(ndim))
    wrapped = wrap_dims(dim, ndim)
    # A 0-dim tensor accepts dim 0 / -1, but has no dim to remove.
    return [d for d in wrapped if d < ndim]


def reduction_shape(self, dims, keepdim: bool) -> tuple:
    """get_reduction_shape: the sizes left after reducing `dims`."""
    shape = []
    for d, size in enumerate(self._sizes):
        if d in dims:
            if keepdim:
                shape.append(1)
        else:
            shape.append(size)
    return tuple(shape)


def reduction_spec(self, dims, keepdim: bool, dtype) -> OutputSpec:
    """resize_reduction: a contiguous output of the reduced shape."""
    return OutputSpec(reduction_shape(self, dims, keepdim), None, dtype, self.device)


def zero_numel_check_dims(self, dims, fn_name: str) -> None:
    """An empty input must name reduction dims, and none of them may have size 0."""
    if self.numel() != 0:
        return
    if len(dims) == 0:
        raise RuntimeError(
            f"{fn_name}: Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    for d in dims:
        if self._sizes[wrap_dim(d, self.dim())] == 0:
            raise IndexError(f"{fn_name}: Expected reduction dim {d} to have non-zero size.")


def _promoting_dtype(self, dtype):
    """get_dtype_from_self(promote_integers=True): integral and bool inputs sum to int64."""
    if dtype is not None:
        return dtype
    if _is_integral(self.dtype):
        return dtypes.int64
    return self.dtype


def sum_dim_IntList(self, dim, keepdim, dtype) -> StructuredMeta:  # noqa: N802
    out_dtype = _promoting_dtype(self, as_dtype(dtype))
    return StructuredMeta(reduction_spec(self, reduced_dims(self, dim), keepdim, out_dtype))


def mean_dim(self, dim, keepdim, dtype) -> StructuredMeta:
    dtype = as_dtype(dtype)
    in_dtype = _promoting_dtype(self, dtype)
    if not (in_dtype.is_floating_point or in_dtype.is_complex):
        what = "Input" if dtype is None else "Optional"
        name = dtypes.scalar_type_name(self.dtype if dtype is None else dtype)
        if self.device.type == "meta":  # PyTorch's Python reference (torch._refs.mean)
            name = str(self.dtype if dtype is None else dtype)
        raise RuntimeError(
            f"mean(): could not infer output dtype. {what} dtype must be either a floating "
            f"point or complex dtype. Got: {name}"
        )
    out_dtype = self.dtype if dtype is None else dtype
    spec = reduction_spec(self, reduced_dims(self, dim), keepdim, out_dtype)
    # infer_dtype_from_optional: a dtype= is what an out= must have (Note [Out= dtypes of
    # structured kernels]); without one the out= tensor's own dtype is taken
    return StructuredMeta(spec, exact_out=dtype is not None)


def prod_dim_int(self, dim, keepdim, dtype) -> StructuredMeta:
    out_dtype = _promoting_dtype(self, as_dtype(dtype))
    return StructuredMeta(reduction_spec(self, reduced_dims(self, [dim]), keepdim, out_dtype))


def _amax_amin(name: str, self, dim, keepdim) -> StructuredMeta:
    if self.numel() == 0:
        zero_numel_check_dims(self, list(dim), f"{name}()")
    dims = reduced_dims(self, dim)
    return StructuredMeta(reduction_spec(self, dims, keepdim, self.dtype))


def amax(self, dim, keepdim) -> StructuredMeta:
    return _amax_amin("amax", self, dim, keepdim)


def amin(self, dim, keepdim) -> StructuredMeta:
    return _amax_amin("amin", self, dim, keepdim)


def _argmax_argmin(name: str, self, dim, keepdim) -> StructuredMeta:
    if self.dtype is dtypes.bool:
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is not None:
        wrapped = wrap_dim(dim, self.dim())
        zero_numel_check_dims(self, [wrapped], f"{name}()")
    elif self.numel() == 0:
        raise IndexError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
        )
    dims = reduced_dims(self, dim)
    return StructuredMeta(reduction_spec(self, dims, keepdim, dtypes.int64), exact_out=True)


def argmax(self, dim, keepdim) -> StructuredMeta:
    return _argmax_argmin("argmax", self, dim, keepdim)


def argmin(self, dim, keepdim) -> StructuredMeta:
    return _argmax_argmin("argmin", self, dim, keepdim)


def _max_min_dim(name: str, self, dim, keepdim) -> StructuredMeta:
    wrapped = wrap_dim(dim, self.dim())
    zero_numel_check_dims(self, [wrapped], f"{name}()")
    dims = reduced_dims(self, [dim])
    values = reduction_spec(self, dims, keepdim, self.dtype)
    indices = reduction_spec(self, dims, keepdim, dtypes.int64)
    return StructuredMeta((values, indices), exact_out=True)


def max_dim(self, dim, keepdim) -> StructuredMeta:
    return _max_min_dim("max", self, dim, keepdim)


def min_dim(self, dim, keepdim) -> StructuredMeta:
    return _max_min_dim("min", self, dim, keepdim)


class AllAnyMeta(StructuredMeta):
    """allany_meta: an out= result must be bool or uint8 (check_result_is_bytebool)."""

    __slots__ = ("name",)

    def __init__(self, spec, name: str) -> None:
        StructuredMeta.__init__(self, spec)
        self.name = name

    def resize_outputs(self, *outs) -> None:
        """The result's dtype is the out tensor's own (get_result_or_bytebool_dtype)."""
        out, spec = outs[0], self.specs[0]
        if out.dtype is not dtypes.bool and out.dtype is not dtypes.uint8:
            raise RuntimeError(
                f"{self.name} only supports bool tensor for result, got: "
                f"{dtypes.scalar_type_name(out.dtype)}"
            )
        resize_output(out, spec.sizes, spec.strides)


def _allany(name, self, dims, keepdim) -> StructuredMeta:
    """allany_meta: uint8 stays uint8, everything else gives bool."""
    out_dtype = dtypes.uint8 if self.dtype is dtypes.uint8 else dtypes.bool
    return AllAnyMeta(reduction_spec(self, dims, keepdim, out_dtype), name)


def all(self) -> StructuredMeta:  # noqa: A001 (aten's name)
    return _allany("all", self, reduced_dims(self, None), False)


def all_dim(self, dim, keepdim) -> StructuredMeta:
    return _allany("all", self, reduced_dims(self, [dim]), keepdim)


def all_dims(self, dim, keepdim) -> StructuredMeta:
    return _allany("all", self, reduced_dims(self, dim, allow_empty_dims=True), keepdim)


def any(self) -> StructuredMeta:  # noqa: A001 (aten's name)
    return _allany("any", self, reduced_dims(self, None), False)


def any_dim(self, dim, keepdim) -> StructuredMeta:
    return _allany("any", self, reduced_dims(self, [dim]), keepdim)


def any_dims(self, dim, keepdim) -> StructuredMeta:
    return _allany("any", self, reduced_dims(self, dim, allow_empty_dims=True), keepdim)


def _check_norm_input(self) -> None:
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(
            "norm(): input dtype should be either floating point or complex. "
            f"Got {dtypes.scalar_type_name(self.dtype)} instead."
        )


def norm_ScalarOpt_dim(self, p, dim, keepdim) -> StructuredMeta:  # noqa: N802
    _check_norm_input(self)
    out_dtype = self.dtype.to_real()
    return StructuredMeta(reduction_spec(self, reduced_dims(self, dim), keepdim, out_dtype))


def norm_ScalarOpt_dim_dtype(self, p, dim, keepdim, dtype) -> StructuredMeta:  # noqa: N802
    _check_norm_input(self)
    out_dtype = as_dtype(dtype)
    if not (out_dtype.is_floating_point or out_dtype.is_complex):
        raise RuntimeError(
            "norm(): the desired output dtype should be either floating point or complex. "
            f"Got {dtypes.scalar_type_name(out_dtype)} instead."
        )
    return StructuredMeta(reduction_spec(self, reduced_dims(self, dim), keepdim, out_dtype))


def check_floating_or_complex(self, name: str) -> None:
    """checkFloatingOrComplex (LinearAlgebraUtils.h)."""
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. "
            f"Got {dtypes.scalar_type_name(self.dtype)}"
        )


def check_linalg_norm_dtype(dtype, self_dtype, name: str) -> None:
    """at::detail::check_linalg_norm_dtype: the dtype= of a norm."""
    if dtype is None:
        return
    text = dtypes.scalar_type_name
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(
            f"{name}: dtype should be floating point or complex, but got {text(dtype)}"
        )
    if self_dtype.is_complex != dtype.is_complex:
        kind = "complex" if self_dtype.is_complex else "real"
        raise RuntimeError(
            f"{name}: dtype should be {kind} for {kind} inputs, but got {text(dtype)}"
        )
    if dtypes.promote_types(self_dtype, dtype) is not dtype:
        raise RuntimeError(
            f"{name}: the dtype of the input ({text(self_dtype)}) should be convertible without "
            f"narrowing to the specified dtype ({text(dtype)})"
        )


def _ord_text(ord) -> str:  # noqa: A002
    """A Scalar as c10 prints it in a message: 2, -0.5, inf."""
    if isinstance(ord, float) and ord.is_integer():
        return str(int(ord))
    return str(ord)


def check_empty_vector_norm(self, ord, dims) -> None:  # noqa: A002
    """An empty tensor has no -p or inf norm over all dims, or over an empty one."""
    value = float(ord)
    if self.numel() != 0 or not (value < 0 or value == float("inf")):
        return
    if not dims:
        raise RuntimeError(
            f"linalg.vector_norm cannot compute the {_ord_text(ord)} norm on an empty tensor "
            "because the operation does not have an identity"
        )
    for d in dims:
        if self._sizes[wrap_dim(d, self.dim())] == 0:
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {_ord_text(ord)} norm on the "
                f"dimension {d}because this dimension is empty and the operation does not "
                "have an identity"
            )


def linalg_vector_norm(self, ord, dim, keepdim, dtype) -> StructuredMeta:  # noqa: A002
    """TORCH_META_FUNC(linalg_vector_norm): a real result of the reduced shape."""
    check_floating_or_complex(self, "linalg.vector_norm")
    if isinstance(ord, complex):
        raise RuntimeError(
            "linalg.vector_norm: Expected a non-complex scalar as the order of norm."
        )
    dims = [] if dim is None else list(dim)
    check_empty_vector_norm(self, ord, dims)
    dtype = as_dtype(dtype)
    check_linalg_norm_dtype(dtype, self.dtype, "linalg.vector_norm")
    out_dtype = (dtype or self.dtype).to_real()
    return StructuredMeta(reduction_spec(self, reduced_dims(self, dims), keepdim, out_dtype))


class CumulativeMeta(StructuredMeta):
    """meta_func_cum_ops: an out= or in-place result keeps its own dtype unless `dtype` is
    given (then it must be that dtype); the op computes in the result's dtype."""

    __slots__ = ("dtype",)

    def __init__(self, spec, dtype) -> None:
        StructuredMeta.__init__(self, spec)
        self.dtype = dtype

    def check_inplace(self, self_tensor) -> None:
        if self.dtype is not None and self.dtype is not self_tensor.dtype:
            raise RuntimeError(
                f"Bad in-place call: input tensor dtype {type_meta_name(self_tensor.dtype)} "
                f"and output tensor dtype {type_meta_name(self.dtype)} should match"
            )
        self.compute_dtype = self_tensor.dtype

    def resize_outputs(self, *outs) -> None:
        out, spec = outs[0], self.specs[0]
        if self.dtype is not None and self.dtype is not out.dtype:
            raise RuntimeError(
                f"Expected out tensor to have dtype {type_meta_name(self.dtype)}, but got "
                f"{type_meta_name(out.dtype)} instead"
            )
        if out.device != spec.device:
            raise RuntimeError(
                f"Expected out tensor to have device {spec.device}, but got {out.device} instead"
            )
        resize_output(out, spec.sizes, spec.strides)
        self.compute_dtype = out.dtype


def cumsum(self, dim, dtype) -> StructuredMeta:
    """meta_func_cum_ops: self's sizes, the dtype given, else int64 for integral and bool."""
    wrap_dim(dim, self.dim())
    dtype = as_dtype(dtype)
    out_dtype = _promoting_dtype(self, dtype)
    return CumulativeMeta(OutputSpec(self._sizes, None, out_dtype, self.device), dtype)


def cumprod(self, dim, dtype) -> StructuredMeta:
    return cumsum(self, dim, dtype)  # both are meta_func_cum_ops
