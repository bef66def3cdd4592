"""`ember.return_types`: the named tuples that operators with named returns give back in Python.

Layer: the Python face (above aten). In: the plain tuple an operator returns
through the dispatcher (`ember.ops.aten.max.dim` gives a tuple, as in PyTorch).
Out: a tuple subclass with one attribute per named return, printed as
`ember.return_types.max(\\nvalues=tensor(...),\\nindices=tensor(...))`.
The generated Python functions (aten/_generated/python_functions.py) wrap
their results in these. Mirrors torch/return_types.py and the PyStructSequence
types of torch/csrc/autograd/generated/python_return_types.cpp.
"""

from __future__ import annotations

__all__ = [
    "max",
    "max_out",
    "min",
    "min_out",
    "sort",
    "sort_out",
    "topk",
    "topk_out",
    "linalg_lstsq",
    "linalg_lstsq_out",
    "linalg_slogdet",
    "linalg_slogdet_out",
    "slogdet",
    "slogdet_out",
    "linalg_inv_ex",
    "linalg_inv_ex_out",
    "linalg_solve_ex",
    "linalg_solve_ex_out",
    "linalg_cholesky_ex",
    "linalg_cholesky_ex_out",
    "linalg_qr",
    "linalg_qr_out",
    "linalg_svd",
    "linalg_svd_out",
    "svd",
    "svd_out",
    "linalg_eigh",
    "linalg_eigh_out",
    "qr",
    "linalg_eig",
    "linalg_eig_out",
    "qr_out",
    "structseq",
    "aminmax",
    "aminmax_out",
    "cummax",
    "cummax_out",
    "cummin",
    "cummin_out",
    "kthvalue",
    "kthvalue_out",
    "median",
    "median_out",
    "mode",
    "mode_out",
    "nanmedian",
    "nanmedian_out",
]


