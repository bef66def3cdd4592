"""Gradients of every differentiable operator against torch: values, grad_fn names and
next_functions structure, first and second gradients, on hypothesis inputs
(broadcast shapes, non-contiguous leaves)."""

from __future__ import annotations

import pytest
from autograd_support import compare_case
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

ANY = st.floats(-2, 2, allow_nan=False, width=64)
POS = st.floats(0.5, 2, allow_nan=False, width=64)
UNIT = st.floats(-0.9, 0.9, allow_nan=False, width=64)
# Distinct values on a 0.001 grid: std's gradients divide by std (its second ones by
# std cubed), so rows like (6e-74, 7e-279, 0) only compare rounding orders at 1e71.
GRID = st.integers(-2000, 2000).map(lambda i: i / 1000)

# name -> (fn(lib, *inputs), shapes, element strategy, options)
CASES = {
    "add": (lambda t, a, b: a + b, [(3, 4), (4,)], ANY, {}),
    "add_alpha": (lambda t, a, b: t.add(a, b, alpha=2), [(2, 3), (2, 3)], ANY, {}),
    "add_scalar": (lambda t, a: a + 2.5, [(3,)], ANY, {}),
    "add_Scalar_overload": (lambda t, a: t.ops.aten.add.Scalar(a, 2, 3), [(3,)], ANY, {}),
    "sub": (lambda t, a, b: a - b, [(3, 1), (1, 4)], ANY, {}),
    "sub_alpha": (lambda t, a, b: t.sub(a, b, alpha=3), [(2, 2), (2, 2)], ANY, {}),
    "rsub": (lambda t, a: 1 - a, [(3,)], ANY, {}),
    "mul": (lambda t, a, b: a * b, [(2, 3), (2, 3)], ANY, {}),
    "mul_broadcast": (lambda t, a, b: a * b, [(2, 1, 3), (4, 1)], ANY, {}),
    "mul_scalar": (lambda t, a: a * 3, [(2, 3)], ANY, {}),
    "div": (lambda t, a, b: a / b, [(2, 3), (3,)], POS, {}),
    "div_scalar": (lambda t, a: a / 4, [(2, 3)], ANY, {}),
    "div_floor": (lambda t, a, b: t.div(a, b, rounding_mode="floor"), [(3,), (3,)], POS, {}),
    "neg": (lambda t, a: -a, [(2, 3)], ANY, {}),
    "abs": (lambda t, a: a.abs(), [(2, 3)], ANY, {}),
    "exp": (lambda t, a: a.exp(), [(2, 3)], ANY, {}),
    "log": (lambda t, a: a.log(), [(2, 3)], POS, {}),
    "log1p": (lambda t, a: a.log1p(), [(2, 3)], POS, {}),
    "sin": (lambda t, a: a.sin(), [(2, 3)], ANY, {}),
    "cos": (lambda t, a: a.cos(), [(2, 3)], ANY, {}),
    "acos": (lambda t, a: a.acos(), [(2, 3)], UNIT, {}),
    "asin": (lambda t, a: a.asin(), [(2, 3)], UNIT, {}),
    "atan": (lambda t, a: a.atan(), [(2, 3)], ANY, {}),
    "tan": (lambda t, a: a.tan(), [(2, 3)], UNIT, {}),
    "sinh": (lambda t, a: a.sinh(), [(2, 3)], ANY, {}),
    "cosh": (lambda t, a: a.cosh(), [(2, 3)], ANY, {}),
    "expm1": (lambda t, a: a.expm1(), [(2, 3)], ANY, {}),
    "log2": (lambda t, a: a.log2(), [(2, 3)], POS, {}),
    "log10": (lambda t, a: a.log10(), [(2, 3)], POS, {}),
    "tanh": (lambda t, a: a.tanh(), [(2, 3)], ANY, {}),
    "sigmoid": (lambda t, a: a.sigmoid(), [(2, 3)], ANY, {}),
    "relu": (lambda t, a: a.relu(), [(2, 3)], ANY, {}),
    "gelu": (lambda t, a: t.nn.functional.gelu(a), [(2, 3)], ANY, {}),
    "gelu_tanh": (lambda t, a: t.nn.functional.gelu(a, approximate="tanh"), [(4,)], ANY, {}),
    "rsqrt": (lambda t, a: a.rsqrt(), [(2, 3)], POS, {}),
    "sqrt": (lambda t, a: a.sqrt(), [(2, 3)], POS, {}),
    "sign": (lambda t, a: a.sign() * a, [(2, 3)], ANY, {}),
    "pow_scalar": (lambda t, a: a.pow(3), [(2, 3)], ANY, {}),
    "pow_fractional": (lambda t, a: a.pow(2.5), [(2, 3)], POS, {}),
    "pow_tensor": (lambda t, a, b: a.pow(b), [(2, 3), (3,)], POS, {}),
    "pow_scalar_base": (lambda t, a: t.pow(2.0, a), [(3,)], ANY, {}),
    "clamp": (lambda t, a: a.clamp(-0.5, 0.5), [(2, 3)], ANY, {"unique": True}),
    "clamp_tensor": (lambda t, a, b: t.clamp(a, min=b), [(2, 3), (3,)], ANY, {"unique": True}),
    "remainder_scalar": (lambda t, a: a % 1.5, [(4,)], ANY, {}),
    "remainder_tensor": (lambda t, a, b: t.remainder(a, b), [(4,), (4,)], POS, {}),
    "maximum": (lambda t, a, b: t.maximum(a, b), [(2, 3), (2, 3)], ANY, {}),
    "minimum": (lambda t, a, b: t.minimum(a, b), [(2, 3), (3,)], ANY, {}),
    "where": (lambda t, a, b: t.where(a > 0, a, b), [(2, 3), (2, 3)], ANY, {}),
    "masked_fill": (lambda t, a: a.masked_fill(a > 0, 1.0), [(2, 3)], ANY, {}),
    "masked_fill_tensor": (lambda t, a, b: a.masked_fill(a > 0, b), [(2, 3), ()], ANY, {}),
    "mm": (lambda t, a, b: t.mm(a, b), [(2, 3), (3, 4)], ANY, {}),
    "bmm": (lambda t, a, b: t.bmm(a, b), [(2, 2, 3), (2, 3, 2)], ANY, {}),
    "addmm": (
        lambda t, c, a, b: t.addmm(c, a, b, beta=0.5, alpha=2),
        [(4,), (2, 3), (3, 4)],
        ANY,
        {},
    ),  # noqa: E501
    "dot": (lambda t, a, b: t.dot(a, b), [(4,), (4,)], ANY, {}),
    "matmul": (lambda t, a, b: a @ b, [(3,), (3, 2)], ANY, {}),
    "linear": (lambda t, x, w, b: t.nn.functional.linear(x, w, b), [(2, 3), (4, 3), (4,)], ANY, {}),  # noqa: E501
    "sum": (lambda t, a: a.sum(), [(2, 3)], ANY, {}),
    "sum_dim": (lambda t, a: a.sum(1), [(2, 3)], ANY, {}),
    "sum_keepdim": (lambda t, a: a.sum((0, 2), keepdim=True), [(2, 3, 2)], ANY, {}),
    "mean": (lambda t, a: a.mean(), [(2, 3)], ANY, {}),
    "mean_dim": (lambda t, a: a.mean(-1), [(2, 3)], ANY, {}),
    "prod": (lambda t, a: a.prod(), [(2, 3)], POS, {}),
    "prod_dim": (lambda t, a: a.prod(1), [(2, 3)], POS, {}),
    "var": (lambda t, a: a.var(), [(2, 3)], ANY, {}),
    "var_dim": (lambda t, a: a.var(0, correction=0), [(3, 2)], ANY, {}),
    "std": (lambda t, a: a.std(1, keepdim=True), [(2, 3)], GRID, {"unique": True}),
    "norm": (lambda t, a: a.norm(), [(2, 3)], POS, {}),
    "norm_p1": (lambda t, a: a.norm(p=1), [(2, 3)], POS, {}),
    "norm_dim": (lambda t, a: a.norm(2, 1), [(2, 3)], POS, {}),
    "logsumexp": (lambda t, a: a.logsumexp(1), [(2, 3)], ANY, {}),
    "amax": (lambda t, a: a.amax(1), [(2, 3)], ANY, {"unique": True}),
    "amin": (lambda t, a: a.amin(), [(2, 3)], ANY, {"unique": True}),
    "max": (lambda t, a: a.max(), [(2, 3)], ANY, {"unique": True}),
    "min": (lambda t, a: a.min(), [(2, 3)], ANY, {"unique": True}),
    "max_dim": (lambda t, a: a.max(1), [(2, 3)], ANY, {"unique": True}),
    "min_dim": (lambda t, a: a.min(0, keepdim=True), [(2, 3)], ANY, {"unique": True}),
    "sort": (lambda t, a: a.sort(1).values, [(2, 3)], ANY, {"unique": True}),
    "topk": (lambda t, a: a.topk(2).values, [(2, 3)], ANY, {"unique": True}),
    "cumsum": (lambda t, a: a.cumsum(1), [(2, 3)], ANY, {}),
    "softmax": (lambda t, a: a.softmax(1), [(2, 3)], ANY, {}),
    "log_softmax": (lambda t, a: a.log_softmax(-1), [(2, 3)], ANY, {}),
    # the backward ops themselves (their own derivatives give double backward of the above)
    "threshold_backward": (
        lambda t, a, b: t.ops.aten.threshold_backward(a, b, 0.25),
        [(2, 3), (2, 3)],
        ANY,
        {},
    ),
    "_softmax_backward_data": (
        lambda t, a, b: t.ops.aten._softmax_backward_data(a, b, 1, t.float64),
        [(2, 3), (2, 3)],
        ANY,
        {},
    ),
    "_log_softmax_backward_data": (
        lambda t, a, b: t.ops.aten._log_softmax_backward_data(a, b, 0, t.float64),
        [(2, 3), (2, 3)],
        ANY,
        {},
    ),
    "nll_loss": (
        lambda t, a: t.nn.functional.nll_loss(a.log_softmax(1), t.tensor([0, 2])),
        [(2, 3)],
        ANY,
        {},
    ),  # fmt: skip
    "cross_entropy": (
        lambda t, a: t.nn.functional.cross_entropy(a, t.tensor([1, 0])),
        [(2, 3)],
        ANY,
        {},
    ),
    "mse_loss": (lambda t, a, b: t.nn.functional.mse_loss(a, b), [(2, 3), (2, 3)], ANY, {}),
    "mse_loss_sum": (
        lambda t, a, b: t.nn.functional.mse_loss(a, b, reduction="sum"),
        [(3,), (3,)],
        ANY,
        {},
    ),
    "view": (
        lambda t, a: a.view(3, 2) * 2 if a.is_contiguous() else a.reshape(6),
        [(2, 3)],
        ANY,
        {},
    ),  # noqa: E501
    "reshape": (lambda t, a: a.reshape(-1), [(2, 3)], ANY, {}),
    "t": (lambda t, a: a.t(), [(2, 3)], ANY, {}),
    "transpose": (lambda t, a: a.transpose(0, 2), [(2, 3, 1)], ANY, {}),
    "permute": (lambda t, a: a.permute(2, 0, 1), [(2, 3, 2)], ANY, {}),
    "unsqueeze": (lambda t, a: a.unsqueeze(1), [(2, 3)], ANY, {}),
    "squeeze": (lambda t, a: a.squeeze(), [(2, 1, 3)], ANY, {}),
    "squeeze_dim": (lambda t, a: a.squeeze(1), [(2, 1, 3)], ANY, {}),
    "expand": (lambda t, a: a.expand(2, 3, 4), [(3, 1)], ANY, {}),
    "select": (lambda t, a: a[1], [(2, 3)], ANY, {}),
    "slice": (lambda t, a: a[:, 1:3], [(2, 4)], ANY, {}),
    "slice_step": (lambda t, a: a[::2], [(5, 2)], ANY, {}),
    "diagonal": (lambda t, a: a.diagonal(), [(3, 3)], ANY, {}),
    "as_strided": (lambda t, a: a.as_strided((2, 2), (1, 2)), [(2, 3)], ANY, {}),
    "split": (lambda t, a: a.split(2), [(5, 2)], ANY, {}),
    "split_one_used": (lambda t, a: a.split(2)[1], [(5, 2)], ANY, {}),
    "chunk": (lambda t, a: a.chunk(2, 1), [(2, 4)], ANY, {}),
    "unbind": (lambda t, a: a.unbind(1), [(2, 3)], ANY, {}),
    "unbind_one_used": (lambda t, a: a.unbind(0)[0], [(2, 3)], ANY, {}),
    "narrow": (lambda t, a: a.narrow(1, 1, 2), [(2, 3)], ANY, {}),
    "flatten": (lambda t, a: a.flatten(), [(2, 3)], ANY, {}),
    "flip": (lambda t, a: a.flip(0), [(2, 3)], ANY, {}),
    "roll": (lambda t, a: a.roll(1, 1), [(2, 3)], ANY, {}),
    "tril": (lambda t, a: a.tril(), [(3, 3)], ANY, {}),
    "triu": (lambda t, a: a.triu(1), [(3, 3)], ANY, {}),
    "cat": (lambda t, a, b: t.cat([a, b, a], 1), [(2, 3), (2, 1)], ANY, {}),
    "stack": (lambda t, a, b: t.stack([a, b]), [(2, 3), (2, 3)], ANY, {}),
    "index": (lambda t, a: a[t.tensor([1, 0, 1])], [(2, 3)], ANY, {}),
    "index_select": (lambda t, a: a.index_select(1, t.tensor([2, 0, 2])), [(2, 3)], ANY, {}),
    "gather": (lambda t, a: a.gather(1, t.tensor([[0, 0], [2, 1]])), [(2, 3)], ANY, {}),
    "scatter": (
        lambda t, a, b: a.scatter(1, t.tensor([[0, 1], [2, 0]]), b),
        [(2, 3), (2, 2)],
        ANY,
        {},
    ),
    "scatter_value": (lambda t, a: a.scatter(1, t.tensor([[0], [2]]), 1.5), [(2, 3)], ANY, {}),
    "index_put": (lambda t, a, b: a.index_put((t.tensor([0, 2]),), b), [(3, 2), (2, 2)], ANY, {}),
    "index_put_accumulate": (
        lambda t, a, b: a.index_put((t.tensor([0, 0]),), b, accumulate=True),
        [(3, 2), (2,)],
        ANY,
        {},
    ),  # fmt: skip
    "clone": (lambda t, a: a.clone(), [(2, 3)], ANY, {}),
    "contiguous": (lambda t, a: a.t().contiguous(), [(2, 3)], ANY, {}),
    "to_float32": (lambda t, a: a.to(t.float32) * 2, [(2, 3)], ANY, {}),
    "alias": (lambda t, a: t.ops.aten.alias(a), [(2,)], ANY, {}),
    "mul_inplace": (lambda t, a, b: a.clone().mul_(b), [(2, 3), (3,)], ANY, {}),
    "add_inplace": (lambda t, a, b: a.clone().add_(b, alpha=2), [(2, 3), (2, 3)], ANY, {}),
    "div_inplace": (lambda t, a, b: a.clone().div_(b), [(2, 3), (2, 3)], POS, {}),
    "exp_inplace": (lambda t, a: (a * 1).exp_(), [(2, 3)], ANY, {}),
    "sigmoid_inplace": (lambda t, a: (a * 1).sigmoid_(), [(2, 3)], ANY, {}),
    "pow_inplace": (lambda t, a: (a * 1).pow_(2), [(3,)], ANY, {}),
    "copy_inplace": (lambda t, a, b: a.clone().copy_(b), [(2, 3), (3,)], ANY, {}),
    "fill_inplace": (lambda t, a: (a * 2).fill_(1.5), [(2, 3)], ANY, {}),
    "zero_inplace": (lambda t, a: (a * 2).zero_() + a, [(2, 3)], ANY, {}),
    "masked_fill_inplace": (lambda t, a: (a * 2).masked_fill_(a > 0, 0.5), [(2, 3)], ANY, {}),
    "clamp_inplace": (lambda t, a: (a * 1).clamp_(min=0.0), [(2, 3)], ANY, {"unique": True}),
    "index_put_inplace": (
        lambda t, a, b: a.clone().index_put_((t.tensor([1]),), b),
        [(3, 2), (2,)],
        ANY,
        {},
    ),
    "view_inplace": (lambda t, a, b: _view_inplace(a, b), [(2, 3), (3,)], ANY, {}),
    "view_of_view_inplace": (lambda t, a, b: _view_of_view(a, b), [(3, 4), (2,)], ANY, {}),
    "setitem": (lambda t, a, b: _setitem(a, b), [(3, 2), (2,)], ANY, {}),
}


