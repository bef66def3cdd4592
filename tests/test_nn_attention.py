"""F.scaled_dot_product_attention against PyTorch 2.13: 4-d inputs without dropout take
the CPU flash kernel (_scaled_dot_product_flash_attention_for_cpu and its backward), the
others the math path (matmul, _safe_softmax); values, gradients, grad_fn names and the
operators a TorchDispatchMode sees, with masks, is_causal, scale and enable_gqa."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nn_normact_support import compare_autograd, same_error
from oracle import torch  # noqa: F401 (the oracle nn_normact_support compares with)

import ember

HAS_SCALAR_TENSOR = hasattr(ember, "scalar_tensor")


def F(lib):  # noqa: N802
    return lib.nn.functional


def _program(mask, dtype, **kwargs):
    def fn(L, q, k, v):
        options = dict(kwargs)
        if mask is not None:
            options["attn_mask"] = (
                L.tensor(mask) if mask.dtype == bool else L.tensor(mask, dtype=getattr(L, dtype))
            )
        return F(L).scaled_dot_product_attention(q, k, v, **options)

    return fn


@settings(max_examples=20, deadline=None)
@given(batch=st.lists(st.integers(1, 2), min_size=1, max_size=2), heads=st.sampled_from([1, 2]),
       length=st.integers(1, 4), source=st.integers(1, 4), embed=st.integers(1, 4),
       mask=st.sampled_from([None, "float", "bool"]), causal=st.booleans(),
       scale=st.sampled_from([None, 0.3, -0.5]), dtype=st.sampled_from(["float64", "float32"]),
       seed=st.integers(0, 2**16))  # fmt: skip
def test_against_torch(batch, heads, length, source, embed, mask, causal, scale, dtype, seed):
    rng = np.random.default_rng(seed)
    if causal:  # (a negative scale with is_causal gives NaN rows in PyTorch's kernel)
        mask, source = None, length
        scale = None if scale is not None and scale < 0 else scale
    lead = batch[:1] + [heads] if len(batch) == 2 else batch
    q, k, v = (rng.standard_normal(lead + [n, embed]) for n in (length, source, source))
    attn_mask = {
        None: None,
        "float": rng.standard_normal((length, source)),
        "bool": np.tril(np.ones((length, source), bool)) | (rng.random((length, source)) < 0.5),
    }[mask]
    tol = 1e-10 if dtype == "float64" else 2e-5
    compare_autograd(
        _program(attn_mask, dtype, is_causal=causal, scale=scale), [q, k, v], dtype=dtype,
        rtol=tol, atol=tol, ops=HAS_SCALAR_TENSOR or not (causal and len(lead) != 2) and mask != "bool",
    )  # fmt: skip


@pytest.mark.parametrize("shape", [(1, 4, 3, 2), (2, 4, 3, 2)])
def test_grouped_query_attention(shape):
    rng = np.random.default_rng(0)
    q = rng.standard_normal(shape)
    k = rng.standard_normal(shape[:1] + (2,) + shape[2:])
    compare_autograd(_program(None, "float64", enable_gqa=True), [q, k, k * 0.5])


def test_math_path_double_backward():
    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal((2, 3, 2)) for _ in range(3))
    compare_autograd(_program(None, "float64"), [q, k, v], double=True)


@pytest.mark.parametrize("p", [0.0, 0.5])
def test_dropout_path_draws_torchs_mask(p):
    """dropout_p > 0 takes the math path; both libraries seeded alike draw one mask."""
    rng = np.random.default_rng(2)
    q, k, v = (rng.standard_normal((1, 2, 3, 2)) for _ in range(3))

    def fn(L, q, k, v):
        L.manual_seed(0)
        return F(L).scaled_dot_product_attention(q, k, v, dropout_p=p)

    # ember's dropout kernel draws its mask without dispatching empty_like / bernoulli_ / div_
    compare_autograd(fn, [q, k, v], ops=p == 0.0)


ERRORS = [
    lambda L: F(L).scaled_dot_product_attention(
        L.ones(2, 3), L.ones(2, 3, dtype=L.float64), L.ones(2, 3)
    ),  # fmt: skip
    lambda L: F(L).scaled_dot_product_attention(
        L.ones(2, 3, 2), L.ones(2, 3, 2), L.ones(2, 3, 2), attn_mask=L.ones(3, 3), is_causal=True
    ),  # fmt: skip
    lambda L: F(L).scaled_dot_product_attention(
        L.ones(2, 3), L.ones(2, 3), L.ones(2, 3), attn_mask=L.ones(2, 2, dtype=L.long)
    ),  # fmt: skip
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors(case):
    same_error(ERRORS[case])
