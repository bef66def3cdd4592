"""CPU kernels of bincount, histc, searchsorted and bucketize.

Layer: aten/native. In: the schema arguments (out tensors for the out= overloads). Out:
fresh or written tensors, computed by NumPy. histc bins each element by linear
interpolation between the outer edges in the input's dtype, as histogramdd_linear does;
searchsorted promotes the sequence and the values to one dtype first. Mirrors
ATen/native/SummaryOps.cpp (_bincount_cpu), ATen/native/Histogram.cpp (histogram_histc),
ATen/native/Bucketization.cpp and BucketizationUtils.h.
"""

from __future__ import annotations

import math

import numpy as np

from ember._c10 import dtypes
from ember._c10.tensor_impl import shape_text
from ember._tensor import empty_tensor
from ember.aten.native.reduction import store
from ember.aten.native.resize import resize_output

__all__ = [
    "bincount",
    "bucketize_Scalar",
    "bucketize_Tensor",
    "bucketize_Tensor_out",
    "histc",
    "histc_out",
    "searchsorted_Scalar",
    "searchsorted_Scalar_out",
    "searchsorted_Tensor",
    "searchsorted_Tensor_out",
]


def _integral(dtype) -> bool:
    return not (dtype.is_floating_point or dtype.is_complex or dtype is dtypes.bool)


