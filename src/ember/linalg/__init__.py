"""ember.linalg: the torch.linalg functions ember has.

Layer: torch face. Mirrors torch/linalg/__init__.py, whose functions are the
bindings of the `python_module: linalg` operators (torch._C._linalg):
`vector_norm` is aten::linalg_vector_norm, `det` aten::linalg_det.
"""

from ember.aten._generated import python_linalg_functions as _f
from ember.aten.native.linalg_decomp import _LinAlgError as LinAlgError

cholesky = _f.linalg_cholesky
cholesky_ex = _f.linalg_cholesky_ex
det = _f.linalg_det
diagonal = _f.linalg_diagonal
eig = _f.linalg_eig
eigvals = _f.linalg_eigvals
eigh = _f.linalg_eigh
eigvalsh = _f.linalg_eigvalsh
inv = _f.linalg_inv
inv_ex = _f.linalg_inv_ex
lstsq = _f.linalg_lstsq
householder_product = _f.linalg_householder_product
lu = _f.linalg_lu
cond = _f.linalg_cond
cross = _f.linalg_cross
multi_dot = _f.linalg_multi_dot
tensorinv = _f.linalg_tensorinv
tensorsolve = _f.linalg_tensorsolve
vander = _f.linalg_vander
matrix_exp = _f.linalg_matrix_exp
matrix_rank = _f.linalg_matrix_rank
pinv = _f.linalg_pinv
lu_factor = _f.linalg_lu_factor
lu_factor_ex = _f.linalg_lu_factor_ex
lu_solve = _f.linalg_lu_solve
matrix_norm = _f.linalg_matrix_norm
matrix_power = _f.linalg_matrix_power
norm = _f.linalg_norm
qr = _f.linalg_qr
slogdet = _f.linalg_slogdet
solve = _f.linalg_solve
solve_ex = _f.linalg_solve_ex
solve_triangular = _f.linalg_solve_triangular
svd = _f.linalg_svd
svdvals = _f.linalg_svdvals
vecdot = _f.linalg_vecdot
vector_norm = _f.linalg_vector_norm

__all__ = [
    "LinAlgError", "cholesky", "cholesky_ex", "det", "eigh", "eigvalsh", "inv", "inv_ex",
    "lstsq", "matrix_norm", "norm", "qr", "slogdet", "solve", "solve_ex", "svd", "svdvals",
    "vector_norm", "diagonal", "eig", "eigvals", "matrix_power", "vecdot",
    "solve_triangular", "lu", "lu_factor", "lu_factor_ex", "lu_solve",
    "cond", "householder_product", "matrix_exp", "matrix_rank", "pinv", "cross", "multi_dot", "tensorinv", "tensorsolve", "vander",
]  # fmt: skip
