"""trapezoid, trapz and cumulative_trapezoid against PyTorch 2.13: values and dtypes for
sample points and constant spacings (x broadcast after its differences, 1-d x along any
dim, x of fewer dims), empty integration dims, the errors (bool inputs, a complex or bool
dx, x of the wrong length, dims out of range, 0-dim y), float64 gradients and grad_fn
names, and the aten calls a dispatch mode sees (the rule is CompositeImplicitAutograd).
"""

from __future__ import annotations

import numpy as np
import pytest
from diff_support import grads_agree, ops_seen
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember

OPS = ["trapezoid", "trapz", "cumulative_trapezoid"]


def _outcome(fn):
    try:
        return "ok", fn()
    except Exception as error:  # noqa: BLE001 (compared with the other library's)
        return type(error).__name__, str(error)


def _same(program):
    (e_kind, e), (t_kind, t) = _outcome(lambda: program(ember)), _outcome(lambda: program(torch))
    assert e_kind == t_kind, (e, t)
    if e_kind != "ok":
        assert e == t
        return
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert tuple(e.shape) == tuple(t.shape)
    torch.testing.assert_close(torch.from_numpy(np.array(e.numpy())), t, equal_nan=True)


def _y(lib, *shape, dtype="float32"):
    values = np.arange(np.prod(shape, dtype=int)).reshape(shape) % 7 - 2.5
    return lib.tensor(values).to(getattr(lib, dtype))


CASES = [
    lambda lib, op: op(_y(lib, 3, 4)),
    lambda lib, op: op(_y(lib, 3, 4), dim=0),
    lambda lib, op: op(_y(lib, 3, 4), dx=0.5),
    lambda lib, op: op(_y(lib, 3, 4), dx=2, dim=-2),
    lambda lib, op: op(_y(lib, 3, 4), lib.tensor([0.0, 1.0, 3.0, 3.5])),
    lambda lib, op: op(_y(lib, 3, 4), lib.tensor([0.0, 1.0, 3.0]), dim=0),
    lambda lib, op: op(_y(lib, 2, 3, 4), _y(lib, 3, 4) * 2, dim=1),
    lambda lib, op: op(_y(lib, 2, 3, 4), _y(lib, 2, 3, 4).exp()),
    lambda lib, op: op(_y(lib, 2, 3, 4), _y(lib, 3, 1), dim=1),
    lambda lib, op: op(_y(lib, 3, 4, dtype="int64")),
    lambda lib, op: op(_y(lib, 3, 4, dtype="int64"), dx=3),
    lambda lib, op: op(_y(lib, 3, 4, dtype="int64"), lib.arange(4)),
    lambda lib, op: op(_y(lib, 3, 4, dtype="float64"), lib.arange(4)),
    lambda lib, op: op(_y(lib, 3, 4, dtype="complex64")),
    lambda lib, op: op(_y(lib, 3, 0)),
    lambda lib, op: op(_y(lib, 0, 3), dim=0),
    lambda lib, op: op(_y(lib, 3, 0), dx=2.0),
    lambda lib, op: op(_y(lib, 3, 0), lib.ones(0)),
    lambda lib, op: op(_y(lib, 3, 1)),
    lambda lib, op: op(_y(lib, 5)),
    lambda lib, op: op(_y(lib, 3, 4) > 0),
    lambda lib, op: op(_y(lib, 3, 4) > 0, dx=2),
    lambda lib, op: op(_y(lib, 3, 4), lib.ones(4, dtype=lib.bool)),
    lambda lib, op: op(_y(lib, 3, 4), dx=1j),
    lambda lib, op: op(_y(lib, 3, 4), dx=True),
    lambda lib, op: op(_y(lib, 3, 4), lib.ones(5)),
    lambda lib, op: op(_y(lib, 3, 4), dim=2),
    lambda lib, op: op(_y(lib, 3, 4), dx=1.0, dim=-3),
    lambda lib, op: op(_y(lib, 3, 4), lib.ones(4), dim=5),
    lambda lib, op: op(lib.tensor(2.0)),
    lambda lib, op: op(lib.tensor(2.0), dx=2.0),
    lambda lib, op: op(_y(lib, 3, 4), lib.ones(2, 3, 4)),
]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("name", OPS)
def test_values_and_errors(name, case):
    _same(lambda lib: CASES[case](lib, getattr(lib, name)))


@pytest.mark.parametrize("name", OPS)
def test_gradients(name):
    rng = np.random.default_rng(1)
    y, x = rng.standard_normal((3, 5)), np.cumsum(rng.random(5))
    grads_agree(lambda lib, y, x: getattr(lib, name)(y, x), [y, x])
    grads_agree(lambda lib, y: getattr(lib, name)(y, dx=0.3, dim=0), [y])
    grads_agree(lambda lib, y, x: getattr(lib, name)(y, x, dim=0), [y, rng.random((3, 1))])


@pytest.mark.parametrize(
    "program",
    [
        lambda lib, name: getattr(lib, name)(lib.ones(3, 4)),
        lambda lib, name: getattr(lib, name)(lib.ones(3, 4), lib.arange(4.0)),
        lambda lib, name: getattr(lib, name)(lib.ones(3, 4), dx=2.0, dim=0),
        lambda lib, name: getattr(lib, name)(lib.ones(3, 0)),
    ],
)
@pytest.mark.parametrize("name", OPS)
def test_mode_sees_the_decomposition(name, program):
    def run(lib):
        return program(lib, name)

    assert ops_seen(run, ember) == ops_seen(run, torch)


@settings(max_examples=40, deadline=None)
@given(
    shape=st.lists(st.integers(0, 4), min_size=1, max_size=3),
    data=st.data(),
    name=st.sampled_from(OPS),
)
def test_hypothesis(shape, data, name):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    spacing = data.draw(st.sampled_from(["none", "dx", "x1", "xfull"]))

    def program(lib):
        y = _y(lib, *shape, dtype="float64")
        op = getattr(lib, name)
        if spacing == "dx":
            return op(y, dx=0.25, dim=dim)
        if spacing == "x1":
            return op(y, lib.arange(shape[dim], dtype=lib.float64) ** 2, dim=dim)
        if spacing == "xfull":
            return op(y, y.exp(), dim=dim)
        return op(y, dim=dim)

    _same(program)
