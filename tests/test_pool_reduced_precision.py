"""Pooling in bfloat16 / float16 against PyTorch 2.13's CPU kernels, bit for bit: max,
average and adaptive pools in 1-3 spatial dims, values, indices and gradients (their
rounding: float32 window sums, backward scatters rounded after every addition), and the
3-d average pool's refusal of both dtypes."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember

DTYPES = ["bfloat16", "float16"]


def _pair(seed, shape, dtype):
    g = torch.Generator().manual_seed(seed)
    t = (torch.randn(*shape, generator=g) * 3).to(getattr(torch, dtype))
    e = ember.tensor(t.float().numpy()).to(getattr(ember, dtype))
    return t, e


def _bits(t):
    return t.detach().float().numpy()


def _same(a, b):
    assert str(a.dtype).replace("torch.", "") == str(b.dtype).replace("ember.", "")
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_array_equal(_bits(a), _bits(b))


def _check(fn, seed, shape, dtype, outputs=1):
    """Values (and indices) and the input's gradient of fn(F, x) in both libraries."""
    t, e = _pair(seed, shape, dtype)
    t.requires_grad_()
    e.requires_grad_()
    rt = fn(torch.nn.functional, t)
    re = fn(ember.nn.functional, e)
    if outputs == 2:
        _same(rt[0], re[0])
        np.testing.assert_array_equal(rt[1].numpy(), re[1].numpy())
        rt, re = rt[0], re[0]
    else:
        _same(rt, re)
    g = torch.Generator().manual_seed(seed + 1)
    go = torch.randn(rt.shape, generator=g).to(rt.dtype)
    rt.backward(go)
    re.backward(ember.tensor(go.float().numpy()).to(re.dtype))
    _same(t.grad, e.grad)


@st.composite
def windows(draw, dims):
    kernel = [draw(st.integers(1, 3)) for _ in range(dims)]
    stride = [draw(st.integers(1, 2)) for _ in range(dims)]
    padding = [draw(st.integers(0, k // 2)) for k in kernel]
    spatial = [draw(st.integers(k, 7)) for k in kernel]
    shape = [draw(st.integers(1, 2)), draw(st.integers(1, 3))] + spatial
    return shape, kernel, stride, padding


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dims", [1, 2, 3])
@settings(max_examples=15, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**16))
def test_max_pool(dtype, dims, data, seed):
    shape, kernel, stride, padding = data.draw(windows(dims))
    f = f"max_pool{dims}d"

    def fn(F, x):
        return getattr(F, f)(x, kernel, stride, padding, return_indices=True)

    _check(fn, seed, shape, dtype, outputs=2)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dims", [1, 2])
@settings(max_examples=15, deadline=None)
@given(
    data=st.data(),
    seed=st.integers(0, 2**16),
    include_pad=st.booleans(),
    divisor=st.sampled_from([None, 2, 7]),
)
def test_avg_pool(dtype, dims, data, seed, include_pad, divisor):
    shape, kernel, stride, padding = data.draw(windows(dims))
    if dims == 1:
        divisor = None  # avg_pool1d has no divisor_override

    def fn(F, x):
        if dims == 1:
            return F.avg_pool1d(x, kernel, stride, padding, False, include_pad)
        return F.avg_pool2d(x, kernel, stride, padding, False, include_pad, divisor)

    _check(fn, seed, shape, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dims", [1, 2, 3])
@settings(max_examples=15, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 7), min_size=3, max_size=3),
    outs=st.lists(st.integers(1, 4), min_size=3, max_size=3),
    seed=st.integers(0, 2**16),
)
def test_adaptive_pools(dtype, dims, sizes, outs, seed):
    shape = [2, 2] + sizes[:dims]
    out = outs[:dims]

    def avg(F, x):
        return getattr(F, f"adaptive_avg_pool{dims}d")(x, out)

    def mx(F, x):
        return getattr(F, f"adaptive_max_pool{dims}d")(x, out, return_indices=True)

    _check(avg, seed, shape, dtype)
    _check(mx, seed, shape, dtype, outputs=2)


def test_max_pool_bfloat16_nan_wins():
    x = [[[[1.0, float("nan")], [3.0, 2.0]]]]
    t = torch.nn.functional.max_pool2d(
        torch.tensor(x, dtype=torch.bfloat16), 2, return_indices=True
    )
    e = ember.nn.functional.max_pool2d(
        ember.tensor(x, dtype=ember.bfloat16), 2, return_indices=True
    )
    _same(t[0], e[0])
    assert t[1].tolist() == e[1].tolist()


@pytest.mark.parametrize("dtype", DTYPES)
def test_avg_pool3d_refuses_reduced(dtype):
    x = torch.rand(1, 1, 4, 4, 4, dtype=getattr(torch, dtype))
    with pytest.raises(NotImplementedError) as te:
        torch.nn.functional.avg_pool3d(x, 2)
    y = ember.rand(1, 1, 4, 4, 4, dtype=getattr(ember, dtype))
    with pytest.raises(NotImplementedError) as ee:
        ember.nn.functional.avg_pool3d(y, 2)
    assert str(ee.value) == str(te.value)