# Cases whose Python binding or composite picks other aten ops than torch's (values and
# gradients still compared): torch has rsub, linalg_vector_norm, squeeze overloads...
DIFFERENT_DECOMPOSITION = {
    "rsub", "norm", "norm_p1", "norm_dim", "matmul", "mse_loss", "mse_loss_sum",
    "pow_scalar", "pow_fractional", "remainder_scalar",
}  # fmt: skip


def _view_inplace(a, b):
    c = a.clone()
    c[1].mul_(b)
    return c


def _view_of_view(a, b):
    c = a * 1
    c[1:][:, 2].add_(b)
    return c


def _setitem(a, b):
    c = a.clone()
    c[0] = b
    return c


def _arrays(draw, shapes, elements, unique):
    return [
        draw(hnp.arrays("float64", shape, elements=elements, unique=unique and bool(shape)))
        for shape in shapes
    ]


@pytest.mark.parametrize("name", sorted(CASES))
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_gradients_match_torch(name, data):
    fn, shapes, elements, options = CASES[name]
    arrays = _arrays(data.draw, shapes, elements, options.get("unique", False))
    noncontiguous = data.draw(st.booleans())
    structure = name not in DIFFERENT_DECOMPOSITION
    compare_case(fn, arrays, noncontiguous=noncontiguous, structure=structure)
