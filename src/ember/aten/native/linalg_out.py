"""matmul with out=, and the out_dtype overloads of mm, bmm and addmm.

Layer: aten/native. In: the plain schema arguments. Out: `out` written (matmul.out) or
meta tensors (the out_dtype overloads). matmul.out mirrors the out= paths of _matmul_impl
in ATen/native/LinearAlgebra.cpp: dot_out, mv_out, mm_out, the folded mm_out and the
broadcast bmm_out, with the checks each of them makes. PyTorch has CUDA and XPU kernels
only for mm.dtype, bmm.dtype and addmm.dtype (and their out= overloads); on the CPU they
are missing, on Meta they are the Python meta kernels of torch/_meta_registrations.py
(meta_mm, meta_bmm_dtype) and torch/_decomp (addmm_dtype), mirrored here.
"""

from __future__ import annotations

import math

from ember._c10 import dtypes
from ember._c10.grad_mode import is_grad_enabled
from ember._tensor import empty_tensor
from ember.aten.meta.linalg import meta_mm_checks
from ember.aten.meta.out_wrapper import check_copy_devices
from ember.aten.native import at
from ember.aten.native.linalg import _should_fold, batched_operands
from ember.aten.native.resize import resize_output
from ember.aten.tensor_iterator import broadcast_shapes

__all__ = [
    "matmul_out",
    "mm_dtype",
    "mm_dtype_out",
    "bmm_dtype",
    "bmm_dtype_out",
    "addmm_dtype",
    "addmm_dtype_out",
]

_name = dtypes.scalar_type_name


def _dot_out(self, other, out):
    if "meta" in (other.device.type, self.device.type, out.device.type):
        # PyTorch's Python meta kernel of dot: out_wrapper, then check_same_device
        check_copy_devices(self, out)
        if other.device != self.device:
            raise RuntimeError(
                f"Tensor on device {other.device} is not on the expected device {self.device}!"
            )
    if not (out.device == self.device == other.device):
        raise RuntimeError(
            "dot: Expected the output and input tensors to be on the same device, but got "
            f"the output tensor on {out.device}, the 'input' tensor on {self.device}, and the "
            f"'other' tensor on {other.device}"
        )
    resize_output(out, ())
    if out.dtype is not self.dtype:
        raise RuntimeError(
            f"result dtype {_name(out.dtype)} does not match input dtype {_name(self.dtype)}"
        )
    return at.fill__Tensor(out, at.dot(self, other))


def _copy_back(out, written):
    """`if (!reshaped_out.is_alias_of(out)) out.copy_(...)`."""
    if written._storage is not out._storage:
        at.copy_(out, at.view(written, list(out._sizes)), False)
    return out


def _folded_out(tensor1, tensor2, out):
    if tensor2.dim() > tensor1.dim():  # a vector times a batch of matrices
        t1, t2 = at.transpose_int(tensor2, -1, -2), tensor1
    else:
        t1, t2 = tensor1, tensor2
    output_shape = list(t1._sizes[:-1])
    folded_dim1 = math.prod(output_shape)
    matrix = t2.dim() == 2
    if matrix:
        output_shape.append(t2._sizes[1])
    t1_folded = at.reshape(t1, [folded_dim1, t1._sizes[-1]])
    resize_output(out, tuple(output_shape))
    if matrix:
        reshaped = at.reshape(out, [folded_dim1, t2._sizes[-1]])
        at.mm_out(t1_folded, t2, reshaped)
    else:
        reshaped = at.reshape(out, [folded_dim1])
        at.mv_out(t1_folded, t2, reshaped)
    return _copy_back(out, reshaped)


def _batched_out(tensor1, tensor2, out):
    expanded1, expanded2, output_shape = batched_operands(tensor1, tensor2)
    resize_output(out, tuple(output_shape))
    reshaped = at.reshape(out, list(expanded1._sizes[:2]) + [expanded2._sizes[2]])
    at.bmm_out(expanded1, expanded2, reshaped)
    if tensor2.dim() == 1:
        reshaped = at.squeeze_dim(reshaped, -1)
    return _copy_back(out, reshaped)


