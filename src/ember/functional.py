"""ember.norm and Tensor.norm: the Python functions PyTorch writes in torch/functional.py.

Layer: torch face. In: a tensor and norm(...)'s Python arguments. Out: the
result of the aten operator PyTorch's function reaches: linalg_vector_norm
for a numeric p (and for "fro" over at most two dims), the Frobenius case of
linalg.matrix_norm otherwise, so grad_fn is LinalgVectorNormBackward0 and a
__torch_dispatch__ mode sees aten.linalg_vector_norm.default, as in PyTorch.
Mirrors torch.functional.norm, Tensor.norm (torch/_tensor.py) and the checks
of linalg_matrix_norm (ATen/native/LinearAlgebra.cpp).
"""

from __future__ import annotations

from ember.aten.meta.reduction import check_floating_or_complex, check_linalg_norm_dtype
from ember.aten.native.common import wrap_dim
from ember.linalg import vector_norm

__all__ = ["norm", "tensor_norm"]


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):  # noqa: A002
    """torch.norm: the vector norm of `input` (or, for a string p, a matrix norm)."""
    _dim = [dim] if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return _vector_norm(input, 2, _dim, keepdim, dtype, out)
        if _dim is None:
            _dim = list(range(input.dim()))
        return _matrix_norm(input, p, _dim, keepdim, dtype, out)
    return _vector_norm(input, 2.0 if p is None else p, _dim, keepdim, dtype, out)


def tensor_norm(self, p="fro", dim=None, keepdim=False, dtype=None):
    """Tensor.norm: torch.norm(self, ...)."""
    return norm(self, p, dim, keepdim, dtype=dtype)


def _vector_norm(input, ord, dim, keepdim, dtype, out):  # noqa: A002
    if out is None:
        return vector_norm(input, ord, dim, keepdim, dtype=dtype)
    return vector_norm(input, ord, dim, keepdim, dtype=dtype, out=out)


def _matrix_norm(A, ord, dim, keepdim, dtype, out):  # noqa: A002, N803
    """linalg_matrix_norm (str ord): its checks, then "fro" as the vector 2-norm of the two
    dims. The nuclear norm needs singular values, which ember does not compute."""
    if ord not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if A.dim() < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    check_floating_or_complex(A, "linalg.matrix_norm")
    dims = list(dim)
    if len(dims) != 2:
        raise RuntimeError(
            f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dims))}"
        )
    first, second = (wrap_dim(d, A.dim()) for d in dims)
    if first == second:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({first}, {second})")
    check_linalg_norm_dtype(dtype, A.dtype, "linalg.matrix_norm")
    if ord == "nuc":
        raise NotImplementedError(
            "ember has no linalg_svdvals, which the nuclear norm (p='nuc') is computed from"
        )
    return _vector_norm(A, 2, dims, keepdim, dtype, out)
