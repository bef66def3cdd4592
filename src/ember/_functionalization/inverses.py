"""The view inverses: how a mutated view goes back into its base, per view operator.

Layer: _functionalization. In: the base, the mutated view's value, whether views are
reapplied, the output index of a multi-output view, and the view op's own arguments. Out:
the base with the view's new values, built by operators called through the dispatcher
(a ``*_scatter`` where the view selects part of the base, the view op's own inverse
view, or its ``*_copy`` when views are removed). Mirrors
aten/src/ATen/FunctionalInverses.cpp.
"""

from __future__ import annotations

from ember._dispatch.dispatcher import dispatcher

__all__ = ["INVERSES", "op"]


def op(qualified: str):
    """The ``call`` of ``aten::qualified``, or None when ember does not define it."""
    handle = dispatcher.find_op("aten::" + qualified)
    return None if handle is None or not handle.has_schema() else handle.call


def _view_or_copy(view_name: str, copy_name: str):
    view, copy = op(view_name), op(copy_name)

    def pick(reapply: bool):
        return view if reapply or copy is None else copy

    return pick


_VIEW = _view_or_copy("view", "view_copy")
_VIEW_DTYPE = _view_or_copy("view.dtype", "view_copy.dtype")
_PERMUTE = _view_or_copy("permute", "permute_copy")
_T = _view_or_copy("t", "t_copy")
_TRANSPOSE = _view_or_copy("transpose.int", "transpose_copy.int")
_UNSQUEEZE = _view_or_copy("unsqueeze", "unsqueeze_copy")
_SQUEEZE_DIM = _view_or_copy("squeeze.dim", "squeeze_copy.dim")
_ALIAS = _view_or_copy("alias", "alias_copy")
_SELECT_SCATTER = op("select_scatter")
_SLICE_SCATTER = op("slice_scatter")
_DIAGONAL_SCATTER = op("diagonal_scatter")
_AS_STRIDED_SCATTER = op("as_strided_scatter")
_SUM_TO_SIZE = op("sum_to_size")
_ADD = op("add.Tensor")
_SUB = op("sub.Tensor")
_UNFOLD_BACKWARD = op("unfold_backward")
_CONJ = op("_conj")
_NEG_VIEW = op("_neg_view")
_VIEW_AS_REAL = op("view_as_real")
_VIEW_AS_COMPLEX = op("view_as_complex")
_RESOLVE_CONJ = op("resolve_conj")


def _wrap(dim: int, ndim: int) -> int:
    return dim + ndim if dim < 0 else dim


def _unsqueeze_to(mutated, dims, sizes, reapply):
    """unsqueeze_copy_to: put back the size-1 dims a squeeze dropped (all of them when
    ``dims`` is None)."""
    ndim = len(sizes)
    if ndim == 0:
        return mutated
    wanted = range(ndim) if dims is None else sorted({_wrap(d, ndim) for d in dims})
    unsqueeze = _UNSQUEEZE(reapply)
    result = mutated
    for d in wanted:
        if sizes[d] == 1:
            result = unsqueeze(result, d)
    return result


def _split_inverse(base, mutated, reapply, idx, split_size, dim=0):
    dim = _wrap(dim, base.dim())
    start = split_size * idx
    end = min(start + split_size, base._sizes[dim])
    return _SLICE_SCATTER(base, mutated, dim, start, end, 1)


def _split_with_sizes_inverse(base, mutated, reapply, idx, split_sizes, dim=0):
    dim = _wrap(dim, base.dim())
    start = sum(split_sizes[:idx])
    end = min(start + split_sizes[idx], base._sizes[dim])
    return _SLICE_SCATTER(base, mutated, dim, start, end, 1)


def _permute_inverse(base, mutated, reapply, idx, dims):
    ndim = len(dims)
    inverse = [0] * ndim
    for i, d in enumerate(dims):
        inverse[_wrap(d, ndim)] = i
    return _PERMUTE(reapply)(mutated, inverse)


def _expand_inverse(base, mutated, reapply, idx, size, implicit):
    """base + sum_to(mutated - base): what the expanded view added, summed back."""
    return _ADD(base, _SUM_TO_SIZE(_SUB(mutated, base, 1), list(base._sizes)), 1)


def _unfold_inverse(base, mutated, reapply, idx, dimension, size, step):
    if reapply and size > step:
        raise RuntimeError(
            "While executing unfold, functionalization encountered a tensor being mutated "
            "that has internal overlap. When using torch.compile (or running functionalization "
            "directly), this is banned as the behavior is not well defined. Consider cloning "
            "the tensor before mutating it, or removing the mutation from your model."
        )
    return _UNFOLD_BACKWARD(mutated, list(base._sizes), dimension, size, step)


# qualified name -> inverse(base, mutated_view, reapply_views, out_index, *view_args)
INVERSES = {
    "view": lambda b, m, r, i, size: _VIEW(r)(m, list(b._sizes)),
    "view.dtype": lambda b, m, r, i, dtype: _VIEW_DTYPE(r)(m, b.dtype),
    "select.int": lambda b, m, r, i, dim, index: _SELECT_SCATTER(b, m, dim, index),
    "slice.Tensor": lambda b, m, r, i, *args: _SLICE_SCATTER(b, m, *args),
    "diagonal": lambda b, m, r, i, *args: _DIAGONAL_SCATTER(b, m, *args),
    "as_strided": lambda b, m, r, i, *args: _AS_STRIDED_SCATTER(b, m, *args),
    "expand": _expand_inverse,
    "permute": _permute_inverse,
    "t": lambda b, m, r, i: _T(r)(m),
    "transpose.int": lambda b, m, r, i, dim0, dim1: _TRANSPOSE(r)(m, dim0, dim1),
    "squeeze": lambda b, m, r, i: _unsqueeze_to(m, None, b._sizes, r),
    "squeeze.dim": lambda b, m, r, i, dim: _unsqueeze_to(m, [dim], b._sizes, r),
    "squeeze.dims": lambda b, m, r, i, dims: _unsqueeze_to(m, dims, b._sizes, r),
    "unsqueeze": lambda b, m, r, i, dim: _SQUEEZE_DIM(r)(m, dim),
    "split.Tensor": _split_inverse,
    "split_with_sizes": _split_with_sizes_inverse,
    "unbind.int": lambda b, m, r, i, dim: _SELECT_SCATTER(b, m, _wrap(dim, b.dim()), i),
    "unfold": _unfold_inverse,
    "alias": lambda b, m, r, i: _ALIAS(r)(m),
    "detach": lambda b, m, r, i: m,
    "lift_fresh": lambda b, m, r, i: m,
    "_conj": lambda b, m, r, i: _CONJ(m),
    "_neg_view": lambda b, m, r, i: _NEG_VIEW(m),
    "view_as_real": lambda b, m, r, i: _VIEW_AS_COMPLEX(m),
    "view_as_complex": lambda b, m, r, i: _VIEW_AS_REAL(_RESOLVE_CONJ(m)),
}
