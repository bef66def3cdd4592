"""torch.func.vmap's interface against PyTorch (facts A4-A8): in_dims / out_dims (ints,
negatives, None, pytrees), nested vmap, Python scalars and kwargs, chunk_size, and every
misuse error with PyTorch's type and message."""

from __future__ import annotations

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, settings
from oracle import torch
from vmap_support import same

import ember


def _x(lib):
    return lib.arange(6.0).reshape(2, 3)


def test_torch_vmap_is_torch_func_vmap_and_keeps_the_name():
    assert ember.vmap is ember.func.vmap
    assert ember.vmap(ember.sin).__name__ == torch.vmap(torch.sin).__name__ == "sin"


CASES = {
    "in_dims=1": lambda lib: lib.vmap(lambda a: a.sum(), in_dims=1)(_x(lib)),
    "in_dims=-1": lambda lib: lib.vmap(lambda a: a.sum(), in_dims=-1)(_x(lib)),
    "(0, None)": lambda lib: lib.vmap(lambda a, b: a + b, in_dims=(0, None))(_x(lib), lib.ones(3)),
    "(1, 0)": lambda lib: lib.vmap(lambda a, b: a * b, in_dims=(1, 0))(_x(lib), lib.arange(3.0)),
    "out_dims=1": lambda lib: lib.vmap(lambda a: a * 10, out_dims=1)(_x(lib)).stride(),
    "out_dims=-1": lambda lib: lib.vmap(lambda a: a.unsqueeze(0), out_dims=-1)(_x(lib)),
    "out_dims=(0, 1)": lambda lib: lib.vmap(lambda a: (a, a.unsqueeze(0)), out_dims=(0, 1))(
        _x(lib)
    ),
    "out_dims=None unbatched": lambda lib: lib.vmap(lambda a: lib.ones(2), out_dims=None)(_x(lib)),
    "out_dims=None batched": lambda lib: lib.vmap(lambda a: a, out_dims=None)(_x(lib)),
    "unbatched output broadcast": lambda lib: lib.vmap(lambda a: lib.arange(3.0))(_x(lib)),
    "unbatched output, out_dims=1": lambda lib: lib.vmap(lambda a: lib.arange(3.0), out_dims=1)(
        _x(lib)
    ),
    "0-d outputs": lambda lib: lib.vmap(lambda a: a.sum())(_x(lib)),
    "batch size 0": lambda lib: lib.vmap(lambda a: a * 2)(lib.ones(0, 3)).shape,
    "scalar args": lambda lib: lib.vmap(lambda a, s: a * s, in_dims=(0, None))(_x(lib), 2.0),
    "kwargs never batched": lambda lib: lib.vmap(lambda a, *, b: a.sum() + b)(
        _x(lib), b=lib.ones(5)
    ),
    "non-tensor in_dim": lambda lib: lib.vmap(lambda a, s: a * s, in_dims=(0, 0))(_x(lib), 2.0),
    "nested": lambda lib: lib.vmap(lib.vmap(lambda a: a.sum(), in_dims=1))(
        lib.arange(24.0).reshape(2, 3, 4)
    ),
    "outer product": lambda lib: lib.vmap(lib.vmap(lib.mul, in_dims=(None, 0)), in_dims=(0, None))(
        lib.tensor([1.0, 2.0]), lib.tensor([1.0, 10.0, 100.0])
    ),
    "nested out_dims=1": lambda lib: lib.vmap(lib.vmap(lambda a: a, out_dims=0), out_dims=1)(
        lib.arange(24.0).reshape(2, 3, 4)
    ),
    "inner mismatch": lambda lib: lib.vmap(
        lambda a: lib.vmap(lambda p, q: p + q)(a, lib.ones(5, 4))
    )(lib.arange(24.0).reshape(2, 3, 4)),
    "dict in, dict out": lambda lib: lib.vmap(
        lambda d: {"s": d["a"] + d["b"], "l": [d["a"] * 2, (d["a"].sum(),)]},
        in_dims=({"a": 0, "b": None},),
    )({"a": _x(lib), "b": lib.ones(3)}),
    "int leaf, out_dims None": lambda lib: lib.vmap(lambda a: (a, 7), out_dims=(0, None))(_x(lib)),
    "int leaf, out_dims 0": lambda lib: lib.vmap(lambda a: (a, 7))(_x(lib)),
    "list arg broadcast": lambda lib: lib.vmap(lambda seq: seq[0] + seq[1])([_x(lib), _x(lib)]),
    "list arg prefix": lambda lib: lib.vmap(lambda seq: seq[0] + seq[1], in_dims=([0, None],))(
        [_x(lib), lib.ones(3)]
    ),
    "tuple with scalar": lambda lib: lib.vmap(lambda t: t[0] * t[1], in_dims=((0, None),))(
        (_x(lib), 3)
    ),
    "None arg": lambda lib: lib.vmap(lambda a, n: a, in_dims=(0, None))(_x(lib), None),
    "returns float": lambda lib: lib.vmap(lambda a: (a, 2.5))(_x(lib)),
    "returns None": lambda lib: lib.vmap(lambda a: None)(_x(lib)),
    "returns list": lambda lib: lib.vmap(lambda a: [a, a.sum()])(_x(lib)),
    "returns max": lambda lib: tuple(lib.vmap(lambda a: a.max(0))(_x(lib))),
    "in_dims structure": lambda lib: lib.vmap(lambda seq: seq[0], in_dims=([0, 0, 0],))(
        [_x(lib)] * 2
    ),
    "in_dims dict keys": lambda lib: lib.vmap(lambda d: d["a"], in_dims=({"b": 0},))(
        {"a": _x(lib)}
    ),
    "in_dims length": lambda lib: lib.vmap(lambda a, b: a, in_dims=(0,))(_x(lib), _x(lib)),
    "in_dims str": lambda lib: lib.vmap(lambda a: a, in_dims="0")(_x(lib)),
    "in_dims list": lambda lib: lib.vmap(lambda a, b: a + b, in_dims=[0, 0])(_x(lib), _x(lib)),
    "in_dims float": lambda lib: lib.vmap(lambda a: a, in_dims=0.5)(_x(lib)),
    "in_dims None": lambda lib: lib.vmap(lambda a: a, in_dims=None)(_x(lib)),
    "out_dims structure": lambda lib: lib.vmap(lambda a: (a, a), out_dims=(0, 0, 0))(_x(lib)),
    "out_dims str": lambda lib: lib.vmap(lambda a: a, out_dims="x")(_x(lib)),
    "out_dims out of range": lambda lib: lib.vmap(lambda a: a, out_dims=3)(_x(lib)),
    "mismatched sizes": lambda lib: lib.vmap(lambda a, b: a + b)(_x(lib), lib.ones(3, 3)),
    "mismatched (0, 1)": lambda lib: lib.vmap(lambda a, b: a + b, in_dims=(0, 1))(_x(lib), _x(lib)),
    "in_dim out of range": lambda lib: lib.vmap(lambda a: a, in_dims=2)(_x(lib)),
    "in_dim -3": lambda lib: lib.vmap(lambda a: a, in_dims=-3)(_x(lib)),
    "0-d input": lambda lib: lib.vmap(lambda a: a)(lib.tensor(1.0)),
    "no tensor inputs": lambda lib: lib.vmap(lambda a: a)(3),
    "no inputs": lambda lib: lib.vmap(lambda: lib.ones(2))(),
    "not callable": lambda lib: lib.vmap(3)(_x(lib)),
    "chunk_size=0": lambda lib: lib.vmap(lambda a: a, chunk_size=0),
    "chunk_size=-1": lambda lib: lib.vmap(lambda a: a, chunk_size=-1),
    "chunk_size=2.5": lambda lib: lib.vmap(lambda a: a, chunk_size=2.5)(lib.arange(5.0)),
    "chunk_size=2": lambda lib: lib.vmap(lambda a: a * 2, chunk_size=2)(lib.arange(5.0)),
    "chunk_size pytree": lambda lib: lib.vmap(
        lambda a: (a.sum(), [a * 2]), chunk_size=3, out_dims=(0, 1)
    )(_x(lib).t().contiguous()),
    "bad randomness": lambda lib: lib.vmap(lambda a: a, randomness="foo"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_vmap_interface(name):
    same(CASES[name])


def test_identity_returns_the_input_and_in_dims_1_gives_a_transposed_view():
    for lib in (ember, torch):
        x = _x(lib)
        assert lib.vmap(lambda a: a)(x) is x
        assert lib.vmap(lambda a: a, in_dims=1)(x).stride() == (1, 3)


def test_chunks_see_the_chunked_inputs():
    def program(lib):
        calls = []

        def f(a):
            calls.append(tuple(lib._C._functorch.get_unwrapped(a).shape))
            return a * 2

        for chunk_size in (2, None, 1):
            lib.vmap(f, chunk_size=chunk_size)(lib.arange(5.0))
        return calls

    same(program)


def test_inner_vmap_sees_every_batch_dim_removed():
    def program(lib):
        shapes = []
        lib.vmap(lib.vmap(lambda a: shapes.append(tuple(a.shape)) or a))(lib.ones(2, 3, 4))
        return shapes

    same(program)


_shapes = st.lists(st.integers(1, 3), min_size=1, max_size=3)


@settings(max_examples=40, deadline=None)
@given(shape=_shapes, data=st.data())
def test_in_dims_and_out_dims_over_shapes(shape, data):
    ndim = len(shape)
    in_dim = data.draw(st.integers(-ndim, ndim - 1), label="in_dim")
    out_dim = data.draw(st.integers(-ndim, ndim - 1), label="out_dim")
    values = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)

    def program(lib):
        x = lib.tensor(values)
        out = lib.vmap(lambda a: (a * 2 + 1).exp().sum(0, keepdim=True) if a.dim() else a * 2,
                       in_dims=in_dim, out_dims=out_dim)(x)  # fmt: skip
        return out, out.shape

    same(program)


@settings(max_examples=30, deadline=None)
@given(shape=_shapes, data=st.data())
def test_two_levels_over_shapes(shape, data):
    shape = [2] + shape
    ndim = len(shape)
    outer = data.draw(st.integers(0, ndim - 1), label="outer")
    inner = data.draw(st.integers(0, ndim - 2), label="inner")
    values = np.linspace(-2, 2, int(np.prod(shape)), dtype=np.float32).reshape(shape)
    other = np.linspace(0, 1, shape[-1], dtype=np.float32)

    def program(lib):
        y = lib.tensor(other)
        f = lib.vmap(lib.vmap(lambda a: (a.sin() * y[: a.shape[-1]] if a.dim() else a.cos()),
                              in_dims=inner), in_dims=outer)  # fmt: skip
        return f(lib.tensor(values))

    same(program)