def matmul_out(self, other, out):
    """_matmul_impl with `out`: the path its operands' dims choose, writing into `out`."""
    dim1, dim2 = self.dim(), other.dim()
    if dim1 == 0 or dim2 == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {dim1}D and {dim2}D"
        )
    if is_grad_enabled() and (self._requires_grad or other._requires_grad or out._requires_grad):
        raise RuntimeError(
            "matmul(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    if out.device != self.device and "meta" in (out.device.type, self.device.type):
        check_copy_devices(self, out)  # the Python meta kernel of the op it lands on
    if dim1 == 1 and dim2 == 1:
        return _dot_out(self, other, out)
    if dim1 == 2 and dim2 == 1:
        return at.mv_out(self, other, out)
    if dim1 == 1 and dim2 == 2:
        at.mm_out(at.unsqueeze(self, 0), other, out)
        return at.squeeze__dim(out, 0)
    if dim1 == 2 and dim2 == 2:
        return at.mm_out(self, other, out)
    if _should_fold(self, other, has_out=True):
        return _folded_out(self, other, out)
    return _batched_out(self, other, out)


# -- the out_dtype overloads (Meta only, as in PyTorch's CPU build) --------------------------


def _meta_result(sizes, dtype, like):
    return empty_tensor(tuple(sizes), dtype, like.device)


def _copy_out_exact(result, out):
    """out_wrapper(exact_dtype=True): resize `out`, then the devices and the exact dtype."""
    resize_output(out, result._sizes)
    if out.device != result.device:
        check_copy_devices(result, out)
    if out.dtype is not result.dtype:
        raise RuntimeError(
            f"Expected out tensor to have dtype {result.dtype} but got {out.dtype} instead"
        )
    return out


def mm_dtype(self, mat2, out_dtype):
    """meta_mm with out_dtype."""
    meta_mm_checks(self, mat2)
    widened = out_dtype is dtypes.float32 and self.dtype in (dtypes.float16, dtypes.bfloat16)
    if not (out_dtype is self.dtype or widened):
        raise RuntimeError("out_dtype must be the same as input dtype or fp32 for fp16/bf16 inputs")
    return _meta_result((self._sizes[0], mat2._sizes[1]), out_dtype, self)


def mm_dtype_out(self, mat2, out_dtype, out):
    return _copy_out_exact(mm_dtype(self, mat2, out_dtype), out)


def bmm_dtype(self, mat2, out_dtype):
    """common_meta_baddbmm_bmm with out_dtype."""
    if self.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if self.dtype is not mat2.dtype:
        raise RuntimeError(f"expected scalar type {self.dtype} but found {mat2.dtype}")
    bs, rows, contraction = self._sizes
    if mat2._sizes[0] != bs or mat2._sizes[1] != contraction:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{bs}, "
            f"{contraction}] but got: [{mat2._sizes[0]}, {mat2._sizes[1]}]."
        )
    widened = out_dtype is dtypes.float32 and self.dtype in (dtypes.float16, dtypes.bfloat16)
    if not (out_dtype is self.dtype or widened):
        raise RuntimeError(
            "out_dtype only supported for torch.float32 output with float16/bfloat16 inputs "
            "or same as input dtypes"
        )
    return _meta_result((bs, rows, mat2._sizes[2]), out_dtype, self)


def bmm_dtype_out(self, mat2, out_dtype, out):
    return _copy_out_exact(bmm_dtype(self, mat2, out_dtype), out)


def addmm_dtype(self, mat1, mat2, out_dtype, beta, alpha):
    """addmm_dtype of torch/_decomp: alpha * mm(mat1, mat2, out_dtype) + beta * self."""
    product = mm_dtype(mat1, mat2, out_dtype)
    if beta == 0:
        return product
    sizes = broadcast_shapes(product._sizes, self._sizes)
    return _meta_result(sizes, out_dtype, product)


def addmm_dtype_out(self, mat1, mat2, out_dtype, beta, alpha, out):
    return _copy_out_exact(addmm_dtype(self, mat1, mat2, out_dtype, beta, alpha), out)
