"""Meta function of index_reduce (the structured group index_reduce.out / _ / functional).

Layer: aten/meta. In: the functional arguments. Out: a StructuredMeta shaped like self.
Mirrors TORCH_PRECOMPUTE_META_FUNC(index_reduce) of ATen/native/TensorAdvancedIndexing.cpp:
the reduce name first, then index_func_meta_impl's checks.
"""

from __future__ import annotations

from ember.aten.meta.index_ops import index_func_meta
from ember.aten.structured import StructuredMeta

__all__ = ["index_reduce"]

INDEX_REDUCES = ("prod", "mean", "amax", "amin")


def index_reduce(self, dim, index, source, reduce, include_self) -> StructuredMeta:
    if reduce not in INDEX_REDUCES:
        raise RuntimeError(
            "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
            f"{reduce}."
        )
    return index_func_meta(self, dim, index, source, "index_reduce")
