"""F.interpolate against PyTorch 2.13: nearest and nearest-exact (1-3d), linear, bilinear
and bicubic (align_corners both ways), area; by size and by scale_factor (with and
without recompute_scale_factor); values (float64 tight, float32 at tolerance, uint8
nearest exact), gradients (float64), grad_fn names, the operators a dispatch mode
sees forward and backward, double backward, and the argument errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nn_conv_support import compare, rng_arrays, same_error, seen_ops
from oracle import torch

import ember

_DIMS = {"nearest": [1, 2, 3], "nearest-exact": [1, 2, 3], "linear": [1], "bilinear": [2], "trilinear": [3],
         "bicubic": [2], "area": [1, 2]}  # fmt: skip


@st.composite
def cases(draw):
    mode = draw(st.sampled_from(sorted(_DIMS)))
    dims = draw(st.sampled_from(_DIMS[mode]))
    spatial = [draw(st.integers(1, 6)) for _ in range(dims)]
    shape = [draw(st.integers(1, 2)), draw(st.integers(1, 2))] + spatial
    kwargs = {"mode": mode}
    if draw(st.booleans()):
        kwargs["size"] = [draw(st.integers(1, 9)) for _ in range(dims)]
    else:
        scales = [draw(st.sampled_from([0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0])) for _ in range(dims)]
        scales = [max(s, 1.0 / n) for s, n in zip(scales, spatial, strict=True)]
        kwargs["scale_factor"] = scales
        if draw(st.booleans()):
            kwargs["recompute_scale_factor"] = True
    if mode in ("linear", "bilinear", "bicubic", "trilinear"):
        kwargs["align_corners"] = draw(st.booleans())
    return shape, kwargs


@settings(max_examples=80, deadline=None)
@given(cases(), st.integers(0, 2**16))
def test_interpolate_values_and_gradients(case, seed):
    shape, kwargs = case
    arrays = rng_arrays(seed, shape)
    compare(lambda lib, x: lib.nn.functional.interpolate(x, **kwargs), arrays, requires_grad=True)


@settings(max_examples=20, deadline=None)
@given(cases(), st.integers(0, 2**16))
def test_interpolate_float32(case, seed):
    shape, kwargs = case
    arrays = rng_arrays(seed, shape, dtype=np.float32)
    compare(lambda lib, x: lib.nn.functional.interpolate(x, **kwargs), arrays)


def test_nearest_uint8_exact():
    x = np.arange(2 * 3 * 4 * 5, dtype=np.uint8).reshape(2, 3, 4, 5)
    compare(lambda lib, x: lib.nn.functional.interpolate(x, size=(7, 3)), [x])
    compare(
        lambda lib, x: lib.nn.functional.interpolate(x, scale_factor=1.7, mode="nearest-exact"), [x]
    )  # noqa: E501


@pytest.mark.parametrize(
    "kwargs, shape",
    [
        ({"scale_factor": 2}, [1, 2, 3, 3]),
        ({"size": 5, "mode": "nearest-exact"}, [1, 2, 3]),
        ({"size": (5, 4), "mode": "bilinear"}, [1, 2, 3, 3]),
        ({"scale_factor": 1.5, "mode": "bilinear", "align_corners": True}, [1, 2, 3, 3]),
        ({"size": 7, "mode": "linear"}, [1, 2, 3]),
        ({"size": (5, 4), "mode": "bicubic"}, [1, 2, 3, 3]),
        ({"size": (2, 2), "mode": "area"}, [1, 2, 5, 5]),
        ({"scale_factor": 2, "mode": "nearest"}, [1, 1, 2, 2, 2]),
    ],
)
def test_dispatch_mode_sees_torch_ops(kwargs, shape):
    fn = lambda lib, x: lib.nn.functional.interpolate(x, **kwargs)  # noqa: E731
    ember_ops, torch_ops = seen_ops(fn, rng_arrays(0, shape))
    assert ember_ops == torch_ops


@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic"])
def test_double_backward(mode):
    x = rng_arrays(3, [1, 2, 3, 4])[0]
    results = []
    for lib in (ember, torch):
        t = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.interpolate(t, size=(5, 6), mode=mode)
        (g,) = lib.autograd.grad((y * y).sum(), (t,), create_graph=True)
        (g * g).sum().backward()
        results.append((g.grad_fn.name(), g.detach().numpy(), t.grad.numpy()))
    assert results[0][0] == results[1][0]
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-10)
    np.testing.assert_allclose(results[0][2], results[1][2], rtol=1e-10)


def _x(lib, *shape):
    return lib.ones(*shape)


ERRORS = [
    lambda F, lib: F.interpolate(_x(lib, 1, 2, 3, 3)),
    lambda F, lib: F.interpolate(_x(lib, 1, 2, 3, 3), size=2, scale_factor=2),
    lambda F, lib: F.interpolate(_x(lib, 1, 2, 3, 3), size=(2, 2, 2)),
    lambda F, lib: F.interpolate(_x(lib, 1, 2, 3, 3), scale_factor=(2, 2, 2)),
    lambda F, lib: F.interpolate(_x(lib, 1, 2, 3, 3), size=(2.0, 2)),
    lambda F, lib: F.interpolate(_x(lib, 1, 2, 3, 3), size=2, align_corners=True),
    lambda F, lib: F.interpolate(_x(lib, 1, 2, 3, 3), size=2, recompute_scale_factor=True),
    lambda F, lib: F.interpolate(_x(lib, 1, 2, 3, 3), size=2, mode="linear"),
    lambda F, lib: F.interpolate(_x(lib, 1, 2, 3), size=2, mode="bilinear"),
    lambda F, lib: F.interpolate(_x(lib, 1, 2, 3, 3, 3), size=2, mode="bilinear"),
    lambda F, lib: F.interpolate(_x(lib, 1, 2, 3, 3), size=2, mode="foo"),
    lambda F, lib: F.interpolate(_x(lib, 1, 2), size=2),
    lambda F, lib: F.interpolate(_x(lib, 1, 2, 3, 3), size=0),
    lambda F, lib: F.interpolate(_x(lib, 1, 2, 3, 3), scale_factor=0.1),
    lambda F, lib: F.interpolate(_x(lib, 1, 0, 3, 3), size=2),
    lambda F, lib: F.interpolate(_x(lib, 1, 2, 3, 3).long(), size=2),
    lambda F, lib: F.interpolate(_x(lib, 1, 2, 3, 3).long(), size=2, mode="bilinear"),
    lambda F, lib: F.interpolate(_x(lib, 1, 2, 3, 3).long(), size=2, mode="bicubic"),
    lambda F, lib: F.interpolate(_x(lib, 1, 2, 3, 3).long(), size=2, mode="nearest-exact"),
    lambda F, lib: F.interpolate(_x(lib, 1, 2, 3).long(), size=2, mode="linear"),
    lambda F, lib: F.interpolate(_x(lib, 1, 2, 3).long(), size=2),
    lambda F, lib: F.interpolate(_x(lib, 1, 2, 3, 3, 3).long(), size=2),
    lambda F, lib: F.interpolate(_x(lib, 1, 2, 3), size=2, mode="bilinear", antialias=True),
    lambda F, lib: lib._C._nn.upsample_nearest2d(_x(lib, 1, 2, 3, 3), [2]),
    lambda F, lib: lib._C._nn.upsample_bilinear2d(_x(lib, 1, 2, 3), [2, 2], False),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors_match_torch(case):
    same_error(lambda lib: ERRORS[case](lib.nn.functional, lib))


@pytest.mark.parametrize("name", ["upsample", "upsample_nearest", "upsample_bilinear"])
def test_deprecated_upsample_functions_warn_and_interpolate(name):
    arrays = rng_arrays(1, [1, 2, 3, 3])
    compare(lambda lib, x: getattr(lib.nn.functional, name)(x, scale_factor=2), arrays, True)
    for lib in (ember, torch):
        with pytest.warns(UserWarning, match=f"`nn.functional.{name}` is deprecated"):
            getattr(lib.nn.functional, name)(lib.ones(1, 1, 2, 2), size=3)
