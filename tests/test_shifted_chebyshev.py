"""torch.special's shifted Chebyshev polynomials T*, U*, V*, W* against PyTorch 2.13.

Values at PyTorch's special points (x == 0, x == 1), inside and outside [0, 1], for orders
that take the recurrence and those that take the closed forms, in float32 (its fused
multiply-adds) and float64, integer inputs promoted; the Scalar overloads and out=; and
the dtypes the kernel refuses, with PyTorch's message. Hypothesis draws the arguments.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember

KINDS = ["t", "u", "v", "w"]
XS = [0.0, 1.0, -0.0, 0.5, 0.25, 0.75, 0.999, 0.001, -0.5, 1.5, 2.0, -1.0, math.inf]
# x = NaN with n >= 2 returns PyTorch's uninitialised `r` (the recurrence never runs):
# undefined, so NaN is compared at n = 0 and 1 only.
NS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 20, -1, 31]


def _fn(lib, kind):
    return getattr(lib.special, f"shifted_chebyshev_polynomial_{kind}")


def _outcome(fn):
    try:
        return "ok", fn()
    except Exception as error:  # noqa: BLE001 (compared with the other library's)
        return type(error).__name__, str(error)


def _same(e_fn, t_fn, rtol=None, atol=None):
    (e_kind, e), (t_kind, t) = _outcome(e_fn), _outcome(t_fn)
    assert e_kind == t_kind, (e, t)
    if e_kind != "ok":
        assert e == t
        return
    assert str(e.dtype).removeprefix("ember.") == str(t.dtype).removeprefix("torch.")
    assert tuple(e.shape) == tuple(t.shape)
    torch.testing.assert_close(
        torch.from_numpy(np.array(e.numpy())), t, equal_nan=True, rtol=rtol, atol=atol
    )


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kind", KINDS)
def test_grid_of_points_and_orders(kind, dtype):
    x = [v for v in XS for _ in NS]
    n = [m for _ in XS for m in NS]

    def run(lib):
        xs = lib.tensor(x, dtype=getattr(lib, dtype))
        ns = lib.tensor(n, dtype=getattr(lib, dtype))
        return _fn(lib, kind)(xs, ns)

    _same(lambda: run(ember), lambda: run(torch))

    def nan(lib):
        return _fn(lib, kind)(
            lib.tensor([math.nan, math.nan], dtype=getattr(lib, dtype)),
            lib.tensor([0.0, 1.0], dtype=getattr(lib, dtype)),
        )

    _same(lambda: nan(ember), lambda: nan(torch))


@pytest.mark.parametrize("kind", KINDS)
def test_scalar_overloads_out_and_integer_promotion(kind):
    for lib_args in (
        lambda lib: (0.3, lib.tensor([0, 1, 5, 9, 12])),
        lambda lib: (lib.tensor([0.0, 0.3, 1.0, 0.8]), 7),
        lambda lib: (lib.tensor([0, 1, 2]), lib.tensor([3, 4, 5])),
        lambda lib: (lib.tensor([[0.1], [0.9]]), lib.tensor([2.0, 10.0])),
    ):
        _same(
            lambda a=lib_args: _fn(ember, kind)(*a(ember)),
            lambda a=lib_args: _fn(torch, kind)(*a(torch)),
        )

    def with_out(lib):
        out = lib.empty(3, dtype=lib.float64)
        result = _fn(lib, kind)(lib.tensor([0.2, 0.6, 1.0], dtype=lib.float64), 9, out=out)
        assert result is out
        return out

    _same(lambda: with_out(ember), lambda: with_out(torch))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "complex64"])
@pytest.mark.parametrize("kind", KINDS)
def test_refused_dtypes(kind, dtype):
    def run(lib):
        x = lib.tensor([0.5, 0.25], dtype=getattr(lib, dtype))
        return _fn(lib, kind)(x, lib.tensor([2, 3]))

    _same(lambda: run(ember), lambda: run(torch))


@settings(max_examples=40, deadline=None)
@given(
    kind=st.sampled_from(KINDS),
    dtype=st.sampled_from(["float32", "float64"]),
    x=st.lists(st.floats(-0.25, 1.25, width=32), min_size=1, max_size=6),
    n=st.integers(-2, 40),
)
def test_hypothesis_values(kind, dtype, x, n):
    def run(lib):
        return _fn(lib, kind)(lib.tensor(x, dtype=getattr(lib, dtype)), float(n))

    _same(lambda: run(ember), lambda: run(torch))
