"""Tangents of the operators forward AD covers, against torch's forward AD (its jvp):
primal and tangent values and dtypes, on hypothesis inputs; inputs without a tangent
take zeros, as PyTorch's formulas do."""

from __future__ import annotations

import numpy as np
import pytest
from forward_ad_support import compare_jvp
from hypothesis import given, settings
from hypothesis import strategies as st

ANY = (-2.0, 2.0)
POS = (0.5, 2.0)
UNIT = (-0.875, 0.875)

# name -> (fn(lib, *inputs), shapes, value range)
CASES = {
    # pointwise, one input
    "neg": (lambda t, a: -a, [(2, 3)], ANY),
    "abs": (lambda t, a: a.abs(), [(2, 3)], ANY),
    "exp": (lambda t, a: a.exp(), [(2, 3)], ANY),
    "exp2": (lambda t, a: a.exp2(), [(2, 3)], ANY),
    "expm1": (lambda t, a: a.expm1(), [(2, 3)], ANY),
    "log": (lambda t, a: a.log(), [(2, 3)], POS),
    "log2": (lambda t, a: a.log2(), [(2, 3)], POS),
    "log10": (lambda t, a: a.log10(), [(2, 3)], POS),
    "log1p": (lambda t, a: a.log1p(), [(2, 3)], POS),
    "sin": (lambda t, a: a.sin(), [(2, 3)], ANY),
    "cos": (lambda t, a: a.cos(), [(2, 3)], ANY),
    "tan": (lambda t, a: a.tan(), [(2, 3)], UNIT),
    "asin": (lambda t, a: a.asin(), [(2, 3)], UNIT),
    "acos": (lambda t, a: a.acos(), [(2, 3)], UNIT),
    "atan": (lambda t, a: a.atan(), [(2, 3)], ANY),
    "sinh": (lambda t, a: a.sinh(), [(2, 3)], ANY),
    "cosh": (lambda t, a: a.cosh(), [(2, 3)], ANY),
    "tanh": (lambda t, a: a.tanh(), [(2, 3)], ANY),
    "asinh": (lambda t, a: a.asinh(), [(2, 3)], ANY),
    "atanh": (lambda t, a: a.atanh(), [(2, 3)], UNIT),
    "sigmoid": (lambda t, a: a.sigmoid(), [(2, 3)], ANY),
    "sqrt": (lambda t, a: a.sqrt(), [(2, 3)], POS),
    "rsqrt": (lambda t, a: a.rsqrt(), [(2, 3)], POS),
    "reciprocal": (lambda t, a: a.reciprocal(), [(2, 3)], POS),
    "erf": (lambda t, a: a.erf(), [(2, 3)], ANY),
    "erfc": (lambda t, a: a.erfc(), [(2, 3)], ANY),
    "erfinv": (lambda t, a: a.erfinv(), [(2, 3)], UNIT),
    "lgamma": (lambda t, a: a.lgamma(), [(2, 3)], POS),
    "digamma": (lambda t, a: a.digamma(), [(2, 3)], POS),
    "sign": (lambda t, a: a.sign(), [(2, 3)], ANY),
    "floor": (lambda t, a: a.floor(), [(2, 3)], ANY),
    "trunc": (lambda t, a: a.trunc(), [(2, 3)], ANY),
    "frac": (lambda t, a: a.frac(), [(2, 3)], ANY),
    "relu": (lambda t, a: a.relu(), [(2, 3)], ANY),
    "gelu": (lambda t, a: t.nn.functional.gelu(a), [(2, 3)], ANY),
    "gelu_tanh": (lambda t, a: t.nn.functional.gelu(a, approximate="tanh"), [(2, 3)], ANY),
    "silu": (lambda t, a: t.nn.functional.silu(a), [(2, 3)], ANY),
    "elu": (lambda t, a: t.nn.functional.elu(a), [(2, 3)], ANY),
    "leaky_relu": (lambda t, a: t.nn.functional.leaky_relu(a, 0.1), [(2, 3)], ANY),
    "softplus": (lambda t, a: t.nn.functional.softplus(a), [(2, 3)], ANY),
    "hardtanh": (lambda t, a: t.nn.functional.hardtanh(a), [(2, 3)], ANY),
    "pow_scalar": (lambda t, a: a.pow(3), [(2, 3)], ANY),
    "pow_frac": (lambda t, a: a**0.5, [(2, 3)], POS),
    "pow_tensor": (lambda t, a, b: a.pow(b), [(2, 3), (3,)], POS),
    "pow_scalar_base": (lambda t, a: t.pow(2.0, a), [(3,)], ANY),
    "clamp": (lambda t, a: a.clamp(-0.5, 0.5), [(2, 3)], ANY),
    "nan_to_num": (lambda t, a: a.nan_to_num(), [(2, 3)], ANY),
    # arithmetic
    "add": (lambda t, a, b: a + b, [(3, 4), (4,)], ANY),
    "add_alpha": (lambda t, a, b: t.add(a, b, alpha=2), [(2, 3), (2, 3)], ANY),
    "add_scalar": (lambda t, a: a + 2.5, [(3,)], ANY),
    "radd_scalar": (lambda t, a: 2 + a, [(3,)], ANY),
    "sub": (lambda t, a, b: a - b, [(3, 1), (1, 4)], ANY),
    "sub_alpha": (lambda t, a, b: t.sub(a, b, alpha=3), [(2, 2), (2, 2)], ANY),
    "rsub": (lambda t, a: 1 - a, [(3,)], ANY),
    "mul": (lambda t, a, b: a * b, [(2, 3), (2, 3)], ANY),
    "mul_broadcast": (lambda t, a, b: a * b, [(2, 1, 3), (4, 1)], ANY),
    "mul_scalar": (lambda t, a: a * 3, [(2, 3)], ANY),
    "div": (lambda t, a, b: a / b, [(2, 3), (3,)], POS),
    "div_scalar": (lambda t, a: a / 4, [(2, 3)], ANY),
    "div_floor": (lambda t, a, b: t.div(a, b, rounding_mode="floor"), [(3,), (3,)], POS),
    "atan2": (lambda t, a, b: t.atan2(a, b), [(2, 3), (2, 3)], POS),
    "hypot": (lambda t, a, b: t.hypot(a, b), [(2, 3), (3,)], POS),
    "maximum": (lambda t, a, b: t.maximum(a, b), [(2, 3), (2, 3)], ANY),
    "minimum": (lambda t, a, b: t.minimum(a, b), [(2, 3), (3,)], ANY),
    "where": (lambda t, a, b: t.where(a > 0, a, b), [(2, 3), (2, 3)], ANY),
    "masked_fill": (lambda t, a: a.masked_fill(a > 0, 1.0), [(2, 3)], ANY),
    "lerp": (lambda t, a, b: t.lerp(a, b, 0.3), [(2, 3), (2, 3)], ANY),
    "lerp_tensor": (lambda t, a, b, w: t.lerp(a, b, w), [(2, 3), (2, 3), (3,)], ANY),
    "addcmul": (lambda t, a, b, c: t.addcmul(a, b, c, value=0.5), [(3,), (2, 3), (3,)], ANY),
    "addcdiv": (lambda t, a, b, c: t.addcdiv(a, b, c, value=2), [(3,), (2, 3), (3,)], POS),
    "logaddexp": (lambda t, a, b: t.logaddexp(a, b), [(2, 3), (2, 3)], ANY),
    "xlogy": (lambda t, a, b: t.xlogy(a, b), [(2, 3), (2, 3)], POS),
    # matrix products
    "mm": (lambda t, a, b: t.mm(a, b), [(2, 3), (3, 4)], ANY),
    "mv": (lambda t, a, b: t.mv(a, b), [(2, 3), (3,)], ANY),
    "bmm": (lambda t, a, b: t.bmm(a, b), [(2, 2, 3), (2, 3, 2)], ANY),
    "dot": (lambda t, a, b: t.dot(a, b), [(4,), (4,)], ANY),
    "matmul_2d": (lambda t, a, b: a @ b, [(2, 3), (3, 4)], ANY),
    "matmul_batched": (lambda t, a, b: a @ b, [(2, 2, 3), (3, 4)], ANY),
    "matmul_vec": (lambda t, a, b: a @ b, [(4,), (4,)], ANY),
    "addmm": (lambda t, c, a, b: t.addmm(c, a, b, beta=0.5, alpha=2), [(4,), (2, 3), (3, 4)], ANY),
    "addmv": (lambda t, c, a, b: t.addmv(c, a, b), [(2,), (2, 3), (3,)], ANY),
    "baddbmm": (lambda t, c, a, b: t.baddbmm(c, a, b), [(2, 2, 2), (2, 2, 3), (2, 3, 2)], ANY),
    "linear": (lambda t, x, w, b: t.nn.functional.linear(x, w, b), [(2, 3), (4, 3), (4,)], ANY),
    "linear_nobias": (lambda t, x, w: t.nn.functional.linear(x, w), [(5, 3), (4, 3)], ANY),
    # reductions
    "sum": (lambda t, a: a.sum(), [(2, 3)], ANY),
    "sum_dim": (lambda t, a: a.sum(1), [(2, 3)], ANY),
    "sum_keepdim": (lambda t, a: a.sum((0, 2), keepdim=True), [(2, 3, 2)], ANY),
    "mean": (lambda t, a: a.mean(), [(2, 3)], ANY),
    "mean_dim": (lambda t, a: a.mean(0), [(2, 3)], ANY),
    "prod": (lambda t, a: a.prod(), [(2, 3)], ANY),
    "prod_dim": (lambda t, a: a.prod(1), [(2, 3)], ANY),
    "amax": (lambda t, a: a.amax(1), [(2, 3)], ANY),
    "amin": (lambda t, a: a.amin(), [(2, 3)], ANY),
    "max_all": (lambda t, a: a.max(), [(2, 3)], ANY),
    "max_dim": (lambda t, a: a.max(1)[0], [(2, 3)], ANY),
    "min_dim": (lambda t, a: a.min(0, keepdim=True)[0], [(2, 3)], ANY),
    "norm": (lambda t, a: a.norm(), [(2, 3)], ANY),
    "norm_p1": (lambda t, a: a.norm(p=1), [(2, 3)], ANY),
    "norm_dim": (lambda t, a: a.norm(dim=1), [(2, 3)], ANY),
    "norm_p3": (lambda t, a: t.linalg.vector_norm(a, 3, dim=0), [(2, 3)], ANY),
    "norm_inf": (lambda t, a: t.linalg.vector_norm(a, float("inf")), [(2, 3)], ANY),
    "var": (lambda t, a: a.var(), [(2, 3)], ANY),
    "std_dim": (lambda t, a: a.std(1), [(2, 3)], ANY),
    "logsumexp": (lambda t, a: a.logsumexp(1), [(2, 3)], ANY),
    "softmax": (lambda t, a: a.softmax(1), [(2, 3)], ANY),
    "log_softmax": (lambda t, a: a.log_softmax(0), [(2, 3)], ANY),
    "cumsum": (lambda t, a: a.cumsum(1), [(2, 3)], ANY),
    # views and shapes
    "view": (lambda t, a: a.view(3, 2), [(2, 3)], ANY),
    "reshape": (lambda t, a: a.reshape(-1), [(2, 3)], ANY),
    "reshape_copy": (lambda t, a: a.t().reshape(-1), [(2, 3)], ANY),
    "transpose": (lambda t, a: a.transpose(0, 1), [(2, 3)], ANY),
    "t": (lambda t, a: a.t(), [(2, 3)], ANY),
    "permute": (lambda t, a: a.permute(2, 0, 1), [(2, 3, 4)], ANY),
    "expand": (lambda t, a: a.expand(4, 2, 3), [(2, 3)], ANY),
    "select": (lambda t, a: a[1], [(2, 3)], ANY),
    "slice": (lambda t, a: a[:, 1:], [(2, 3)], ANY),
    "slice_step": (lambda t, a: a[::2], [(5, 3)], ANY),
    "unsqueeze": (lambda t, a: a.unsqueeze(1), [(2, 3)], ANY),
    "squeeze": (lambda t, a: a.squeeze(), [(2, 1, 3)], ANY),
    "squeeze_dim": (lambda t, a: a.squeeze(1), [(2, 1, 3)], ANY),
    "flatten": (lambda t, a: a.flatten(), [(2, 3, 2)], ANY),
    "cat": (lambda t, a, b: t.cat([a, b], 0), [(2, 3), (1, 3)], ANY),
    "stack": (lambda t, a, b: t.stack([a, b], 1), [(2, 3), (2, 3)], ANY),
    "split": (lambda t, a: a.split(2, 1), [(2, 5)], ANY),
    "unbind": (lambda t, a: a.unbind(0), [(2, 3)], ANY),
    "chunk": (lambda t, a: a.chunk(2), [(4, 3)], ANY),
    "narrow": (lambda t, a: a.narrow(1, 1, 2), [(2, 3)], ANY),
    "diagonal": (lambda t, a: a.diagonal(), [(3, 3)], ANY),
    "flip": (lambda t, a: a.flip(0), [(2, 3)], ANY),
    "roll": (lambda t, a: a.roll(1, 1), [(2, 3)], ANY),
    "repeat": (lambda t, a: a.repeat(2, 1), [(2, 3)], ANY),
    "tril": (lambda t, a: a.tril(), [(3, 3)], ANY),
    "contiguous": (lambda t, a: a.t().contiguous(), [(2, 3)], ANY),
    "clone": (lambda t, a: a.clone(), [(2, 3)], ANY),
    "double": (lambda t, a: a.double(), [(2, 3)], ANY),
    "to_float16": (lambda t, a: a.to(t.float16), [(2, 3)], ANY),
    "to_int": (lambda t, a: a.to(t.int64), [(2, 3)], ANY),
    # indexing
    "index_tensor": (lambda t, a: a[t.tensor([1, 0, 1])], [(2, 3)], ANY),
    "index_bool": (lambda t, a: a[a > 0], [(2, 3)], ANY),
    "index_select": (lambda t, a: a.index_select(1, t.tensor([2, 0])), [(2, 3)], ANY),
    "gather": (lambda t, a: a.gather(1, t.tensor([[0, 0], [2, 1]])), [(2, 3)], ANY),
    "take": (lambda t, a: a.take(t.tensor([0, 5])), [(2, 3)], ANY),
    "masked_select": (lambda t, a: a.masked_select(a > 0), [(2, 3)], ANY),
    "scatter": (lambda t, a, b: a.scatter(1, t.tensor([[0], [2]]), b), [(2, 3), (2, 1)], ANY),
    "index_add": (lambda t, a, b: a.index_add(0, t.tensor([1]), b), [(2, 3), (1, 3)], ANY),
}


