"""F.pad against PyTorch 2.13: constant (positive and negative pads, a value), reflect,
replicate and circular over 1-3 padded dims, batched and not; values, gradients
(float64), grad_fn names, the operators a dispatch mode sees forward and backward
(constant_pad_nd, reflection_pad*d(_backward), replication_pad*d(_backward), and the
slices and copies of _pad_circular), and the errors of PadNd.cpp / Padding.h."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nn_conv_support import compare, rng_arrays, same_error, seen_ops


@st.composite
def pad_cases(draw):
    mode = draw(st.sampled_from(["constant", "reflect", "replicate", "circular"]))
    dims = draw(st.integers(1, 3))
    batched = draw(st.booleans())
    spatial = [draw(st.integers(2, 5)) for _ in range(dims)]
    shape = ([draw(st.integers(1, 2))] if batched else []) + [draw(st.integers(1, 2))] + spatial
    pads = []
    for size in reversed(spatial):
        if mode == "constant":
            low = -(size // 2)
            pads += [draw(st.integers(low, 3)), draw(st.integers(low, 3))]
        elif mode == "reflect":
            pads += [draw(st.integers(0, size - 1)), draw(st.integers(0, size - 1))]
        elif mode == "circular":
            pads += [draw(st.integers(0, size)), draw(st.integers(0, size))]
        else:
            pads += [draw(st.integers(0, 4)), draw(st.integers(0, 4))]
    value = draw(st.sampled_from([None, 0.0, 2.5])) if mode == "constant" else None
    return mode, shape, pads, value


@settings(max_examples=80, deadline=None)
@given(pad_cases(), st.integers(0, 2**16))
def test_pad_values_and_gradients(case, seed):
    mode, shape, pads, value = case
    arrays = rng_arrays(seed, shape)

    def fn(lib, x):
        if value is None:
            return lib.nn.functional.pad(x, pads, mode=mode)
        return lib.nn.functional.pad(x, pads, mode=mode, value=value)

    compare(fn, arrays, requires_grad=True)


@pytest.mark.parametrize(
    "mode, shape, pads",
    [
        ("constant", [2, 3, 4], [1, 2]),
        ("constant", [2, 3, 4], [-1, 2, 1, 0]),
        ("reflect", [2, 3, 4], [1, 2]),
        ("reflect", [2, 3, 4, 4], [1, 2, 0, 3]),
        ("replicate", [2, 3, 4, 4, 4], [1, 2, 0, 3, 1, 1]),
        ("replicate", [3, 4], [1, 2]),
        ("circular", [2, 3, 4, 4], [1, 2, 2, 1]),
        ("circular", [2, 3, 4], [1, 0]),
    ],
)
def test_dispatch_mode_sees_torch_ops(mode, shape, pads):
    arrays = rng_arrays(0, shape)
    ember_ops, torch_ops = seen_ops(
        lambda lib, x: lib.nn.functional.pad(x, pads, mode=mode), arrays
    )
    assert ember_ops[0] == torch_ops[0]
    if mode != "circular":  # CopySlices' backward: ember's own copy_/slice_backward route
        assert ember_ops[1] == torch_ops[1]


def _x(lib, *shape):
    return lib.ones(*shape)


ERROR_CASES = [
    lambda lib: lib.nn.functional.pad(_x(lib, 2, 3), [1]),
    lambda lib: lib.nn.functional.pad(_x(lib, 2, 3), [1, 1, 1, 1, 1, 1]),
    lambda lib: lib.nn.functional.pad(_x(lib, 2, 3), [-2, -2]),
    lambda lib: lib.nn.functional.pad(_x(lib, 2, 3), [-3, 0]),
    lambda lib: lib.nn.functional.pad(_x(lib, 2, 3), [-1, -1]),
    lambda lib: lib.nn.functional.pad(_x(lib, 2, 3), [1, 1], mode="foo"),
    lambda lib: lib.nn.functional.pad(_x(lib, 2, 3), [3, 1], mode="reflect"),
    lambda lib: lib.nn.functional.pad(_x(lib, 2, 3), [1, 1], mode="reflect", value=1.0),
    lambda lib: lib.nn.functional.pad(_x(lib, 3), [1, 1], mode="reflect"),
    lambda lib: lib.nn.functional.pad(_x(lib, 1, 2, 3), [1, 1, 1, 1, 1, 1, 1, 1], mode="reflect"),
    lambda lib: lib.nn.functional.pad(_x(lib, 1, 2, 3), [1, 1, 1], mode="replicate"),
    lambda lib: lib.nn.functional.pad(_x(lib, 1, 2, 3), [4, 1], mode="circular"),
    lambda lib: lib.nn.functional.pad(_x(lib, 2, 3), [1, 1, 1, 1], mode="circular"),
    lambda lib: lib.nn.functional.pad(_x(lib, 1, 2, 0), [1, 1], mode="replicate"),
    lambda lib: lib.nn.functional.pad(_x(lib, 1, 2, 3).long(), [1, 1], mode="reflect"),
    lambda lib: lib.nn.functional.pad(_x(lib, 1, 2, 3).long(), [1, 1], mode="replicate"),
    lambda lib: lib.nn.functional.pad(_x(lib, 1, 2, 3).long(), [1, 1], value=3),
    lambda lib: lib.nn.functional.pad(_x(lib, 1, 2, 3), [1, 1], mode="replicate", value=0.0),
    lambda lib: lib.constant_pad_nd(_x(lib, 2, 3), [1, 1], 2),
    lambda lib: lib._C._nn.reflection_pad2d(_x(lib, 2, 3), [1, 1]),
    lambda lib: lib._C._nn.replication_pad1d(_x(lib, 3), [1, 1]),
    lambda lib: lib._C._nn.reflection_pad2d(_x(lib, 2, 3), [1, 1, 1, 1]),
    lambda lib: lib.nn.functional.pad(_x(lib, 1, 0, 3), [1, 1], mode="reflect"),
    lambda lib: lib.nn.functional.pad(_x(lib, 0, 2, 3), [1, 1], mode="reflect"),
    lambda lib: lib.nn.functional.pad(_x(lib, 1, 2, 3).bool(), [1, 1], mode="reflect"),
    lambda lib: lib.nn.functional.pad(_x(lib, 1, 2, 3), [-2, -2], mode="replicate"),
    lambda lib: lib.nn.functional.pad(_x(lib, 1, 2, 3, 3), [-2, -2, 0, 1], mode="replicate"),
    lambda lib: lib.nn.functional.pad(_x(lib, 1, 2, 3), [-1, -1], mode="reflect"),
    lambda lib: lib.nn.functional.pad(_x(lib, 1, 2, 4), [-1, 1], mode="circular"),
    lambda lib: lib.nn.functional.pad(_x(lib, 1, 2, 4), [-4, 1], mode="circular"),
    lambda lib: lib.nn.functional.pad(_x(lib, 1, 2, 3).long(), [1, 1], value=2.5),
    lambda lib: lib.nn.functional.pad(_x(lib, 1, 2, 3).half(), [1, 1], mode="reflect"),
]


@pytest.mark.parametrize("case", range(len(ERROR_CASES)))
def test_errors_and_shapes_match_torch(case):
    same_error(ERROR_CASES[case])


def test_integer_constant_pad_exact():
    x = np.arange(12, dtype=np.int64).reshape(3, 4)
    compare(lambda lib, x: lib.nn.functional.pad(x, (1, 2, 2, 0), value=7), [x])
