"""CPU kernels of addr, baddbmm and addbmm: beta * self + alpha * (outer product, batched
matrix product, or the sum of the batch's products).

Layer: aten/native. In: the schema arguments (out tensors for out=). Out: tensors
computed by NumPy; self is expanded to the result's shape first, as expand_size does.
beta == 0 ignores self (its NaNs included). Mirrors addr / build_addr_iter of
ATen/native/LinearAlgebra.cpp with addr_kernel of cpu/LinearAlgebraKernel.cpp, and
TORCH_META_FUNC(baddbmm) / common_checks_baddbmm_bmm / addbmm_impl_ of
ATen/native/LinearAlgebra.cpp.
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._c10.tensor_impl import shape_text
from ember._tensor import empty_tensor
from ember.aten.native import at
from ember.aten.native.common import type_meta_name, wrap_dim
from ember.aten.native.reduction import store
from ember.aten.native.resize import resize_output

__all__ = [
    "addbmm",
    "addbmm_",
    "addbmm_out",
    "addr",
    "addr_",
    "addr_out",
    "baddbmm",
    "baddbmm_",
    "baddbmm_dtype",
    "baddbmm_dtype_out",
    "baddbmm_out",
]


def _integral(dtype) -> bool:
    return not (dtype.is_floating_point or dtype.is_complex)


def _check_scalars(dtype, beta, alpha) -> None:
    if dtype is dtypes.bool:
        return
    if isinstance(beta, bool):
        raise RuntimeError("Boolean beta only supported for Boolean results.")
    if isinstance(alpha, bool):
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if _integral(dtype):
        if isinstance(beta, (float, complex)):
            raise RuntimeError(
                "For integral input tensors, argument beta must not be a floating point number."
            )
        if isinstance(alpha, (float, complex)):
            raise RuntimeError(
                "For integral input tensors, argument alpha must not be a floating point number."
            )


def _opmath(dtype):
    """at::opmath_type: float for the half types, the type itself otherwise."""
    if dtype is dtypes.float16 or dtype is dtypes.bfloat16:
        return np.dtype(np.float32)
    return dtype.np_dtype


def _combine(self_values, product, beta, alpha, dtype):
    kind = _opmath(dtype)
    if dtype is dtypes.bool:
        scaled = np.logical_and(bool(alpha), product)
        return (
            scaled if not beta else np.logical_or(np.logical_and(bool(beta), self_values), scaled)
        )
    with np.errstate(all="ignore"):
        scaled = (np.asarray(alpha).astype(kind) * product).astype(kind)
        if beta == 0:
            return scaled
        return (np.asarray(beta).astype(kind) * self_values.astype(kind) + scaled).astype(kind)


def _addr_parts(self, vec1, vec2):
    for name, t in (("vec1", vec1), ("vec2", vec2)):
        if t.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {t.dim()}-D")
    target = at.expand(self, [vec1._sizes[0], vec2._sizes[0]], False)
    dtype = dtypes.result_type(self, vec1, vec2)
    return target, dtype


def _addr_values(target, vec1, vec2, beta, alpha, dtype):
    _check_scalars(dtype, beta, alpha)
    kind = _opmath(dtype)
    first = vec1.ndarray().astype(kind).reshape(-1, 1)
    second = vec2.ndarray().astype(kind)
    if dtype is dtypes.bool:
        product = np.logical_and(first, second)
    else:
        with np.errstate(all="ignore"):
            product = (np.asarray(alpha).astype(kind) * first).astype(kind) * second
        alpha = 1
    return _combine(target.ndarray(), product, beta, alpha, dtype)


def addr(self, vec1, vec2, beta, alpha):
    target, dtype = _addr_parts(self, vec1, vec2)
    result = empty_tensor(target._sizes, dtype, self.device)
    store(result, _addr_values(target, vec1, vec2, beta, alpha, dtype))
    return result


def addr_out(self, vec1, vec2, beta, alpha, out):
    target, dtype = _addr_parts(self, vec1, vec2)
    values = _addr_values(target, vec1, vec2, beta, alpha, dtype)
    resize_output(out, target._sizes)
    store(out, values)
    return out


def addr_(self, vec1, vec2, beta, alpha):
    return addr_out(self, vec1, vec2, beta, alpha, self)


def _baddbmm_checks(name, self, batch1, batch2, target_sizes):
    target = at.expand(self, target_sizes, False)
    if self.dtype is not batch1.dtype:
        raise RuntimeError(
            f"Input dtypes must be the same, got: input {type_meta_name(self.dtype)}, batch1: "
            f"{type_meta_name(batch1.dtype)}, batch2: {type_meta_name(batch2.dtype)}"
        )
    if batch1.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    batch, rows, inner = batch1._sizes
    if batch2._sizes[0] != batch or batch2._sizes[1] != inner:
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{batch}, {inner}] but got: [{batch2._sizes[0]}, {batch2._sizes[1]}]."
        )
    if batch2.dtype is not batch1.dtype:
        raise RuntimeError(
            f"expected scalar type {dtypes.scalar_type_name(batch1.dtype)} but found "
            f"{dtypes.scalar_type_name(batch2.dtype)}"
        )
    return target


def _batched_product(batch1, batch2, dtype):
    kind = _opmath(dtype)
    with np.errstate(all="ignore"):
        return np.matmul(batch1.ndarray().astype(kind), batch2.ndarray().astype(kind))


def _small_batched_product(batch1, batch2, dtype):
    """baddbmm_cpu_kernel (contraction * rows * cols < 400): the products summed over the
    contraction dim one at a time, in opmath."""
    kind = _opmath(dtype)
    left = batch1.ndarray().astype(kind)
    right = batch2.ndarray().astype(kind)
    acc = np.zeros((left.shape[0], left.shape[1], right.shape[2]), kind)
    with np.errstate(all="ignore"):
        for k in range(left.shape[2]):
            acc = (acc + left[:, :, k, None] * right[:, None, k, :]).astype(kind)
    return acc


def _baddbmm_values(self, batch1, batch2, beta, alpha):
    sizes = [
        batch1._sizes[wrap_dim(0, batch1.dim(), False)],
        batch1._sizes[wrap_dim(1, batch1.dim(), False)],
        batch2._sizes[wrap_dim(2, batch2.dim(), False)],
    ]
    target = _baddbmm_checks("baddbmm", self, batch1, batch2, sizes)
    if batch1._sizes[2] * batch1._sizes[1] * batch2._sizes[2] < 400:
        product = _small_batched_product(batch1, batch2, self.dtype)
    else:
        product = _batched_product(batch1, batch2, self.dtype)
    return target._sizes, _combine(target.ndarray(), product, beta, alpha, self.dtype)


def baddbmm(self, batch1, batch2, beta, alpha):
    sizes, values = _baddbmm_values(self, batch1, batch2, beta, alpha)
    result = empty_tensor(sizes, self.dtype, self.device)
    store(result, values)
    return result


def baddbmm_out(self, batch1, batch2, beta, alpha, out):
    sizes, values = _baddbmm_values(self, batch1, batch2, beta, alpha)
    resize_output(out, sizes)
    store(out, values)
    return out


def baddbmm_(self, batch1, batch2, beta, alpha):
    sizes = [
        batch1._sizes[wrap_dim(0, batch1.dim(), False)],
        batch1._sizes[wrap_dim(1, batch1.dim(), False)],
        batch2._sizes[wrap_dim(2, batch2.dim(), False)],
    ]
    if list(self._sizes) != sizes:  # the structured in-place check
        raise RuntimeError(
            f"Bad in-place call: input tensor size {shape_text(self._sizes)} and output tensor "
            f"size {shape_text(sizes)} should match"
        )
    return baddbmm_out(self, batch1, batch2, beta, alpha, self)


def _addbmm_values(self, batch1, batch2, beta, alpha):
    target = at.expand(
        self,
        [batch1._sizes[wrap_dim(1, batch1.dim(), False)],
         batch2._sizes[wrap_dim(2, batch2.dim(), False)]],
        False,
    )  # fmt: skip
    for name, t in (("batch1", batch1), ("batch2", batch2)):
        if t.dim() != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if batch1._sizes[0] != batch2._sizes[0]:
        raise RuntimeError(
            f"batch1 and batch2 must have same number of batches, got {batch1._sizes[0]} and "
            f"{batch2._sizes[0]}"
        )
    if batch1._sizes[2] != batch2._sizes[1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for bmm ({batch1._sizes[1]}x{batch1._sizes[2]} and "
            f"{batch2._sizes[1]}x{batch2._sizes[2]})"
        )
    # addbmm_impl_: one addmm_ per batch (beta for the first, 1 after), each rounded to the
    # result's dtype
    products = _batched_product(batch1, batch2, self.dtype)
    kind = self.dtype.np_dtype
    values = np.asarray(target.ndarray()).astype(kind)
    if products.shape[0] == 0:
        return target._sizes, _combine(values, np.zeros(values.shape), beta, alpha, self.dtype)
    for i in range(products.shape[0]):
        values = np.asarray(
            _combine(values, products[i], beta if i == 0 else 1, alpha, self.dtype)
        ).astype(kind)
    return target._sizes, values


def addbmm(self, batch1, batch2, beta, alpha):
    sizes, values = _addbmm_values(self, batch1, batch2, beta, alpha)
    result = empty_tensor(sizes, self.dtype, self.device)
    store(result, values)
    return result


def addbmm_out(self, batch1, batch2, beta, alpha, out):
    sizes, values = _addbmm_values(self, batch1, batch2, beta, alpha)
    resize_output(out, sizes)
    store(out, values)
    return out


def addbmm_(self, batch1, batch2, beta, alpha):
    return addbmm_out(self, batch1, batch2, beta, alpha, self)


def _meta_sizes(batch1, batch2) -> list:
    return [
        batch1._sizes[wrap_dim(0, batch1.dim(), False)],
        batch1._sizes[wrap_dim(1, batch1.dim(), False)],
        batch2._sizes[wrap_dim(2, batch2.dim(), False)],
    ]


# PyTorch has only an XPU kernel of baddbmm.dtype; its Meta kernel (a Python meta
# registration of 2.13) binds out_dtype where baddbmm's beta goes and fails on beta * self.
_META_DTYPE_ERROR = "unsupported operand type(s) for *: 'Tensor' and 'torch.dtype'"


def baddbmm_dtype(self, batch1, batch2, out_dtype, beta, alpha):
    """baddbmm.dtype on Meta: PyTorch 2.13's error, word for word."""
    raise TypeError(_META_DTYPE_ERROR)


def baddbmm_dtype_out(self, batch1, batch2, out_dtype, beta, alpha, out):
    raise TypeError(_META_DTYPE_ERROR)
