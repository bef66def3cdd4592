"""Batching rules of the operators that take dimension arguments: reductions, scans,
softmax, sort, and the views named by a dim (select, transpose, unsqueeze, ...).

Layer: _functorch. Mirrors BatchRulesReduceOps.cpp, BatchRulesViews.cpp and the dim
handling of BatchRulesHelper.h: the batch dim moves to the front and every dim argument,
wrapped against the *logical* rank, shifts by one. A logical scalar is given a trailing
size-1 dim, which a result that keeps it loses again. Which arguments are dims is read
off each operator's schema (by name and type); the families are listed here, as
PyTorch lists them per file.
"""

from __future__ import annotations

from ..._dispatch.dispatcher import dispatcher
from ...aten.native import at
from ...aten.native.common import wrap_dim
from ..fallback import batched_fallback
from .helpers import AFTER_BATCHED, front, level, record_at, register, wrap

_DIM_NAMES = ("dim", "dims", "dim0", "dim1", "dim2", "dimension", "start_dim", "end_dim",
              "source", "destination")  # fmt: skip

# Operators whose dims shift by one (the op acts independently along every other dim).
DIM_OPS = """
sum.dim_IntList mean.dim nansum prod.dim_int amax amin aminmax max.dim min.dim argmax argmin
all.dim all.dims any.dim any.dims std.correction var.correction std_mean.correction
var_mean.correction logsumexp norm.ScalarOpt_dim linalg_vector_norm count_nonzero.dim_IntList
count_nonzero median.dim nanmedian.dim mode kthvalue topk sort sort.stable cumsum cumprod
cummax cummin logcumsumexp _softmax _log_softmax flip squeeze.dim squeeze.dims select.int
slice.Tensor transpose.int unbind.int split.Tensor split_with_sizes diagonal unfold
movedim.int movedim.intlist
""".split()
# Dims of these range over the logical rank + 1 (a new dim is made).
_NEW_DIM_OPS = {"unsqueeze"}


def _dim_spec(schema):
    """((argument index, is a list), ...) for the dim arguments of ``schema``."""
    spec = []
    for i, argument in enumerate(schema.arguments):
        text = str(argument.type)
        if argument.name in _DIM_NAMES and text.replace("Optional[", "").startswith(
            ("int", "List[int]")
        ):
            spec.append((i, "List" in text))
    return tuple(spec)


def _others_batched(args, lvl) -> bool:
    for arg in args[1:]:
        if record_at(arg, lvl) is not None:
            return True
        if isinstance(arg, (list, tuple)) and any(record_at(a, lvl) is not None for a in arg):
            return True
    return False


# The reductions read None or an empty dim list as "every dim"; for these an empty list is
# no dim at all.
_NOT_EMPTY_IS_ALL = {"flip", "squeeze.dims", "movedim.intlist"}


def make_dim_rule(spec, extra: int = 0, empty_is_all: bool = True):
    """The rule for an op with dim arguments ``spec`` (``extra``: 1 where dims range over
    one more than the rank)."""

    def dim_rule(op, bits, *args):
        lvl = level()
        record = record_at(args[0], lvl)
        if record is None or _others_batched(args, lvl):
            if record is None and not _others_batched(args, lvl):
                return op.redispatch(bits & AFTER_BATCHED, *args)
            return batched_fallback(op, bits, *args)
        rank = len(args[0]._sizes)
        value = front(record)
        new = list(args)
        scalar = rank == 0 and not extra
        if scalar:
            value = at.unsqueeze(value, 1)
        new[0] = value
        logical = rank + extra
        for index, is_list in spec:
            dims = args[index]
            if is_list:
                if dims is None or (empty_is_all and len(dims) == 0):
                    new[index] = list(range(1, max(rank, 1) + 1))
                else:
                    new[index] = [wrap_dim(d, logical) + 1 for d in dims]
            elif dims is None:  # argmax(dim=None) and the like: over every element
                new[0] = at.reshape(value, (value._sizes[0], -1))
                new[index] = 1
            else:
                new[index] = wrap_dim(dims, logical) + 1
        result = op.call(*new)
        if scalar:
            result = _drop_scalar_dim(result)
        return wrap(result, lvl)

    return dim_rule


def _drop_scalar_dim(result):
    if isinstance(result, (tuple, list)):
        return type(result)(_drop_scalar_dim(r) for r in result)
    if hasattr(result, "_sizes") and len(result._sizes) == 2:
        return at.squeeze_dim(result, 1)
    return result


for _name in DIM_OPS:
    _handle = dispatcher.find_op("aten::" + _name)
    if _handle is not None:
        rule = make_dim_rule(_dim_spec(_handle.schema), empty_is_all=_name not in _NOT_EMPTY_IS_ALL)
        register("aten::" + _name, rule)
for _name in _NEW_DIM_OPS:
    _handle = dispatcher.find_op("aten::" + _name)
    register("aten::" + _name, make_dim_rule(_dim_spec(_handle.schema), extra=1))


def _flat(record, lvl):
    value = front(record)
    numel = 1
    for n in value._sizes[1:]:
        numel *= n
    return at.reshape(value, (value._sizes[0], numel))


def _full_reduction(reduce, over_dims=None):
    """A reduction over every element: over dim 1 of the value flattened to (B, numel), or
    (``over_dims``, for a value with dims) over all its dims but the batch dim at once."""

    def full_reduction_rule(op, bits, *args):
        lvl = level()
        record = record_at(args[0], lvl)
        if record is None:
            return op.redispatch(bits & AFTER_BATCHED, *args)
        rank = len(args[0]._sizes)
        if over_dims is not None and rank:
            return wrap(over_dims(front(record), list(range(1, rank + 1)), *args[1:]), lvl)
        return wrap(reduce(_flat(record, lvl), *args[1:]), lvl)

    return full_reduction_rule


_OVER_DIMS = {
    "sum": lambda v, dims, dtype: at.sum_dim_IntList(v, dims, False, dtype),
    "mean": lambda v, dims, dtype: at.mean_dim(v, dims, False, dtype),
}
_FULL = {
    "sum": lambda v, dtype: at.sum_dim_IntList(v, [1], False, dtype),
    "mean": lambda v, dtype: at.mean_dim(v, [1], False, dtype),
    "prod": lambda v, dtype: at.prod_dim_int(v, 1, False, dtype),
    "max": lambda v: at.amax(v, [1], False),
    "min": lambda v: at.amin(v, [1], False),
    "all": lambda v: at.all_dim(v, 1, False),
    "any": lambda v: at.any_dim(v, 1, False),
    "median": lambda v: at.median_dim(v, 1, False)[0],
    "norm.Scalar": lambda v, p: at.norm_ScalarOpt_dim(v, p, [1], False),
}
for _name, _reduce in _FULL.items():
    register("aten::" + _name, _full_reduction(_reduce, _OVER_DIMS.get(_name)))
