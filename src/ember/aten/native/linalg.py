"""CPU kernels of the matrix products, and the composites built on them.

Layer: aten/native. In: StructuredMeta + out tensors (mm, bmm, addmm, addmv), or
the plain schema arguments (dot, mv, matmul, outer, linear). Out: tensors. The
composites call other operators only through `at`, so autograd sees them.
Mirrors ATen/native/LinearAlgebra.cpp (addmm_impl_cpu_, dot, _matmul_impl,
outer), ATen/native/Blas.cpp (addmv_out_cpu, mv, mv_out) and ATen/native/Linear.cpp (linear).
"""

from __future__ import annotations

import math

import numpy as np

from ember._c10 import dtypes
from ember._c10.tensor_impl import MATH_BITS, apply_math_bits, resolved_array, shape_text
from ember._tensor import empty_tensor, make_view
from ember.aten.binding import scalar_to_tensor
from ember.aten.memory_overlap import (
    assert_no_internal_overlap,
    check_copy,
    refuse_unordered_read,
)
from ember.aten.meta.out_wrapper import check_copy_devices, copy_out
from ember.aten.native import at
from ember.aten.native.common import type_meta_name
from ember.aten.native.factories import checked_value
from ember.aten.native.reduction import accumulate_dtype, store
from ember.aten.native.views import type_string
from ember.aten.structured import StructuredMeta
from ember.aten.tensor_iterator import OutputSpec
from ember.aten.tensor_subclass_like import is_tensor_subclass_like

__all__ = [
    "mm_out", "bmm_out", "addmm_out", "addmv_out", "mv", "mv_out", "dot", "matmul", "outer",
    "linear",
]  # fmt: skip


def _operand(t):
    """A matrix operand in the dtype NumPy multiplies in (float32 for half/bfloat16), its math
    bits resolved (mm, addmm, bmm and dot fall through the Conjugate key: Note [Math bits])."""
    values = resolved_array(t)
    compute = accumulate_dtype(t.dtype)
    return values if values.dtype == compute else values.astype(compute)


def _resolved_for(out, t):
    """t's values as `out` stores them (Note [Math bits])."""
    return apply_math_bits(resolved_array(t), out._key_bits)


def _check_not_bool(name: str, t) -> None:
    """Bool, and the barebones unsigned types (Note [Barebones unsigned types])."""
    if t.dtype is dtypes.bool or t.dtype in dtypes.BAREBONES_UNSIGNED:
        name_of = dtypes.scalar_type_name(t.dtype)
        raise NotImplementedError(f"\"{name}\" not implemented for '{name_of}'")


def _matmul_into(out, a, b) -> None:
    """out = a @ b, written straight into `out` when NumPy can (no temporary copy)."""
    target = out.ndarray()
    if out._key_bits & MATH_BITS:  # an out= with a math bit stores the bit's inverse
        store(out, apply_math_bits(np.matmul(a, b), out._key_bits))
    elif target.dtype == a.dtype == b.dtype:
        np.matmul(a, b, out=target)
    else:
        store(out, np.matmul(a, b))


_GEMM = "BLAS's gemm writes the product while it reads its operands"


def _check_result_overlap(out, self, mat1, beta) -> None:
    """addmm_impl_cpu_'s copies: result.copy_(self) when beta is not 0, then the copy of the
    product into a result BLAS cannot write (so an expanded result is refused); with an
    inner size of 0, result.zero_() or result.mul_(beta) instead
    (Note [Memory overlap checks])."""
    if out.numel() == 0:
        return
    if beta != 0 and self is not None and self is not out and self._storage is out._storage:
        check_copy(out, _expanded(self, out._sizes))
    if mat1._sizes[-1] != 0 or beta != 0:
        assert_no_internal_overlap(out)


def _expanded(t, sizes: tuple):
    """expand_size's result: `t` itself when it has the sizes, else its expanded view."""
    if t._sizes == sizes:
        return t
    lead = len(sizes) - len(t._sizes)
    strides = [0] * lead + [
        stride if size == target else 0
        for size, stride, target in zip(t._sizes, t._strides, sizes[lead:])
    ]
    return make_view(t, sizes, strides, t._storage_offset)


