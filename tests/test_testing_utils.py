"""torch.testing: assert_close (its verdicts, tolerances by dtype and the full text of each
error) and make_tensor (shapes, dtypes, bounds, contiguity, requires_grad, errors and
warnings), differential against torch. ember's generator is not torch's, so make_tensor's
values are checked against their bounds, not against torch's values."""

from __future__ import annotations

import math
import warnings

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given
from oracle import torch

import ember


def _outcome(lib, program):
    """None when `program` passes, else the error's type name and text (ember read as torch)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            program(lib)
            result = None
        except Exception as error:  # noqa: BLE001 (compared with torch's)
            result = (type(error).__name__, str(error).replace("ember.", "torch."))
    shown = [(w.category.__name__, str(w.message)) for w in caught]
    return result, shown


def _same(program):
    ours = _outcome(ember, program)
    assert ours == _outcome(torch, program)
    return ours


T = "tensor"


def _ac(*args, **kwargs):
    """assert_close on arguments built in the library: a ("tensor", values, options) tuple
    is that library's tensor."""

    def build(lib, value):
        if isinstance(value, tuple) and value and value[0] == T:
            options = dict(value[2]) if len(value) > 2 else {}
            if "dtype" in options:
                options["dtype"] = getattr(lib, options["dtype"])
            return lib.tensor(value[1], **options)
        if isinstance(value, list):
            return [build(lib, v) for v in value]
        if isinstance(value, tuple):
            return tuple(build(lib, v) for v in value)
        if isinstance(value, dict):
            return {k: build(lib, v) for k, v in value.items()}
        return value

    def program(lib):
        lib.testing.assert_close(*(build(lib, a) for a in args), **kwargs)

    return program


NAN, INF = math.nan, math.inf
CASES = [
    _ac((T, [1.0, 2.0, 3.0]), (T, [1.0, 4.0, 3.5])),
    _ac((T, [1, 2, 3]), (T, [1, 4, 5])),
    _ac((T, [[1.0, 2.0], [3.0, 4.0]]), (T, [[1.0, 2.0], [3.0, 0.0]])),
    _ac((T, 1.1), (T, 1.0)),
    _ac((T, 3), (T, 4)),
    _ac((T, [1.0]), (T, [1.0, 2.0])),
    _ac((T, [1.0]), (T, [1.0], {"dtype": "float64"})),
    _ac((T, [1.0]), (T, [1.0], {"dtype": "float64"}), check_dtype=False),
    _ac((T, [1.0]), (T, [1.5], {"dtype": "float64"}), check_dtype=False),
    _ac((T, [1.0, NAN]), (T, [1.0, NAN])),
    _ac((T, [1.0, NAN]), (T, [1.0, NAN]), equal_nan=True),
    _ac((T, [1.0]), (T, [1.0]), rtol=0.1),
    _ac((T, [1.0]), (T, [1.0]), atol=0.1),
    _ac((T, [1.0]), (T, [1.2]), rtol=0.1, atol=0.0),
    _ac((T, [1.0]), (T, [1.2]), rtol=0.0, atol=0.25),
    _ac(1, 1.0),
    _ac(1, 2),
    _ac(1.0, 1.5),
    _ac(1.0, 1.0 + 1e-8),
    _ac(NAN, NAN),
    _ac(NAN, NAN, equal_nan=True),
    _ac(1 + 2j, 1 + 3j),
    _ac(1, 1 + 0j, check_dtype=False),
    _ac(True, False),
    _ac(True, 1),
    _ac(np.bool_(True), True),
    _ac(np.float32(1.5), 1.5),
    _ac(None, 1),
    _ac(None, None),
    _ac([(T, [1.0]), (T, [2.0])], [(T, [1.0]), (T, [3.0])]),
    _ac([1, 2], [1]),
    _ac([1, 2], (1, 3)),
    _ac({"a": 1, "b": 2}, {"a": 1, "c": 2}),
    _ac({"a": (T, [1.0]), "b": (1, (T, [2.0]))}, {"a": (T, [1.0]), "b": (1, (T, [2.5]))}),
    _ac((T, [1.0]), [1.0]),
    _ac("a", "a"),
    _ac((T, [1.0]), (T, [2.0]), msg="custom"),
    _ac((T, [1.0]), (T, [2.0]), msg=lambda m: "H\n" + m + "\nF"),
    _ac([(T, [1.0])], [(T, [2.0])], msg=lambda m: "H\n" + m),
    _ac([(T, [1.0])], [(T, [2.0])], msg="only this"),
    _ac((T, [1.0]), (T, [1.0]), rtol=0.1, msg="not used while pairing"),
    _ac((T, [True, False]), (T, [True, True])),
    _ac((T, [1 + 1j, 2]), (T, [1 + 1j, 3])),
    _ac((T, [0.0, 1.0]), (T, [0.0, 1.001]), rtol=0, atol=0),
    _ac((T, [0.0, 1.0]), (T, [1e-3, 0.0])),
    _ac((T, [1.0, INF]), (T, [1.0, INF])),
    _ac((T, [1.0, INF]), (T, [1.0, -INF])),
    _ac((T, [5, 3], {"dtype": "uint8"}), (T, [3, 5], {"dtype": "uint8"})),
    _ac((T, [1.5], {"dtype": "float16"}), (T, [1.501], {"dtype": "float16"})),
    _ac((T, [1.5], {"dtype": "float16"}), (T, [1.6], {"dtype": "float16"})),
    _ac((T, [1.5], {"dtype": "bfloat16"}), (T, [1.52], {"dtype": "bfloat16"})),
    _ac((T, [1.0], {"dtype": "float64"}), (T, [1.0000001], {"dtype": "float64"})),
    _ac((T, [1.0], {"dtype": "float64"}), (T, [1.000001], {"dtype": "float64"})),
    _ac((T, [1, 2]), (T, [1.0, 2.0]), check_dtype=False),
    _ac((T, [1, 2]), (T, [1.0, 2.5]), check_dtype=False),
    _ac((T, []), (T, [])),
    _ac((T, [[1.0, 2.0, 3.0]] * 3), (T, [[1.0, 3.0, 3.0]] * 3)),
    _ac((T, [1.0, 2.0], {"device": "meta"}), (T, [1.0, 3.0])),
    _ac((T, [1.0, 2.0], {"device": "meta"}), (T, [1.0, 3.0], {"device": "meta"})),
    _ac((T, [1.0, 2.0], {"device": "meta"}), (T, [1.0, 3.0]), check_device=False),
]


