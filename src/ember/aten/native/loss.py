"""Kernels of the losses (nll_loss, cross_entropy_loss, mse_loss) and of one_hot (dropout: dropout_variants.py).

Layer: aten/native. In: StructuredMeta + out tensors (nll_loss_forward,
nll_loss_backward, mse_loss), or the schema arguments of the composites,
which call other operators only through `at`. Out: tensors. `nll_loss_nd`
is the N-d entry point torch.nn.functional.nll_loss uses (torch._C._nn.nll_loss_nd).
Mirrors ATen/native/LossNLL.cpp, Loss.cpp, Onehot.cpp and Dropout.cpp.
"""

from __future__ import annotations

import math

import numpy as np

from ember._c10 import dtypes
from ember._c10.memory_format import contiguous_format
from ember._c10.tensor_impl import shape_text
from ember.aten.memory_overlap import assert_no_internal_overlap, check_tensor_iterator
from ember.aten.meta.loss import REDUCTION_MEAN, REDUCTION_NONE, REDUCTION_SUM
from ember.aten.native import at
from ember.aten.native.reduction import accumulate_dtype, store
from ember.aten.ufunc import quiet
from ember.aten.ufunc_special import not_implemented_for

__all__ = [
    "nll_loss",
    "nll_loss_nd",
    "nll_loss_forward_output",
    "nll_loss_backward_grad_input",
    "cross_entropy_loss",
    "mse_loss_out",
    "one_hot",
]


# -- nll_loss --------------------------------------------------------------------


def _check_nll_dtypes(self, target, weight, kernel: str) -> None:
    """The target's dtype, then the input's (AT_DISPATCH_FLOATING_TYPES_AND2 of ``kernel``),
    then the weight's, in nll_loss_forward_out_cpu_template's order."""
    if target.dtype not in (dtypes.int64, dtypes.uint8):
        raise RuntimeError(
            "expected target dtype to be Long or Byte, but got "
            f"{dtypes.scalar_type_name(target.dtype)}"
        )
    _check_floating(self, kernel)
    if weight is not None and weight.dtype is not self.dtype:
        raise RuntimeError(
            f"expected scalar type {dtypes.scalar_type_name(self.dtype)} but found "
            f"{dtypes.scalar_type_name(weight.dtype)}"
        )


def _check_floating(self, kernel: str) -> None:
    if not self.dtype.is_floating_point:
        not_implemented_for(kernel, self.dtype)


def _picked(self, target, weight, ignore_index):
    """Per sample: the input at the target class, its weight (0 where ignored)."""
    values = self.ndarray().astype(accumulate_dtype(self.dtype), copy=False)
    values = values.reshape(-1, self._sizes[-1])
    targets = target.ndarray().reshape(-1).astype(np.int64)
    n_classes = self._sizes[-1]
    kept = targets != ignore_index
    bad = kept & ((targets < 0) | (targets >= n_classes))
    if bad.any():
        raise IndexError(f"Target {targets[bad.argmax()]} is out of bounds.")
    safe = np.where(kept, targets, 0)
    if weight is None:
        weights = np.ones(len(targets), values.dtype)
    else:
        weights = weight.ndarray().astype(values.dtype)[safe]
    weights = np.where(kept, weights, 0).astype(values.dtype)
    chosen = values[np.arange(len(targets)), safe] if len(targets) else values[:0, 0]
    return chosen, weights, safe, kept


def plain_targets(self, target, weight, ignore_index):
    """The common case as a flat int64 array: a 2-d input, no class weights, every target
    in range and none ignored (so every weight is 1). None when any of that fails."""
    if weight is not None or len(self._sizes) != 2 or self._sizes[0] == 0:
        return None
    targets = target.ndarray().reshape(-1)
    if targets.dtype != np.int64:
        return None
    n_classes = self._sizes[1]
    # read as unsigned, a negative target is huge: one reduce bounds-checks both sides
    if np.maximum.reduce(targets.view(np.uint64)) >= n_classes or 0 <= ignore_index < n_classes:
        return None  # the general path words the error (or skips the ignored rows)
    return targets


