"""isclose, allclose, equal, count_nonzero and broadcast_shapes, differential against torch:
values, dtypes, errors, and the operators a dispatch mode sees (isclose decomposes)."""

from __future__ import annotations

import math

import hypothesis.strategies as st
import numpy as np
import pytest
from autograd_support import op_recorder
from hypothesis import given
from ops_support import same_outcome
from oracle import torch

import ember

SPECIAL = [0.0, -0.0, 1.0, 1.0 + 1e-6, 1.0 + 1e-4, math.inf, -math.inf, math.nan, 1e-9, -2.5]
DTYPES = ["float32", "float64", "int64", "int32", "uint8", "bool", "complex64", "float16"]


def _pair(lib, left, right, dtype):
    d = getattr(lib, dtype)
    if dtype == "bool":
        return lib.tensor([bool(v) for v in left]), lib.tensor([bool(v) for v in right])
    if dtype in ("int64", "int32", "uint8"):
        clean = [0 if not math.isfinite(v) else int(abs(v)) % 200 for v in left]
        other = [0 if not math.isfinite(v) else int(abs(v)) % 200 for v in right]
        return lib.tensor(clean, dtype=d), lib.tensor(other, dtype=d)
    return lib.tensor(left, dtype=d), lib.tensor(right, dtype=d)


values = st.lists(st.sampled_from(SPECIAL) | st.floats(-3, 3, width=32), min_size=1, max_size=6)


@given(
    values,
    st.data(),
    st.sampled_from(DTYPES),
    st.sampled_from([0.0, 1e-5, 0.1]),
    st.sampled_from([0.0, 1e-8, 0.5, math.inf]),
    st.booleans(),
)
def test_isclose_and_allclose_match_torch(left, data, dtype, rtol, atol, equal_nan):
    right = data.draw(st.lists(st.sampled_from(SPECIAL), min_size=len(left), max_size=len(left)))

    def isclose(lib):
        a, b = _pair(lib, left, right, dtype)
        return lib.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)

    def allclose(lib):
        a, b = _pair(lib, left, right, dtype)
        return a.allclose(b, rtol, atol, equal_nan)

    same_outcome(isclose)
    same_outcome(allclose)


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lib.isclose(lib.ones(2), lib.ones(2, dtype=lib.int64)),
        lambda lib: lib.isclose(lib.ones(2), lib.ones(2), rtol=-1),
        lambda lib: lib.isclose(lib.ones(2), lib.ones(2), atol=-0.5),
        lambda lib: lib.isclose(lib.ones(2), lib.ones(3)),
        lambda lib: lib.isclose(lib.ones(2, 1), lib.ones(3)),
        lambda lib: lib.allclose(lib.ones(2), lib.ones(3)),
        lambda lib: lib.allclose(lib.ones(2), lib.ones(1)),
        lambda lib: lib.allclose(lib.ones(2), lib.ones(2, dtype=lib.float64)),
        lambda lib: lib.isclose(lib.ones(2), 1.0),
    ],
)
def test_isclose_errors_match_torch(program):
    same_outcome(program)


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lib.equal(lib.ones(2), lib.ones(3)),
        lambda lib: lib.equal(lib.ones(2), lib.ones(2, dtype=lib.int64)),
        lambda lib: lib.equal(lib.tensor([math.nan]), lib.tensor([math.nan])),
        lambda lib: (lambda x: lib.equal(x, x))(lib.tensor([math.nan])),
        lambda lib: (lambda x: lib.equal(x, x))(lib.tensor([1, 2])),
        lambda lib: lib.equal(lib.ones(2, 1), lib.ones(1, 2)),
        lambda lib: lib.equal(lib.ones(2, 3).t(), lib.ones(3, 2)),
        lambda lib: lib.equal(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.5])),
        lambda lib: lib.equal(lib.tensor(3), lib.tensor([3])),
        lambda lib: lib.tensor([True, False]).equal(lib.tensor([1, 0])),
        lambda lib: lib.equal(lib.ones(2), 1),
    ],
)
def test_equal_matches_torch(program):
    same_outcome(program)


