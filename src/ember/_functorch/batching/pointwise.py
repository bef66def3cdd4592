"""Batching rules of the pointwise operators, derived from native_functions.yaml's tags.

Layer: _functorch. Mirrors BatchRulesUnaryOps.cpp / BatchRulesBinaryOps.cpp: every op
tagged ``pointwise`` (and the in-place variant of one) gets one rule: this level's
BatchedTensors move their batch dim to the front and are padded to the largest logical
rank, so broadcasting lines up; the op runs once on the physical tensors. An in-place op
writes through its batched ``self``; with an unbatched ``self`` the kernel's own
broadcast error shows (fact A9).
"""

from __future__ import annotations

from ..._c10.dtypes import bool as _BOOL
from ..._c10.dtypes import result_type
from ..._dispatch.dispatcher import dispatcher
from ...aten.registration import ATEN_TAGS
from .helpers import AFTER_BATCHED, front, level, pad_front, record_at, register, wrap


def pointwise_rule(op, bits, *args):
    lvl = level()
    records = []
    rank = 0
    for i, arg in enumerate(args):
        sizes = getattr(arg, "_sizes", None)
        if sizes is None:
            continue
        if len(sizes) > rank:
            rank = len(sizes)
        record = record_at(arg, lvl)
        if record is not None:
            records.append((i, record, sizes))
    if not records:
        return op.redispatch(bits & AFTER_BATCHED, *args)
    physical = list(args)
    for i, record, sizes in records:
        value = front(record)
        physical[i] = value if i == 0 and inplace_of(op) else pad_front(value, sizes, rank)
    if not inplace_of(op) and any(not sizes for _, _, sizes in records):
        _promote_as_logical(args, physical)
    if inplace_of(op):
        op.call(*physical)
        return args[0]
    return wrap(op.call(*physical), lvl)


def _promote_as_logical(args, physical) -> None:
    """A batched logical scalar is no 0-dim tensor physically, so it would promote as one
    with dims: cast the physical tensors to the dtype the logical operands promote to
    (PyTorch's binary pointwise rules do; its where / ternary rules do not)."""
    logical = [a for a in args if hasattr(a, "_sizes")]
    if len(logical) != 2 or logical[0].dtype is logical[1].dtype:  # binary ops only, as PyTorch
        return
    wanted = result_type(*logical)
    if (
        result_type(*[p for p in physical if hasattr(p, "_sizes") and p.dtype is not _BOOL])
        is wanted
    ):
        return
    for i, value in enumerate(physical):
        if hasattr(value, "_sizes") and value.dtype is not wanted and value.dtype is not _BOOL:
            physical[i] = value.to(wanted)


_INPLACE: dict = {}


def inplace_of(op) -> bool:
    found = _INPLACE.get(op.name)
    if found is None:
        first = op.schema.arguments[0]
        found = _INPLACE[op.name] = first.alias_info is not None and first.alias_info.is_write
    return found


def _regular(schema) -> bool:
    """One or more Tensor results, no Tensor lists, no out= arguments."""
    if not schema.returns:
        return False
    for argument in schema.arguments:
        text = str(argument.type)
        if "List" in text and "Tensor" in text:
            return False
        if argument.kwarg_only and argument.alias_info is not None:
            return False
    return all(str(r.type) == "Tensor" for r in schema.returns)


def _pointwise_names():
    for name in dispatcher.all_op_names():
        if not name.startswith("aten::"):
            continue
        base, _, overload = name.partition(".")
        tags = ATEN_TAGS.get(name, ())
        if base.endswith("_") and "pointwise" not in tags:
            outer = base[:-1] + ("." + overload if overload else "")
            tags = ATEN_TAGS.get(outer, ())
        if "pointwise" in tags:
            handle = dispatcher.find_op(name)
            if handle is not None and handle.schema is not None and _regular(handle.schema):
                yield name


for _name in list(_pointwise_names()):
    register(_name, pointwise_rule)