_ROW_STARTS: dict = {}  # (N, C) -> arange(0, N * C, C), read-only; a batch shape repeats


def _positions(targets, n_classes: int):
    """Where (row i, class targets[i]) lies in a row-major (N, C) array, flattened."""
    key = (len(targets), n_classes)
    starts = _ROW_STARTS.get(key)
    if starts is None:
        if len(_ROW_STARTS) > 64:
            _ROW_STARTS.clear()
        starts = np.arange(0, key[0] * n_classes, n_classes)
        starts.flags.writeable = False
        _ROW_STARTS[key] = starts
    return starts + targets


def _chosen(self, targets):
    """The input at each row's target class, in the compute dtype."""
    chosen = self.ndarray().reshape(-1).take(_positions(targets, self._sizes[1]))
    return chosen.astype(accumulate_dtype(self.dtype), copy=False)


def plain_loss(self, targets, reduction):
    """(loss, total weight) of a mean or sum over plain targets (see plain_targets), as
    NumPy scalars of the compute dtype."""
    compute = accumulate_dtype(self.dtype)
    chosen = _chosen(self, targets)
    # the kernel subtracts each term from a zero (so an all-zero sum is +0.0, not -0.0)
    loss = compute.type(0) - np.add.reduce(chosen)
    total = compute.type(len(targets))
    if reduction == REDUCTION_MEAN:
        loss = loss / total
    return loss, total


def forward_plain(self, targets, reduction, output, total_weight) -> None:
    if reduction == REDUCTION_NONE:
        store(output, -_chosen(self, targets))
        store(total_weight, 0)
        return
    loss, total = plain_loss(self, targets, reduction)
    store(output, np.asarray(loss))
    store(total_weight, np.asarray(total))


def backward_plain(grad_output, self, targets, reduction, total_weight):
    """The gradient for plain targets (see plain_targets), as a fresh array."""
    compute = accumulate_dtype(self.dtype)
    grads = grad_output.ndarray().reshape(-1).astype(compute, copy=False)
    if reduction == REDUCTION_MEAN:
        grads = grads / total_weight.ndarray().reshape(()).astype(compute)
    result = np.zeros(self._sizes, compute)
    # one gradient (mean, sum) repeats along the targets; N of them (none) go one each
    result.put(_positions(targets, self._sizes[1]), -grads)
    return result


@quiet
def nll_loss_forward_output(
    meta, self, target, weight, reduction, ignore_index, output, total_weight
) -> None:
    _check_nll_dtypes(self, target, weight, "nll_loss_out_frame")
    targets = plain_targets(self, target, weight, ignore_index)
    if targets is not None:
        forward_plain(self, targets, reduction, output, total_weight)
        return
    chosen, weights, _, kept = _picked(self, target, weight, ignore_index)
    losses = np.where(kept, -chosen * weights, 0).astype(chosen.dtype)
    if reduction == REDUCTION_NONE and self.dim() == 2:
        store(output, losses)
        store(total_weight, 0)
        return
    if target.numel() == 0:
        store(output, math.nan if reduction == REDUCTION_MEAN else 0)
        store(total_weight, 0)
        return
    total = np.sum(weights)
    loss = chosen.dtype.type(0) - np.sum(np.where(kept, chosen * weights, 0))
    if reduction == REDUCTION_MEAN:
        loss = loss / total
    store(output, loss)
    store(total_weight, total)


@quiet
def nll_loss_backward_grad_input(
    meta, grad_output, self, target, weight, reduction, ignore_index, total_weight, grad_input
) -> None:
    _check_floating(self, "nll_loss_backward_out_frame")
    _check_nll_dtypes(self, target, weight, "nll_loss_backward_out_frame")
    targets = plain_targets(self, target, weight, ignore_index)
    if targets is not None:
        store(grad_input, backward_plain(grad_output, self, targets, reduction, total_weight))
        return
    _, weights, safe, kept = _picked(self, target, weight, ignore_index)
    grads = np.broadcast_to(grad_output.ndarray().reshape(-1), weights.shape)
    grads = grads.astype(weights.dtype)
    if reduction == REDUCTION_MEAN:
        grads = grads / total_weight.ndarray().reshape(())
    result = np.zeros((len(safe), self._sizes[-1]), weights.dtype)
    rows = np.arange(len(safe))[kept]
    result[rows, safe[kept]] = -(weights * grads)[kept]
    store(grad_input, result)