def mm_out(meta, self, mat2, out) -> None:
    if self.dtype is not mat2.dtype:  # addmm_impl_cpu_, after the meta function
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{type_meta_name(self.dtype)} != {type_meta_name(mat2.dtype)}"
        )
    _check_result_overlap(out, None, self, 0)
    refuse_unordered_read(out, self, mat2, why=_GEMM)
    _check_not_bool("addmm_impl_cpu_", self)
    _matmul_into(out, _operand(self), _operand(mat2))


def bmm_out(meta, self, mat2, out) -> None:
    if self.dtype is not mat2.dtype:
        raise RuntimeError(
            f"expected scalar type {dtypes.scalar_type_name(self.dtype)} but found "
            f"{dtypes.scalar_type_name(mat2.dtype)}"
        )
    refuse_unordered_read(out, self, mat2, why=_GEMM)
    _check_not_bool("bmm", self)
    _matmul_into(out, _operand(self), _operand(mat2))


def _expand_size(t, sizes: tuple) -> None:
    """expand_size: `self` of addmm must broadcast to the output, with expand's error text."""
    count = len(t._sizes)
    if count <= len(sizes) and t._sizes == sizes[len(sizes) - count :]:
        return  # (a bias of the output's trailing sizes, or self of the output's own)
    if t.dim() > len(sizes):  # expand's message (expand_size calls expand)
        raise RuntimeError(
            f"expand({type_string(t)}{{{shape_text(t._sizes)}}}, size={shape_text(sizes)}): "
            f"the number of sizes provided ({len(sizes)}) must be greater or equal to the "
            f"number of dimensions in the tensor ({t.dim()})"
        )
    offset = len(sizes) - t.dim()
    for i in range(count - 1, -1, -1):  # inferExpandGeometry: the last dim first
        size, target = t._sizes[i], sizes[offset + i]
        if size != target and size != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({target}) must match the existing size "
                f"({size}) at non-singleton dimension {offset + i}.  Target sizes: "
                f"{shape_text(sizes)}.  Tensor sizes: {shape_text(t._sizes)}"
            )


def addmm_out(meta, self, mat1, mat2, beta, alpha, out) -> None:
    """addmm_impl_cpu_: ``beta * self + alpha * (mat1 @ mat2)``, alpha and beta converted
    (Scalar::to, with its overflow check) to the op-math type of the result: for an integer
    result 0.5 is 0 and 1.7 is 1, as in PyTorch's integer gemm."""
    _expand_size(self, out._sizes)
    _check_result_overlap(out, self, mat1, beta)
    refuse_unordered_read(out, mat1, mat2, why=_GEMM)
    if out.numel() == 0:
        return
    if mat1._sizes[1] == 0:  # [a, 0] x [0, b]: PyTorch scales self by the unconverted beta
        if beta == 0:
            out.ndarray()[...] = 0
        else:
            if self is not out:
                store(out, np.broadcast_to(_resolved_for(out, self), out._sizes))
            at.mul__Tensor(out, scalar_to_tensor(beta))
        return
    _check_not_bool("addmm_impl_cpu_", mat1)
    opmath = dtypes.float32 if mat1.dtype in (dtypes.float16, dtypes.bfloat16) else mat1.dtype
    alpha = checked_value(alpha, opmath)
    beta = checked_value(beta, opmath)
    product = np.matmul(_operand(mat1), _operand(mat2))
    if alpha != 1:
        product = product * alpha
    if beta != 0:
        addend = _operand(self)
        if beta != 1:
            addend = addend * beta
        target = out.ndarray()
        if not out._key_bits & MATH_BITS and target.dtype == product.dtype == addend.dtype:
            np.add(product, addend, out=target)  # the sum broadcast straight into out
            return
        product = product + addend
    store(out, np.broadcast_to(apply_math_bits(product, out._key_bits), out._sizes))


