"""Elementwise kernels over overlapping memory, computed in PyTorch's loop order.

Layer: aten (CPU backend). In: the formula of a TensorIterator kernel (aten/ufunc.py or a
CPU kernel), its compute meta, its arguments and the written tensor. Out: True when the
values were written element by element here, False when the formula may run as usual.
Mirrors the loop TensorIterator runs on CPU (reorder_dimensions, coalesce_dimensions, the
basic_loop of ATen/native/cpu/Loops.h).

Note [Overlapping operands in loop order]
-----------------------------------------
PyTorch lets some writes into memory its inputs share through (Note [Memory overlap
checks]: TooHard layouts, an out= tensor that a resize made overlap an input). Its CPU
loop then reads each element when it gets there, after the elements before it were
written: `x[::2].add_(x[:3])` reads x[2] after writing it. NumPy reads every input
first. When the written tensor shares memory with an input in another layout (or has
internal overlap and is an input), the generated in-place and out= kernels of
TensorIterator ops call `in_loop_order`, which runs the formula one element at a time,
in the order PyTorch's iterator visits them: dims sorted by the operands' strides
(outputs first, ties broken by size), the fastest first. That is PyTorch's result
exactly wherever it runs its scalar loop: an inner run (after coalescing) that some
operand walks with a stride other than 1, or shorter than two vectors (64 bytes on every
x86 build). A longer contiguous run is vectorized (loads of a whole chunk before its
stores, the chunk size set by the host's ISA), and from 32768 elements the loop runs in
parallel: there ember refuses rather than give other values. The unary float kernels of
IMPLEMENT_FLOAT_KERNEL (exp, log, sqrt, sin ...) go through vml a row at a time: a row
with a strided input or output is read into a buffer whole (a row, then the next), one
with both contiguous is computed in vml's own chunks, which ember refuses. An input of another dtype
than the computation's is converted before the loop, and an output of another dtype is
written from a temporary after it, as TensorIterator does; both read as NumPy reads.
"""

from __future__ import annotations

import operator

import numpy as np

from ember._c10.tensor_impl import TensorImpl, is_contiguous_strides, make_view
from ember._tensor import Tensor
from ember.aten.memory_overlap import (
    TOO_HARD,
    element_offsets,
    has_internal_overlap,
    share_an_element,
    unordered_read_error,
)
from ember.aten.native.layout import is_non_overlapping_and_dense
from ember.aten.tensor_iterator import _broadcast_strides, _should_swap

__all__ = ["aliases_itself", "in_loop_order"]

_GRAIN_SIZE = 32768  # at::internal::GRAIN_SIZE: TensorIterator's loop runs in parallel from here
_VECTOR_PAIR_BYTES = 64  # 2 * Vectorized<T>::size() * sizeof(T) on AVX2 (more on AVX512)


def _same_layout(a, b) -> bool:
    return (
        a._storage_offset == b._storage_offset
        and a._strides == b._strides
        and a._sizes == b._sizes
        and a.dtype is b.dtype
    )


def _aliases_itself(t) -> bool:
    """Whether two indices of `t` reach one element (what PyTorch's TooHard leaves open).
    Dims sorted by stride, each one stepping past everything the smaller ones span, cannot
    meet; otherwise the offsets are counted (the loop refuses from _GRAIN_SIZE elements on,
    so a larger tensor is assumed to alias)."""
    dims = sorted((abs(st), size) for size, st in zip(t._sizes, t._strides) if size > 1)
    reach = 0
    for stride, size in dims:
        if stride <= reach:
            break
        reach += (size - 1) * stride
    else:
        return False
    numel = 1
    for size in t._sizes:
        numel *= size
    if numel >= _GRAIN_SIZE:
        return True
    offsets = element_offsets(t)
    return np.unique(offsets).size != offsets.size


