"""Convolutions in bfloat16 / float16 against PyTorch 2.13's CPU: bfloat16 forward and
backward (float32 arithmetic rounded once, as oneDNN), float16 forward bit for bit on
random data (cpublas' four interleaved float32 partial sums; the transposed form's
columns and col2im rounded in float16), the float16 backward refused, the output
dtypes under autocast('cpu'), and sdpa's math path returning the inputs' dtype."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from oracle import torch

import ember


@st.composite
def conv_cases(draw, transposed=False):
    dims = draw(st.sampled_from([1, 2, 3]))
    groups = draw(st.sampled_from([1, 2]))
    c_in = groups * draw(st.integers(1, 3))
    c_out = groups * draw(st.integers(1, 3))
    kernel = [draw(st.integers(1, 3)) for _ in range(dims)]
    stride = [draw(st.integers(1, 2)) for _ in range(dims)]
    dilation = [draw(st.integers(1, 2)) for _ in range(dims)]
    padding = [draw(st.integers(0, 1)) for _ in range(dims)]
    reach = [d * (k - 1) + 1 for k, d in zip(kernel, dilation, strict=True)]
    spatial = [draw(st.integers(max(r - 2 * p, 1), 6)) for r, p in zip(reach, padding, strict=True)]
    output_padding = None
    if transposed:
        output_padding = [draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dilation, strict=True)]  # fmt: skip
        weight = [c_in, c_out // groups] + kernel
        sizes = zip(spatial, stride, padding, reach, output_padding, strict=True)
        assume(all((i - 1) * s - 2 * p + r + op > 0 for i, s, p, r, op in sizes))
    else:
        weight = [c_out, c_in // groups] + kernel
    batch = draw(st.integers(1, 2))
    bias = draw(st.booleans())
    return (
        dims,
        [batch, c_in] + spatial,
        weight,
        stride,
        padding,
        dilation,
        groups,
        output_padding,
        bias,
    )


def _fn(case, transposed):
    dims, _, weight, stride, padding, dilation, groups, output_padding, _ = case

    def fn(F, x, w, b):
        if transposed:
            f = getattr(F, f"conv_transpose{dims}d")
            return f(x, w, b, stride, padding, output_padding, groups, dilation)
        return getattr(F, f"conv{dims}d")(x, w, b, stride, padding, dilation, groups)

    return fn


def _inputs(seed, case, grid):
    _, x_shape, w_shape, *_, bias = case
    rng = np.random.default_rng(seed)
    shapes = [x_shape, w_shape] + ([[w_shape[1] * case[6] if case[7] is not None else w_shape[0]]] if bias else [])  # fmt: skip
    if grid:  # on a 1/8 grid: every float32 sum exact, whatever its order
        return [rng.integers(-16, 17, size=s) / 8.0 for s in shapes]
    return [rng.standard_normal(s) for s in shapes]


def _both(fn, arrays, dtype, grad):
    results = []
    for lib in (torch, ember):
        ts = [lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=grad) for a in arrays]
        x, w, b = ts[0], ts[1], ts[2] if len(ts) == 3 else None
        y = fn(lib.nn.functional, x, w, b)
        grads = []
        if grad:
            g = np.random.default_rng(7).integers(-8, 9, size=tuple(y.shape)) / 8.0
            y.backward(lib.tensor(g, dtype=y.dtype))
            grads = [t.grad for t in ts]
        results.append((y, grads))
    return results


def _equal(a, b):
    assert str(b.dtype).replace("ember.", "") == str(a.dtype).replace("torch.", "")
    assert tuple(b.shape) == tuple(a.shape)
    np.testing.assert_array_equal(b.detach().float().numpy(), a.detach().float().numpy())


@pytest.mark.parametrize("transposed", [False, True])
@settings(max_examples=40, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**16))
def test_bfloat16_values_and_gradients(transposed, data, seed):
    case = data.draw(conv_cases(transposed))
    slow = transposed and any(o >= s for o, s in zip(case[7], case[3], strict=True))
    (ty, tg), (ey, eg) = _both(
        _fn(case, transposed), _inputs(seed, case, True), "bfloat16", not slow
    )
    _equal(ty, ey)
    for a, b in zip(tg, eg, strict=True):
        _equal(a, b)


@pytest.mark.parametrize("transposed", [False, True])
@settings(max_examples=40, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**16))
def test_float16_forward_bit_for_bit(transposed, data, seed):
    case = data.draw(conv_cases(transposed))
    (ty, _), (ey, _) = _both(_fn(case, transposed), _inputs(seed, case, False), "float16", False)
    _equal(ty, ey)


def test_float16_forward_many_channels():
    # 144-long dot products: the partial sums' order decides many roundings
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((1, 16, 8, 8)), rng.standard_normal((32, 16, 3, 3)) * 0.5,
              rng.standard_normal(32)]  # fmt: skip

    def fn(F, x, w, b):
        return F.conv2d(x, w, b, padding=1)

    (ty, _), (ey, _) = _both(fn, arrays, "float16", False)
    _equal(ty, ey)


def test_float16_backward_refused():
    x = ember.rand(1, 2, 5, 5, dtype=ember.float16, requires_grad=True)
    w = ember.rand(3, 2, 2, 2, dtype=ember.float16)
    y = ember.nn.functional.conv2d(x, w)
    assert y.grad_fn.name() == "ConvolutionBackward0"
    with pytest.raises(NotImplementedError, match="convolution_backward in ember.float16"):
        y.sum().backward()


def test_bfloat16_slow_transposed_forward_and_refused_backward():
    # output_padding >= stride: no oneDNN path; columns and col2im round in bfloat16
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal((2, 2, 4, 4)), rng.standard_normal((2, 3, 2, 2)),
              rng.standard_normal(3)]  # fmt: skip

    def fn(F, x, w, b):
        return F.conv_transpose2d(x, w, b, 1, 0, 1, 1, 2)

    (ty, _), (ey, _) = _both(fn, arrays, "bfloat16", False)
    _equal(ty, ey)
    x = ember.tensor(arrays[0], dtype=ember.bfloat16, requires_grad=True)
    y = fn(ember.nn.functional, x, ember.tensor(arrays[1], dtype=ember.bfloat16), None)
    with pytest.raises(NotImplementedError, match="convolution_backward in ember.bfloat16"):
        y.sum().backward()


@pytest.mark.parametrize("autocast_dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", ["conv1d", "conv2d", "conv3d", "conv_transpose2d"])
def test_output_dtype_under_autocast(name, autocast_dtype):
    shapes = {
        "conv1d": ((1, 2, 5), (3, 2, 2)),
        "conv2d": ((1, 2, 5, 5), (3, 2, 2, 2)),
        "conv3d": ((1, 2, 3, 3, 3), (3, 2, 2, 2, 2)),
        "conv_transpose2d": ((1, 2, 3, 3), (2, 3, 2, 2)),
    }[name]
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]

    def run(lib):
        x, w = (lib.tensor(a, dtype=lib.float32) for a in arrays)
        with lib.autocast("cpu", dtype=getattr(lib, autocast_dtype)):
            return getattr(lib.nn.functional, name)(x, w)

    _equal(run(torch), run(ember))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_sdpa_math_path_returns_the_input_dtype(dtype):
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal((2, 3, 4)) for _ in range(3)]
    out = []
    for lib in (torch, ember):
        q, k, v = (lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True) for a in arrays)
        y = lib.nn.functional.scaled_dot_product_attention(q, k, v)
        y.float().sum().backward()
        out.append((y, y.grad_fn.name(), [q.grad, k.grad, v.grad]))
    (ty, tname, tg), (ey, ename, eg) = out
    assert ename == tname
    _equal(ty, ey)
    for a, b in zip(tg, eg, strict=True):
        _equal(a, b)
