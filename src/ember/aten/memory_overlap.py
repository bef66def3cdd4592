"""Memory overlap: may a kernel write into a tensor that it also reads, or that aliases itself?

Layer: aten. In: the written-to tensor(s) and the tensors a kernel reads. Out:
nothing, or PyTorch's RuntimeError. Mirrors ATen/MemoryOverlap.cpp
(has_internal_overlap, get_overlap_status and the three asserts) and
TensorIteratorBase::compute_mem_overlaps (check_tensor_iterator here).

Note [Memory overlap checks]
----------------------------
PyTorch refuses to write into a tensor when it cannot give a defined result:
when two elements of the written-to tensor share one memory location (an
expanded tensor: "internal overlap"), or when an input and the written-to
tensor share some locations but are not the same elements in the same order
("partial overlap"). It decides with cheap tests, not exactly:

* has_internal_overlap: No for a non-overlapping-and-dense tensor; Yes when a
  dim of size > 1 has stride 0; otherwise TooHard (allowed).
* get_overlap_status(a, b): Full for one TensorImpl; No when either is empty;
  TooHard (allowed) unless both are non-overlapping and dense; then, for one
  storage, the byte ranges decide: equal ranges are Full with equal strides
  and Partial otherwise, intersecting ranges are Partial; else No.

Each operator picks which checks it makes, as its PyTorch kernel does.
TensorIterator ops run check_tensor_iterator before their meta function
(compute_mem_overlaps comes first in TensorIterator's build, before shapes
and dtypes): internal overlap of each output, partial overlap with every
input that is not the output itself, so `x.add_(x)` is allowed and
`x[1:].add_(x[:-1])` is not. Gathering kernels (cat, index_select, gather,
index, scatter's src, index_put_'s values) use assert_no_overlap, which also
refuses Full. The generated kernels make the TensorIterator check (Note
[Structured kernels]); hand-written kernels call these functions themselves.
Meta tensors are not checked (PyTorch's meta kernels do not check either).

What PyTorch lets through (TooHard layouts, and the kernels that check little:
reductions, mm, triu, softmax) it computes in its own loop order, reading
elements that it may already have overwritten. The elementwise (TensorIterator)
kernels and cat do the same in ember (Note [Overlapping operands in loop order]
in aten/loop_order.py). The others (matrix products, whose order is BLAS's, and
the reductions) refuse with NotImplementedError when an input they read shares
memory with the tensor they write (refuse_unordered_read): computing as if every
input were read first would give other values than PyTorch's.

The common case costs two identity tests: tensors on different storages
never overlap, and a tensor without a storage object yet (`_storage is
None`: fresh memory that no view shares) shares memory with no other tensor.
"""

from __future__ import annotations

import numpy as np

from ember._c10.tensor_impl import MATH_BITS
from ember.aten.native.layout import is_non_overlapping_and_dense

__all__ = [
    "INTERNAL_OVERLAP",
    "PARTIAL_OVERLAP",
    "has_internal_overlap",
    "get_overlap_status",
    "assert_no_internal_overlap",
    "assert_no_partial_overlap",
    "assert_no_overlap",
    "check_tensor_iterator",
    "same_data",
    "check_copy",
    "refuse_unordered_read",
    "element_offsets",
    "element_span",
    "share_an_element",
    "unordered_read_error",
]

INTERNAL_OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)
PARTIAL_OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to "
    "a single memory location. Please clone() the tensor before performing the operation."
)

# MemOverlap and MemOverlapStatus
NO, YES, TOO_HARD = "No", "Yes", "TooHard"
FULL, PARTIAL = "Full", "Partial"


def has_internal_overlap(t) -> str:
    if is_non_overlapping_and_dense(t):
        return NO
    for size, stride in zip(t._sizes, t._strides):
        if size > 1 and stride == 0:
            return YES
    return TOO_HARD


def _byte_range(t) -> tuple[int, int]:
    itemsize = t.dtype.itemsize
    begin = t._storage_offset * itemsize
    return begin, begin + t.numel() * itemsize


def get_overlap_status(a, b) -> str:
    if a is b:
        return FULL
    if a.numel() == 0 or b.numel() == 0:
        return NO
    if not (is_non_overlapping_and_dense(a) and is_non_overlapping_and_dense(b)):
        return TOO_HARD
    storage = a._storage
    if storage is not None and storage is b._storage:
        a_begin, a_end = _byte_range(a)
        b_begin, b_end = _byte_range(b)
        if a_begin == b_begin and a_end == b_end:
            return FULL if a._strides == b._strides else PARTIAL
        if a_begin < b_end and b_begin < a_end:
            return PARTIAL
    return NO