@pytest.mark.parametrize("program", CASES)
def test_assert_close_matches_torch(program):
    _same(program)


def test_assert_close_checks_strides_only_when_asked():
    def program(lib, **options):
        wide = lib.tensor([1.0, 2.0]).expand(2, 2)
        lib.testing.assert_close(wide, lib.tensor([[1.0, 2.0], [1.0, 2.0]]), **options)

    _same(program)
    assert _same(lambda lib: program(lib, check_stride=True))[0][0] == "AssertionError"


def test_assert_close_of_sizes_and_subclasses():
    _same(lambda lib: lib.testing.assert_close(lib.Size([2]), lib.Size([3])))
    _same(lambda lib: lib.testing.assert_close(lib.Size([2]), (2,)))
    _same(lambda lib: lib.testing.assert_close(np.array([1.0, 2.0]), np.array([1.0, 2.5])))


def test_the_deprecated_assert_allclose_matches_torch():
    _same(lambda lib: lib.testing.assert_allclose([1.0, 2.0], [1.0, 2.5]))
    _same(lambda lib: lib.testing.assert_allclose(lib.tensor([1.0, 2.0]), [1.0, 2.00001]))
    _same(lambda lib: lib.testing.assert_allclose(lib.tensor([1, 2]), lib.tensor([1.0, 2.0])))


finite = st.floats(-1e3, 1e3, width=32)


@given(
    st.lists(finite, min_size=1, max_size=8),
    st.data(),
    st.sampled_from(["float32", "float64", "float16"]),
)
def test_assert_close_on_random_tensors_matches_torch(left, data, dtype):
    noise = data.draw(st.lists(st.sampled_from([0.0, 1e-7, 1e-5, 1e-3, 1.0, -2.0, NAN])))
    right = [v + (noise[i] if i < len(noise) else 0.0) for i, v in enumerate(left)]
    shape = data.draw(st.sampled_from([(len(left),), (1, len(left))]))
    left_t = (T, np.reshape(left, shape).tolist(), {"dtype": dtype})
    right_t = (T, np.reshape(right, shape).tolist(), {"dtype": dtype})
    _same(_ac(left_t, right_t))


# -- make_tensor ----------------------------------------------------------------------

DTYPE_NAMES = [
    "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
    "float32", "float64", "complex64", "complex128",
]  # fmt: skip


def _geometry(lib, program):
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t = program(lib)
    except Exception as error:  # noqa: BLE001 (compared with torch's)
        return type(error).__name__, str(error).replace("ember.", "torch.")
    return (
        tuple(t.shape),
        t.stride(),
        str(t.dtype).replace("ember.", "torch."),
        t.device.type,
        t.requires_grad,
        t.is_contiguous(),
        t.storage_offset(),
        [(w.category.__name__, str(w.message)) for w in caught],
    )


