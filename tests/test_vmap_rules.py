"""The batching rules against PyTorch, family by family, with hypothesis over shapes and
in_dims: pointwise (broadcasting, scalars, in place), reductions and scans with dim
shifting, the matmul family, views and shape ops, indexing, cat / stack, factories; and
composite ops decomposing."""

from __future__ import annotations

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, settings
from vmap_support import same

B = 3


def _batched(shape, in_dim, seed=0):
    """A float32 array of logical ``shape`` with a batch of B inserted at ``in_dim``."""
    rng = np.random.default_rng(seed)
    physical = list(shape)
    physical.insert(in_dim, B)
    return rng.standard_normal(physical).astype(np.float32)


def _run(fn, arrays, in_dims, **tolerances):
    same(lambda lib: lib.vmap(fn(lib), in_dims=tuple(in_dims))(*[lib.tensor(a) for a in arrays]),
         **tolerances)  # fmt: skip


shapes = st.lists(st.integers(1, 4), min_size=0, max_size=3)


def _in_dim(data, shape, label):
    return data.draw(st.integers(0, len(shape)), label=label)


UNARY = ["sin", "exp", "abs", "neg", "relu", "sigmoid", "tanh", "square", "floor", "sign", "clone"]


@settings(max_examples=30, deadline=None)
@given(shape=shapes, data=st.data())
def test_unary_pointwise(shape, data):
    name = data.draw(st.sampled_from(UNARY), label="op")
    d = _in_dim(data, shape, "in_dim")
    _run(lambda lib: getattr(lib, name) if hasattr(lib, name) else getattr(lib.Tensor, name),
         [_batched(shape, d)], [d])  # fmt: skip


BINARY = ["add", "mul", "sub", "div", "maximum", "atan2", "pow_abs", "where_gt"]


def _binary(lib, name):
    if name == "pow_abs":
        return lambda a, b: a.abs().pow(b)
    if name == "where_gt":
        return lambda a, b: lib.where(a > b, a, b)
    return getattr(lib, name)


@settings(max_examples=40, deadline=None)
@given(a_shape=shapes, data=st.data())
def test_binary_pointwise_broadcasting(a_shape, data):
    """Operands of different logical ranks broadcast as they do per sample; an operand may
    be unbatched (in_dim None) and then keeps its own shape."""
    name = data.draw(st.sampled_from(BINARY), label="op")
    b_shape = a_shape[data.draw(st.integers(0, len(a_shape)), label="suffix") :]
    a_dim = _in_dim(data, a_shape, "a_dim")
    b_dim = data.draw(st.one_of(st.none(), st.integers(0, len(b_shape))), label="b_dim")
    a = _batched(a_shape, a_dim, 1)
    b = _batched(b_shape, b_dim, 2) if b_dim is not None else _batched(b_shape, 0, 2)[0]
    if data.draw(st.booleans(), label="swap"):
        _run(lambda lib: lambda p, q: _binary(lib, name)(q, p), [a, b], [a_dim, b_dim])
    else:
        _run(lambda lib: _binary(lib, name), [a, b], [a_dim, b_dim])


def test_a_batched_logical_scalar_promotes_as_a_zero_dim_tensor():
    def program(lib):
        f64, f32 = lib.arange(3, dtype=lib.float64), lib.ones(2, dtype=lib.float32)
        ints = lib.arange(3)
        return (
            lib.vmap(lambda p, q: p + q, in_dims=(0, None))(f64, f32),
            lib.vmap(lambda p, q: q * p, in_dims=(0, None))(ints, f32),
            lib.vmap(lambda p, q: lib.where(p > 1, p, q), in_dims=(0, None))(f64, f32),
            lib.vmap(lambda p, q: p - q)(f64, ints),
        )

    same(program)


def test_python_scalars_and_alpha():
    _run(lambda lib: lambda a: (a * 2.5 - 1).add(a, alpha=3) / 4, [_batched((2, 3), 1)], [1])


@pytest.mark.parametrize("op", ["add_", "mul_", "copy_", "sub_"])
def test_in_place_on_a_batched_self(op):
    def program(lib):
        x = lib.tensor(_batched((2, 3), 1))
        y = lib.tensor(_batched((3,), 0, 5))
        out = lib.vmap(lambda a, b: getattr(a, op)(b), in_dims=(1, 0))(x, y)
        return out, x

    same(program)


@pytest.mark.parametrize("in_dim", [0, 1, 2])
def test_in_place_views_on_a_batched_tensor(in_dim):
    def program(lib):
        x = lib.tensor(_batched((2, 3), in_dim))
        f = lambda a: a.unsqueeze_(0).transpose_(0, -1).squeeze_().t_().mul(2)  # noqa: E731
        return lib.vmap(f, in_dims=in_dim)(x), x.shape

    same(program)


def test_autograd_through_vmap():
    def program(lib):
        x = lib.tensor(_batched((3,), 1)).requires_grad_()
        w = lib.tensor(_batched((3, 2), 0)[0]).requires_grad_()
        out = lib.vmap(lambda a: (a @ w).relu().sum(), in_dims=1)(x)
        out.sum().backward()
        return out, x.grad, w.grad

    same(program)


