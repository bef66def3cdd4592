"""Samples (see tests/op_samples.py) of the shape, indexing, reduction and sorting
operators added on the wSHAPEIDX branch; op_samples.py merges them into SAMPLES."""

from __future__ import annotations


def _f23(T):
    return (T.f(2, 3),), {}


def _three(T):
    return (T.f(2, 3, 4),), {}


S: dict = {}
S["atleast_1d"] = [lambda T: ((T.f(),), {})]
S["atleast_1d.Sequence"] = [lambda T: (([T.f(), T.f(2)],), {})]
S["atleast_2d"] = [lambda T: ((T.f(3),), {})]
S["atleast_2d.Sequence"] = [lambda T: (([T.f(), T.f(3)],), {})]
S["atleast_3d"] = [lambda T: ((T.f(2, 3),), {})]
S["atleast_3d.Sequence"] = [lambda T: (([T.f(3), T.f(2, 3)],), {})]
for _name in ("hstack", "vstack", "dstack", "column_stack"):
    S[_name] = [lambda T: (([T.f(2, 3), T.f(2, 3)],), {})]
S["broadcast_to"] = [lambda T: ((T.f(3), [2, 3]), {})]
S["broadcast_tensors"] = [lambda T: (([T.f(2, 3), T.f(3)],), {})]
S["meshgrid"] = [lambda T: (([T.f(2), T.f(3)],), {})]
S["meshgrid.indexing"] = [lambda T: (([T.f(2), T.f(3)],), {"indexing": "xy"})]
S["cartesian_prod"] = [lambda T: (([T.f(2), T.f(3)],), {})]
S["moveaxis.intlist"] = [lambda T: ((T.f(2, 3, 4), [0, 1], [2, 0]), {})]
S["moveaxis.int"] = [lambda T: ((T.f(2, 3, 4), 0, -1), {})]
S["ravel"] = [lambda T: ((T.f(2, 3).t(),), {})]
S["fliplr"] = [_f23]
S["flipud"] = [_f23]
S["rot90"] = [lambda T: ((T.f(2, 3), 3, [0, 1]), {})]
S["repeat"] = [lambda T: ((T.f(2, 3), [2, 1, 2]), {})]
S["tile"] = [lambda T: ((T.f(2, 3), [2]), {})]
S["repeat_interleave.Tensor"] = [lambda T: ((T.l([2, 0, 1]),), {})]
S["repeat_interleave.self_Tensor"] = [lambda T: ((T.f(3, 2), T.l([2, 0, 1]), 0), {})]
S["repeat_interleave.self_int"] = [lambda T: ((T.f(2, 3), 2, 1), {})]
S["argsort"] = [lambda T: ((T.c(2, 3), 1, True), {})]
S["argsort.stable"] = [lambda T: ((T.c(2, 3),), {"stable": True})]
S["msort"] = [_f23]
S["take_along_dim"] = [lambda T: ((T.f(2, 3), T.l([[0], [2]]), 1), {})]
S["diag"] = [lambda T: ((T.f(3, 3), 1), {}), lambda T: ((T.f(3),), {})]
S["diagflat"] = [lambda T: ((T.f(2, 2), -1), {})]
S["diag_embed"] = [lambda T: ((T.f(2, 3), 1, 0, 2), {})]
S["diagonal_copy"] = [lambda T: ((T.f(3, 4), 1), {})]
S["trace"] = [lambda T: ((T.f(3, 4),), {})]
S["block_diag"] = [lambda T: (([T.f(2, 3), T.f(2)],), {})]
S["vdot"] = [lambda T: ((T.f(3), T.f(3)), {})]
S["einsum"] = [lambda T: (("ij,kj->ik", [T.f(2, 3), T.f(4, 3)]), {})]
S["tensordot"] = [lambda T: ((T.f(2, 3), T.f(3, 4), [1], [0]), {})]
S["inner"] = [lambda T: ((T.f(2, 3), T.f(4, 3)), {})]
S["kron"] = [lambda T: ((T.f(2, 3), T.f(2, 2)), {})]
S["tensor_split.sections"] = [lambda T: ((T.f(2, 5), 3, 1), {})]
S["tensor_split.indices"] = [lambda T: ((T.f(2, 5), [1, 3], 1), {})]
S["tensor_split.tensor_indices_or_sections"] = [lambda T: ((T.f(2, 5), T.l([1, 3]), 1), {})]
S["hsplit.int"] = [lambda T: ((T.f(2, 4), 2), {})]
S["hsplit.array"] = [lambda T: ((T.f(2, 4), [1]), {})]
S["vsplit.int"] = [lambda T: ((T.f(4, 2), 2), {})]
S["vsplit.array"] = [lambda T: ((T.f(4, 2), [3]), {})]
S["dsplit.int"] = [lambda T: ((T.f(2, 2, 4), 2), {})]
S["dsplit.array"] = [lambda T: ((T.f(2, 2, 4), [1, 2]), {})]
S["unsafe_chunk"] = [lambda T: ((T.f(2, 5), 2, 1), {})]
S["unsafe_split.Tensor"] = [lambda T: ((T.f(2, 5), 2, 1), {})]
S["unsafe_split_with_sizes"] = [lambda T: ((T.f(2, 5), [1, 4], 1), {})]
S["index_add"] = [lambda T: ((T.f(3, 2), 0, T.l([2, 0]), T.f(2, 2)), {"alpha": 2})]
S["index_copy"] = [lambda T: ((T.f(3, 2), 0, T.l([2, 0]), T.f(2, 2)), {})]
S["index_fill.int_Scalar"] = [lambda T: ((T.f(3, 2), 0, T.l([2, 0]), 1.5), {})]
S["index_fill.int_Tensor"] = [lambda T: ((T.f(3, 2), 1, T.l([1]), T.f()), {})]
S["scatter_add"] = [lambda T: ((T.f(3, 2), 0, T.l([[0, 2], [0, 1]]), T.f(2, 2)), {})]
S["scatter_reduce.two"] = [
    lambda T: ((T.f(3, 2), 0, T.l([[0, 2], [0, 1]]), T.f(2, 2), "sum"), {}),
    lambda T: ((T.f(3, 2), 0, T.l([[0, 2], [0, 1]]), T.f(2, 2), "amax"), {"include_self": False}),
]
S["take"] = [lambda T: ((T.f(2, 3), T.l([[0, 5], [5, 1]])), {})]
S["put"] = [lambda T: ((T.f(2, 3), T.l([0, 4]), T.f(2)), {"accumulate": True})]
S["put_"] = [lambda T: ((T.c(2, 3), T.l([0, 4]), T.f(2)), {})]
S["masked_select"] = [lambda T: ((T.f(2, 3), T.b(2, 3)), {})]
S["masked_scatter"] = [lambda T: ((T.f(2, 3), T.b(2, 3), T.f(6)), {})]
S["masked_scatter_"] = [lambda T: ((T.c(2, 3), T.b(2, 3), T.f(6)), {})]
S["masked_scatter_backward"] = [lambda T: ((T.f(2, 3), T.b(2, 3), [6]), {})]
S["nonzero"] = [lambda T: ((T.b(2, 3),), {})]
S["nonzero_numpy"] = [lambda T: ((T.b(2, 3),), {})]
S["argwhere"] = [lambda T: ((T.b(2, 3),), {})]
S["index_fill_.int_Scalar"] = [lambda T: ((T.c(3, 2), 0, T.l([1]), 2.0), {})]
S["index_fill_.int_Tensor"] = [lambda T: ((T.c(3, 2), 0, T.l([1]), T.f()), {})]
S["median"] = [_f23]
S["median.dim"] = [lambda T: ((T.f(2, 3), 1), {})]
S["nanmedian"] = [_f23]
S["nanmedian.dim"] = [lambda T: ((T.f(2, 3), 0, True), {})]
S["kthvalue"] = [lambda T: ((T.f(2, 3), 2), {})]
S["mode"] = [lambda T: ((T.f(2, 3), 1), {})]
S["var_mean"] = [_f23]
S["var_mean.dim"] = [lambda T: ((T.f(2, 3), [1]), {})]
S["var_mean.correction"] = [lambda T: ((T.f(2, 3), [0]), {"correction": 0})]
S["std_mean"] = [_f23]
S["std_mean.dim"] = [lambda T: ((T.f(2, 3), [1], False, True), {})]
S["std_mean.correction"] = [lambda T: ((T.f(2, 3),), {"correction": 2})]
S["nansum"] = [lambda T: ((T.f(2, 3), [1]), {})]
S["nanmean"] = [lambda T: ((T.f(2, 3), [0], True), {})]
S["aminmax"] = [lambda T: ((T.f(2, 3),), {"dim": 1})]
S["cummax"] = [lambda T: ((T.f(2, 3), 1), {})]
S["cummin"] = [lambda T: ((T.f(2, 3), 0), {})]
S["_cummax_helper"] = [lambda T: ((T.c(2, 3), T.c(2, 3), T.l([[0, 0, 0], [0, 0, 0]]), 1), {})]
S["_cummin_helper"] = [lambda T: ((T.c(2, 3), T.c(2, 3), T.l([[0, 0, 0], [0, 0, 0]]), 1), {})]
S["_logcumsumexp"] = [lambda T: ((T.f(2, 3), 1), {})]
S["logcumsumexp"] = [lambda T: ((T.f(2, 3), 1), {})]
S["_unique"] = [lambda T: ((T.f(2, 3),), {"return_inverse": True})]
S["_unique2"] = [lambda T: ((T.f(2, 3),), {"return_inverse": True, "return_counts": True})]
S["unique_dim"] = [lambda T: ((T.f(2, 3), 1), {"return_counts": True})]
S["unique_consecutive"] = [lambda T: ((T.f(2, 3),), {"return_inverse": True})]
S["unique_dim_consecutive"] = [lambda T: ((T.f(2, 3), 0), {"return_counts": True})]
S["tril_indices"] = [lambda T: ((3, 4, 1), {})]
S["triu_indices"] = [lambda T: ((4, 3, -1), {})]
S["combinations"] = [lambda T: ((T.f(3),), {})]
S["diff"] = [lambda T: ((T.f(2, 4), 2, 1, T.f(2, 1)), {})]
S["slice_scatter"] = [lambda T: ((T.f(3, 4), T.f(3, 2), 1, 0, 4, 2), {})]
S["select_scatter"] = [lambda T: ((T.f(3, 4), T.f(4), 0, 1), {})]
S["diagonal_scatter"] = [lambda T: ((T.f(3, 4), T.f(3), 1), {})]
S["dist"] = [lambda T: ((T.f(2, 3), T.f(2, 3), 3), {})]
S["bincount"] = [lambda T: ((T.l([1, 3, 3, 0]), T.c(4), 5), {})]
S["histc"] = [lambda T: ((T.c(2, 3), 4), {})]
S["bucketize.Tensor"] = [lambda T: ((T.c(2, 3), T.l([-1, 0, 1])), {})]
S["bucketize.Scalar"] = [lambda T: ((1, T.l([-1, 0, 1])), {"right": True})]
S["searchsorted.Tensor"] = [lambda T: ((T.l([-1, 0, 1]), T.c(2, 3)), {"side": "right"})]
S["searchsorted.Scalar"] = [lambda T: ((T.l([-1, 0, 1]), 0), {})]
S["addr"] = [lambda T: ((T.f(2, 3), T.f(2), T.f(3)), {"beta": 2, "alpha": 0.5})]
S["addr_"] = [lambda T: ((T.c(2, 3), T.f(2), T.f(3)), {})]
S["baddbmm"] = [lambda T: ((T.f(3, 4), T.f(2, 3, 2), T.f(2, 2, 4)), {"alpha": 3})]
S["addbmm"] = [lambda T: ((T.f(3, 4), T.f(2, 3, 2), T.f(2, 2, 4)), {"beta": 0.5})]

S["baddbmm.dtype"] = [
    lambda T: (
        (T.c(3, 4).to("meta"), T.c(2, 3, 2).to("meta"), T.c(2, 2, 4).to("meta"), T.lib.float64),
        {},
    )
]
S["baddbmm.dtype_out"] = [
    lambda T: (
        (T.c(3, 4).to("meta"), T.c(2, 3, 2).to("meta"), T.c(2, 2, 4).to("meta"), T.lib.float64),
        {"out": T.lib.empty(0, dtype=T.lib.float64, device="meta")},
    )
]

SHAPEIDX_SAMPLES = S