class _StructSequence(tuple):
    """A fixed-length tuple whose items also have names (PyStructSequence)."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    n_fields = 0
    n_sequence_fields = 0
    n_unnamed_fields = 0

    def __new__(cls, sequence=()):
        items = tuple(sequence)
        if len(items) != len(cls._fields):
            raise TypeError(
                f"{cls.__module__}.{cls.__name__}() takes a {len(cls._fields)}-sequence "
                f"({len(items)}-sequence given)"
            )
        return super().__new__(cls, items)

    def __repr__(self) -> str:
        lines = [f"{name}={value!r}" for name, value in zip(self._fields, self)]
        return f"{self.__module__}.{type(self).__name__}(\n" + ",\n".join(lines) + ")"

    __str__ = __repr__

    def __reduce__(self):
        return (type(self), (tuple(self),))


def structseq(name: str, fields: tuple[str, ...]) -> type:
    """A new named-tuple type `ember.return_types.<name>` with the given field names."""
    namespace = {"__slots__": (), "_fields": fields, "__module__": __name__}
    namespace["n_fields"] = namespace["n_sequence_fields"] = len(fields)
    for index, field in enumerate(fields):
        namespace[field] = property(lambda self, i=index: tuple.__getitem__(self, i))
    result = type(name, (_StructSequence,), namespace)
    result.__qualname__ = name
    return result


_VALUES_INDICES = ("values", "indices")

max = structseq("max", _VALUES_INDICES)  # noqa: A001 (PyTorch's name)
max_out = structseq("max_out", _VALUES_INDICES)
min = structseq("min", _VALUES_INDICES)  # noqa: A001
min_out = structseq("min_out", _VALUES_INDICES)
sort = structseq("sort", _VALUES_INDICES)
sort_out = structseq("sort_out", _VALUES_INDICES)
topk = structseq("topk", _VALUES_INDICES)
topk_out = structseq("topk_out", _VALUES_INDICES)

_LSTSQ = ("solution", "residuals", "rank", "singular_values")
linalg_lstsq = structseq("linalg_lstsq", _LSTSQ)
linalg_lstsq_out = structseq("linalg_lstsq_out", _LSTSQ)

aminmax = structseq("aminmax", ("min", "max"))
aminmax_out = structseq("aminmax_out", ("min", "max"))
cummax = structseq("cummax", _VALUES_INDICES)
cummax_out = structseq("cummax_out", _VALUES_INDICES)
cummin = structseq("cummin", _VALUES_INDICES)
cummin_out = structseq("cummin_out", _VALUES_INDICES)
kthvalue = structseq("kthvalue", _VALUES_INDICES)
kthvalue_out = structseq("kthvalue_out", _VALUES_INDICES)
median = structseq("median", _VALUES_INDICES)
median_out = structseq("median_out", _VALUES_INDICES)
mode = structseq("mode", _VALUES_INDICES)
mode_out = structseq("mode_out", _VALUES_INDICES)
nanmedian = structseq("nanmedian", _VALUES_INDICES)
nanmedian_out = structseq("nanmedian_out", _VALUES_INDICES)
# the linalg decompositions
_SLOGDET = ("sign", "logabsdet")
linalg_slogdet = structseq("linalg_slogdet", _SLOGDET)
linalg_slogdet_out = structseq("linalg_slogdet_out", _SLOGDET)
slogdet = structseq("slogdet", _SLOGDET)
slogdet_out = structseq("slogdet_out", _SLOGDET)
linalg_inv_ex = structseq("linalg_inv_ex", ("inverse", "info"))
linalg_inv_ex_out = structseq("linalg_inv_ex_out", ("inverse", "info"))
linalg_solve_ex = structseq("linalg_solve_ex", ("result", "info"))
linalg_solve_ex_out = structseq("linalg_solve_ex_out", ("result", "info"))
linalg_cholesky_ex = structseq("linalg_cholesky_ex", ("L", "info"))
linalg_cholesky_ex_out = structseq("linalg_cholesky_ex_out", ("L", "info"))
linalg_qr = structseq("linalg_qr", ("Q", "R"))
linalg_qr_out = structseq("linalg_qr_out", ("Q", "R"))
linalg_svd = structseq("linalg_svd", ("U", "S", "Vh"))
linalg_svd_out = structseq("linalg_svd_out", ("U", "S", "Vh"))
svd = structseq("svd", ("U", "S", "V"))
svd_out = structseq("svd_out", ("U", "S", "V"))
linalg_eigh = structseq("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_eigh_out = structseq("linalg_eigh_out", ("eigenvalues", "eigenvectors"))
qr = structseq("qr", ("Q", "R"))
qr_out = structseq("qr_out", ("Q", "R"))
linalg_eig = structseq("linalg_eig", ("eigenvalues", "eigenvectors"))
linalg_eig_out = structseq("linalg_eig_out", ("eigenvalues", "eigenvectors"))
# the LU family, triangular_solve, geqrf (wlinalg)
__all__ += [
    "linalg_lu_factor", "linalg_lu_factor_out", "linalg_lu_factor_ex", "linalg_lu_factor_ex_out",
    "linalg_lu", "linalg_lu_out", "lu_unpack", "lu_unpack_out", "_lu_with_info",
    "triangular_solve", "triangular_solve_out", "geqrf", "geqrf_out",
]  # fmt: skip
linalg_lu_factor = structseq("linalg_lu_factor", ("LU", "pivots"))
linalg_lu_factor_out = structseq("linalg_lu_factor_out", ("LU", "pivots"))
linalg_lu_factor_ex = structseq("linalg_lu_factor_ex", ("LU", "pivots", "info"))
linalg_lu_factor_ex_out = structseq("linalg_lu_factor_ex_out", ("LU", "pivots", "info"))
linalg_lu = structseq("linalg_lu", ("P", "L", "U"))
linalg_lu_out = structseq("linalg_lu_out", ("P", "L", "U"))
lu_unpack = structseq("lu_unpack", ("P", "L", "U"))
lu_unpack_out = structseq("lu_unpack_out", ("P", "L", "U"))
_lu_with_info = structseq("_lu_with_info", ("LU", "pivots", "info"))
triangular_solve = structseq("triangular_solve", ("solution", "cloned_coefficient"))
triangular_solve_out = structseq("triangular_solve_out", ("solution", "cloned_coefficient"))
geqrf = structseq("geqrf", ("a", "tau"))
geqrf_out = structseq("geqrf_out", ("a", "tau"))
# histograms (wSTATS)
histogram = structseq("histogram", ("hist", "bin_edges"))
histogram_out = structseq("histogram_out", ("hist", "bin_edges"))
histogramdd = structseq("histogramdd", ("hist", "bin_edges"))
__all__ += ["histogram", "histogram_out", "histogramdd"]


def lists_as_tuples(result: tuple) -> tuple:
    """A result whose items include a TensorList, its lists as tuples (PyTorch's wrap)."""
    return tuple(tuple(item) if isinstance(item, list) else item for item in result)