def addmv_out(meta, self, mat, vec, beta, alpha, out) -> None:
    """addmv_out_cpu: ``beta * self + alpha * (mat @ vec)``; an empty mat gives
    ``self * beta`` (or zeros when beta is 0, so NaN in self does not reach the result)."""
    _expand_size(self, out._sizes)
    if mat.numel() == 0:
        if beta == 0:
            if out.numel():
                out.ndarray()[...] = 0
            return
        beta_tensor = at.full([], beta, self.dtype, None, self.device, None)  # scalar_tensor
        at.mul_out(self, beta_tensor, out)
        return
    if beta != 0 and self is not out and self._storage is out._storage and out.numel():
        check_copy(out, _expanded(self, out._sizes))
    if out.numel() == 0:
        return
    refuse_unordered_read(out, mat, vec, why=_GEMV)
    _check_not_bool("addmv_impl_cpu", mat)
    opmath = dtypes.float32 if mat.dtype in (dtypes.float16, dtypes.bfloat16) else mat.dtype
    alpha = checked_value(alpha, mat.dtype)  # Scalar::to<scalar_t>
    beta = checked_value(beta, mat.dtype)
    product = np.matmul(_operand(mat), _operand(vec))
    if alpha != 1:
        product = product * alpha.astype(opmath.np_dtype)
    if beta != 0:
        addend = _operand(self)
        if beta != 1:
            addend = addend * beta.astype(opmath.np_dtype)
        product = product + addend
    store(out, np.broadcast_to(apply_math_bits(product, out._key_bits), out._sizes))


_GEMV = "BLAS's gemv writes the product while it reads its operands"


def mv(self, vec):
    """mv: addmv_ into a fresh result of vec's options, with beta 0."""
    result = at.empty_memory_format([_size0(self)], vec.dtype, None, vec.device, None, None)
    return at.addmv_(result, self, vec, 0, 1)


def mv_out(self, vec, out):
    """mv_out: out itself stands in for self only when it has one element per row; else
    a fresh self of out's options (its values are never read: beta is 0). PyTorch's Meta
    kernel is the Python reference under out_wrapper(exact_dtype=True)."""
    if "meta" in (self.device.type, vec.device.type, out.device.type):
        check_copy_devices(self, out)
        result = at.mv(self, vec)
        spec = OutputSpec(result._sizes, None, result.dtype, result.device)
        copy_out(StructuredMeta(spec), out, exact_dtype=True)
        return out
    if out.dim() > 1 or (out.numel() != _size0(self) or out.numel() != 1):
        addend = at.empty_memory_format([_size0(self)], out.dtype, None, out.device, None, None)
        return at.addmv_out(addend, self, vec, 0, 1, out)
    return at.addmv_out(out, self, vec, 0, 1, out)


def _size0(t) -> int:
    if t.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return t._sizes[0]


def dot(self, tensor):
    """dot: CPU and Meta; the sum of the products of two 1-D tensors (no conjugation)."""
    if self.dim() != 1 or tensor.dim() != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {self.dim()}D and {tensor.dim()}D tensors"
        )
    if self.dtype is not tensor.dtype:
        raise RuntimeError(
            "dot : expected both vectors to have same dtype, but found "
            f"{dtypes.scalar_type_name(self.dtype)} and {dtypes.scalar_type_name(tensor.dtype)}"
        )
    if self.numel() != tensor.numel():
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{self.numel()}] and src "
            f"[{tensor.numel()}] to have the same number of elements, but got "
            f"{self.numel()} and {tensor.numel()} elements respectively"
        )
    out = empty_tensor((), self.dtype, self.device)
    if self.device.type != "meta":
        _check_not_bool("dot", self)
        store(out, np.dot(_operand(self), _operand(tensor)))
    return out


# -- matmul ---------------------------------------------------------------------


def _should_fold(tensor1, tensor2, has_out: bool = False) -> bool:
    """should_fold: multiply the larger operand as one matrix (mm) instead of bmm."""
    tensor1_larger = tensor1.dim() >= tensor2.dim()
    if tensor1_larger:
        t1, dim_t2, t2_requires_grad = tensor1, tensor2.dim(), tensor2.requires_grad
    else:
        t1 = at.transpose_int(tensor2, -1, -2)
        dim_t2, t2_requires_grad = tensor1.dim(), tensor1.requires_grad
    if not (t1.dim() >= 3 and dim_t2 <= 2):
        return False
    if t2_requires_grad and not has_out:
        return True
    if tensor1.dim() == 2:
        return False
    if t1.numel() == 0:
        return True
    sizes, strides = t1._sizes, t1._strides
    for i in range(t1.dim() - 2):
        if strides[i] != strides[i + 1] * sizes[i + 1]:
            return False
    return True


