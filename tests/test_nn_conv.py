"""F.conv1d/2d/3d and F.conv_transpose1d/2d/3d against PyTorch 2.13: values (float64
tight, float32 at PyTorch's tolerances, integers exact), gradients of input, weight and
bias, output shapes, grad_fn names, the operators a dispatch mode sees forward and
backward (aten.convolution / aten.convolution_backward), padding='same' / 'valid', the
even-kernel warning, unbatched inputs and the argument errors of Convolution.cpp."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nn_conv_support import compare, rng_arrays, same_error, seen_ops
from oracle import torch

import ember


def _conv(dims):
    return {1: "conv1d", 2: "conv2d", 3: "conv3d"}[dims]


@st.composite
def conv_cases(draw, dims=None):
    dims = draw(st.sampled_from([1, 2, 3])) if dims is None else dims
    groups = draw(st.sampled_from([1, 1, 2, 3]))
    cg = draw(st.integers(1, 2))
    cog = draw(st.integers(1, 2))
    n = draw(st.integers(1, 2))
    kernel = [draw(st.integers(1, 3)) for _ in range(dims)]
    stride = [draw(st.integers(1, 3)) for _ in range(dims)]
    dilation = [draw(st.integers(1, 2)) for _ in range(dims)]
    padding = [draw(st.integers(0, 2)) for _ in range(dims)]
    spatial = [
        draw(st.integers(max(1, d * (k - 1) + 1 - 2 * p), 7))
        for k, d, p in zip(kernel, dilation, padding, strict=True)
    ]
    bias = draw(st.booleans())
    unbatched = draw(st.booleans()) and n == 1
    input_shape = ([] if unbatched else [n]) + [cg * groups] + spatial
    return dims, input_shape, [cog * groups, cg] + kernel, bias, stride, padding, dilation, groups


@settings(max_examples=60, deadline=None)
@given(conv_cases(), st.integers(0, 2**16))
def test_conv_values_and_gradients(case, seed):
    dims, xs, ws, bias, stride, padding, dilation, groups = case
    arrays = rng_arrays(seed, xs, ws, [ws[0]] if bias else None)

    def fn(lib, x, w, b):
        f = getattr(lib.nn.functional, _conv(dims))
        return f(x, w, b, stride=stride, padding=padding, dilation=dilation, groups=groups)

    compare(fn, arrays, requires_grad=True)


@st.composite
def transpose_cases(draw):
    dims = draw(st.sampled_from([1, 2, 3]))
    groups = draw(st.sampled_from([1, 2]))
    cin_g, cout_g = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    kernel = [draw(st.integers(1, 3)) for _ in range(dims)]
    stride = [draw(st.integers(1, 3)) for _ in range(dims)]
    dilation = [draw(st.integers(1, 2)) for _ in range(dims)]
    padding = [draw(st.integers(0, 1)) for _ in range(dims)]
    output_padding = [
        draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dilation, strict=True)
    ]
    spatial = [draw(st.integers(1, 5)) for _ in range(dims)]
    for i in range(dims):  # PyTorch refuses an empty output
        spatial[i] = max(spatial[i], 2 * padding[i] + 1)
    xs = [draw(st.integers(1, 2)), cin_g * groups] + spatial
    ws = [cin_g * groups, cout_g] + kernel
    bias = draw(st.booleans())
    return dims, xs, ws, bias, stride, padding, output_padding, groups, dilation


@settings(max_examples=50, deadline=None)
@given(transpose_cases(), st.integers(0, 2**16))
def test_conv_transpose_values_and_gradients(case, seed):
    dims, xs, ws, bias, stride, padding, output_padding, groups, dilation = case
    arrays = rng_arrays(seed, xs, ws, [ws[1] * groups] if bias else None)

    def fn(lib, x, w, b):
        f = getattr(lib.nn.functional, f"conv_transpose{dims}d")
        return f(x, w, b, stride, padding, output_padding, groups, dilation)

    compare(fn, arrays, requires_grad=True)


@settings(max_examples=20, deadline=None)
@given(conv_cases(dims=2), st.integers(0, 2**16))
def test_conv2d_float32(case, seed):
    _, xs, ws, bias, stride, padding, dilation, groups = case
    arrays = rng_arrays(seed, xs, ws, [ws[0]] if bias else None, dtype=np.float32)

    def fn(lib, x, w, b):
        return lib.nn.functional.conv2d(x, w, b, stride, padding, dilation, groups)

    compare(fn, arrays, requires_grad=True)


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_conv2d_integers_exact(dtype):
    rng = np.random.default_rng(1)
    x = rng.integers(-5, 5, (2, 3, 6, 5)).astype(dtype)
    w = rng.integers(-5, 5, (4, 3, 2, 3)).astype(dtype)
    compare(lambda lib, x, w: lib.nn.functional.conv2d(x, w, stride=2, padding=1), [x, w])


@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("kernel", [2, 3, 4])
@pytest.mark.parametrize("dilation", [1, 2])
def test_padding_same_and_valid(dims, kernel, dilation):
    xs = [2, 3] + [7] * dims
    ws = [4, 3] + [kernel] * dims
    arrays = rng_arrays(kernel + dims, xs, ws, [4])
    for padding in ("same", "valid"):

        def fn(lib, x, w, b, padding=padding):
            f = getattr(lib.nn.functional, _conv(dims))
            return f(x, w, b, padding=padding, dilation=dilation)

        compare(fn, arrays, requires_grad=True)


def test_padding_same_even_kernel_ops_and_warning():
    arrays = rng_arrays(3, [2, 3, 6, 6], [4, 3, 2, 2])

    def fn(lib, x, w):
        return lib.nn.functional.conv2d(x, w, padding="same")

    ember_ops, torch_ops = seen_ops(fn, arrays)
    assert ember_ops == torch_ops
    assert ember_ops[0] == ["aten.constant_pad_nd.default", "aten.convolution.default"]
    # TORCH_WARN_ONCE: the text PyTorch gives (it warns once per process)
    from ember._c10 import warning

    warning._WARNED_ONCE.clear()
    x, w = ember.randn(1, 3, 5, 5), ember.randn(2, 3, 2, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ember.nn.functional.conv2d(x, w, padding="same")
    assert [str(c.message) for c in caught] == [
        "Using padding='same' with even kernel lengths and odd dilation may require a "
        "zero-padded copy of the input be created (Triggered internally at "
        "/__w/pytorch/pytorch/aten/src/ATen/native/Convolution.cpp:1101.)"
    ]


@pytest.mark.parametrize(
    "fn, arrays",
    [
        (lambda lib, x, w, b: lib.nn.functional.conv2d(x, w, b, padding=1), ([2, 3, 5, 5], [4, 3, 3, 3], [4])),
        (lambda lib, x, w: lib.nn.functional.conv2d(x, w), ([2, 3, 5, 5], [4, 3, 3, 3])),
        (lambda lib, x, w: lib.nn.functional.conv1d(x, w), ([3, 8], [4, 3, 3])),
        (lambda lib, x, w: lib.nn.functional.conv_transpose2d(x, w, stride=2), ([2, 3, 4, 4], [3, 2, 3, 3])),
        (lambda lib, x, w: lib.nn.functional.conv_transpose1d(x, w), ([3, 4], [3, 2, 3])),
        (lambda lib, x, w: lib.nn.functional.conv3d(x, w), ([1, 2, 3, 3, 3], [2, 2, 2, 2, 2])),
    ],
)  # fmt: skip
def test_dispatch_mode_sees_torch_ops(fn, arrays):
    arrays = rng_arrays(0, *arrays)
    ember_ops, torch_ops = seen_ops(fn, arrays)
    assert ember_ops == torch_ops


def _x(lib, *shape, dtype=None):
    return lib.ones(*shape, dtype=dtype)


ERROR_CASES = [
    lambda lib: lib.nn.functional.conv2d(_x(lib, 1, 2, 3, 4, 5), _x(lib, 4, 3, 3, 3)),
    lambda lib: lib.nn.functional.conv2d(_x(lib, 3, 4), _x(lib, 4, 3, 3, 3)),
    lambda lib: lib.nn.functional.conv2d(_x(lib, 2, 4, 8, 8), _x(lib, 4, 3, 3, 3)),
    lambda lib: lib.nn.functional.conv2d(_x(lib, 4, 8, 8), _x(lib, 4, 3, 3, 3)),
    lambda lib: lib.nn.functional.conv2d(_x(lib, 2, 3, 8, 8), _x(lib, 4, 1, 3, 3), groups=3),
    lambda lib: lib.nn.functional.conv2d(_x(lib, 2, 3, 8, 8), _x(lib, 2, 1, 3, 3), groups=3),
    lambda lib: lib.nn.functional.conv2d(_x(lib, 2, 3, 8, 8), _x(lib, 4, 3, 3, 3), groups=0),
    lambda lib: lib.nn.functional.conv2d(_x(lib, 2, 3, 8, 8), _x(lib, 4, 3, 3, 3), padding=-1),
    lambda lib: lib.nn.functional.conv2d(_x(lib, 2, 3, 8, 8), _x(lib, 4, 3, 3, 3), stride=0),
    lambda lib: lib.nn.functional.conv2d(_x(lib, 2, 3, 8, 8), _x(lib, 4, 3, 3, 3), dilation=0),
    lambda lib: lib.nn.functional.conv2d(_x(lib, 2, 3, 8, 8), _x(lib, 4, 3, 3, 3), dilation=-1),
    lambda lib: lib.nn.functional.conv2d(_x(lib, 2, 3, 8, 8), _x(lib, 4, 3, 9, 9)),
    lambda lib: lib.nn.functional.conv2d(_x(lib, 2, 3, 8, 8), _x(lib, 4, 3, 3, 3, dtype=lib.float64)),
    lambda lib: lib.nn.functional.conv2d(_x(lib, 2, 3, 8, 8), _x(lib, 4, 3, 3, 3), _x(lib, 4, dtype=lib.float64)),
    lambda lib: lib.nn.functional.conv2d(_x(lib, 2, 3, 8, 8), _x(lib, 4, 3, 3, 3), _x(lib, 5)),
    lambda lib: lib.nn.functional.conv2d(_x(lib, 2, 3, 8, 8), _x(lib, 4, 3, 3, 3), _x(lib, 4, 1)),
    lambda lib: lib.nn.functional.conv2d(_x(lib, 2, 3, 8, 8), _x(lib, 4, 3, 3)),
    lambda lib: lib.nn.functional.conv2d(_x(lib, 2, 3, 8, 8), _x(lib, 4, 3, 3, 3), padding="same", stride=2),
    lambda lib: lib.nn.functional.conv2d(_x(lib, 2, 3, 8, 8), _x(lib, 4, 3, 3, 3), padding="foo"),
    lambda lib: lib.nn.functional.conv2d(_x(lib, 2, 3, 8, 8), _x(lib, 4, 3, 3, 3), stride=(1, 2, 3)),
    lambda lib: lib.nn.functional.conv2d(_x(lib, 2, 3, 8, 8), _x(lib, 4, 3, 3, 3), padding="valid"),
    lambda lib: lib.nn.functional.conv_transpose2d(_x(lib, 2, 3, 8, 8), _x(lib, 3, 2, 3, 3), groups=2),
    lambda lib: lib.nn.functional.conv_transpose2d(_x(lib, 2, 3, 8, 8), _x(lib, 4, 2, 3, 3)),
    lambda lib: lib.nn.functional.conv_transpose2d(_x(lib, 2, 3, 8, 8), _x(lib, 3, 2, 3, 3), output_padding=1),
    lambda lib: lib.nn.functional.conv_transpose2d(_x(lib, 2, 3, 8, 8), _x(lib, 3, 2, 3, 3), _x(lib, 3)),
    lambda lib: lib.nn.functional.conv_transpose2d(_x(lib, 2, 3, 8, 8), _x(lib, 3, 2, 3, 3), padding=-1),
    lambda lib: lib.nn.functional.conv1d(_x(lib, 1, 2, 3, 4), _x(lib, 4, 2, 3)),
    lambda lib: lib.nn.functional.conv3d(_x(lib, 1, 2, 3), _x(lib, 4, 2, 3, 3, 3)),
    lambda lib: lib.nn.functional.conv_transpose2d(_x(lib, 1, 2, 3, 4, 5), _x(lib, 2, 2, 3, 3)),
    lambda lib: lib.nn.functional.conv2d(_x(lib, 0, 3, 8, 8), _x(lib, 4, 3, 3, 3)),
    lambda lib: lib.convolution(_x(lib, 2, 3, 8, 8), _x(lib, 4, 3, 3, 3), None, [1], [0, 0], [1, 1], False, [0, 0], 1),
    lambda lib: lib.convolution(_x(lib, 2, 3, 8), _x(lib, 4, 3, 3, 3), None, [1], [0], [1], False, [0], 1),
    lambda lib: lib.conv2d(_x(lib, 2, 3, 8, 8), _x(lib, 4, 3, 3, 3), None, 1, 1, 1, 1),
]  # fmt: skip


@pytest.mark.parametrize("case", range(len(ERROR_CASES)))
def test_errors_and_shapes_match_torch(case):
    same_error(ERROR_CASES[case])


def test_meta_tensors_give_shapes():
    x = ember.empty(2, 3, 9, 9, device="meta")
    w = ember.empty(4, 3, 3, 3, device="meta")
    y = ember.nn.functional.conv2d(x, w, stride=2, padding=1)
    t = torch.nn.functional.conv2d(
        torch.empty(2, 3, 9, 9, device="meta"), torch.empty(4, 3, 3, 3, device="meta"), stride=2,
        padding=1,
    )  # fmt: skip
    assert tuple(y.shape) == tuple(t.shape) and y.device.type == "meta"


def test_grad_of_weight_only_computes_only_that():
    """output_mask: only the gradients that are needed (the others are None)."""
    x = ember.randn(2, 3, 5, 5, dtype=ember.float64)
    w = ember.randn(4, 3, 3, 3, dtype=ember.float64, requires_grad=True)
    y = ember.nn.functional.conv2d(x, w)
    y.sum().backward()
    tx, tw = torch.tensor(x.numpy()), torch.tensor(w.detach().numpy(), requires_grad=True)
    torch.nn.functional.conv2d(tx, tw).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-10)
    masks = []
    for lib, X, W in ((ember, x, w), (torch, tx, tw)):
        Y = lib.nn.functional.conv2d(X, W)
        out = lib.ops.aten.convolution_backward(
            lib.ones_like(Y), X, W.detach(), [4], [1, 1], [0, 0], [1, 1], False, [0, 0], 1,
            [False, True, False],
        )  # fmt: skip
        masks.append([o is None for o in out])
    assert masks[0] == masks[1] == [True, False, True]


@pytest.mark.parametrize("transposed", [False, True])
def test_double_backward_matches_torch(transposed):
    """ConvolutionBackwardBackward0: second derivatives of input, weight and bias."""
    shapes = ([2, 2, 5, 5], [2, 3, 3, 3], [3]) if transposed else ([2, 2, 5, 5], [3, 2, 3, 3], [3])
    arrays = rng_arrays(7, *shapes)
    results = []
    for lib in (ember, torch):
        x, w, b = (lib.tensor(a, requires_grad=True) for a in arrays)
        f = lib.nn.functional.conv_transpose2d if transposed else lib.nn.functional.conv2d
        y = f(x, w, b, stride=2, padding=1)
        gx, gw, gb = lib.autograd.grad((y * y).sum(), (x, w, b), create_graph=True)
        assert gx.grad_fn.name() == "ConvolutionBackwardBackward0"
        ((gx * gx).sum() + (gw * gw).sum() + (gb * gb).sum()).backward()
        results.append([t.grad.detach().numpy() for t in (x, w, b)])
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)
