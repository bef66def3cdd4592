"""Batching rules of the shape operators whose arguments are sizes or lists of tensors:
view / reshape / expand / permute / squeeze / t, indexing, cat / stack, copy_ and fill_.

Layer: _functorch. Mirrors BatchRulesViews.cpp, BatchRulesIndexing.cpp and the copy_ rule
of BatchRulesBinaryOps.cpp. In: this level's BatchedTensors. Out: the op applied once to
the physical tensors (batch dim first), the result batched along dim 0.
"""

from __future__ import annotations

from ..._dispatch.dispatcher import dispatcher
from ...aten.native import at
from ...aten.native.common import wrap_dim
from ..fallback import batched_fallback, inplace_unbatched_self_error
from .helpers import AFTER_BATCHED, front, level, pad_front, record_at, register, wrap
from .pointwise import pointwise_rule


def _self_rule(physical_call):
    """A rule whose only batched argument may be ``self``: ``physical_call(value, logical
    sizes, *rest)`` computes the physical result."""

    def self_rule(op, bits, *args):
        lvl = level()
        record = record_at(args[0], lvl)
        if record is None:
            return op.redispatch(bits & AFTER_BATCHED, *args)
        return wrap(physical_call(front(record), args[0]._sizes, *args[1:]), lvl)

    return self_rule


def _sized(call):
    return lambda v, sizes, size, *rest: call(v, (v._sizes[0], *size), *rest)


register("aten::view", _self_rule(_sized(at.view)))
register("aten::reshape", _self_rule(_sized(at.reshape)))
register("aten::_unsafe_view", _self_rule(_sized(at._unsafe_view)))
register(
    "aten::expand",
    _self_rule(
        lambda v, sizes, size, implicit: at.expand(
            pad_front(v, sizes, len(size)), (v._sizes[0], *size), implicit
        )
    ),
)
register(
    "aten::permute",
    _self_rule(
        lambda v, sizes, dims: at.permute(v, [0] + [wrap_dim(d, len(sizes)) + 1 for d in dims])
    ),
)
register(
    "aten::squeeze",
    _self_rule(lambda v, sizes: at.squeeze_dims(v, [i + 1 for i, n in enumerate(sizes) if n == 1])),
)
register(
    "aten::t",
    _self_rule(lambda v, sizes: at.transpose_int(v, 1, 2) if len(sizes) == 2 else at.alias(v)),
)
register("aten::alias", _self_rule(lambda v, sizes: at.alias(v)))
register("aten::detach", _self_rule(lambda v, sizes: at.detach(v)))


def _adjacent(indices) -> bool:
    """Whether the given (non-None) indices sit next to one another."""
    places = [i for i, index in enumerate(indices) if index is not None]
    return not places or places[-1] - places[0] + 1 == len(places)


def index_rule(op, bits, self, indices):
    """index.Tensor with a batched self and unbatched, adjacent indices: the batch dim
    stays in front; anything else takes the loop."""
    lvl = level()
    record = record_at(self, lvl)
    batched_index = any(record_at(i, lvl) is not None for i in indices if i is not None)
    if record is None and not batched_index:
        return op.redispatch(bits & AFTER_BATCHED, self, indices)
    if record is None or batched_index or not _adjacent(indices):
        return batched_fallback(op, bits, self, indices)
    return wrap(at.index_Tensor(front(record), [None, *indices]), lvl)


register("aten::index.Tensor", index_rule)


def _physical_list(tensors, lvl):
    """(batch size or None, the tensors batched at ``lvl`` with their batch dim first and the
    others expanded along a new front dim)."""
    size = None
    for t in tensors:
        record = record_at(t, lvl)
        if record is not None:
            size = record.value._sizes[record.bdim]
    if size is None:
        return None, tensors
    out = []
    for t in tensors:
        record = record_at(t, lvl)
        if record is not None:
            out.append(front(record))
        else:
            out.append(at.expand(at.unsqueeze(t, 0), (size, *t._sizes), False))
    return size, out


def _list_rule(call, extra: int):
    def list_rule(op, bits, tensors, dim):
        lvl = level()
        size, physical = _physical_list(tensors, lvl)
        if size is None:
            return op.redispatch(bits & AFTER_BATCHED, tensors, dim)
        rank = max(len(t._sizes) for t in tensors) if tensors else 0
        return wrap(call(physical, wrap_dim(dim, rank + extra) + 1), lvl)

    return list_rule