def _make(shape=(3, 4), dtype="float32", **options):
    def program(lib):
        return lib.testing.make_tensor(*shape, dtype=getattr(lib, dtype), **options)

    return program


MAKE_OPTIONS = [
    {"device": "cpu"},
    {"device": "cpu", "noncontiguous": True},
    {"device": "cpu", "exclude_zero": True},
    {"device": "cpu", "requires_grad": True},
    {"device": "cpu", "low": math.nan},
    {"device": "cpu", "low": 5, "high": 1},
    {"device": "cpu", "low": 2, "high": 2},
    {"device": "cpu", "low": 1e40, "high": 1e41},
    {"device": "cpu", "low": -1e300, "high": 1e300},
    {"device": "cpu", "low": -300, "high": 300},
    {"device": "meta"},
]


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
@pytest.mark.parametrize("options", MAKE_OPTIONS, ids=str)
def test_make_tensor_geometry_and_errors_match_torch(dtype, options):
    program = _make(dtype=dtype, **options)
    assert _geometry(ember, program) == _geometry(torch, program)


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lib.testing.make_tensor(2, 3, dtype=lib.float32, device="cpu",
                                            noncontiguous=True,
                                            memory_format=lib.contiguous_format),
        lambda lib: lib.testing.make_tensor(1, dtype=lib.float32, device="cpu", noncontiguous=True),
        lambda lib: lib.testing.make_tensor((), dtype=lib.float32, device="cpu"),
        lambda lib: lib.testing.make_tensor(dtype=lib.float32, device="cpu"),
        lambda lib: lib.testing.make_tensor(2, 0, dtype=lib.float32, device="cpu",
                                            noncontiguous=True),
        lambda lib: lib.testing.make_tensor([2, 5], dtype=lib.int64, device="cpu",
                                            noncontiguous=True),
        lambda lib: lib.testing.make_tensor(lib.Size([2, 2]), dtype=lib.float32, device="cpu",
                                            memory_format=lib.contiguous_format),
    ],
)  # fmt: skip
def test_make_tensor_shapes_match_torch(program):
    assert _geometry(ember, program) == _geometry(torch, program)


BOUNDS = [
    # dtype, low, high, and the interval torch.testing documents for them
    ("bool", None, None, 0, 2),
    ("uint8", None, None, 0, 10),
    ("int8", None, None, -9, 10),
    ("int64", -2, 3, -2, 3),
    ("int32", 0.5, 2.5, 1, 3),  # low and high are ceiled for integers
    ("int8", -1000, 1000, -128, 128),  # clamped to what the dtype holds
    ("float32", None, None, -9, 9),
    ("float64", -2, 3, -2, 3),
    ("float16", 0.5, 0.75, 0.5, 0.75),
    ("bfloat16", -1, 1, -1, 1),
    ("complex64", None, None, -9, 9),  # each part
    ("complex128", 1, 2, 1, 2),
    ("float32", -1e300, 1e300, -3.5e38, 3.5e38),
]


@pytest.mark.parametrize(("dtype", "low", "high", "lowest", "highest"), BOUNDS)
def test_make_tensor_values_lie_in_the_interval(dtype, low, high, lowest, highest):
    ember.manual_seed(0)
    t = ember.testing.make_tensor(600, dtype=getattr(ember, dtype), device="cpu",
                                  low=low, high=high)  # fmt: skip
    values = t.to(ember.complex128 if t.dtype.is_complex else ember.float64).numpy()
    # a value drawn in float just below `high` may round up to it in a 16-bit float (in
    # torch as well: uniform_ draws in float and rounds to the dtype)
    rounds_up = dtype in ("float16", "bfloat16")
    for part in [values.real, values.imag] if t.dtype.is_complex else [values]:
        assert np.isfinite(part).all()
        assert lowest <= part.min()
        assert part.max() < highest or (rounds_up and part.max() == highest)
        assert len(np.unique(part)) > 1


def test_make_tensor_excludes_zero():
    for name in ("int8", "bool", "float32"):
        t = ember.testing.make_tensor(500, dtype=getattr(ember, name), device="cpu",
                                      low=0, high=2, exclude_zero=True)  # fmt: skip
        assert (t != 0).all().item()
    tiny = ember.testing.make_tensor(300, dtype=ember.float16, device="cpu", low=0, high=1e-7,
                                     exclude_zero=True)  # fmt: skip
    assert (tiny != 0).all().item()


def test_make_tensor_follows_the_seed():
    ember.manual_seed(3)
    a = ember.testing.make_tensor(5, dtype=ember.float32, device="cpu")
    ember.manual_seed(3)
    b = ember.testing.make_tensor(5, dtype=ember.float32, device="cpu")
    assert ember.equal(a, b)