def _arrays(shapes, bounds, data, dtype=np.float32):
    low, high = bounds
    element = st.floats(low, high, allow_nan=False, width=32)
    out = []
    for shape in shapes:
        count = int(np.prod(shape)) if shape else 1
        values = data.draw(st.lists(element, min_size=count, max_size=count))
        out.append(np.array(values, dtype=dtype).reshape(shape))
    return out


@pytest.mark.parametrize("name", sorted(CASES))
@settings(max_examples=4, deadline=None)
@given(data=st.data())
def test_jvp_matches_torch(name, data):
    fn, shapes, bounds = CASES[name]
    inputs = _arrays(shapes, bounds, data)
    tangents = _arrays(shapes, ANY, data)
    compare_jvp(fn, inputs, tangents, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "name", ["add", "mul", "div", "mm", "addmm", "where", "cat", "lerp_tensor", "linear"]
)
@settings(max_examples=3, deadline=None)
@given(data=st.data())
def test_jvp_with_some_inputs_without_tangent(name, data):
    """An input without a tangent counts as zeros (PyTorch's efficient zero tensor)."""
    fn, shapes, bounds = CASES[name]
    inputs = _arrays(shapes, bounds, data)
    tangents = _arrays(shapes, ANY, data)
    keep = data.draw(st.integers(0, len(shapes) - 1))
    tangents = [t if i == keep else None for i, t in enumerate(tangents)]
    compare_jvp(fn, inputs, tangents, rtol=1e-4, atol=1e-5)