register("aten::cat", _list_rule(at.cat, 0))
register("aten::stack", _list_rule(at.stack, 1))


def copy_rule(op, bits, self, src, non_blocking):
    """copy_: writes through a batched self; a batched src into an unbatched self cannot be
    (fact A9's "inplace arithmetic" message)."""
    lvl = level()
    self_record, src_record = record_at(self, lvl), record_at(src, lvl)
    if self_record is None:
        if src_record is not None:
            raise inplace_unbatched_self_error()
        return op.redispatch(bits & AFTER_BATCHED, self, src, non_blocking)
    source = src
    if src_record is not None:
        source = pad_front(front(src_record), src._sizes, len(self._sizes))
    at.copy_(front(self_record), source, non_blocking)
    return self


register("aten::copy_", copy_rule)
for _name in ("aten::fill_.Scalar", "aten::fill_.Tensor", "aten::zero_"):
    register(_name, pointwise_rule)


def _inplace_view_rule(out_of_place: str):
    """squeeze_ / unsqueeze_ / transpose_ / t_ on a BatchedTensor: the out-of-place view's
    value and batch dim replace the wrapper's, and its logical sizes and strides."""
    view = dispatcher.find_op(out_of_place)

    def inplace_view_rule(op, bits, self, *rest):
        lvl = level()
        record = record_at(self, lvl)
        if record is None:
            return op.redispatch(bits & AFTER_BATCHED, self, *rest)
        result = view.call(self, *rest)
        new = result._functorch
        record.value, record.bdim = new.value, new.bdim
        self._set_sizes_strides(result._sizes, result._strides, 0)
        return self

    return inplace_view_rule


for _name, _view in (("squeeze_", "squeeze"), ("squeeze_.dim", "squeeze.dim"),
                     ("squeeze_.dims", "squeeze.dims"), ("unsqueeze_", "unsqueeze"),
                     ("transpose_", "transpose.int"), ("t_", "t")):  # fmt: skip
    register("aten::" + _name, _inplace_view_rule("aten::" + _view))

# Ops acting on the trailing dims only (or elementwise with no broadcasting to do): the
# pointwise rule's batch-dim-first call is all they need.
for _name in ("_to_copy", "tril", "triu"):
    register("aten::" + _name, pointwise_rule)


def repeat_rule(op, bits, self, repeats):
    lvl = level()
    record = record_at(self, lvl)
    if record is None:
        return op.redispatch(bits & AFTER_BATCHED, self, repeats)
    physical = pad_front(front(record), self._sizes, len(repeats))
    return wrap(at.repeat(physical, [1, *repeats]), lvl)


register("aten::repeat", repeat_rule)


def _expanded(tensor, record, size):
    """The physical form of an argument: batch dim first, or expanded along a new one."""
    if record is not None:
        return front(record)
    return at.expand(at.unsqueeze(tensor, 0), (size, *tensor._sizes), False)


def index_select_rule(op, bits, self, dim, index):
    lvl = level()
    record, index_record = record_at(self, lvl), record_at(index, lvl)
    if record is None and index_record is None:
        return op.redispatch(bits & AFTER_BATCHED, self, dim, index)
    if index_record is not None or len(index._sizes) > 1:
        return batched_fallback(op, bits, self, dim, index)
    return wrap(at.index_select(front(record), wrap_dim(dim, len(self._sizes)) + 1, index), lvl)


register("aten::index_select", index_select_rule)


def gather_rule(op, bits, self, dim, index, sparse_grad):
    """gather along dim + 1 of the physical self and index (an unbatched one expanded)."""
    lvl = level()
    record, index_record = record_at(self, lvl), record_at(index, lvl)
    if record is None and index_record is None:
        return op.redispatch(bits & AFTER_BATCHED, self, dim, index, sparse_grad)
    if not self._sizes or len(index._sizes) != len(self._sizes):
        return batched_fallback(op, bits, self, dim, index, sparse_grad)
    live = record if record is not None else index_record
    size = live.value._sizes[live.bdim]
    physical = _expanded(self, record, size)
    physical_index = _expanded(index, index_record, size)
    dim = wrap_dim(dim, len(self._sizes)) + 1
    return wrap(at.gather(physical, dim, physical_index, sparse_grad), lvl)


register("aten::gather", gather_rule)