def nll_loss(self, target, weight, reduction, ignore_index):
    return at.nll_loss_forward(self, target, weight, reduction, ignore_index)[0]


def nll_loss_nd(self, target, weight=None, reduction=REDUCTION_MEAN, ignore_index=-100):
    """nll_loss_nd: (N, C, d1, ...) inputs are flattened to (N * d1 * ..., C) rows."""
    if self.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {self.dim()})")
    target_batch = target._sizes[0] if target._sizes else 0  # a 0-dim target has none
    if self.dim() != 1 and self._sizes[0] != target_batch:
        raise ValueError(
            f"Expected input batch_size ({self._sizes[0]}) to match target batch_size "
            f"({target_batch})."
        )
    if self.dim() <= 2:
        return at.nll_loss(self, target, weight, reduction, ignore_index)
    if self.dim() == 4:
        return at.nll_loss2d(self, target, weight, reduction, ignore_index)
    # 3 or more than 4 dims: viewed as (N, C, 1, -1) for nll_loss2d, as PyTorch does
    n, c = self._sizes[0], self._sizes[1]
    out_size = [n, *self._sizes[2:]]
    if list(target._sizes[1:]) != list(self._sizes[2:]):
        raise RuntimeError(
            f"Expected target size {shape_text(out_size)}, got {shape_text(target._sizes)}"
        )
    self = at.contiguous(self, contiguous_format)
    target = at.contiguous(target, contiguous_format)
    self = at.view(self, [n, c, 1, -1] if self.numel() > 0 else [n, c, 0, 0])
    target = at.view(target, [n, 1, -1] if target.numel() > 0 else [n, 0, 0])
    result = at.nll_loss2d(self, target, weight, reduction, ignore_index)
    if reduction == REDUCTION_NONE:
        result = at.view(result, out_size)
    return result


# -- cross_entropy ------------------------------------------------------------------


def _weight_view(weight, ndim: int, class_dim: int):
    shape = [1] * ndim
    shape[class_dim] = weight._sizes[0]
    return at.view(weight, shape)


