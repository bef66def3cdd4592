"""F.unfold / F.fold (im2col / col2im) and F.pixel_shuffle / F.pixel_unshuffle against
PyTorch 2.13: values, gradients (float64), grad_fn names, batched and unbatched inputs,
the operators a dispatch mode sees forward and backward, and the argument errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nn_conv_support import compare, rng_arrays, same_error, seen_ops


@st.composite
def fold_cases(draw):
    kernel = [draw(st.integers(1, 3)) for _ in range(2)]
    dilation = [draw(st.integers(1, 2)) for _ in range(2)]
    padding = [draw(st.integers(0, 2)) for _ in range(2)]
    stride = [draw(st.integers(1, 3)) for _ in range(2)]
    spatial = [
        draw(st.integers(max(1, d * (k - 1) + 1 - 2 * p), 7))
        for k, d, p in zip(kernel, dilation, padding, strict=True)
    ]
    batched = draw(st.booleans())
    channels = draw(st.integers(1, 3))
    return kernel, dilation, padding, stride, spatial, batched, channels


@settings(max_examples=60, deadline=None)
@given(fold_cases(), st.integers(0, 2**16))
def test_unfold_and_fold(case, seed):
    kernel, dilation, padding, stride, spatial, batched, channels = case
    shape = ([2] if batched else []) + [channels] + spatial
    arrays = rng_arrays(seed, shape)
    outs = compare(
        lambda lib, x: lib.nn.functional.unfold(x, kernel, dilation, padding, stride), arrays, True
    )  # noqa: E501
    cols = rng_arrays(seed + 1, outs[0].shape)
    compare(
        lambda lib, c: lib.nn.functional.fold(c, spatial, kernel, dilation, padding, stride),
        cols,
        True,
    )  # noqa: E501


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 3), st.lists(st.integers(1, 3), min_size=0, max_size=2), st.integers(1, 3),
       st.integers(1, 3), st.integers(1, 2), st.integers(0, 2**16))  # fmt: skip
def test_pixel_shuffle_and_unshuffle(r, lead, h, w, c, seed):
    arrays = rng_arrays(seed, lead + [c * r * r, h, w])
    compare(lambda lib, x: lib.nn.functional.pixel_shuffle(x, r), arrays, True)
    arrays = rng_arrays(seed, lead + [c, h * r, w * r])
    compare(lambda lib, x: lib.nn.functional.pixel_unshuffle(x, r), arrays, True)


@pytest.mark.parametrize(
    "fn, shape",
    [
        (lambda lib, x: lib.nn.functional.unfold(x, 2), [2, 3, 4, 4]),
        (lambda lib, x: lib.nn.functional.fold(x, (3, 3), 2), [2, 12, 4]),
        (lambda lib, x: lib.nn.functional.pixel_shuffle(x, 2), [2, 8, 3, 3]),
        (lambda lib, x: lib.nn.functional.pixel_unshuffle(x, 2), [2, 2, 4, 4]),
    ],
)
def test_dispatch_mode_sees_torch_ops(fn, shape):
    ember_ops, torch_ops = seen_ops(fn, rng_arrays(0, shape))
    assert ember_ops == torch_ops


def _x(lib, *shape):
    return lib.ones(*shape)


ERRORS = [
    lambda F, lib: F.unfold(_x(lib, 1, 2, 3, 3), 0),
    lambda F, lib: F.unfold(_x(lib, 1, 2, 3, 3), 2, dilation=0),
    lambda F, lib: F.unfold(_x(lib, 1, 2, 3, 3), 2, padding=-1),
    lambda F, lib: F.unfold(_x(lib, 1, 2, 3, 3), 2, stride=0),
    lambda F, lib: F.unfold(_x(lib, 2, 3), 2),
    lambda F, lib: F.unfold(_x(lib, 1, 0, 3, 3), 2),
    lambda F, lib: F.unfold(_x(lib, 1, 2, 3, 3), 4),
    lambda F, lib: F.unfold(_x(lib, 1, 2, 3, 3), (2, 2, 2)),
    lambda F, lib: F.fold(_x(lib, 1, 8, 4), (3, 3), 2),
    lambda F, lib: F.fold(_x(lib, 1, 7, 4), (3, 3), 2),
    lambda F, lib: F.fold(_x(lib, 1, 8, 5), (3, 3), 2),
    lambda F, lib: F.fold(_x(lib, 1, 8, 0), (3, 3), 2),
    lambda F, lib: F.fold(_x(lib, 8), (3, 3), 2),
    lambda F, lib: F.fold(_x(lib, 1, 8, 4), (3, 3), 2, stride=0),
    lambda F, lib: F.fold(_x(lib, 1, 8, 1), (1, 1), 2),
    lambda F, lib: F.pixel_shuffle(_x(lib, 3, 3), 2),
    lambda F, lib: F.pixel_shuffle(_x(lib, 3, 3, 3), 0),
    lambda F, lib: F.pixel_shuffle(_x(lib, 3, 3, 3), 2),
    lambda F, lib: F.pixel_unshuffle(_x(lib, 3, 3), 2),
    lambda F, lib: F.pixel_unshuffle(_x(lib, 3, 3, 3), -1),
    lambda F, lib: F.pixel_unshuffle(_x(lib, 3, 3, 4), 2),
    lambda F, lib: F.pixel_unshuffle(_x(lib, 3, 4, 3), 2),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors_match_torch(case):
    same_error(lambda lib: ERRORS[case](lib.nn.functional, lib))


def test_unbatched_unfold_and_integer_refusal():
    x = np.arange(2 * 4 * 5, dtype=np.float64).reshape(2, 4, 5)
    compare(lambda lib, x: lib.nn.functional.unfold(x, (2, 3), padding=1), [x])
    same_error(lambda lib: lib.nn.functional.unfold(lib.ones(2, 4, 5).long(), 2))
    same_error(lambda lib: lib.nn.functional.fold(lib.ones(1, 8, 4).long(), (3, 3), 2))
