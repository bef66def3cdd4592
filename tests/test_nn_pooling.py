"""F.max_pool1d/2d/3d (indices, ceil_mode, dilation, padding), F.avg_pool1d/2d/3d
(count_include_pad, divisor_override, ceil_mode), F.adaptive_avg_pool1d/2d,
F.adaptive_max_pool1d/2d and F.lp_pool1d/2d against PyTorch 2.13: values, indices,
gradients (float64), grad_fn names, the operators a dispatch mode sees forward and
backward, second derivatives, and the argument errors of Pool.h / Pooling.cpp."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nn_conv_support import compare, rng_arrays, same_error, seen_ops
from oracle import torch

import ember


@st.composite
def pool_cases(draw, average=False):
    dims = draw(st.sampled_from([1, 2, 3]))
    kernel = [draw(st.integers(1, 3)) for _ in range(dims)]
    stride = draw(st.one_of(st.none(), st.lists(st.integers(1, 3), min_size=dims, max_size=dims)))
    dilation = [1] * dims if average else [draw(st.integers(1, 2)) for _ in range(dims)]
    padding = [
        draw(st.integers(0, ((k - 1) * d + 1) // 2 if not average else k // 2))
        for k, d in zip(kernel, dilation, strict=True)
    ]  # noqa: E501
    padding = [min(p, k // 2) for p, k in zip(padding, kernel, strict=True)]
    ceil_mode = draw(st.booleans())
    # every window reaches the input (a window wholly in the padding makes PyTorch's CPU
    # max-pool backward write out of bounds)
    spatial = [draw(st.integers(d * (k - 1) + 1, 7)) for k, d in zip(kernel, dilation, strict=True)]
    batched = draw(st.booleans())
    shape = ([draw(st.integers(1, 2))] if batched else []) + [draw(st.integers(1, 2))] + spatial
    return dims, shape, kernel, stride, padding, dilation, ceil_mode


@settings(max_examples=80, deadline=None)
@given(pool_cases(), st.integers(0, 2**16))
def test_max_pool_values_indices_gradients(case, seed):
    dims, shape, kernel, stride, padding, dilation, ceil_mode = case
    arrays = rng_arrays(seed, shape)

    def fn(lib, x):
        f = getattr(lib.nn.functional, f"max_pool{dims}d")
        return f(x, kernel, stride, padding, dilation, ceil_mode, return_indices=True)

    compare(fn, arrays, requires_grad=True)

    def values_only(lib, x):
        f = getattr(lib.nn.functional, f"max_pool{dims}d")
        return f(x, kernel, stride, padding, dilation, ceil_mode)

    compare(values_only, arrays, requires_grad=True)


@settings(max_examples=80, deadline=None)
@given(
    pool_cases(average=True), st.booleans(), st.sampled_from([None, 1, 3]), st.integers(0, 2**16)
)
def test_avg_pool_values_gradients(case, count_include_pad, divisor, seed):
    dims, shape, kernel, stride, padding, _, ceil_mode = case
    arrays = rng_arrays(seed, shape)

    def fn(lib, x):
        f = getattr(lib.nn.functional, f"avg_pool{dims}d")
        if dims == 1:
            return f(x, kernel, stride, padding, ceil_mode, count_include_pad)
        return f(x, kernel, stride, padding, ceil_mode, count_include_pad, divisor)

    compare(fn, arrays, requires_grad=True)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from([1, 2]),
    st.lists(st.integers(1, 9), min_size=2, max_size=2),
    st.lists(st.one_of(st.integers(1, 10), st.none()), min_size=2, max_size=2),
    st.booleans(),
    st.integers(0, 2**16),
)
def test_adaptive_pools(dims, spatial, out, batched, seed):
    shape = ([2] if batched else []) + [3] + spatial[:dims]
    out = out[:dims]
    if dims == 1:
        out = out[0] or 1
    arrays = rng_arrays(seed, shape)
    compare(
        lambda lib, x: getattr(lib.nn.functional, f"adaptive_avg_pool{dims}d")(x, out), arrays, True
    )  # noqa: E501
    compare(
        lambda lib, x: getattr(lib.nn.functional, f"adaptive_max_pool{dims}d")(x, out, True),
        arrays,
        True,
    )  # noqa: E501


def test_max_pool_nan_and_ties_and_integers():
    x = np.array([[[1.0, np.nan, 3.0, np.nan], [2.0, 2.0, 1.0, 1.0]]])
    compare(lambda lib, x: lib.nn.functional.max_pool1d(x, 2, return_indices=True), [x])
    compare(lambda lib, x: lib.nn.functional.adaptive_max_pool1d(x, 3, True), [x])
    m = np.full((1, 1, 3, 3), -np.inf)
    compare(lambda lib, x: lib.nn.functional.max_pool2d(x, 2, 1, 1, return_indices=True), [m])
    ints = np.arange(-12, 12, dtype=np.int64).reshape(1, 2, 3, 4)
    compare(lambda lib, x: lib.nn.functional.max_pool2d(x, 2, return_indices=True), [ints])
    compare(lambda lib, x: lib.nn.functional.avg_pool2d(x, 2, 1, 1), [ints])
    compare(lambda lib, x: lib.nn.functional.avg_pool2d(x, 3, 1, 1, divisor_override=4), [ints])


@pytest.mark.parametrize("p", [1.0, 2, 3.5])
def test_lp_pool(p):
    arrays = rng_arrays(2, [2, 3, 6, 5])
    compare(lambda lib, x: lib.nn.functional.lp_pool2d(x.abs() + 0.5, p, 2), arrays, True)
    compare(
        lambda lib, x: lib.nn.functional.lp_pool2d(x.abs() + 0.5, p, (2, 3), 1, True), arrays, True
    )  # noqa: E501
    arrays = rng_arrays(2, [2, 3, 6])
    compare(lambda lib, x: lib.nn.functional.lp_pool1d(x.abs() + 0.5, p, 2), arrays, True)


OPS_CASES = [
    (lambda lib, x: lib.nn.functional.max_pool2d(x, 2), [2, 3, 6, 6]),
    (lambda lib, x: lib.nn.functional.max_pool2d(x, 2, return_indices=True), [2, 3, 6, 6]),
    (lambda lib, x: lib.nn.functional.max_pool1d(x, 2), [2, 3, 6]),
    (lambda lib, x: lib.nn.functional.max_pool3d(x, 2), [1, 2, 4, 4, 4]),
    (lambda lib, x: lib.nn.functional.avg_pool2d(x, 2), [2, 3, 6, 6]),
    (lambda lib, x: lib.nn.functional.avg_pool1d(x, 2), [2, 3, 6]),
    (lambda lib, x: lib.nn.functional.avg_pool3d(x, 2), [1, 2, 4, 4, 4]),
    (lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, 3), [2, 3, 7, 7]),
    (lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, 1), [2, 3, 7, 7]),
    (lambda lib, x: lib.nn.functional.adaptive_avg_pool1d(x, 3), [2, 3, 7]),
    (lambda lib, x: lib.nn.functional.adaptive_avg_pool1d(x, 1), [3, 7]),
    (lambda lib, x: lib.nn.functional.adaptive_max_pool2d(x, 3), [2, 3, 7, 7]),
    (lambda lib, x: lib.nn.functional.adaptive_max_pool1d(x, 3), [2, 3, 7]),
]


@pytest.mark.parametrize("case", range(len(OPS_CASES)))
def test_dispatch_mode_sees_torch_ops(case):
    fn, shape = OPS_CASES[case]
    ember_ops, torch_ops = seen_ops(fn, rng_arrays(0, shape))
    assert ember_ops == torch_ops


@pytest.mark.parametrize(
    "fn",
    [
        lambda F, x: F.max_pool2d(x, 2, 1, 1),
        lambda F, x: F.avg_pool2d(x, 3, 2, 1, True, False),
        lambda F, x: F.adaptive_avg_pool2d(x, (2, 3)),
        lambda F, x: F.adaptive_max_pool2d(x, (3, 2)),
    ],
)
def test_double_backward(fn):
    x = rng_arrays(4, [2, 2, 5, 5])[0]
    results = []
    for lib in (ember, torch):
        t = lib.tensor(x, requires_grad=True)
        y = fn(lib.nn.functional, t)
        (g,) = lib.autograd.grad((y * y).sum(), (t,), create_graph=True)
        results.append((g.grad_fn.name(), g.detach().numpy()))
        (g * g).sum().backward()
        results[-1] += (t.grad.numpy(),)
    assert results[0][0] == results[1][0]
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-10)
    np.testing.assert_allclose(results[0][2], results[1][2], rtol=1e-10)


def _x(lib, *shape):
    return lib.ones(*shape)


ERROR_CASES = [
    lambda F, lib: F.max_pool2d(_x(lib, 1, 2, 5, 5), 0),
    lambda F, lib: F.max_pool2d(_x(lib, 1, 2, 5, 5), 2, 0),
    lambda F, lib: F.max_pool2d(_x(lib, 1, 2, 5, 5), 0, 1),
    lambda F, lib: F.max_pool2d(_x(lib, 1, 2, 5, 5), 2, padding=2),
    lambda F, lib: F.max_pool2d(_x(lib, 1, 2, 5, 5), 2, padding=-1),
    lambda F, lib: F.max_pool2d(_x(lib, 1, 2, 5, 5), 2, dilation=0),
    lambda F, lib: F.max_pool2d(_x(lib, 1, 2, 5, 5), 3, padding=1, dilation=2),
    lambda F, lib: F.max_pool2d(_x(lib, 5, 5), 2),
    lambda F, lib: F.max_pool2d(_x(lib, 1, 1, 2, 5, 5), 2),
    lambda F, lib: F.max_pool2d(_x(lib, 1, 2, 2, 2), 3),
    lambda F, lib: F.max_pool2d(_x(lib, 1, 2, 5, 5), (2, 2, 2)),
    lambda F, lib: F.max_pool2d(_x(lib, 1, 2, 5, 5), 2, (1, 1, 1)),
    lambda F, lib: F.max_pool2d(_x(lib, 1, 2, 5, 5).bool(), 2),
    lambda F, lib: F.max_pool2d(_x(lib, 1, 0, 5, 5), 2),
    lambda F, lib: F.max_pool2d(_x(lib, 0, 2, 5, 5), 2),
    lambda F, lib: F.max_pool2d(_x(lib, 1, 2, 5, 5).int(), 2),
    lambda F, lib: F.max_pool1d(_x(lib, 1, 2, 5, 5), 2),
    lambda F, lib: F.max_pool1d(_x(lib, 1, 2, 5), 0),
    lambda F, lib: F.max_pool1d(_x(lib, 1, 2, 2), 3),
    lambda F, lib: F.max_pool1d(_x(lib, 1, 2, 5), 2, padding=2),
    lambda F, lib: F.max_pool1d(_x(lib, 1, 2, 5).long(), 2),
    lambda F, lib: F.max_pool1d(_x(lib, 1, 2, 5), 2, return_indices=True, padding=2),
    lambda F, lib: F.max_pool3d(_x(lib, 1, 2, 5, 5), 2),
    lambda F, lib: F.max_pool3d(_x(lib, 1, 2, 5, 5, 5), 0),
    lambda F, lib: F.avg_pool2d(_x(lib, 1, 2, 5, 5), 0),
    lambda F, lib: F.avg_pool2d(_x(lib, 1, 2, 5, 5), 2, 0),
    lambda F, lib: F.avg_pool2d(_x(lib, 1, 2, 5, 5), 2, padding=2),
    lambda F, lib: F.avg_pool2d(_x(lib, 5, 5), 2),
    lambda F, lib: F.avg_pool2d(_x(lib, 1, 2, 2, 2), 3),
    lambda F, lib: F.avg_pool2d(_x(lib, 1, 2, 5, 5), 2, divisor_override=0),
    lambda F, lib: F.avg_pool1d(_x(lib, 1, 2, 5, 5), 2),
    lambda F, lib: F.avg_pool1d(_x(lib, 1, 2, 5), 2, padding=2),
    lambda F, lib: F.avg_pool1d(_x(lib, 1, 2, 2), 3),
    lambda F, lib: F.avg_pool3d(_x(lib, 1, 2, 5, 5), 2),
    lambda F, lib: F.adaptive_avg_pool2d(_x(lib, 1, 2, 5, 5), -1),
    lambda F, lib: F.adaptive_avg_pool2d(_x(lib, 5, 5), 2),
    lambda F, lib: F.adaptive_avg_pool2d(_x(lib, 1, 2, 0, 5), 2),
    lambda F, lib: F.adaptive_avg_pool2d(_x(lib, 1, 2, 5, 5).long(), 2),
    lambda F, lib: F.adaptive_avg_pool2d(_x(lib, 1, 2, 5, 5), 0),
    lambda F, lib: F.adaptive_avg_pool1d(_x(lib, 1, 2, 5, 5), 2),
    lambda F, lib: F.adaptive_max_pool2d(_x(lib, 1, 2, 5, 5), -1),
    lambda F, lib: F.adaptive_max_pool2d(_x(lib, 5, 5), 2),
    lambda F, lib: F.adaptive_max_pool2d(_x(lib, 1, 2, 5, 5).long(), 2),
    lambda F, lib: F.adaptive_max_pool2d(_x(lib, 1, 2, 5, 5), 0),
    lambda F, lib: F.adaptive_max_pool1d(_x(lib, 1, 2, 5, 5), 2),
    lambda F, lib: F.adaptive_max_pool2d(_x(lib, 1, 2, 0, 5), 2),
]


@pytest.mark.parametrize("case", range(len(ERROR_CASES)))
def test_errors_and_shapes_match_torch(case):
    same_error(lambda lib: ERROR_CASES[case](lib.nn.functional, lib))


POOL3D_ERRORS = [
    lambda F, lib: F.max_pool3d(_x(lib, 1, 0, 2, 3, 3), 1),
    lambda F, lib: F.avg_pool3d(_x(lib, 1, 0, 2, 3, 3), 1),
    lambda F, lib: F.avg_pool3d(_x(lib, 0, 2, 3, 3), 1),
    lambda F, lib: F.max_pool3d(_x(lib, 1, 2, 5, 5, 5), 0, 1),
    lambda F, lib: F.avg_pool3d(_x(lib, 1, 2, 5, 5, 5), 0, 1),
    lambda F, lib: F.max_pool3d(_x(lib, 1, 2, 5, 5, 5), 2, dilation=0),
    lambda F, lib: F.max_pool3d(_x(lib, 1, 2, 5, 5, 5), 2, padding=(1, 0, 2)),
    lambda F, lib: F.max_pool3d(_x(lib, 1, 2, 2, 2, 2), 3),
    lambda F, lib: F.avg_pool3d(_x(lib, 1, 2, 2, 2, 2), 3),
    lambda F, lib: F.max_pool3d(_x(lib, 1, 2, 5, 5, 5), (2, 2)),
    lambda F, lib: F.avg_pool3d(_x(lib, 1, 2, 5, 5, 5), (2, 2)),
    lambda F, lib: F.avg_pool3d(_x(lib, 1, 2, 5, 5, 5), 2, divisor_override=0),
    lambda F, lib: F.avg_pool3d(_x(lib, 1, 1, 2, 5, 5, 5), 2),
    lambda F, lib: F.avg_pool3d(_x(lib, 2, 5, 5), 2),
    lambda F, lib: F.max_pool3d(_x(lib, 1, 2, 5, 5, 5).bool(), 2),
    lambda F, lib: F.avg_pool3d(_x(lib, 1, 2, 5, 5, 5).bool(), 2),
    lambda F, lib: F.avg_pool2d(_x(lib, 1, 2, 5, 5).bool(), 2),
    lambda F, lib: F.max_pool2d(_x(lib, 1, 2, 5, 5).cfloat(), 2),
]


@pytest.mark.parametrize("case", range(len(POOL3D_ERRORS)))
def test_3d_and_dtype_errors_match_torch(case):
    same_error(lambda lib: POOL3D_ERRORS[case](lib.nn.functional, lib))