def _matmul_folded(tensor1, tensor2):
    transpose = tensor2.dim() > tensor1.dim()
    if transpose:
        t1 = at.transpose_int(tensor2, -1, -2)
        t2 = at.t(tensor1) if tensor1.dim() == 2 else tensor1
    else:
        t1, t2 = tensor1, tensor2
    output_shape = list(t1._sizes[:-1])
    folded_dim1 = math.prod(output_shape)
    if t2.dim() == 2:
        output_shape.append(t2._sizes[1])
    t1_folded = at.reshape(t1, [folded_dim1, t1._sizes[-1]])
    if t2.dim() == 2:
        output = at._unsafe_view(at.mm(t1_folded, t2), output_shape)
        if transpose:
            return at.contiguous(at.transpose_int(output, -1, -2), 0)
        return output
    return at._unsafe_view(at.mv(t1_folded, t2), output_shape)


def _broadcast_batches(a: tuple, b: tuple) -> list[int]:
    from ember.aten.tensor_iterator import broadcast_shapes

    return list(broadcast_shapes(tuple(a), tuple(b)))


def batched_operands(tensor1, tensor2):
    """_matmul_impl's broadcast case: both operands expanded over the broadcast batch dims
    and reshaped to 3-d for bmm; also the result's shape (its matrix dims as the operands'
    dims keep them)."""
    dim1, dim2 = tensor1.dim(), tensor2.dim()
    n = tensor1._sizes[-2] if dim1 > 1 else 1
    m1 = tensor1._sizes[-1]
    m2 = tensor2._sizes[-2] if dim2 > 1 else tensor2._sizes[0]
    p = tensor2._sizes[-1] if dim2 > 1 else 1
    output_shape = _broadcast_batches(
        tensor1._sizes[: max(dim1 - 2, 0)], tensor2._sizes[: max(dim2 - 2, 0)]
    )
    batch = math.prod(output_shape)
    expanded1 = at.reshape(at.expand(tensor1, [*output_shape, n, m1], False), [batch, n, m1])
    if dim2 == 1:
        expanded2 = at.expand(tensor2, [*output_shape, m2], False)
        expanded2 = at.unsqueeze(at.reshape(expanded2, [batch, m2]), 2)
    else:
        expanded2 = at.expand(tensor2, [*output_shape, m2, p], False)
        expanded2 = at.reshape(expanded2, [batch, m2, p])
    if dim1 > 1:
        output_shape.append(n)
    if dim2 > 1:
        output_shape.append(p)
    return expanded1, expanded2, output_shape


def _matmul_batched(tensor1, tensor2):
    expanded1, expanded2, output_shape = batched_operands(tensor1, tensor2)
    product = at.bmm(expanded1, expanded2)
    if tensor2.dim() == 1:
        product = at.squeeze_dim(product, -1)
    return at._unsafe_view(product, output_shape)


def matmul(self, other):
    """_matmul_impl: dot, mv, mm, folded mm or broadcast bmm by the operands' dims."""
    dim1, dim2 = self.dim(), other.dim()
    if dim1 == 0 or dim2 == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {dim1}D and {dim2}D"
        )
    if dim1 == 1 and dim2 == 1:
        return at.dot(self, other)
    if dim1 == 2 and dim2 == 1:
        return at.mv(self, other)
    if dim1 == 1 and dim2 == 2:
        return at.squeeze_dim(at.mm(at.unsqueeze(self, 0), other), 0)
    if dim1 == 2 and dim2 == 2:
        return at.mm(self, other)
    if _should_fold(self, other):
        return _matmul_folded(self, other)
    return _matmul_batched(self, other)


def outer(self, vec2):
    for name, t in (("self", self), ("vec2", vec2)):
        if t.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.dim()}-D")
    return at.mul_Tensor(at.reshape(self, [self._sizes[0], 1]), vec2)


def _flatten_nd_linear(input, weight, bias):
    sizes = input._sizes
    flattened = at.reshape(input, [math.prod(sizes[:-1]), sizes[-1]])
    result = at.addmm(bias, flattened, at.t(weight), 1, 1)
    return at.view(result, [*sizes[:-1], result._sizes[1]])


def linear(input, weight, bias):  # noqa: A002 (PyTorch's argument name)
    if input.dim() == 2 and bias is not None:
        return at.addmm(bias, input, at.t(weight), 1, 1)
    if bias is not None and input.is_contiguous():
        if input.dim() == 3 or bias.dim() == 1:
            return _flatten_nd_linear(input, weight, bias)
    output = at.matmul(input, at.t(weight))
    if bias is not None:
        # composite compliance: out of place for a subclass-like bias (or under a mode)
        if is_tensor_subclass_like(bias):
            return at.add_Tensor(output, bias, 1)
        output = at.add__Tensor(output, bias, 1)
    return output
