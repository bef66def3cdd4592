"""BatchedTensor: a value with one batch dimension hidden, at one vmap level.

Layer: _functorch. Mirrors aten/src/ATen/functorch/BatchedTensorImpl.h / .cpp. A
BatchedTensor is an ``ember.Tensor`` (``type(t).__name__`` is ``Tensor``) whose sizes
and strides are its value's without the batch dimension, whose key set is the value's
plus FuncTorchBatched (one bit, however deeply nested: fact A2), and whose
``_functorch`` record is a ``BatchedRecord``. In: a tensor, its batch dim, a level.
Out: the wrapper, and the helpers batching rules use to unwrap one level.
"""

from __future__ import annotations

from .._c10.dispatch_key import DispatchKey
from .wrappers import WrapperRecord, make_wrapper

_DATA_DEPENDENT = (
    "vmap: It looks like you're attempting to use a Tensor in some data-dependent control "
    "flow. We don't support that yet, please file an issue at "
    "https://github.com/pytorch/pytorch/issues ."
)


class BatchedRecord(WrapperRecord):
    """A BatchedTensor's value, level and batch dim (a dim of the value)."""

    __slots__ = ("bdim",)
    kind = "batched"

    def __init__(self, value, bdim: int, level: int) -> None:
        super().__init__(value, level)
        self.bdim = bdim

    def header(self) -> str:
        return f"BatchedTensor(lvl={self.level}, bdim={self.bdim}"

    def dump(self) -> str:
        from .wrappers import dump_tensor

        return f"Batched[lvl={self.level} dim={self.bdim}, {dump_tensor(self.value)}]"

    def check_bool(self) -> None:
        raise RuntimeError(_DATA_DEPENDENT)


def make_batched(value, bdim: int, level: int):
    """makeBatched: wrap ``value`` with batch dim ``bdim`` (non-negative) at ``level``."""
    sizes = value._sizes[:bdim] + value._sizes[bdim + 1 :]
    strides = value._strides[:bdim] + value._strides[bdim + 1 :]
    return make_wrapper(value, BatchedRecord(value, bdim, level), DispatchKey.FuncTorchBatched,
                        sizes, strides)  # fmt: skip


def batched_record(tensor) -> BatchedRecord | None:
    """The BatchedRecord of ``tensor``, or None."""
    record = getattr(tensor, "_functorch", None)
    return record if record.__class__ is BatchedRecord else None


def unwrap_at(tensor, level: int):
    """unwrapTensorAtLevel: (value, bdim) when ``tensor`` is batched at ``level``, else
    (tensor, None)."""
    record = getattr(tensor, "_functorch", None)
    if record.__class__ is BatchedRecord and record.level == level:
        return record.value, record.bdim
    return tensor, None


def is_batched_at(tensor, level: int) -> bool:
    record = getattr(tensor, "_functorch", None)
    return record.__class__ is BatchedRecord and record.level == level