def aliases_itself(t) -> bool:
    """In place: does the written tensor reach one element through two indices, in a layout
    PyTorch's checks let through (TooHard)? Then its loop reads elements it already wrote."""
    sizes = t._sizes
    if t._storage is None or len(sizes) < 2 or is_contiguous_strides(sizes, t._strides):
        return False  # a fresh, 1-d or contiguous tensor cannot
    return (
        not is_non_overlapping_and_dense(t)
        and has_internal_overlap(t) == TOO_HARD
        and _aliases_itself(t)
    )


def _needs_order(out, inputs) -> bool:
    storage = out._storage
    for t in inputs:
        if t._storage is not storage:
            continue
        if t is out or _same_layout(t, out):
            if aliases_itself(out):
                return True  # its own elements alias: a later one reads an earlier write
            continue
        if share_an_element(out, t):
            return True
    return False


def _permutation(shape: tuple, operands: list[list[int]]) -> list[int]:
    """reorder_dimensions: dims with the fastest-moving first (the outputs' strides count)."""
    ndim = len(shape)
    perm = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = _should_swap(operands, shape, perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    return perm


def _inner_run(shape, operands, perm) -> tuple[int, int]:
    """The length of the innermost loop after coalesce_dimensions merged what it can, and
    how many dims (the first of `perm`) it spans."""
    if not perm:
        return 1, 0
    run = shape[perm[0]]
    last, count = perm[0], 1
    for dim in perm[1:]:
        mergeable = all(
            shape[last] == 1 or shape[dim] == 1 or strides[last] * shape[last] == strides[dim]
            for strides in operands
        )
        if not mergeable:
            break
        run *= shape[dim]
        last, count = dim, count + 1
    return run, count


def _refuse(why: str):
    return unordered_read_error(why)


def _element(t, shape, index):
    strides = _broadcast_strides(t, shape)
    return t._storage_offset + sum(i * s for i, s in zip(index, strides))


def in_loop_order(formula, meta, args: tuple, out, promotes: bool = True) -> bool:
    """Write `formula`'s values in PyTorch's order when `out` overlaps an input (See Note
    [Overlapping operands in loop order]); False when the formula may run as usual.
    `promotes`: the iterator converts inputs to the compute dtype first (copy_'s casts
    element by element instead)."""
    inputs = [a for a in args if isinstance(a, TensorImpl) and a._storage is not None]
    compute = meta.compute_dtype
    if out._storage is None or out.dtype is not compute or not _needs_order(out, inputs):
        return False  # (an output of another dtype is written from a temporary at the end)
    # an input of another dtype is converted before the loop (promote_inputs_to_common_dtype)
    if promotes:
        args = tuple(
            Tensor._wrap(a.ndarray().copy(), a.dtype)
            if isinstance(a, TensorImpl) and a._storage is not None and a.dtype is not compute
            else a
            for a in args
        )
    shape = out._sizes
    tensors = [a for a in args if isinstance(a, TensorImpl) and not a._is_wrapped_number]
    operands = [list(out._strides)] + [_broadcast_strides(t, shape) for t in tensors]
    numel = 1
    for size in shape:
        numel *= size
    if numel >= _GRAIN_SIZE:
        raise _refuse(f"{numel} elements are split among threads")
    perm = _permutation(shape, operands)
    run, coalesced = _inner_run(shape, operands, perm)
    row_buffered = getattr(formula, "__name__", "") in _ROW_BUFFERED
    inner = perm[0] if perm else None
    contiguous = inner is None or all(strides[inner] in (0, 1) for strides in operands)
    if row_buffered:
        # IMPLEMENT_ITERATOR_LAMBDA: a row whose input or output is strided goes through a
        # buffer whole; with both contiguous, vml (MKL or Sleef) reads and writes in chunks
        both = inner is None or (operands[0][inner] == 1 and operands[1][inner] == 1)
        if both or run * compute.itemsize > _VML_BUFFER_BYTES:
            raise _refuse(f"its inner loop of {run} elements is computed in vectors by vml")
    elif contiguous and run * compute.itemsize >= _VECTOR_PAIR_BYTES:
        raise _refuse(f"its inner loop of {run} contiguous elements is vectorized")
    if row_buffered and inner is not None:  # one call per row, rows in order
        # coalesce_dimensions: a merged size-1 dim takes the stride of the dim after it
        inner = next((d for d in perm[:coalesced] if shape[d] > 1), inner)
        outer = perm[coalesced:]
        row_shape = [1 if d in perm[:coalesced] else shape[d] for d in range(len(shape))]
        for index in _odometer(shape, outer, row_shape):
            row = [
                _row(a, shape, index, inner, run) if _is_operand(a, tensors) else a for a in args
            ]
            formula(meta, *row, _row(out, shape, index, inner, run, own=True))
        return True
    for index in _odometer(shape, perm, shape):
        elements = [
            make_view(a, (), (), _element(a, shape, index)) if _is_operand(a, tensors) else a
            for a in args
        ]
        offset = out._storage_offset + sum(i * s for i, s in zip(index, out._strides))
        formula(meta, *elements, make_view(out, (), (), offset))
    return True


_ROW_BUFFERED = frozenset(
    {
        "exp",
        "expm1",
        "log",
        "log10",
        "log1p",
        "log2",
        "sqrt",
        "sin",
        "cos",
        "tan",
        "tanh",
        "asin",
        "acos",
        "atan",
        "erf",
        "erfc",
        "erfinv",
        "lgamma",
        "ceil",
        "floor",
        "round",
        "trunc",
        "i0",
    }
)  # fmt: skip  (the ops of IMPLEMENT_FLOAT_KERNEL / IMPLEMENT_COMPLEX_KERNEL in UnaryOpsKernel.cpp)
_VML_BUFFER_BYTES = 8 * 1024  # IMPLEMENT_ITERATOR_LAMBDA's buffer


def _is_operand(a, tensors) -> bool:
    return any(a is t for t in tensors)


def _odometer(shape, dims, limits):
    """Every index over `dims` (the first moves fastest); the others stay 0."""
    index = [0] * len(shape)
    total = 1
    for d in dims:
        total *= limits[d]
    for _ in range(total):
        yield index
        for dim in dims:
            index[dim] += 1
            if index[dim] < limits[dim]:
                break
            index[dim] = 0


def _row(t, shape, index, inner, run, own=False):
    """The inner row (the coalesced dims as one) that starts at `index`."""
    strides = list(t._strides) if own else _broadcast_strides(t, shape)
    start = t._storage_offset + sum(i * s for i, s in zip(index, strides))
    return make_view(t, (run,), (strides[inner],), start)


def cumulative_in_loop_order(self, dim: int, out, acc, step=operator.add, start=0) -> bool:
    """cumsum (or cumprod: `step` mul, `start` 1) over memory `out` shares with `self` in
    another layout (or that `out` reaches twice), in the order of cpu_cum_base_kernel
    (ReduceOpsKernel.cpp): a TensorIterator over the other dims (dim squashed), each
    position running along `dim`, reading self's element and then writing the running
    value (kept in `acc`, PyTorch's acc_type) into out's. False when the common
    computation is exact."""
    if self._storage is not out._storage or out._storage is None or self.dtype is not out.dtype:
        return False  # (another dtype: the iterator reads a converted copy)
    if not (aliases_itself(out) or _needs_order(out, [self])):
        return False
    shape = list(out._sizes)
    length, shape[dim] = shape[dim], 1
    operands = [list(out._strides), list(self._strides)]
    outer = 1
    for size in shape:
        outer *= size
    if outer >= max(_GRAIN_SIZE // max(length, 1), 1):
        raise _refuse(f"its {outer} rows are split among threads")
    perm = _permutation(tuple(shape), operands)
    dims = [d for d in perm if shape[d] > 1]
    for index in _odometer(shape, dims, shape):
        source = _row(self, shape, index, dim, length, own=True).ndarray()
        target = _row(out, shape, index, dim, length, own=True).ndarray()
        running = acc.type(start)
        for i in range(length):
            running = step(running, acc.type(source[i]))
            target[i] = running
    return True
