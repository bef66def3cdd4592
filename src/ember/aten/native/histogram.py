"""histogram and histogramdd: counts (or weights) of values in bins, with the bin edges.

Layer: aten/native. In: the full schema argument list. Out: `hist` in the input's type and
the bin edges, as PyTorch's CPU kernels compute them: edges from linspace over the range
(or the input's aminmax), each value placed by linear interpolation corrected by a search
of the neighbouring edges (computed edges) or by std::upper_bound (given edges), weights
summed in the input's type, then the density division. Mirrors ATen/native/Histogram.cpp
(the checks, in its order, and the composite histogramdd overloads) and
ATen/native/cpu/HistogramKernel.cpp.
"""

from __future__ import annotations

import math

import numpy as np

from ember._c10 import dtypes
from ember._c10.memory_format import contiguous_format
from ember.aten.native import at
from ember.aten.native.common import type_meta_name
from ember.aten.native.ranges import _cpp, _not_implemented
from ember.aten.native.resize import resize_output

__all__ = [
    "histogram_bins_tensor",
    "histogram_bins_tensor_out",
    "histogram_bin_ct",
    "histogram_bin_ct_out",
    "histogramdd_bin_edges",
    "histogramdd_from_bin_cts",
    "histogramdd_from_bin_tensors",
    "histogramdd",
    "histogramdd_int_bins",
    "histogramdd_TensorList_bins",
]

_FLOATS = (dtypes.float32, dtypes.float64)
_KERNEL_TYPES = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)


def _shape(sizes) -> str:
    return "[" + ", ".join(str(s) for s in sizes) + "]"


# -- checks --------------------------------------------------------------------------------


def _check_inputs(x, bins, weight) -> None:
    """histogramdd_check_inputs (x is (M, N))."""
    if x.dim() < 2:
        raise RuntimeError(
            f"torch.histogramdd: input tensor should have at least 2 dimensions, but got {x.dim()}"
        )
    n = x._sizes[-1]
    if len(bins) != n:
        raise RuntimeError(
            f"torch.histogramdd: expected {n} sequences of bin edges for a {n}-dimensional "
            f"histogram but got {len(bins)}"
        )
    name = type_meta_name(x.dtype)
    for dim, edges in enumerate(bins):
        if edges.dtype is not x.dtype:
            raise RuntimeError(
                "torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                f"but got input with dtype {name} and bins for dimension {dim} with dtype "
                f"{type_meta_name(edges.dtype)}"
            )
        if edges.dim() != 1:
            raise RuntimeError(
                "torch.histogramdd: bins tensor should have one dimension, but got "
                f"{edges.dim()} dimensions in the bins tensor for dimension {dim}"
            )
        if edges.numel() <= 0:
            raise RuntimeError(
                "torch.histogramdd: bins tensor should have at least 1 element, but got "
                f"{edges.numel()} elements in the bins tensor for dimension {dim}"
            )
    if weight is None:
        return
    if weight.dtype is not x.dtype:
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
            f"should have the same dtype, but got input({name}), and "
            f"weight({type_meta_name(weight.dtype)})"
        )
    weight_sizes = list(weight._sizes) or [1]
    if list(x._sizes[:-1]) != weight_sizes:
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided it should have the same shape as "
            "the input tensor excluding its innermost dimension, but got input with shape "
            f"{_shape(x._sizes)} and weight with shape {_shape(weight._sizes)}"
        )


def _prepare_out(x, bin_ct, hist, bin_edges) -> None:
    """histogramdd_prepare_out: dtypes, bins > 0, then resize the outputs."""
    name = type_meta_name(x.dtype)
    if hist.dtype is not x.dtype:
        raise RuntimeError(
            "torch.histogram: input tensor and hist tensor should have the same dtype, but got "
            f"input {name} and hist {type_meta_name(hist.dtype)}"
        )
    for dim, (count, edges) in enumerate(zip(bin_ct, bin_edges)):
        if edges.dtype is not x.dtype:
            raise RuntimeError(
                "torch.histogram: input tensor and bin_edges tensor should have the same dtype, "
                f"but got input {name} and bin_edges {type_meta_name(edges.dtype)} for "
                f"dimension {dim}"
            )
        if count <= 0:
            raise RuntimeError(
                f"torch.histogram(): bins must be > 0, but got {count} for dimension {dim}"
            )
        resize_output(edges, (count + 1,))
    resize_output(hist, tuple(bin_ct))


