"""torch.func.jacrev (vmap over vjp's vjp_fn) and the transforms composed with vmap, against
torch: values with PyTorch's signs of zero (the -0.0 of the batched backward), argnums,
has_aux, chunk_size, pytree outputs, requires_grad of the results, per-sample gradients
(vmap of grad) and the errors."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from func_support import same
from hypothesis import given, settings
from hypothesis import strategies as st


def _x(t):
    return t.tensor([1.0, 2.0, 3.0])


def _y(t):
    return t.tensor([4.0, 5.0, 6.0])


def _signs(result):
    """Each value's sign bit too: jacrev's zeros are -0.0 where PyTorch's are."""
    import math

    def walk(v):
        if isinstance(v, float):
            return math.copysign(1.0, v)
        if isinstance(v, (list, tuple)):
            return [walk(e) for e in v]
        return None

    return walk(result)


def _with_signs(fn):
    def program(t):
        out = fn(t)
        return out, _signs(out.tolist()) if hasattr(out, "tolist") else None

    return program


VALUE_CASES = {
    "sin": _with_signs(lambda t: t.func.jacrev(lambda a: a.sin())(_x(t))),
    "torch_sin": _with_signs(lambda t: t.func.jacrev(t.sin)(_x(t))),
    "mul_argnums_tuple": lambda t: t.func.jacrev(lambda a, b: a * b, argnums=(0, 1))(_x(t), _y(t)),
    "mul_argnums_1": _with_signs(lambda t: t.func.jacrev(lambda a, b: a * b * b, argnums=1)(_x(t), _y(t))),
    "chunk_size_1": _with_signs(lambda t: t.func.jacrev(t.sin, chunk_size=1)(_x(t))),
    "chunk_size_2": _with_signs(lambda t: t.func.jacrev(t.sin, chunk_size=2)(_x(t))),
    "chunk_size_large": _with_signs(lambda t: t.func.jacrev(t.sin, chunk_size=10)(_x(t))),
    "preallocate_and_copy": _with_signs(
        lambda t: t.func.jacrev(t.sin, chunk_size=2, _preallocate_and_copy=True)(_x(t))),
    "preallocate_and_copy_one_chunk": _with_signs(
        lambda t: t.func.jacrev(t.sin, _preallocate_and_copy=True)(_x(t))),
    "has_aux": lambda t: t.func.jacrev(lambda a: (a.sin(), a.cos()), has_aux=True)(_x(t)),
    "requires_grad_input": lambda t: t.func.jacrev(lambda a: a.sin())(_x(t).requires_grad_()),
    "scalar_output_mul": lambda t: t.func.jacrev(lambda a: (a * a * 2.0).exp())(_x(t) / 10),
    "2d_input": _with_signs(lambda t: t.func.jacrev(lambda a: a * a)(t.arange(4.0).reshape(2, 2))),
    "tuple_input_pytree": lambda t: t.func.jacrev(lambda p: p[0] * p[1])((_x(t), _y(t))),
    "per_sample_grads": lambda t: t.func.vmap(
        t.func.grad(lambda w, xi: (w * xi).sum()))(t.ones(3, 3), t.eye(3)),
    "jacrev_of_jacrev": lambda t: t.func.jacrev(t.func.jacrev(lambda a: (a**3).sum()))(_x(t)),
    "jacrev_of_jacrev_requires_grad": lambda t: t.func.jacrev(t.func.jacrev(lambda a: (a**3).sum()))(
        _x(t).requires_grad_()),
    "jacrev_of_grad": lambda t: t.func.jacrev(t.func.grad(lambda a: (a.sin() * a).sum()))(_x(t)),
    "grad_of_jacrev_sum": lambda t: t.func.grad(lambda a: t.func.jacrev(t.sin)(a).sum())(_x(t)),
    "per_sample_grads_in_dims": lambda t: t.func.vmap(
        t.func.grad(lambda w, xi: (w * xi).sum()), in_dims=(None, 0))(_x(t), t.eye(3)),
    "per_sample_grads_linear": lambda t: _per_sample_linear(t),
    "dict_output": lambda t: t.func.jacrev(lambda a: {"s": a.sum(), "p": a.prod()})(_x(t)),
    # values only: PyTorch's batched mv backward leaves this result transposed (strides
    # (1, 3)); ember's mv batching rule returns it contiguous
    "matmul_tanh": lambda t: t.func.jacrev(lambda a: (t.eye(3) * 0.5 @ a).tanh())(_x(t)).contiguous(),
    "tuple_output": lambda t: t.func.jacrev(lambda a: (a * 2, a.sum()))(_x(t)),
    "transpose_output": lambda t: t.func.jacrev(lambda a: a @ a.T)(t.arange(6.0).reshape(2, 3)),
    "vmap_of_vjp": lambda t: t.func.vmap(
        lambda c: t.func.vjp(lambda a: a.sin(), _x(t))[1](c))(t.eye(3)),
}  # fmt: skip