def assert_no_internal_overlap(t) -> None:
    # Yes needs a zero stride; `0 in strides` is the cheap test for the common case.
    if 0 in t._strides and t.device.type != "meta" and has_internal_overlap(t) is YES:
        raise RuntimeError(INTERNAL_OVERLAP)


def _may_share(a, b) -> bool:
    """Whether ``a`` and ``b`` are distinct tensors on one (non-meta) storage object."""
    storage = a._storage
    return a is not b and storage is not None and b._storage is storage and a.device.type != "meta"


def assert_no_partial_overlap(a, b) -> None:
    if _may_share(a, b) and get_overlap_status(a, b) is PARTIAL:
        raise RuntimeError(PARTIAL_OVERLAP)


def assert_no_overlap(a, b) -> None:
    """Partial and Full overlap are both refused (one TensorImpl counts as Full)."""
    if a is b:
        if a.device.type != "meta":
            raise RuntimeError(PARTIAL_OVERLAP)
        return
    if _may_share(a, b) and get_overlap_status(a, b) in (PARTIAL, FULL):
        raise RuntimeError(PARTIAL_OVERLAP)


def check_tensor_iterator(out, *inputs) -> None:
    """TensorIteratorBase::compute_mem_overlaps for one output and its inputs (None skipped)."""
    if 0 in out._strides:
        assert_no_internal_overlap(out)
    storage = out._storage
    if storage is None:
        return
    for t in inputs:
        if t is not None and t is not out and t._storage is storage:
            assert_no_partial_overlap(out, t)


def same_data(self, src) -> bool:
    """copy_'s early exit: the same elements of one storage, read as the same dtype."""
    return (
        self._storage is not None
        and self._storage is src._storage
        and self._storage_offset == src._storage_offset
        and self._strides == src._strides
        and self._sizes == src._sizes
        and self.dtype is src.dtype
        and self._key_bits & MATH_BITS == src._key_bits & MATH_BITS
    )


def check_copy(self, src) -> None:
    """The checks of `self.copy_(src)` (copy_impl): none for one tensor or the same data,
    else TensorIterator's."""
    if self is src or same_data(self, src):
        return
    check_tensor_iterator(self, src)


def element_span(t) -> tuple[int, int]:
    """The first and one-past-last storage element a tensor can reach."""
    low = high = t._storage_offset
    for size, stride in zip(t._sizes, t._strides):
        if size == 0:
            return low, low
        if stride > 0:
            high += (size - 1) * stride
        else:
            low += (size - 1) * stride
    return low, high + 1


def element_offsets(t):
    """The storage element of every index of `t`, in index order (a flat int64 array)."""
    offsets = np.full(1, t._storage_offset, dtype=np.int64)
    for size, stride in zip(t._sizes, t._strides):
        offsets = (offsets[:, None] + np.arange(size, dtype=np.int64) * stride).ravel()
    return offsets


def share_an_element(a, b) -> bool:
    """Whether two tensors on one storage reach one element: never when their spans do not
    meet; otherwise counted, up to a million elements each (larger ones are taken to)."""
    low, high = element_span(a)
    other_low, other_high = element_span(b)
    if not (other_low < high and low < other_high):
        return False
    if a.numel() > 1 << 20 or b.numel() > 1 << 20:
        return True
    return np.intersect1d(element_offsets(a), element_offsets(b)).size != 0


def unordered_read_error(why: str) -> NotImplementedError:
    return NotImplementedError(
        "the written tensor shares memory with an input, and PyTorch's loop reads some "
        f"elements after writing others; {why}, so its values depend on PyTorch's build "
        "and threads, which ember does not reproduce. Please clone() the input first."
    )


def refuse_unordered_read(out, *inputs, why: str) -> None:
    """A kernel PyTorch does not check, reading `inputs` while writing `out` in an order
    ember does not reproduce: refused when one of them meets out's memory (None skipped).
    See Note [Memory overlap checks]."""
    if out.numel() <= 1 and all(t is None or t.numel() <= 1 for t in inputs):
        return  # one element, read before the one write that depends on it
    storage = out._storage
    for t in inputs:
        if t is out and out.device.type != "meta":
            raise unordered_read_error(why)
        if storage is not None and t is not None and t._storage is storage:
            if share_an_element(out, t):
                raise unordered_read_error(why)