def _prob_target_loss(self, target, weight, reduction, label_smoothing):
    class_dim = 0 if self.dim() == 1 else 1
    n_classes = self._sizes[class_dim]
    if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
        raise RuntimeError(
            f"cross_entropy: weight tensor should be defined either for all {n_classes} "
            f"classes or no classes but got weight tensor of shape: {shape_text(weight._sizes)}"
        )
    log_probs = at.log_softmax_int(self, class_dim, self.dtype)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(
                f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
            )
        target = at.add_Scalar(
            at.mul_Scalar(target, 1 - label_smoothing), label_smoothing / n_classes, 1
        )
    product = at.mul_Tensor(log_probs, target)
    if weight is not None:
        if log_probs.dim() > 1:
            weight = _weight_view(weight, log_probs.dim(), 1)
        product = at.mul_Tensor(product, weight)
    if reduction == REDUCTION_NONE:
        return at.neg(at.sum_dim_IntList(product, [class_dim], False, None))
    total = at.neg(at.sum(product, None))
    if reduction == REDUCTION_SUM:
        return total
    if log_probs.numel() == 0:
        return at.fill__Scalar(total, math.nan)
    return at.div_Scalar(total, log_probs.numel() // n_classes)


def _label_smoothing_loss(self, target, weight, reduction, ignore_index, label_smoothing):
    class_dim = 0 if self.dim() == 1 else 1
    log_probs = at.log_softmax_int(self, class_dim, self.dtype)
    nll = nll_loss_nd(log_probs, target, weight, reduction, ignore_index)
    n_classes = log_probs._sizes[class_dim]
    ignore_mask = at.eq_Scalar(target, ignore_index)
    if weight is not None:
        weighted = at.mul_Tensor(log_probs, _weight_view(weight, log_probs.dim(), class_dim))
        smooth = at.neg(at.sum_dim_IntList(weighted, [class_dim], False, None))
    else:
        smooth = at.neg(at.sum_dim_IntList(log_probs, [class_dim], False, None))
    smooth = at.masked_fill_Scalar(smooth, ignore_mask, 0.0)
    if reduction == REDUCTION_MEAN:
        kept = at.logical_not(ignore_mask)
        if weight is not None:
            safe_target = at.masked_fill_Scalar(target, ignore_mask, 0)
            flat = at.reshape(safe_target, [-1])
            picked = at.index_select(weight, 0, flat)
            picked = at.masked_fill_Scalar(picked, at.reshape(ignore_mask, [-1]), 0)
            denominator = at.sum(picked, None)
        else:
            denominator = at.sum(kept, None)
        smooth = at.div_Tensor(at.sum(smooth, None), denominator)
    elif reduction == REDUCTION_SUM:
        smooth = at.sum(smooth, None)
    left = at.mul_Scalar(nll, 1 - label_smoothing)
    return at.add_Tensor(left, at.mul_Scalar(smooth, label_smoothing / n_classes), 1)


def cross_entropy_loss(self, target, weight, reduction, ignore_index, label_smoothing):
    if self._sizes == target._sizes:
        if not target.dtype.is_floating_point:
            raise RuntimeError(
                "Expected floating point type for target with class probabilities, got "
                f"{dtypes.scalar_type_name(target.dtype)}"
            )
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _prob_target_loss(self, target, weight, reduction, label_smoothing)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(
                f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
            )
        return _label_smoothing_loss(self, target, weight, reduction, ignore_index, label_smoothing)
    class_dim = 0 if self.dim() == 1 else 1
    log_probs = at.log_softmax_int(self, class_dim, self.dtype)
    return nll_loss_nd(log_probs, target, weight, reduction, ignore_index)


# -- mse_loss -------------------------------------------------------------------------


def mse_loss_out(meta, self, target, reduction, out) -> None:
    # mse_loss_out: unreduced, one TensorIterator writes `out`; reduced, mean_out divides
    # it in place, sum_out checks nothing (Note [Memory overlap checks])
    if reduction == REDUCTION_NONE:
        check_tensor_iterator(out, self, target)
    elif reduction == REDUCTION_MEAN:
        assert_no_internal_overlap(out)
    compute = meta.compute_dtype
    if not compute.is_floating_point:
        not_implemented_for("mse_cpu", compute)
    np_compute = accumulate_dtype(compute)
    difference = self.ndarray().astype(np_compute) - target.ndarray().astype(np_compute)
    squared = difference * difference
    if reduction == REDUCTION_MEAN:
        with np.errstate(invalid="ignore", divide="ignore"):
            squared = np.mean(squared)
    elif reduction == REDUCTION_SUM:
        squared = np.sum(squared)
    store(out, squared)


# -- one_hot ---------------------------------------------------------------------------


def one_hot(self, num_classes):
    if self.dtype is not dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if self.device.type == "meta":
        if num_classes == -1:
            num_classes = at.max(self).item() + 1
        index = at.arange(num_classes, dtypes.int64, None, self.device, None)
        matches = at.eq_Tensor(at.unsqueeze(self, -1), index)
        return at._to_copy(matches, dtypes.int64, None, None, None, False, None)
    shape = [*self._sizes]
    if self.numel() == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        sizes = [*shape, num_classes]
        return at.empty_memory_format(sizes, dtypes.int64, None, self.device, None, None)
    if at.min(self).item() < 0:
        raise RuntimeError("Class values must be non-negative.")
    largest = at.max(self).item()
    if num_classes == -1:
        num_classes = largest + 1
    elif num_classes <= largest:
        raise RuntimeError("Class values must be smaller than num_classes.")
    result = at.zeros([*shape, num_classes], dtypes.int64, None, self.device, None)
    return at.scatter__value(result, -1, at.unsqueeze(self, -1), 1)
