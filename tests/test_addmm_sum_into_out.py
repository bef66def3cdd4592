"""addmm's CPU kernel adds `beta * self` to the product straight into the result
(aten/native/linalg.py addmm_out): the same numbers as the product and the sum computed
apart and then copied, for every layout of self and of the result."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember


def _reference(bias, a, b, beta, alpha):
    """The kernel's arithmetic, one step at a time (matmul, scale, add, copy)."""
    dtype = a.dtype.type
    product = np.matmul(a, b)
    if alpha != 1:
        product = product * dtype(alpha)
    addend = bias
    if beta != 1:
        addend = addend * dtype(beta)
    return product + addend


@settings(max_examples=60, deadline=None)
@given(
    dtype=st.sampled_from(["float32", "float64"]),
    m=st.integers(1, 6),
    k=st.integers(1, 5),
    n=st.integers(1, 6),
    bias_shape=st.sampled_from(["row", "full", "column", "scalar", "one_row"]),
    transposed=st.booleans(),
    beta=st.sampled_from([1, 0.5, 2]),
    alpha=st.sampled_from([1, 3, -0.25]),
    seed=st.integers(0, 2**16),
)
def test_addmm_result_is_the_sum_copied(dtype, m, k, n, bias_shape, transposed, beta, alpha, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    shape = {"row": (n,), "full": (m, n), "column": (m, 1), "scalar": (), "one_row": (1, n)}
    bias = rng.standard_normal(shape[bias_shape]).astype(dtype)
    mat2 = ember.tensor(b.T.copy()).t() if transposed else ember.tensor(b)
    expected = _reference(bias, a, b.T.copy().T if transposed else b, beta, alpha)
    result = ember.addmm(ember.tensor(bias), ember.tensor(a), mat2, beta=beta, alpha=alpha)
    assert result.dtype is getattr(ember, dtype) and result.stride() == (n, 1)
    np.testing.assert_array_equal(result.numpy(), expected)
    out = ember.empty(n, m, dtype=getattr(ember, dtype)).t()  # a column-major out=
    ember.addmm(ember.tensor(bias), ember.tensor(a), mat2, beta=beta, alpha=alpha, out=out)
    np.testing.assert_array_equal(out.numpy(), expected)
    if bias_shape == "full":  # in place: self is the result
        target = ember.tensor(bias)
        target.addmm_(ember.tensor(a), mat2, beta=beta, alpha=alpha)
        np.testing.assert_array_equal(target.numpy(), expected)


def test_addmm_of_linear_is_pytorchs_and_keeps_its_graph():
    rng = np.random.default_rng(3)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((8, 5), (4, 5), (4,)))
    results = {}
    for lib in (ember, torch):
        weight = lib.tensor(w, requires_grad=True)
        bias = lib.tensor(b, requires_grad=True)
        y = lib.nn.functional.linear(lib.tensor(x), weight, bias)
        y.sum().backward()
        results[lib] = (y, weight.grad, bias.grad)
    for mine, theirs in zip(results[ember], results[torch]):
        np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=1e-5)
    assert results[ember][0].grad_fn.name() == results[torch][0].grad_fn.name() == "AddmmBackward0"
