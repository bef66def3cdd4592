"""What the batching rules share: this level's unwrapping, moving the batch dim to the
front, padding ranks for broadcasting, wrapping results, registering a rule.

Layer: _functorch. Mirrors aten/src/ATen/functorch/BatchRulesHelper.h / .cpp
(moveBatchDimToFront, maybePadToLogicalRank, the VMAP_SUPPORT registration macros).
"""

from __future__ import annotations

import sys

from ..._c10.dispatch_key import DispatchKey
from ..._c10.dispatch_key_set import full_after_bits
from ..._dispatch.dispatcher import dispatcher
from ..._dispatch.kernel import KernelFunction
from ...aten.native import at
from .. import dynamic_layer
from ..batched_tensor import BatchedRecord, make_batched

AFTER_BATCHED = full_after_bits(DispatchKey.FuncTorchBatched)
BATCHED = DispatchKey.FuncTorchBatched
_CIA = DispatchKey.CompositeImplicitAutograd
_DECOMPOSITION = DispatchKey.FuncTorchBatchedDecomposition
_handles: list = []  # the registrations made here (kept alive for the process)


def level() -> int:
    """The level of the vmap layer whose FuncTorchBatched kernel is running."""
    return dynamic_layer.top().lvl


def record_at(value, lvl: int):
    """The BatchedRecord of ``value`` at level ``lvl``, or None."""
    record = getattr(value, "_functorch", None)
    if record.__class__ is BatchedRecord and record.level == lvl:
        return record
    return None


def front(record):
    """moveBatchDimToFront: the record's value with its batch dim first."""
    value = record.value
    return value if record.bdim == 0 else at.movedim_int(value, record.bdim, 0)


def pad_front(physical, logical_sizes, rank: int):
    """maybePadToLogicalRank: ``physical`` (batch dim first) with size-1 dims inserted after
    the batch dim until its logical rank is ``rank``."""
    missing = rank - len(logical_sizes)
    if missing <= 0:
        return physical
    return at.reshape(physical, (physical._sizes[0],) + (1,) * missing + tuple(logical_sizes))


def wrap(result, lvl: int, bdim: int = 0):
    """Results of a physical call, batched at ``lvl`` along ``bdim``."""
    if result.__class__ is tuple:
        return tuple(wrap(r, lvl, bdim) for r in result)
    if isinstance(result, list):
        return [wrap(r, lvl, bdim) for r in result]
    if hasattr(result, "_key_bits"):
        return make_batched(result, bdim, lvl)
    return result


def register(name: str, fn, key: DispatchKey = BATCHED, depth: int = 1) -> None:
    """Register the boxed rule ``fn(op, bits, *args)`` for ``name`` (``aten::sin``) at ``key``,
    with the caller's line as its ``registered at``. A CompositeImplicitAutograd op's rule
    goes to FuncTorchBatchedDecomposition, as PyTorch's decompositions do (the table shows
    ``[batched kernel]``)."""
    frame = sys._getframe(depth)
    kernel = KernelFunction(
        fn,
        keyset_arg="boxed_raw",
        debug=f"registered at {frame.f_code.co_filename}:{frame.f_lineno}",
        name=getattr(fn, "__name__", "batch_rule"),
    )
    if key is BATCHED and dispatcher.find_op(name).entry.kernels.get(_CIA):
        key = _DECOMPOSITION  # a composite's rule stands where its decomposition would
    _handles.append(dispatcher.register_impl(name, key, kernel, kernel.debug))
