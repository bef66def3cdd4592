"""Batching rules of a few nn operators: mse_loss, native_layer_norm, embedding.

Layer: _functorch. Mirrors BatchRulesLoss.cpp, BatchRulesNorm.cpp and
BatchRulesModules.cpp for the cases that need no more than the batch dim first: the
loss reduces per sample after an unreduced physical call, layer norm normalises the
trailing dims (so the batch dim is one more leading dim), and embedding looks batched
indices up in an unbatched weight. Other cases take the loop fallback.
"""

from __future__ import annotations

from ...aten.native import at
from ..fallback import batched_fallback
from .helpers import AFTER_BATCHED, front, level, pad_front, record_at, register, wrap

_NONE, _MEAN = 0, 1


def mse_loss_rule(op, bits, self, target, reduction):
    lvl = level()
    records = (record_at(self, lvl), record_at(target, lvl))
    if records == (None, None):
        return op.redispatch(bits & AFTER_BATCHED, self, target, reduction)
    rank = max(len(self._sizes), len(target._sizes))
    physical = [
        t if r is None else pad_front(front(r), t._sizes, rank)
        for t, r in zip((self, target), records)
    ]
    out = op.call(*physical, _NONE)
    if reduction == _NONE:
        return wrap(out, lvl)
    dims = list(range(1, out.dim())) or None
    if dims is None:
        return wrap(out, lvl)
    reduced = (
        at.mean_dim(out, dims, False, None)
        if reduction == _MEAN
        else at.sum_dim_IntList(out, dims, False, None)
    )
    return wrap(reduced, lvl)


def layer_norm_rule(op, bits, input, normalized_shape, weight, bias, eps):
    lvl = level()
    record = record_at(input, lvl)
    if record is None and record_at(weight, lvl) is None and record_at(bias, lvl) is None:
        return op.redispatch(bits & AFTER_BATCHED, input, normalized_shape, weight, bias, eps)
    if record is None or record_at(weight, lvl) is not None or record_at(bias, lvl) is not None:
        return batched_fallback(op, bits, input, normalized_shape, weight, bias, eps)
    return wrap(op.call(front(record), normalized_shape, weight, bias, eps), lvl)


def embedding_rule(op, bits, weight, indices, padding_idx, scale, sparse):
    lvl = level()
    weight_record, index_record = record_at(weight, lvl), record_at(indices, lvl)
    if weight_record is None and index_record is None:
        return op.redispatch(bits & AFTER_BATCHED, weight, indices, padding_idx, scale, sparse)
    if weight_record is not None:
        return batched_fallback(op, bits, weight, indices, padding_idx, scale, sparse)
    return wrap(op.call(weight, front(index_record), padding_idx, scale, sparse), lvl)


register("aten::mse_loss", mse_loss_rule)
register("aten::native_layer_norm", layer_norm_rule)
register("aten::embedding", embedding_rule)