def test_in_place_errors_on_an_unbatched_self():
    same(lambda lib: lib.vmap(lambda a: lib.ones(3).add_(a))(lib.ones(2, 3)))
    same(lambda lib: lib.vmap(lambda a: lib.ones(3).copy_(a))(lib.ones(2, 3)))


def test_in_place_on_a_batched_tensor_with_an_unbatched_argument():
    same(lambda lib: lib.vmap(lambda a: a.mul_(lib.arange(3.0)).add_(1))(lib.ones(2, 3)))


REDUCTIONS = [
    ("sum", True), ("mean", True), ("prod", True), ("amax", True), ("amin", True),
    ("std", True), ("var", True), ("logsumexp", False), ("argmax", False), ("max", False),
    ("cumsum", False), ("softmax", False), ("log_softmax", False), ("norm", True),
]  # fmt: skip


def _reduce(lib, name, dim, keepdim):
    method = getattr(lib.Tensor, name)
    if name in ("cumsum", "softmax", "log_softmax"):
        return lambda a: method(a, dim)
    if name == "max":
        return lambda a: method(a, dim, keepdim)
    if name == "norm":
        return lambda a: method(a, 2, dim, keepdim)
    return lambda a: method(a, dim, keepdim=keepdim)


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), data=st.data())
def test_reductions_and_scans_shift_their_dims(shape, data):
    name, list_dims = data.draw(st.sampled_from(REDUCTIONS), label="op")
    ndim = len(shape)
    dim = data.draw(st.integers(-ndim, ndim - 1), label="dim")
    if list_dims and data.draw(st.booleans(), label="as list"):
        dim = [dim]
    keepdim = data.draw(st.booleans(), label="keepdim")
    d = _in_dim(data, shape, "in_dim")
    _run(lambda lib: _reduce(lib, name, dim, keepdim), [_batched(shape, d)], [d], rtol=1e-5)


@settings(max_examples=25, deadline=None)
@given(shape=shapes, data=st.data())
def test_full_reductions(shape, data):
    name = data.draw(st.sampled_from(["sum", "mean", "prod", "max", "min", "std", "all"]))
    d = _in_dim(data, shape, "in_dim")
    _run(lambda lib: getattr(lib.Tensor, name), [_batched(shape, d)], [d], rtol=1e-5)


def test_reductions_of_logical_scalars():
    for fn in (lambda a: a.sum(0), lambda a: a.sum(-1, keepdim=True), lambda a: a.cumsum(0),
               lambda a: a.softmax(0), lambda a: a.argmax()):  # fmt: skip
        _run(lambda lib, fn=fn: fn, [_batched((), 0)], [0])


MATMUL_SHAPES = {
    "matmul": [((4,), (4,)), ((2, 4), (4,)), ((4,), (4, 3)), ((2, 4), (4, 3)),
               ((5, 2, 4), (4, 3)), ((2, 4), (5, 4, 3)), ((5, 2, 4), (5, 4, 3))],
    "mm": [((2, 4), (4, 3))], "mv": [((2, 4), (4,))], "dot": [((4,), (4,))],
    "bmm": [((5, 2, 4), (5, 4, 3))],
}  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_matmul_family(data):
    name = data.draw(st.sampled_from(sorted(MATMUL_SHAPES)), label="op")
    a_shape, b_shape = data.draw(st.sampled_from(MATMUL_SHAPES[name]), label="shapes")
    a_dim = data.draw(st.one_of(st.none(), st.integers(0, len(a_shape))), label="a_dim")
    b_dim = data.draw(st.integers(0, len(b_shape)), label="b_dim")
    if data.draw(st.booleans(), label="swap batched"):
        a_dim, b_dim = (b_dim if b_dim <= len(a_shape) else 0), None
    a = _batched(a_shape, a_dim, 1) if a_dim is not None else _batched(a_shape, 0, 1)[0]
    b = _batched(b_shape, b_dim, 2) if b_dim is not None else _batched(b_shape, 0, 2)[0]
    _run(lambda lib: getattr(lib, name), [a, b], [a_dim, b_dim], rtol=1e-5)


def test_addmm_and_linear():
    a, m1, m2 = _batched((2, 3), 0), _batched((2, 4), 1, 1), _batched((4, 3), 0, 2)
    _run(lambda lib: lambda s, p, q: lib.addmm(s, p, q, beta=0.5, alpha=2), [a, m1, m2], [0, 1, 0])
    _run(lambda lib: lambda s, p: lib.addmm(s, p, lib.ones(4, 3)), [a, m1], [0, 1])
    w, bias = _batched((3, 4), 0, 3)[0], _batched((3,), 0, 4)[0]
    _run(lambda lib: lambda x: lib.nn.functional.linear(x, lib.tensor(w), lib.tensor(bias)),
         [m1], [1], rtol=1e-5)  # fmt: skip


