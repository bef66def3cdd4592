"""multinomial: indices drawn from rows of (unnormalised) probabilities.

Layer: aten/native. In: the full schema argument list. Out: an int64 tensor of PyTorch's
draws for the generator's state. Mirrors multinomial_out of ATen/native/Distributions.cpp
(the checks; the Gumbel fast path without replacement or for one sample: exponential_,
div, argmax or topk, as operators) and ATen/native/cpu/MultinomialKernel.cpp (with
replacement: each row's running sum in the input's type, float for half and bfloat16,
divided by the sum, the last bucket set to 1, then one double uniform per sample and a
binary search for the first bucket not below it).
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember.aten.native import at, distributions
from ember.aten.native.ranges import _generator, _has_data
from ember.aten.native.resize import resize_impl

__all__ = ["multinomial", "multinomial_out"]

_MAX_CATEGORIES = 1 << 24  # FLOAT32_MAX_CONSECUTIVE_INT
_REDUCED = (dtypes.float16, dtypes.bfloat16)


def _check(self, n_sample, replacement, out) -> None:
    if not 0 < self.dim() <= 2:
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not self.dtype.is_floating_point:
        raise RuntimeError(
            "multinomial only supports floating-point dtypes for input, got: "
            f"{dtypes.scalar_type_name(self.dtype)}"
        )
    if out.dtype is not dtypes.int64:
        raise RuntimeError(
            f"multinomial expects Long tensor out, got: {dtypes.scalar_type_name(out.dtype)}"
        )
    if n_sample <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n_categories = self._sizes[-1]
    if not (replacement or n_sample <= n_categories):
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    if n_categories > _MAX_CATEGORIES:
        raise RuntimeError("number of categories cannot exceed 2^24")


def _gumbel(self, n_sample, generator, out):
    """The fast path: argmax / topk of p / q with q ~ Exp(1)."""
    data = self.ndarray()
    if not (np.all(data < np.inf) and np.all(data >= 0)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    sums = at.sum_dim_IntList(self, None if self.dim() == 1 else [1], False, None)
    if (sums.ndarray() == 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    q = at.exponential_(at.empty_like(self, None, None, None, None, None), 1.0, generator)
    at.div_out(self, q, q)
    if n_sample == 1:
        return at.argmax_out(q, -1, True, out)
    values = at.empty_memory_format(list(out._sizes), self.dtype, None, self.device, None, None)
    at.topk_values(q, n_sample, -1, True, True, values, out)
    return out


def _row_check(value) -> None:
    """The first entry that fails: `val >= 0` (NaN fails it too), then isfinite."""
    if not value >= 0:
        raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
    raise RuntimeError(
        "invalid multinomial distribution (encountering probability entry = infinity or NaN)"
    )


def _with_replacement(self, n_sample, generator, out) -> None:
    """multinomial_with_replacement_apply: rows in order, each checked before its draws."""
    gen = _generator(generator)
    accumulate = np.float32 if self.dtype in _REDUCED else self.dtype.np_dtype
    rows = self.ndarray().reshape(-1, self._sizes[-1])
    drawn = np.empty((rows.shape[0], n_sample), dtype=np.int64)
    for i, row in enumerate(rows):
        row = row.astype(accumulate)
        bad = ~((row >= 0) & np.isfinite(row))
        if bad.any():
            _row_check(row[int(np.argmax(bad))])
        cumulative = np.cumsum(row, dtype=accumulate)
        total = cumulative[-1]
        if not total > 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        cumulative = (cumulative / total).astype(accumulate)
        cumulative[-1] = 1
        uniforms = distributions.uniform(gen, n_sample, dtypes.float64)
        drawn[i] = np.searchsorted(cumulative.astype(np.float64), uniforms, side="left")
    out.ndarray()[...] = drawn.reshape(out.ndarray().shape)


def multinomial_out(self, num_samples, replacement, generator, out):
    _check(self, num_samples, replacement, out)
    sizes = (num_samples,) if self.dim() == 1 else (self._sizes[0], num_samples)
    if tuple(out._sizes) != sizes:
        resize_impl(out, sizes)
    if not _has_data(out):
        return out
    if not replacement or num_samples == 1:
        return _gumbel(self, num_samples, generator, out)
    _with_replacement(self, num_samples, generator, out)
    return out


def multinomial(self, num_samples, replacement, generator):
    result = at.empty_memory_format([0], dtypes.int64, None, self.device, None, None)
    return multinomial_out(self, num_samples, replacement, generator, result)
