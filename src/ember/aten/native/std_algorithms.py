"""The selection and sorting algorithms whose tie order PyTorch's CPU kernels expose:
libstdc++'s std::sort (introsort, median-of-three, heap fallback, final insertion sort)
and the Sedgewick quick-select of Sorting.cpp (quick_select_template).

Layer: aten/native (pure Python over lists; no tensors). In: a list and a strict "less"
(or "greater-or-NaN") predicate. Out: the list permuted exactly as the C++ code permutes
it, so the index mode / kthvalue report among equal values is PyTorch's. Mirrors
bits/stl_algo.h and bits/stl_heap.h (GCC's std::sort) and quick_select_template of
ATen/native/Sorting.cpp.
"""

from __future__ import annotations

__all__ = ["quick_select", "std_sort"]

_THRESHOLD = 16  # _S_threshold


def std_sort(a: list, less) -> None:
    n = len(a)
    if n > 1:
        _introsort_loop(a, 0, n, 2 * (n.bit_length() - 1), less)
        _final_insertion_sort(a, 0, n, less)


def _introsort_loop(a, first, last, depth, less) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            _heap_sort(a, first, last, less)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        _introsort_loop(a, cut, last, depth, less)
        last = cut


def _partition_pivot(a, first, last, less) -> int:
    mid = first + (last - first) // 2
    _median_to_first(a, first, first + 1, mid, last - 1, less)
    return _unguarded_partition(a, first + 1, last, first, less)


def _median_to_first(a, result, x, y, z, less) -> None:
    if less(a[x], a[y]):
        if less(a[y], a[z]):
            pick = y
        elif less(a[x], a[z]):
            pick = z
        else:
            pick = x
    elif less(a[x], a[z]):
        pick = x
    elif less(a[y], a[z]):
        pick = z
    else:
        pick = y
    a[result], a[pick] = a[pick], a[result]


def _unguarded_partition(a, first, last, pivot, less) -> int:
    while True:
        while less(a[first], a[pivot]):
            first += 1
        last -= 1
        while less(a[pivot], a[last]):
            last -= 1
        if not first < last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _final_insertion_sort(a, first, last, less) -> None:
    if last - first > _THRESHOLD:
        _insertion_sort(a, first, first + _THRESHOLD, less)
        for i in range(first + _THRESHOLD, last):
            _unguarded_linear_insert(a, i, less)
    else:
        _insertion_sort(a, first, last, less)


def _insertion_sort(a, first, last, less) -> None:
    for i in range(first + 1, last):
        value = a[i]
        if less(value, a[first]):
            a[first + 1 : i + 1] = a[first:i]
            a[first] = value
        else:
            _unguarded_linear_insert(a, i, less)


def _unguarded_linear_insert(a, last, less) -> None:
    value = a[last]
    position = last - 1
    while less(value, a[position]):
        a[last] = a[position]
        last = position
        position -= 1
    a[last] = value


def _heap_sort(a, first, last, less) -> None:
    """std::partial_sort(first, last, last): make_heap, then sort_heap."""
    length = last - first
    if length >= 2:
        parent = (length - 2) // 2
        while True:
            _adjust_heap(a, first, parent, length, a[first + parent], less)
            if parent == 0:
                break
            parent -= 1
    while last - first > 1:
        last -= 1
        value = a[last]
        a[last] = a[first]
        _adjust_heap(a, first, 0, last - first, value, less)


def _adjust_heap(a, first, hole, length, value, less) -> None:
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and less(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def quick_select(values: list, indices: list, k: int, gt_or_nan) -> None:
    """quick_select_template: partially order values (and indices with them) around k."""

    def swap(i: int, j: int) -> None:
        values[i], values[j] = values[j], values[i]
        indices[i], indices[j] = indices[j], indices[i]

    left, right = 0, len(values) - 1
    while True:
        if right <= left:
            return
        if right == left + 1:
            if gt_or_nan(values[left], values[right]):
                swap(left, right)
            return
        pivot_position = (left + right) >> 1
        swap(pivot_position, left + 1)
        if gt_or_nan(values[left + 1], values[right]):
            swap(left + 1, right)
        if gt_or_nan(values[left], values[right]):
            swap(left, right)
        if gt_or_nan(values[left + 1], values[left]):
            swap(left + 1, left)
        i, j = left + 1, right
        pivot = values[left]
        while True:
            i += 1
            while gt_or_nan(pivot, values[i]):
                i += 1
            j -= 1
            while gt_or_nan(values[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(left, j)
        if j <= k:
            left = i
        if j >= k:
            right = j - 1
