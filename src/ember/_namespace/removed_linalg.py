"""The linear-algebra functions PyTorch removed in 1.9 and still names: torch.solve,
torch.lstsq, torch.eig, torch.symeig, torch.matrix_rank.

Layer: _namespace. In: their old arguments. Out: never returns; each raises PyTorch's
RuntimeError pointing at the torch.linalg replacement. Mirrors torch/_linalg_utils.py
(symeig is its `_symeig`, exported under the old name).
"""

from __future__ import annotations

from ember._c10.naming import as_named

__all__ = ["eig", "lstsq", "matrix_rank", "solve", "symeig"]

_REMOVED = "This function was deprecated since version 1.9 and is now removed."


def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    raise RuntimeError(
        as_named(
            f"{_REMOVED}\nPlease use the `ember.linalg.matrix_rank` function instead. The "
            "parameter 'symmetric' was renamed in `ember.linalg.matrix_rank()` to 'hermitian'."
        )
    )


def solve(input, A, *, out=None):
    raise RuntimeError(
        as_named(
            f"{_REMOVED} `ember.solve` is deprecated in favor of `ember.linalg.solve`. "
            "`ember.linalg.solve` has its arguments reversed and does not return the LU "
            "factorization.\n\nTo get the LU factorization see `ember.lu`, which can be used "
            "with `ember.lu_solve` or `ember.lu_unpack`.\nX = ember.solve(B, A).solution should "
            "be replaced with:\nX = ember.linalg.solve(A, B)"
        )
    )


def lstsq(input, A, *, out=None):
    raise RuntimeError(
        as_named(
            f"{_REMOVED} `ember.lstsq` is deprecated in favor of `ember.linalg.lstsq`.\n"
            "`ember.linalg.lstsq` has reversed arguments and does not return the QR "
            "decomposition in the returned tuple (although it returns other information about "
            "the problem).\n\nTo get the QR decomposition consider using `ember.linalg.qr`.\n\n"
            "The returned solution in `ember.lstsq` stored the residuals of the solution in the "
            "last m - n columns of the returned value whenever m > n. In ember.linalg.lstsq, the "
            "residuals are in the field 'residuals' of the returned named tuple.\n\n"
            "The unpacking of the solution, as in\nX, _ = ember.lstsq(B, A).solution[:A.size(1)]\n"
            "should be replaced with:\nX = ember.linalg.lstsq(A, B).solution"
        )
    )


def _symeig(input, eigenvectors=False, upper=True, *, out=None):
    raise RuntimeError(
        as_named(
            f"{_REMOVED} The default behavior has changed from using the upper triangular "
            "portion of the matrix by default to using the lower triangular portion.\n\n"
            "L, _ = ember.symeig(A, upper=upper) should be replaced with:\n"
            "L = ember.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\n"
            "L, V = ember.symeig(A, eigenvectors=True) should be replaced with:\n"
            "L, V = ember.linalg.eigh(A, UPLO='U' if upper else 'L')"
        )
    )


symeig = _symeig


def eig(self, eigenvectors=False, *, e=None, v=None):
    raise RuntimeError(
        as_named(
            f"{_REMOVED} `ember.linalg.eig` returns complex tensors of dtype `cfloat` or "
            "`cdouble` rather than real tensors mimicking complex tensors.\n\n"
            "L, _ = ember.eig(A) should be replaced with:\nL_complex = ember.linalg.eigvals(A)"
            "\n\nand\n\nL, V = ember.eig(A, eigenvectors=True) should be replaced with:\n"
            "L_complex, V_complex = ember.linalg.eig(A)"
        )
    )