def _outer_edges(x, range_) -> tuple[list, list]:
    """select_outer_bin_edges (x is (M, N)): the range, or the input's aminmax."""
    n = x._sizes[-1]
    left, right = [0.0] * n, [1.0] * n
    if range_ is not None:
        if len(range_) != 2 * n:
            raise RuntimeError(
                f"torch.histogramdd: for a {n}-dimensional histogram range should have {2 * n} "
                f"elements, but got {len(range_)}"
            )
        left, right = [float(v) for v in range_[0::2]], [float(v) for v in range_[1::2]]
    elif x.numel() > 0:
        if x.dtype not in _FLOATS:
            raise _not_implemented("histogramdd", x.dtype)
        low, high = at.aminmax(x, 0, False)
        left, right = low.ndarray().tolist(), high.ndarray().tolist()
    for dim in range(n):
        if not (math.isfinite(left[dim]) and math.isfinite(right[dim])):
            raise RuntimeError(
                f"torch.histogramdd: dimension {dim}'s range [{_cpp(left[dim])}, "
                f"{_cpp(right[dim])}] is not finite"
            )
        if not left[dim] <= right[dim]:
            raise RuntimeError(
                f"torch.histogramdd: min should not exceed max, but got min {_cpp(left[dim])} "
                f"max {_cpp(right[dim])} for dimension {dim}"
            )
        if left[dim] == right[dim]:
            left[dim] -= 0.5
            right[dim] += 0.5
    return left, right


# -- the kernel ------------------------------------------------------------------------------


def _upper_bound(edges: np.ndarray, values: np.ndarray, first, last) -> np.ndarray:
    """std::upper_bound over edges[first:last) for each value (arrays of starts and ends):
    the same halving steps, so unsorted edges give PyTorch's positions too."""
    first = np.array(first, dtype=np.int64, copy=True)
    count = np.asarray(last, dtype=np.int64) - first
    while (count > 0).any():
        step = count // 2
        probe = np.minimum(first + step, len(edges) - 1)
        go_right = (count > 0) & ~(values < edges[probe])
        first = np.where(go_right, first + step + 1, first)
        count = np.where(count > 0, np.where(go_right, count - step - 1, step), 0)
    return first


def _fill(hist, bin_edges, x, weight, local_search: bool) -> None:
    """histogramdd_cpu_contiguous: hist (its data) += weight at each value's bin."""
    data = x.ndarray()
    kind = data.dtype.type
    m, n = data.shape
    if n == 0:
        return
    keep = np.ones(m, dtype=bool)
    flat_index = np.zeros(m, dtype=np.int64)
    strides = [s for s in hist._strides]
    for dim in range(n):
        edges = np.ascontiguousarray(bin_edges[dim].ndarray())
        left, right = edges[0], edges[-1]
        values = data[:, dim]
        with np.errstate(invalid="ignore"):
            keep &= (values >= left) & (values <= right)
        values = np.where(keep, values, left)
        count = len(edges)
        if local_search:
            with np.errstate(all="ignore"):
                scaled = (values - left) * kind(count - 1) / (right - left)
            pos = np.nan_to_num(scaled).astype(np.int64)
            pos = _upper_bound(edges, values, np.maximum(pos - 1, 0), np.minimum(pos + 2, count))
        else:
            pos = _upper_bound(edges, values, np.zeros(m, np.int64), np.full(m, count))
        pos = pos - 1
        pos[pos == count - 1] -= 1
        flat_index += strides[dim] * pos
    weights = np.ones(m, kind) if weight is None else weight.ndarray().reshape(m)
    np.add.at(hist.ndarray().reshape(-1), flat_index[keep], weights[keep])


def _compute(x, weight, density, hist, bin_edges, local_search: bool) -> None:
    """histogramdd_out_cpu_template: zero, fill, then the density division."""
    at.fill__Scalar(hist, 0)
    n = x._sizes[-1]
    m = math.prod(x._sizes[:-1])
    flat = at.reshape(x, [m, n])
    flat_weight = None if weight is None else at.reshape(weight, [m])
    if x.dtype not in _KERNEL_TYPES:
        raise _not_implemented("histogram_cpu", x.dtype)
    contiguous = [at.contiguous(e, contiguous_format) for e in bin_edges]
    _fill(hist, contiguous, flat, flat_weight, local_search)
    if density:
        at.div__Scalar(hist, at.sum(hist, None).item())
        for dim in range(n):
            lengths = at.diff(bin_edges[dim], 1, -1, None, None)
            shape = [1] * n
            shape[dim] = lengths.numel()
            at.div__Tensor(hist, at.reshape(lengths, shape))