def _per_sample_linear(t):
    m = t.nn.Linear(3, 2)
    with t.no_grad():
        m.weight.copy_(t.arange(6.0).reshape(2, 3) / 10)
        m.bias.zero_()
    params = {k: v.detach() for k, v in m.named_parameters()}

    def loss(p, xi, yi):
        out = t.func.functional_call(m, p, (xi,))
        return ((out - yi) ** 2).sum()

    xs, ys = t.arange(12.0).reshape(4, 3) / 7, t.ones(4, 2)
    return t.func.vmap(t.func.grad(loss), in_dims=(None, 0, 0))(params, xs, ys)


ERROR_CASES = {
    "int_output": lambda t: t.func.jacrev(lambda a: 3)(_x(t)),
    "chunk_size_0": lambda t: t.func.jacrev(t.sin, chunk_size=0)(_x(t)),
    "chunk_size_negative": lambda t: t.func.jacrev(t.sin, chunk_size=-1)(_x(t)),
    "complex_input": lambda t: t.func.jacrev(lambda a: a)(t.ones(2, dtype=t.complex64)),
    "complex_output": lambda t: t.func.jacrev(lambda a: a * 1j)(_x(t)),
    "float_input": lambda t: t.func.jacrev(t.sin)(3.0),
    "argnums_out_of_range": lambda t: t.func.jacrev(t.sin, argnums=1)(_x(t)),
    "has_aux_not_tuple": lambda t: t.func.jacrev(t.sin, has_aux=True)(_x(t)),
}


@pytest.mark.parametrize("name", sorted(VALUE_CASES))
def test_values(name):
    same(VALUE_CASES[name])


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_errors(name):
    result = same(ERROR_CASES[name])
    assert isinstance(result, tuple) and result[0].endswith("Error"), result


_FNS = {
    "tanh_matmul": lambda t, w, a: (w @ a).tanh() * a,
    "exp_sum": lambda t, w, a: (w @ a).exp().sum() * a,
    "sigmoid_outer": lambda t, w, a: t.outer(a, a).sigmoid() @ (w @ a),
}


@settings(max_examples=12, deadline=None)
@given(n=st.integers(1, 4), seed=st.integers(0, 2**16), fn=st.sampled_from(sorted(_FNS)))
def test_jacobians_agree_with_torch(n, seed, fn):
    """jacrev, jacfwd and grad of the summed output, on random matrices and inputs."""
    rng = np.random.default_rng(seed)
    w_np = (rng.standard_normal((n, n)) / 2).astype("float32")
    x_np = rng.standard_normal(n).astype("float32")

    def program(t):
        w, x = t.tensor(w_np), t.tensor(x_np)
        f = functools.partial(_FNS[fn], t, w)
        # jacrev's layout is left out (see "matmul_tanh"): PyTorch's batched matmul
        # backward leaves it transposed
        return (t.func.jacrev(f)(x).contiguous(), t.func.jacfwd(f)(x),
                t.func.grad(lambda a: f(a).sum())(x))  # fmt: skip

    same(program)
