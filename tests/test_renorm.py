"""renorm against PyTorch 2.13: values for several p, dims and maxnorms in every dtype its
kernel takes (half types' norms in float), the method, in-place and out= forms, the
errors of its meta function and of the norm, float64 gradients and RenormBackward0, and
what a dispatch mode sees.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from diff_support import grads_agree, ops_seen
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember


def _outcome(fn):
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = fn()
        return "ok", value, [str(w.message) for w in caught]
    except Exception as error:  # noqa: BLE001 (compared with the other library's)
        return type(error).__name__, str(error), []


def _same(program):
    (e_kind, e, e_warn), (t_kind, t, t_warn) = (
        _outcome(lambda: program(ember)),
        _outcome(lambda: program(torch)),
    )
    assert e_kind == t_kind, (e, t)
    assert e_warn == t_warn
    if e_kind != "ok":
        assert e == t
        return
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert tuple(e.shape) == tuple(t.shape) and e.stride() == t.stride()
    if str(t.dtype).endswith("bfloat16") or str(t.dtype).endswith("float16"):
        e, t = e.float(), t.float()
    torch.testing.assert_close(torch.from_numpy(np.array(e.numpy())), t, equal_nan=True)


def _x(lib, *shape, dtype="float32"):
    values = (np.arange(np.prod(shape)).reshape(shape) % 11 - 5) / 2.0
    x = lib.tensor(values)
    if dtype.startswith("complex"):
        x = lib.complex(x, x.flip(-1))
    return x.to(getattr(lib, dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "complex64"])
@pytest.mark.parametrize("p", [1, 2, 3, 0.5, math.inf])
@pytest.mark.parametrize("dim, maxnorm", [(0, 1.0), (1, 2.5), (-1, 0.0), (2, 100.0)])
def test_values(dtype, p, dim, maxnorm):
    _same(lambda lib: lib.renorm(_x(lib, 3, 4, 2, dtype=dtype), p, dim, maxnorm))


def test_method_in_place_and_out():
    _same(lambda lib: _x(lib, 3, 4).renorm(2, 0, 1.5))

    def in_place(lib):
        x = _x(lib, 3, 4)
        assert x.renorm_(1, 1, 2.0) is x
        return x

    _same(in_place)

    def out(lib):
        target = lib.empty(2)
        result = lib.renorm(_x(lib, 3, 4), 2, 0, 1.5, out=target)
        assert result is target
        return result

    _same(out)
    _same(lambda lib: lib.renorm(_x(lib, 3, 4).t(), 2, 0, 1.5))


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lib.renorm(_x(lib, 3, 4), 1j, 0, 1.0),
        lambda lib: lib.renorm(_x(lib, 3, 4), 0, 0, 1.0),
        lambda lib: lib.renorm(_x(lib, 3, 4), -2, 0, 1.0),
        lambda lib: lib.renorm(_x(lib, 3, 4), 2, 0, -1.5),
        lambda lib: lib.renorm(_x(lib, 3, 4), 2, 0, 1j),
        lambda lib: lib.renorm(_x(lib, 4), 2, 0, 1.0),
        lambda lib: lib.renorm(lib.tensor(1.0), 2, 0, 1.0),
        lambda lib: lib.renorm(_x(lib, 3, 4), 2, 2, 1.0),
        lambda lib: lib.renorm(lib.ones(3, 4, dtype=lib.int64), 2, 0, 1.0),
        lambda lib: lib.renorm(_x(lib, 3, 4), 2, 0, 1.0, out=lib.empty(3, 4, dtype=lib.float64)),
        lambda lib: lib.ones(3, 4, dtype=lib.int64).renorm_(2, 0, 1.0),
    ],
)
def test_errors(program):
    _same(program)


def test_gradients_and_node():
    rng = np.random.default_rng(4)
    for p, dim, maxnorm in [(2, 0, 1.0), (1, 1, 0.5), (3, -1, 2.0), (math.inf, 0, 0.7)]:

        def fn(lib, x, p=p, dim=dim, maxnorm=maxnorm):
            return lib.renorm(x, p, dim, maxnorm)

        grads_agree(fn, [rng.standard_normal((3, 4))])
    for lib in (torch, ember):
        x = lib.ones(2, 3, requires_grad=True)
        assert type(lib.renorm(x, 2, 0, 1.0).grad_fn).__name__ == "RenormBackward0"


def test_mode_sees_renorm():
    def run(lib):
        x = lib.ones(2, 3)
        lib.renorm(x, 2, 0, 1.0)
        x.renorm_(1, 1, 0.5)

    assert ops_seen(run, ember) == ops_seen(run, torch)


@settings(max_examples=40, deadline=None)
@given(
    shape=st.lists(st.integers(1, 4), min_size=2, max_size=3),
    data=st.data(),
    p=st.sampled_from([1, 2, 2.5, math.inf]),
    maxnorm=st.floats(0, 5),
)
def test_hypothesis(shape, data, p, maxnorm):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    _same(lambda lib: lib.renorm(_x(lib, *shape, dtype="float64"), p, dim, maxnorm))