def _empty_like_input(x):
    return at.empty_memory_format([0], x.dtype, None, x.device, None, contiguous_format)


def _allocate_bin_edges(x) -> list:
    if x.dim() < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    return [_empty_like_input(x) for _ in range(x._sizes[-1])]


# -- histogramdd's kernels -----------------------------------------------------------------


def _from_tensors_out(x, bins, weight, density, hist, bin_edges):
    _check_inputs(x, bins, weight)
    _prepare_out(x, [b.numel() - 1 for b in bins], hist, bin_edges)
    for edges, given in zip(bin_edges, bins):
        at.copy_(edges, given, False)
    _compute(x, weight, density, hist, bin_edges, local_search=False)
    return hist


def _bin_edges_out(x, bin_ct, range_, out: list) -> list:
    n = x._sizes[-1]
    if len(bin_ct) != n:
        raise RuntimeError(
            "histogramdd: The size of bins must be equal to the innermost dimension of the input."
        )
    flat = at.reshape(x, [math.prod(x._sizes[:-1]), n])
    left, right = _outer_edges(flat, range_)
    for dim in range(n):
        at.linspace_out(left[dim], right[dim], bin_ct[dim] + 1, out[dim])
    return out


def histogramdd_bin_edges(self, bins, range, weight, density):  # noqa: A002 (schema name)
    return _bin_edges_out(self, list(bins), range, _allocate_bin_edges(self))


def histogramdd_from_bin_cts(self, bins, range, weight, density):  # noqa: A002
    hist = _empty_like_input(self)
    bin_edges = _allocate_bin_edges(self)
    edges = _bin_edges_out(self, list(bins), range, _allocate_bin_edges(self))
    _check_inputs(self, edges, weight)
    _prepare_out(self, list(bins), hist, bin_edges)
    for out_edges, computed in zip(bin_edges, edges):
        at.copy_(out_edges, computed, False)
    _compute(self, weight, density, hist, bin_edges, local_search=True)
    return hist


def histogramdd_from_bin_tensors(self, bins, weight, density):
    hist = _empty_like_input(self)
    return _from_tensors_out(self, list(bins), weight, density, hist, _allocate_bin_edges(self))


# -- histogram (one dimension) ---------------------------------------------------------------


def _flat(self, weight):
    x = at.reshape(self, [self.numel(), 1])
    return x, None if weight is None else at.reshape(weight, [weight.numel()])


def histogram_bins_tensor_out(self, bins, weight, density, hist, bin_edges):
    x, flat_weight = _flat(self, weight)
    _from_tensors_out(x, [bins], flat_weight, density, hist, [bin_edges])
    return hist, bin_edges


def histogram_bins_tensor(self, bins, weight, density):
    hist = _empty_like_input(self)
    bin_edges = at.empty_memory_format([0], bins.dtype, None, bins.device, None, contiguous_format)
    return histogram_bins_tensor_out(self, bins, weight, density, hist, bin_edges)


def histogram_bin_ct_out(self, bins, range, weight, density, hist, bin_edges):  # noqa: A002
    x, flat_weight = _flat(self, weight)
    _prepare_out(x, [bins], hist, [bin_edges])
    left, right = _outer_edges(x, range)
    at.linspace_out(left[0], right[0], bins + 1, bin_edges)
    _check_inputs(x, [bin_edges], flat_weight)
    _compute(x, flat_weight, density, hist, [bin_edges], local_search=True)
    return hist, bin_edges


def histogram_bin_ct(self, bins, range, weight, density):  # noqa: A002
    hist = _empty_like_input(self)
    bin_edges = at.empty_memory_format([0], self.dtype, None, self.device, None, None)
    return histogram_bin_ct_out(self, bins, range, weight, density, hist, bin_edges)


# -- histogramdd (CompositeImplicitAutograd) -------------------------------------------------


def histogramdd_TensorList_bins(self, bins, range, weight, density):  # noqa: A002, N802
    hist = at._histogramdd_from_bin_tensors(self, bins, weight, density)
    return hist, list(bins)


def histogramdd(self, bins, range, weight, density):  # noqa: A002
    bin_edges = at._histogramdd_bin_edges(self, bins, range, weight, density)
    hist = at._histogramdd_from_bin_cts(self, bins, range, weight, density)
    return hist, bin_edges


def histogramdd_int_bins(self, bins, range, weight, density):  # noqa: A002
    return histogramdd(self, [bins] * self._sizes[-1], range, weight, density)