@given(
    st.lists(st.integers(-1, 1), min_size=0, max_size=24),
    st.sampled_from([(0,), (1,), (-1,), (0, 1), (1, 0), (0, 0), (2,), (), None, 0, -2, 3]),
    st.sampled_from(["float32", "int64", "bool", "complex64"]),
)
def test_count_nonzero_matches_torch(flat, dim, dtype):
    def program(lib):
        x = lib.tensor(np.resize(np.array(flat or [0]), (2, 3, 4)).tolist())
        x = x.to(getattr(lib, dtype))
        if dim is None:
            return lib.count_nonzero(x)
        if isinstance(dim, int):
            return x.count_nonzero(dim)
        return lib.count_nonzero(x, dim=dim)

    same_outcome(program)


def test_count_nonzero_of_a_scalar_and_an_empty_tensor():
    same_outcome(lambda lib: lib.count_nonzero(lib.tensor(3.0)))
    same_outcome(lambda lib: lib.count_nonzero(lib.tensor(3.0), dim=0))
    same_outcome(lambda lib: lib.count_nonzero(lib.zeros(0, 3), dim=1))
    same_outcome(lambda lib: lib.count_nonzero(lib.ones(2, 3).t()))


@pytest.mark.parametrize(
    "shapes",
    [
        ((2, 1), (3,)),
        ((2, 1), (3, 4)),
        ((2, 1), (-1,)),
        ((2,), (-1,)),
        (2, (3, 1)),
        (),
        ("a",),
        ((2.0,),),
        ([1, 5], (2, 1)),
        ((0,), (1,)),
        ((0,), (3,)),
        (None, (2,)),
        ((2, 3), [1, 5]),
        (3.5,),
        ((), (4, 1)),
    ],
)
def test_broadcast_shapes_matches_torch(shapes):
    def program(lib):
        try:
            return repr(lib.broadcast_shapes(*shapes)).replace("ember.", "torch.")
        except Exception as error:  # noqa: BLE001 (compared with torch's)
            return type(error).__name__, str(error).replace("ember.", "torch.")

    assert program(ember) == program(torch)


def test_broadcast_shapes_of_sizes_matches_torch():
    same_outcome(lambda lib: lib.broadcast_shapes(lib.Size([2, 1]), lib.Size([1, 5])))
    same_outcome(lambda lib: type(lib.broadcast_shapes((2,))).__name__)


def _modes_see(lib, program):
    a = lib.tensor([1.0, 2.0, math.nan])
    b = lib.tensor([1.0, 3.0, math.nan])
    with op_recorder(lib) as mode:
        program(lib, a, b)
    return mode.ops


@pytest.mark.parametrize(
    "program",
    [
        lambda lib, a, b: lib.isclose(a, b),
        lambda lib, a, b: lib.isclose(a, b, equal_nan=True),
        lambda lib, a, b: lib.isclose(a, b, rtol=0, atol=0),
        lambda lib, a, b: lib.isclose(a.long(), b.long()),
        lambda lib, a, b: lib.isclose(a.bool(), b.bool()),
        lambda lib, a, b: lib.isclose(a.to(lib.complex64), b.to(lib.complex64)),
        lambda lib, a, b: lib.allclose(a, b),
        lambda lib, a, b: lib.equal(a, b),
        lambda lib, a, b: (lib.count_nonzero(a), lib.count_nonzero(a, 0), a.count_nonzero([0])),
    ],
)
def test_a_mode_sees_what_torch_shows(program):
    assert _modes_see(ember, program) == _modes_see(torch, program)


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lib.equal(lib.ones(2, 3, device="meta"), lib.ones(2, 3, device="meta")),
        lambda lib: lib.isclose(lib.ones(2, 3, device="meta"), lib.ones(2, 3, device="meta")),
        lambda lib: lib.allclose(lib.ones(2, 3, device="meta"), lib.ones(2, 3, device="meta")),
        lambda lib: lib.count_nonzero(lib.ones(2, 3, device="meta")),
        lambda lib: lib.count_nonzero(lib.ones(2, 3, device="meta"), 1),
        lambda lib: lib.count_nonzero(lib.ones(2, 3, device="meta"), (0, 1)),
    ],
)
def test_on_meta_tensors_as_torch(program):
    same_outcome(program)