def _shape():
    return st.lists(st.integers(1, 4), min_size=0, max_size=3).map(tuple)


@settings(max_examples=25, deadline=None)
@given(
    data=st.data(), shape=_shape(), op=st.sampled_from(["sin", "exp", "tanh", "sigmoid", "relu"])
)
def test_pointwise_over_shapes(data, shape, op):
    fn = CASES[op][0]
    (x,) = _arrays([shape], ANY, data)
    (v,) = _arrays([shape], ANY, data)
    compare_jvp(fn, [x], [v], rtol=1e-4, atol=1e-5)


@settings(max_examples=25, deadline=None)
@given(data=st.data(), shapes=st.sampled_from([((2, 3), (3,)), ((4, 1), (1, 5)), ((), (2,))]))
def test_broadcast_binary_over_shapes(data, shapes):
    a, b = _arrays(list(shapes), POS, data)
    ta, tb = _arrays(list(shapes), ANY, data)
    compare_jvp(lambda t, x, y: x * y + x / y - t.maximum(x, y), [a, b], [ta, tb], 1e-4, 1e-5)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_dtypes_carry(dtype):
    """A float64 function of float64 duals gives float64 tangents."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 2)).astype(dtype)
    v = rng.standard_normal((3, 2)).astype(dtype)
    compare_jvp(lambda t, a: (a.sin() * a).sum(0), [x], [v])


def test_tangent_of_another_dtype_is_kept():
    """PyTorch lets a float64 tangent ride a float32 primal, and promotes with it."""
    x = np.ones(3, np.float32)
    v = np.arange(3.0)
    compare_jvp(lambda t, a: a * 2 + 1, [x], [v])


MORE = {
    "kthvalue": (lambda t, a: a.kthvalue(2, 1)[0], [(2, 3)], ANY),
    "sort": (lambda t, a: a.sort(1)[0], [(2, 3)], ANY),
    "topk": (lambda t, a: a.topk(2)[0], [(2, 3)], ANY),
    "median": (lambda t, a: a.median(), [(2, 3)], ANY),
    "median_dim": (lambda t, a: a.median(1)[0], [(2, 3)], ANY),
    "cummax": (lambda t, a: a.cummax(1)[0], [(2, 3)], ANY),
    "logcumsumexp": (lambda t, a: a.logcumsumexp(1), [(2, 3)], ANY),
    "nansum": (lambda t, a: a.nansum(1), [(2, 3)], ANY),
    "logaddexp2": (lambda t, a, b: t.logaddexp2(a, b), [(2, 3), (3,)], ANY),
    "fmax": (lambda t, a, b: t.fmax(a, b), [(2, 3), (3,)], ANY),
    "fmin": (lambda t, a, b: t.fmin(a, b), [(2, 3), (3,)], ANY),
    "clamp_tensor": (lambda t, a, lo, hi: a.clamp(lo, hi), [(2, 3), (3,), (3,)], ANY),
    "clamp_min_tensor": (lambda t, a, lo: a.clamp(min=lo), [(2, 3), (3,)], ANY),
    "copysign": (lambda t, a, b: t.copysign(a, b), [(2, 3), (2, 3)], ANY),
    "var_mean": (lambda t, a: t.var_mean(a, 1), [(2, 3)], ANY),
    "std_mean": (lambda t, a: t.std_mean(a), [(2, 3)], ANY),
    "glu": (lambda t, a: t.nn.functional.glu(a), [(2, 4)], ANY),
    "layer_norm": (
        lambda t, x, w, b: t.nn.functional.layer_norm(x, (3,), w, b),
        [(2, 3), (3,), (3,)],
        ANY,
    ),
    "batch_norm_train": (
        lambda t, x, w, b: t.nn.functional.batch_norm(x, None, None, w, b, training=True),
        [(4, 3), (3,), (3,)],
        ANY,
    ),
    "conv2d": (
        lambda t, x, w, b: t.nn.functional.conv2d(x, w, b, padding=1),
        [(1, 2, 4, 4), (3, 2, 3, 3), (3,)],
        ANY,
    ),
    "conv1d": (lambda t, x, w: t.nn.functional.conv1d(x, w), [(2, 2, 5), (3, 2, 2)], ANY),
    "mse_loss": (lambda t, a, b: t.nn.functional.mse_loss(a, b), [(2, 3), (2, 3)], ANY),
    "smooth_l1": (lambda t, a, b: t.nn.functional.smooth_l1_loss(a, b), [(2, 3), (2, 3)], ANY),
    "nll_loss": (
        lambda t, a: t.nn.functional.nll_loss(a.log_softmax(1), t.tensor([0, 2])),
        [(2, 3)],
        ANY,
    ),
    "cross_entropy": (
        lambda t, a: t.nn.functional.cross_entropy(a, t.tensor([1, 0])),
        [(2, 3)],
        ANY,
    ),
    "logsigmoid": (lambda t, a: t.nn.functional.logsigmoid(a), [(2, 3)], ANY),
    "pad": (lambda t, a: t.nn.functional.pad(a, (1, 2)), [(2, 3)], ANY),
    "threshold_": (
        lambda t, a: t.nn.functional.threshold(a * 1, 0.1, 2.0, inplace=True),
        [(2, 3)],
        ANY,
    ),
    "relu_": (lambda t, a: (a * 1).relu_(), [(2, 3)], ANY),
    "leaky_relu_": (
        lambda t, a: t.nn.functional.leaky_relu(a * 1, 0.2, inplace=True),
        [(2, 3)],
        ANY,
    ),
    "uniform_": (lambda t, a: (a * 1).uniform_(), [(2, 3)], ANY),
    "gt_": (lambda t, a: (a * 1).gt_(0), [(2, 3)], ANY),
    "mul_": (lambda t, a, b: (a * 1).mul_(b), [(2, 3), (3,)], ANY),
    "div_": (lambda t, a, b: (a * 1).div_(b), [(2, 3), (3,)], POS),
    "sin_": (lambda t, a: (a * 1).sin_(), [(2, 3)], ANY),
    "add_alpha_": (lambda t, a, b: (a * 1).add_(b, alpha=2), [(2, 3), (3,)], ANY),
    "squeeze_": (lambda t, a: (a * 1).squeeze_(1), [(2, 1, 3)], ANY),
    "t_": (lambda t, a: (a * 1).t_(), [(2, 3)], ANY),
    "transpose_": (lambda t, a: (a * 1).transpose_(0, 1), [(2, 3)], ANY),
    "unsqueeze_": (lambda t, a: (a * 1).unsqueeze_(0), [(2, 3)], ANY),
    "setitem": (lambda t, a, b: _setitem(a * 1, b), [(3, 3), (3,)], ANY),
    "index_put_": (lambda t, a, b: (a * 1).index_put_((t.tensor([0, 2]),), b), [(3, 2), (2,)], ANY),
    "masked_fill_": (lambda t, a: (a * 1).masked_fill_(a > 0, 0.5), [(2, 3)], ANY),
    "clamp_": (lambda t, a: (a * 1).clamp_(-0.5, 0.5), [(2, 3)], ANY),
    "view_as_complex": (lambda t, a: t.view_as_complex(a).abs(), [(3, 2)], ANY),
}


def _setitem(x, value):
    x[1] = value
    return x


@pytest.mark.parametrize("name", sorted(MORE))
@settings(max_examples=3, deadline=None)
@given(data=st.data())
def test_more_jvp_matches_torch(name, data):
    fn, shapes, bounds = MORE[name]
    inputs = _arrays(shapes, bounds, data)
    tangents = _arrays(shapes, ANY, data)
    if name == "uniform_":
        (inputs, tangents) = (inputs, tangents)  # values are random: compare tangents only
        return _compare_tangent_only(fn, inputs, tangents)
    compare_jvp(fn, inputs, tangents, rtol=1e-4, atol=1e-5)


def _compare_tangent_only(fn, inputs, tangents):
    from oracle import torch

    import ember

    for lib in (ember, torch):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            dual = fw.make_dual(
                lib.from_numpy(inputs[0].copy()), lib.from_numpy(tangents[0].copy())
            )
            tangent = fw.unpack_dual(fn(lib, dual)).tangent
            assert tangent is not None and not tangent.any()


POOLS = {
    "max_pool1d": (lambda t, a: t.nn.functional.max_pool1d(a, 2), [(1, 2, 6)], ANY),
    "max_pool2d": (lambda t, a: t.nn.functional.max_pool2d(a, 2), [(1, 2, 4, 4)], ANY),
    "adaptive_max_pool2d": (
        lambda t, a: t.nn.functional.adaptive_max_pool2d(a, 2),
        [(1, 2, 4, 4)],
        ANY,
    ),
    "avg_pool2d": (lambda t, a: t.nn.functional.avg_pool2d(a, 2), [(1, 2, 4, 4)], ANY),
    "prelu": (lambda t, a, w: t.nn.functional.prelu(a, w), [(2, 3), (1,)], ANY),
    "bce": (
        lambda t, a, b: t.nn.functional.binary_cross_entropy(a.sigmoid(), b.sigmoid()),
        [(2, 3), (2, 3)],
        ANY,
    ),
    "bce_logits": (
        lambda t, a, b: t.nn.functional.binary_cross_entropy_with_logits(a, b.sigmoid()),
        [(2, 3), (2, 3)],
        ANY,
    ),
    "cross": (lambda t, a, b: t.linalg.cross(a, b), [(2, 3), (2, 3)], ANY),
    "polar": (lambda t, a, b: t.polar(a, b).abs(), [(3,), (3,)], POS),
    "dist": (lambda t, a, b: t.dist(a, b), [(2, 3), (2, 3)], ANY),
    "inv": (lambda t, a: t.linalg.inv(a + 3 * t.eye(3)), [(3, 3)], UNIT),
    "soft_margin": (
        lambda t, a: t.nn.functional.soft_margin_loss(a, t.tensor([[1.0, -1.0, 1.0]])),
        [(1, 3)],
        ANY,
    ),
}


@pytest.mark.parametrize("name", sorted(POOLS))
@settings(max_examples=3, deadline=None)
@given(data=st.data())
def test_nn_and_linalg_jvp_matches_torch(name, data):
    fn, shapes, bounds = POOLS[name]
    inputs = _arrays(shapes, bounds, data)
    tangents = _arrays(shapes, ANY, data)
    compare_jvp(fn, inputs, tangents, rtol=1e-4, atol=1e-5)
