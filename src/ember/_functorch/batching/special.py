"""Batching rules that refuse (item, nonzero) and the factories that follow a tensor
(``*_like``, ``new_*``).

Layer: _functorch. Mirrors the item / nonzero entries of BatchRulesDynamic.cpp and
BatchRulesFactory.cpp (fact A9's messages).
"""

from __future__ import annotations

from .helpers import AFTER_BATCHED, front, level, record_at, register, wrap
from .pointwise import pointwise_rule

_ITEM = (
    "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
    "calling .item() on a Tensor, please try to rewrite what you're doing with other "
    "operations. If error is occurring somewhere inside PyTorch internals, please file a "
    "bug report."
)


def item_rule(op, bits, *args):
    if record_at(args[0], level()) is None:
        return op.redispatch(bits & AFTER_BATCHED, *args)
    raise RuntimeError(_ITEM)


def dynamic_shape_rule(op, bits, *args):
    if record_at(args[0], level()) is None:
        return op.redispatch(bits & AFTER_BATCHED, *args)
    raise RuntimeError(
        "vmap: We do not support batching operators that can output dynamic shape. Attempted "
        f"to vmap over {op.name}. Please file an issue at "
        "https://github.com/pytorch/pytorch/issues if you need this feature."
    )


register("aten::_local_scalar_dense", item_rule)
register("aten::nonzero", dynamic_shape_rule)
for _name in ("empty_like", "zeros_like", "ones_like", "full_like"):
    register("aten::" + _name, pointwise_rule)


def new_factory_rule(op, bits, self, size, *rest):
    """new_zeros / new_ones / new_empty / new_full: a (B, *size) result batched along 0."""
    lvl = level()
    record = record_at(self, lvl)
    if record is None:
        return op.redispatch(bits & AFTER_BATCHED, self, size, *rest)
    physical = front(record)
    return wrap(op.call(physical, (physical._sizes[0], *size), *rest), lvl)


for _name in ("new_zeros", "new_ones", "new_empty", "new_full"):
    register("aten::" + _name, new_factory_rule)