VIEWS = {
    "view": lambda lib: lambda a: a.view(-1),
    "reshape": lambda lib: lambda a: a.reshape(2, -1),
    "permute": lambda lib: lambda a: a.permute(2, 0, 1),
    "transpose": lambda lib: lambda a: a.transpose(0, -1),
    "t": lambda lib: lambda a: a[0].t(),
    "unsqueeze": lambda lib: lambda a: a.unsqueeze(-1).unsqueeze(0),
    "squeeze": lambda lib: lambda a: a.unsqueeze(1).squeeze(),
    "squeeze dim": lambda lib: lambda a: a.unsqueeze(1).squeeze(1),
    "expand": lambda lib: lambda a: a[:, :1].expand(5, 2, 4, 3),
    "select": lambda lib: lambda a: a[1],
    "slice": lambda lib: lambda a: a[:, 1:, ::2],
    "index": lambda lib: lambda a: a[lib.tensor([1, 0, 1])],
    "index middle": lambda lib: lambda a: a[:, lib.tensor([3, 0])],
    "index batched": lambda lib: lambda a: a[0][a[0, :, 0].argsort()],
    "flatten": lambda lib: lambda a: a.flatten(1),
    "movedim": lambda lib: lambda a: a.movedim(0, -1),
    "unbind": lambda lib: lambda a: a.unbind(1),
    "split": lambda lib: lambda a: a.split(2, dim=1),
    "chunk": lambda lib: lambda a: a.chunk(2, dim=-1),
    "diagonal": lambda lib: lambda a: a.diagonal(0, 1, 2),
    "narrow": lambda lib: lambda a: a.narrow(2, 1, 2),
    "cat": lambda lib: lambda a: lib.cat([a, a * 2], dim=-1),
    "cat unbatched": lambda lib: lambda a: lib.cat([a, lib.ones(2, 4, 1)], dim=-1),
    "stack": lambda lib: lambda a: lib.stack([a, lib.zeros(2, 4, 3)], dim=1),
    "contiguous": lambda lib: lambda a: a.transpose(0, 1).contiguous(),
    "flip": lambda lib: lambda a: a.flip(0, 2),
    "flip no dims": lambda lib: lambda a: a.flip([]),
    "squeeze no dims": lambda lib: lambda a: a[:1].squeeze([]),
    "sum no dims": lambda lib: lambda a: a.sum([]),
    "sort": lambda lib: lambda a: a.sort(-1),
    "topk": lambda lib: lambda a: a.topk(2, dim=1),
    "tril": lambda lib: lambda a: a.tril(1),
    "triu": lambda lib: lambda a: a.triu(-1),
    "to": lambda lib: lambda a: a.to(lib.float64),
    "repeat": lambda lib: lambda a: a.repeat(2, 1, 1, 2),
    "index_select": lambda lib: lambda a: a.index_select(-1, lib.tensor([2, 0, 2])),
    "gather": lambda lib: lambda a: a.gather(1, lib.tensor([[[0], [3]]]).expand(2, 2, 3)),
    "gather batched index": lambda lib: lambda a: a.gather(2, a.argsort(2)),
}


@pytest.mark.parametrize("name", list(VIEWS))
@pytest.mark.parametrize("in_dim", [0, 2, 3])
def test_views_and_shape_ops(name, in_dim):
    _run(VIEWS[name], [_batched((2, 4, 3), in_dim)], [in_dim])


FACTORIES = {
    "zeros_like": lambda lib: lambda a: lib.zeros_like(a),
    "ones_like": lambda lib: lambda a: lib.ones_like(a, dtype=lib.int64),
    "full_like": lambda lib: lambda a: lib.full_like(a, 7.0),
    "empty_like shape": lambda lib: lambda a: lib.empty_like(a).shape,
    "new_zeros": lambda lib: lambda a: a.new_zeros(2, 5) + a.sum(),
    "new_full": lambda lib: lambda a: a.new_full((4,), 2.0),
    "unbatched factory": lambda lib: lambda a: a + lib.arange(3.0),
}


@pytest.mark.parametrize("name", list(FACTORIES))
def test_factories_and_like(name):
    _run(FACTORIES[name], [_batched((3,), 1)], [1])


def test_composite_ops_decompose():
    for fn in (lambda lib: lambda a: lib.nn.functional.normalize(a, dim=-1),
               lambda lib: lambda a: lib.nn.functional.softplus(a).var(0),
               lambda lib: lambda a: lib.outer(a[0], a[1]),
               lambda lib: lambda a: lib.einsum("ij,j->i", a, a[0])):  # fmt: skip
        _run(fn, [_batched((3, 3), 0)], [0], rtol=1e-5)


def test_refusals():
    x = _batched((3,), 0)
    same(lambda lib: lib.vmap(lambda a: a.sum().item())(lib.tensor(x)))
    same(lambda lib: lib.vmap(lambda a: a if a.sum() > 0 else -a)(lib.tensor(x)))
    same(lambda lib: lib.vmap(lambda a: a.tolist())(lib.tensor(x)))
    same(lambda lib: lib.vmap(lib.nonzero)(lib.tensor(x)))
    same(lambda lib: lib.vmap(lambda a: lib.sin(a, out=lib.ones(3)))(lib.tensor(x)))