def bincount(self, weights, minlength):
    if not _integral(self.dtype):
        raise NotImplementedError(
            f"\"bincount_cpu\" not implemented for '{dtypes.scalar_type_name(self.dtype)}'"
        )
    minlength = int(minlength)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if self.dim() == 1 and self.numel() == 0:
        result = empty_tensor((minlength,), dtypes.int64, self.device)
        store(result, np.zeros(minlength, np.int64))
        return result
    values = self.ndarray()
    if self.dim() != 1 or values.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.dim() != 1 or weights._sizes[0] != self._sizes[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    length = max(int(values.max()) + 1, minlength)
    if weights is None:
        counts = np.bincount(values.astype(np.int64), minlength=length)
        dtype = dtypes.int64
    else:
        dtype = dtypes.float32 if weights.dtype is dtypes.float32 else dtypes.float64
        counts = np.zeros(length, dtype.np_dtype)
        np.add.at(counts, values.astype(np.int64), weights.ndarray().astype(dtype.np_dtype))
    result = empty_tensor((length,), dtype, self.device)
    store(result, counts)
    return result


def _cpp_double(value: float) -> str:
    """A double as std::ostream prints it (6 significant digits, nan / inf)."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return format(value, ".6g")


def _histc_edges(self, low, high):
    low, high = float(low), float(high)
    if low == high and self.numel() > 0:
        values = self.ndarray()
        low, high = float(values.min()), float(values.max())
    if low == high:
        low -= 1
        high += 1
    if math.isinf(low) or math.isinf(high) or math.isnan(low) or math.isnan(high):
        raise RuntimeError(
            f"torch.histc: range of [{_cpp_double(low)}, {_cpp_double(high)}] is not finite"
        )
    if not low < high:
        raise RuntimeError("torch.histc: max must be larger than min")
    return low, high


def _histc_values(self, bins, low, high):
    bins = int(bins)
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    empty_tensor((bins + 1,), self.dtype, self.device)  # the bin edges (allocation errors)
    low, high = _histc_edges(self, low, high)
    if not self.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"histogram_cpu\" not implemented for '{dtypes.scalar_type_name(self.dtype)}'"
        )
    kind = self.dtype.np_dtype  # c10::Half / BFloat16 arithmetic rounds each step, as NumPy's
    values = self.ndarray().reshape(-1)
    left = np.dtype(kind).type(low)
    right = np.dtype(kind).type(high)
    inside = (values >= left) & (values <= right)
    chosen = values[inside]
    with np.errstate(all="ignore"):
        position = ((chosen - left) * np.dtype(kind).type(bins) / (right - left)).astype(np.int64)
    position[position == bins] = bins - 1
    return np.bincount(position, minlength=bins)[:bins]


def histc(self, bins, min, max):  # noqa: A002 (PyTorch's names)
    counts = _histc_values(self, bins, min, max)
    result = empty_tensor((int(bins),), self.dtype, self.device)
    store(result, counts)
    return result


def histc_out(self, bins, min, max, out):  # noqa: A002
    counts = _histc_values(self, bins, min, max)
    resize_output(out, (int(bins),))
    store(out, counts)
    return out


def _searchsorted_checks(boundaries, values, out_dtype, out_int32, right, side, sorter) -> None:
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(
                f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}"
            )
        if right and side != "right":
            raise RuntimeError(
                "torch.searchsorted(): side and right can't be set to opposites, got side of "
                f"{side} while right was True"
            )
    if sorter is not None:
        if sorter.dtype is not dtypes.int64:
            raise RuntimeError(
                "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                f"{dtypes.scalar_type_name(sorter.dtype)}"
            )
        if sorter._sizes != boundaries._sizes:
            raise RuntimeError(
                "torch.searchsorted(): boundary and sorter must have the same size, but got "
                f"boundary tensor {shape_text(boundaries._sizes)}and got sorter tensor "
                f"{shape_text(sorter._sizes)}"
            )
    if not (values.dim() > 0 or (values.numel() == 1 and boundaries.dim() == 1)):
        raise RuntimeError(
            "torch.searchsorted(): input value can be a scalar only when boundaries tensor "
            f"dimension is 1, but we got boundaries tensor dim({boundaries.dim()}) and input "
            f"value's dim({values.dim()}) numel({values.numel()})"
        )
    if boundaries.dim() == 0:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should have positive dimension, but we "
            "got 0 dimension"
        )
    if boundaries.dim() != 1 and not (
        boundaries.dim() == values.dim() and boundaries._sizes[:-1] == values._sizes[:-1]
    ):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {shape_text(boundaries._sizes)} and input value tensor "
            f"{shape_text(values._sizes)}"
        )
    wanted = dtypes.int32 if out_int32 else dtypes.int64
    if out_dtype is not wanted:
        raise RuntimeError(
            "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or "
            "Long(int64) depending on whether out_int32 flag is True, but we got output "
            f"tensor's dtype {dtypes.scalar_type_name(out_dtype)} and out_int32 flag is "
            f"{'True' if out_int32 else 'False'}"
        )


def _search(boundaries, values, right, side, sorter) -> np.ndarray:
    common = dtypes.promote_types(boundaries.dtype, values.dtype)
    kind = common.np_dtype if common is not dtypes.bfloat16 else np.float32
    sequence = boundaries.ndarray().astype(kind)
    if sorter is not None:
        order = sorter.ndarray()
        if ((order < 0) | (order >= sequence.shape[-1])).any():
            raise RuntimeError("torch.searchsorted(): sorter index out of range")
        sequence = np.take_along_axis(sequence, order, axis=-1)
    targets = values.ndarray().astype(kind)
    how = "right" if right or side == "right" else "left"
    if boundaries.dim() == 1:
        return np.searchsorted(sequence, targets, side=how).astype(np.int64)
    rows = sequence.reshape(-1, sequence.shape[-1])
    wanted = targets.reshape(rows.shape[0], -1)
    found = [np.searchsorted(r, w, side=how) for r, w in zip(rows, wanted)]
    return np.asarray(found, np.int64).reshape(targets.shape)


def searchsorted_Tensor(sorted_sequence, self, out_int32, right, side, sorter):  # noqa: N802
    dtype = dtypes.int32 if out_int32 else dtypes.int64
    _searchsorted_checks(sorted_sequence, self, dtype, out_int32, right, side, sorter)
    result = empty_tensor(self._sizes, dtype, self.device)
    if self.numel():
        store(result, _search(sorted_sequence, self, right, side, sorter))
    return result


def searchsorted_Tensor_out(sorted_sequence, self, out_int32, right, side, sorter, out):  # noqa: N802
    _searchsorted_checks(sorted_sequence, self, out.dtype, out_int32, right, side, sorter)
    resize_output(out, self._sizes)
    if self.numel():
        store(out, _search(sorted_sequence, self, right, side, sorter))
    return out


def _scalar_tensor(value, device):
    dtype = dtypes.scalar_dtype(value)
    result = empty_tensor((), dtype, device)
    store(result, np.asarray(value))
    return result


def searchsorted_Scalar(sorted_sequence, self, out_int32, right, side, sorter):  # noqa: N802
    values = _scalar_tensor(self, sorted_sequence.device)
    return searchsorted_Tensor(sorted_sequence, values, out_int32, right, side, sorter)


def searchsorted_Scalar_out(sorted_sequence, self, out_int32, right, side, sorter, out):  # noqa: N802
    values = _scalar_tensor(self, sorted_sequence.device)
    return searchsorted_Tensor_out(sorted_sequence, values, out_int32, right, side, sorter, out)


def _check_boundaries(boundaries) -> None:
    if boundaries.dim() != 1:
        raise RuntimeError(
            f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})"
        )


def bucketize_Tensor(self, boundaries, out_int32, right):  # noqa: N802
    _check_boundaries(boundaries)
    return searchsorted_Tensor(boundaries, self, out_int32, right, None, None)


def bucketize_Tensor_out(self, boundaries, out_int32, right, out):  # noqa: N802
    _check_boundaries(boundaries)
    return searchsorted_Tensor_out(boundaries, self, out_int32, right, None, None, out)


def bucketize_Scalar(self, boundaries, out_int32, right):  # noqa: N802
    _check_boundaries(boundaries)
    return searchsorted_Scalar(boundaries, self, out_int32, right, None, None)
