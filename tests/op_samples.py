"""A sample call of every functional operator of native_functions.yaml, written once for
ember and torch, for the tests that sweep every operator (tests/test_autograd_coverage.py).

`SAMPLES[name]` is a list of functions `sample(T) -> (args, kwargs)`: `T` (a `Maker`)
builds the same tensors in whichever library it wraps, from one seeded generator, so
both libraries see identical inputs when a sample runs under each. In-place and out=
overloads reuse the sample of their functional overload (same arguments); the few
without one have their own entry. `NO_VALUES` names the operators whose results are
random or uninitialised: only their metadata is compared.
"""

from __future__ import annotations

import numpy as np


class Maker:
    """Tensors of one library: `f` leaves that require grad (float64), `c` constants,
    `p` positive leaves, `l` int64, `b` bool. Every leaf made is kept in `leaves`."""

    def __init__(self, lib, seed: int = 0) -> None:
        self.lib = lib
        self.rng = np.random.default_rng(seed)
        self.leaves: list = []

    def _array(self, shape, low=-2.0, high=2.0):
        # values on a 1/8 grid, away from 0: no ties at kinks, exact in every dtype
        values = self.rng.integers(int(low * 8), int(high * 8), size=shape) / 8.0
        return np.where(values == 0, 0.375, values)

    def f(self, *shape):
        leaf = self.lib.tensor(self._array(shape), dtype=self.lib.float64).requires_grad_()
        self.leaves.append(leaf)
        return leaf

    def p(self, *shape):
        leaf = self.lib.tensor(self._array(shape, 0.25, 2.0), dtype=self.lib.float64)
        leaf.requires_grad_()
        self.leaves.append(leaf)
        return leaf

    def u(self, *shape):
        """Inside (-1, 1), the domain of acos and asin."""
        leaf = self.lib.tensor(self._array(shape, -0.875, 0.875), dtype=self.lib.float64)
        leaf.requires_grad_()
        self.leaves.append(leaf)
        return leaf

    def c(self, *shape):
        return self.lib.tensor(self._array(shape), dtype=self.lib.float64)

    def l(self, values):  # noqa: E743 (the dtype's letter, as the others)
        return self.lib.tensor(values, dtype=self.lib.int64)

    def b(self, *shape):
        return self.lib.tensor(self.rng.integers(0, 2, size=shape).astype(bool))


def _unary(T):
    return (T.f(2, 3),), {}


def _positive(T):
    return (T.p(2, 3),), {}


def _binary(T):
    return (T.f(2, 3), T.f(2, 3)), {}


def _scalar(value):
    return lambda T: ((T.f(2, 3), value), {})


def _meta_out(T):
    return {"out": T.lib.empty(0, dtype=T.lib.float64, device="meta")}


def _index(T):
    return T.l([[0, 1], [2, 3], [1, 0]])


S = {
    "dropout": [lambda T: ((T.f(2, 3), 0.5, False), {})],
    "abs": [_unary],
    "add.Tensor": [lambda T: ((T.f(2, 3), T.f(3)), {"alpha": 2})],
    "add.Scalar": [_scalar(2.5)],
    "all.dim": [lambda T: ((T.f(2, 3), 1), {})],
    "all.dims": [lambda T: ((T.f(2, 3), [1]), {})],
    "any.dim": [lambda T: ((T.f(2, 3), 1), {})],
    "any.dims": [lambda T: ((T.f(2, 3), [1]), {})],
    "arange": [lambda T: ((5.0,), {})],
    "arange.start": [lambda T: ((1.0, 5.0), {})],
    "arange.start_step": [lambda T: ((1.0, 5.0, 0.5), {})],
    "argmax": [_unary],
    "argmin": [_unary],
    "as_strided": [
        lambda T: ((T.f(2, 3), [2, 2], [1, 2], 1), {}),
        lambda T: ((T.f(4), [3, 2], [1, 1]), {}),  # overlapping windows
        lambda T: ((T.f(2, 3).t(), [3, 2], [1, 1]), {}),  # of a non-contiguous view
        lambda T: ((T.f(4).expand(3, 4), [2, 2], [1, 1]), {}),  # of an expanded one
        lambda T: ((T.f(5)[1:], [2, 2], [2, 1], 0), {}),  # an offset view, offset 0
    ],
    "logical_not": [_unary],
    "logical_and": [_binary],
    "logical_or": [_binary],
    "bmm": [lambda T: ((T.f(2, 3, 4), T.f(2, 4, 2)), {})],
    "cat": [lambda T: (([T.f(2, 3), T.f(1, 3)], 0), {})],
    "chunk": [lambda T: ((T.f(4, 3), 2), {})],
    "clamp": [lambda T: ((T.f(2, 3), -0.5, 0.5), {})],
    "clamp.Tensor": [lambda T: ((T.f(2, 3),), {"min": T.f(3), "max": None})],
    "contiguous": [lambda T: ((T.f(3, 2).t(),), {})],
    "cos": [_unary],
    "cosh": [_unary],
    "conj": [_unary],
    "resolve_conj": [_unary],
    "_conj": [_unary],
    "_neg_view": [_unary],
    "resolve_neg": [_unary],
    "is_conj": [_unary],
    "is_neg": [_unary],
    "acos": [lambda T: ((T.u(2, 3),), {})],
    "asin": [lambda T: ((T.u(2, 3),), {})],
    "atan": [_unary],
    "tan": [lambda T: ((T.u(2, 3),), {})],
    "sinh": [_unary],
    "expm1": [_unary],
    "log2": [lambda T: ((T.p(2, 3),), {})],
    "log10": [lambda T: ((T.p(2, 3),), {})],
    "cumsum": [lambda T: ((T.f(2, 3), 1), {})],
    "cumprod": [lambda T: ((T.f(2, 3), 1), {}), lambda T: ((T.c(2, 4) * 0, 1), {})],
    "diagonal": [lambda T: ((T.f(3, 4),), {"offset": 1})],
    "div.Tensor": [lambda T: ((T.f(2, 3), T.p(2, 3)), {})],
    "div.Tensor_mode": [lambda T: ((T.f(2, 3), T.p(2, 3)), {"rounding_mode": "floor"})],
    "div.Scalar": [_scalar(4.0)],
    "div.Scalar_mode": [lambda T: ((T.f(2, 3), 2.0), {"rounding_mode": "trunc"})],
    "dot": [lambda T: ((T.f(3), T.f(3)), {})],
    "empty.memory_format": [lambda T: (([2, 3],), {})],
    "empty_like": [_unary],
    "empty_strided": [lambda T: (([2, 3], [1, 2]), {})],
    "exp": [_unary],
    "expand": [lambda T: ((T.f(3, 1), [2, 3, 4]), {})],
    "expand_as": [lambda T: ((T.f(3, 1), T.c(3, 4)), {})],
    "eye": [lambda T: ((3,), {})],
    "eye.m": [lambda T: ((2, 3), {})],
    "flatten.using_ints": [lambda T: ((T.f(2, 3, 2), 1, 2), {})],
    "unflatten.int": [lambda T: ((T.f(2, 6), 1, [2, 3]), {})],
    "full": [lambda T: (([2, 3], 1.5), {})],
    "full_like": [_scalar(1.5)],
    "index.Tensor": [
        lambda T: ((T.f(4, 3), [T.l([0, 2, 0])]), {}),
        lambda T: ((T.f(2, 4), [None, T.l([0, 2, 0])]), {}),
        lambda T: ((T.f(3, 2, 3), [T.l([0, 2]), None, T.l([1, 1])]), {}),
        lambda T: ((T.f(2, 3), [T.b(2, 3)]), {}),
    ],
    "index_put": [
        lambda T: ((T.f(4, 3), [T.l([0, 2])], T.f(2, 3)), {}),
        lambda T: ((T.f(4, 3), [T.l([0, 2, 0])], T.f(3)), {"accumulate": True}),
        lambda T: ((T.f(2, 3), [None, T.l([0, 2])], T.f(2, 2)), {}),
    ],
    "isnan": [_unary],
    "linear": [lambda T: ((T.f(2, 3), T.f(4, 3), T.f(4)), {})],
    "linspace": [lambda T: ((0.0, 1.0, 5), {})],
    "log": [_positive],
    "log1p": [_positive],
    "log_softmax.int": [lambda T: ((T.f(2, 3), 1), {})],
    "_log_softmax": [lambda T: ((T.f(2, 3), 1, False), {})],
    "_log_softmax_backward_data": [
        lambda T: ((T.f(2, 3), T.f(2, 3).log_softmax(1), 1, T.lib.float64), {})
    ],
    "logsumexp": [lambda T: ((T.f(2, 3), [1]), {})],
    "matmul": [lambda T: ((T.f(2, 3), T.f(3, 4)), {})],
    "max.dim": [lambda T: ((T.f(2, 3), 1), {})],
    "amax": [lambda T: ((T.f(2, 3), [1]), {})],
    "mean": [_unary],
    "mean.dim": [lambda T: ((T.f(2, 3), [1]), {})],
    "min.dim": [lambda T: ((T.f(2, 3), 1), {"keepdim": True})],
    "amin": [lambda T: ((T.f(2, 3), [0]), {})],
    "mm": [lambda T: ((T.f(2, 3), T.f(3, 4)), {})],
    "mul.Tensor": [_binary],
    "mul.Scalar": [_scalar(3.0)],
    "narrow": [lambda T: ((T.f(4, 3), 0, 1, 2), {})],
    "narrow.Tensor": [lambda T: ((T.f(4, 3), 0, T.l(1), 2), {})],
    "ones": [lambda T: (([2, 3],), {})],
    "ones_like": [_unary],
    "permute": [lambda T: ((T.f(2, 3, 4), [2, 0, 1]), {})],
    "movedim.intlist": [lambda T: ((T.f(2, 3, 4), [0], [2]), {})],
    "movedim.int": [lambda T: ((T.f(2, 3, 4), 0, 2), {})],
    "numpy_T": [_unary],
    "mT": [lambda T: ((T.f(2, 3, 4),), {})],
    "swapaxes": [lambda T: ((T.f(2, 3), 0, 1), {})],
    "swapdims": [lambda T: ((T.f(2, 3), 0, 1), {})],
    "unfold": [
        lambda T: ((T.f(2, 5), 1, 2, 1), {}),
        lambda T: ((T.f(7), 0, 3, 2), {}),
        lambda T: ((T.f(2, 6), 1, 2, 3), {}),  # windows with gaps between them
    ],
    "unfold_backward": [lambda T: ((T.f(2, 4, 2), [2, 5], 1, 2, 1), {})],
    "rand": [lambda T: (([2, 3],), {})],
    "_efficientzerotensor": [lambda T: (([2, 3],), {})],
    "rand.generator": [lambda T: (([2, 3],), {"generator": None})],
    "rand_like": [_unary],
    "randint": [lambda T: ((5, [2, 3]), {})],
    "randperm": [lambda T: ((5,), {})],
    "randperm.generator": [lambda T: ((5,), {"generator": None})],
    "randint_like": [lambda T: ((T.f(2, 3), 5), {})],
    "randint_like.generator": [lambda T: ((T.f(2, 3), 5), {"generator": None})],
    "randint_like.Tensor": [lambda T: ((T.f(2, 3), T.l(5)), {})],
    "randint_like.Tensor_generator": [lambda T: ((T.f(2, 3), T.l(5)), {"generator": None})],
    "randint_like.low_dtype": [lambda T: ((T.f(2, 3), 1, 5), {})],
    "randint_like.low_generator_dtype": [lambda T: ((T.f(2, 3), 1, 5), {"generator": None})],
    "randint.low": [lambda T: ((1, 5, [2, 3]), {})],
    "randint.generator": [lambda T: ((5, [2, 3]), {"generator": None})],
    "randint.low_generator": [lambda T: ((1, 5, [2, 3]), {"generator": None})],
    "randn": [lambda T: (([2, 3],), {})],
    "randn.generator": [lambda T: (([2, 3],), {"generator": None})],
    "randn_like": [_unary],
    "neg": [_unary],
    "reshape": [lambda T: ((T.f(2, 3), [3, 2]), {})],
    "relu": [_unary],
    "threshold_backward": [lambda T: ((T.f(2, 3), T.f(2, 3), 0.0), {})],
    "tanh_backward": [_binary],
    "lift_fresh": [_unary],
    "select_backward": [lambda T: ((T.f(3), [2, 3], 0, 1), {})],
    "slice_backward": [lambda T: ((T.f(2, 2), [2, 3], 1, 1, 3, 1), {})],
    "diagonal_backward": [lambda T: ((T.f(2), [2, 3], 0, 0, 1), {})],
    "sigmoid_backward": [_binary],
    "gelu": [_unary, lambda T: ((T.f(2, 3),), {"approximate": "tanh"})],
    "rsqrt": [_positive],
    "select.int": [lambda T: ((T.f(3, 4), 0, 1), {})],
    "sigmoid": [_unary],
    "sin": [_unary],
    "detach": [_unary],
    "slice.Tensor": [lambda T: ((T.f(4, 3), 0, 1, 4, 2), {})],
    "softmax.int": [lambda T: ((T.f(2, 3), 1), {})],
    "_softmax": [lambda T: ((T.f(2, 3), 1, False), {})],
    "_softmax_backward_data": [lambda T: ((T.f(2, 3), T.f(2, 3).softmax(1), 1, T.lib.float64), {})],
    "split.Tensor": [lambda T: ((T.f(5, 3), 2), {})],
    "split.sizes": [lambda T: ((T.f(5, 3), [2, 3]), {})],
    "split_with_sizes": [lambda T: ((T.f(5, 3), [2, 3]), {})],
    "squeeze": [lambda T: ((T.f(2, 1, 3),), {})],
    "squeeze.dim": [lambda T: ((T.f(2, 1, 3), 1), {})],
    "squeeze.dims": [lambda T: ((T.f(2, 1, 3), [1]), {})],
    "stack": [lambda T: (([T.f(2, 3), T.f(2, 3)], 1), {})],
    "sum": [_unary],
    "sum.dim_IntList": [lambda T: ((T.f(2, 3), [1]), {})],
    "sqrt": [_positive],
    "std": [_unary],
    "std.dim": [lambda T: ((T.f(2, 3), [1]), {})],
    "std.correction": [lambda T: ((T.f(2, 3), [1]), {"correction": 0})],
    "prod": [_unary],
    "prod.dim_int": [lambda T: ((T.f(2, 3), 1), {})],
    "t": [_unary],
    "tanh": [_unary],
    "transpose.int": [lambda T: ((T.f(2, 3), 0, 1), {})],
    "one_hot": [lambda T: ((T.l([0, 2, 1]), 3), {})],
    "flip": [lambda T: ((T.f(2, 3), [0]), {})],
    "roll": [lambda T: ((T.f(2, 3), [1], [1]), {})],
    "_unsafe_view": [lambda T: ((T.f(2, 3), [3, 2]), {})],
    "unsqueeze": [lambda T: ((T.f(2, 3), 1), {})],
    "var": [_unary],
    "var.dim": [lambda T: ((T.f(2, 3), [1]), {})],
    "var.correction": [lambda T: ((T.f(2, 3), [1]), {"correction": 0})],
    "view_as": [lambda T: ((T.f(2, 3), T.c(3, 2)), {})],
    "where.self": [lambda T: ((T.b(2, 3), T.f(2, 3), T.f(2, 3)), {})],
    "where.ScalarSelf": [lambda T: ((T.b(2, 3), 1.5, T.f(2, 3)), {})],
    "where.ScalarOther": [lambda T: ((T.b(2, 3), T.f(2, 3), 1.5), {})],
    "where.Scalar": [lambda T: ((T.b(2, 3), 1.5, 2.5), {})],
    "where": [lambda T: ((T.b(2, 3),), {})],
    "zeros": [lambda T: (([2, 3],), {})],
    "zeros_like": [_unary],
    "new_empty": [lambda T: ((T.f(2, 3), [2, 2]), {})],
    "new_empty_strided": [lambda T: ((T.f(2, 3), [2, 2], [1, 2]), {})],
    "new_full": [lambda T: ((T.f(2, 3), [2, 2], 1.5), {})],
    "new_zeros": [lambda T: ((T.f(2, 3), [2, 2]), {})],
    "new_ones": [lambda T: ((T.f(2, 3), [2, 2]), {})],
    "norm.ScalarOpt_dtype": [lambda T: ((T.f(2, 3), 2), {"dtype": T.lib.float64})],
    "norm.Scalar": [lambda T: ((T.f(2, 3), 3), {})],
    "linalg_vector_norm": [
        lambda T: ((T.f(2, 3),), {}),
        lambda T: ((T.f(2, 3), 1, [1], True), {"dtype": T.lib.float64}),
    ],
    "conj_physical": [_unary],
    "_conj_physical": [_unary],
    "norm.ScalarOpt_dim_dtype": [lambda T: ((T.f(2, 3), 2, [1], False), {"dtype": T.lib.float64})],
    "norm.ScalarOpt_dim": [lambda T: ((T.f(2, 3), 1, [1]), {})],
    "clone": [_unary],
    "sub.Tensor": [lambda T: ((T.f(2, 3), T.f(2, 3)), {"alpha": 2})],
    "sub.Scalar": [_scalar(2.0)],
    "addmm": [lambda T: ((T.f(2, 4), T.f(2, 3), T.f(3, 4)), {"beta": 0.5, "alpha": 2})],
    "addmv": [lambda T: ((T.f(2), T.f(2, 3), T.f(3)), {"beta": 0.5, "alpha": 2})],
    "mv": [lambda T: ((T.f(2, 3), T.f(3)), {})],
    # constants: ember has no linalg_lstsq_backward (it needs linalg_pinv and pinv_backward)
    "linalg_lstsq": [
        lambda T: ((T.c(4, 3), T.c(4, 2)), {}),
        lambda T: ((T.c(4, 3), T.c(4)), {"driver": "gelsd"}),
    ],  # fmt: skip
    # constants: PyTorch's autograd.grad passes a gradient through _foobar's NotImplemented
    # node unchanged (backward() raises), which ember does not copy
    "_foobar": [lambda T: ((T.c(2, 3),), {}), lambda T: ((T.c(2), False), {"arg3": False})],
    "unbind.int": [lambda T: ((T.f(2, 3), 1), {})],
    "_to_copy": [lambda T: ((T.f(2, 3),), {"dtype": T.lib.float32})],
    "to.dtype_layout": [lambda T: ((T.f(2, 3),), {"dtype": T.lib.float32})],
    "to.device": [lambda T: ((T.f(2, 3), T.lib.device("cpu"), T.lib.float32), {})],
    "to.other": [lambda T: ((T.f(2, 3), T.c(1).float()), {})],
    "to.dtype": [lambda T: ((T.f(2, 3), T.lib.float32), {})],
    "_local_scalar_dense": [lambda T: ((T.f(1),), {})],
    "item": [lambda T: ((T.f(1),), {})],
    "masked_fill.Scalar": [lambda T: ((T.f(2, 3), T.b(2, 3), 1.5), {})],
    "masked_fill.Tensor": [lambda T: ((T.f(2, 3), T.b(2, 3), T.f()), {})],
    "view": [lambda T: ((T.f(2, 3), [3, 2]), {})],
    "view.dtype": [lambda T: ((T.f(2, 3), T.lib.float64), {})],
    "scatter.src": [lambda T: ((T.f(3, 4), 1, _index(T), T.f(3, 2)), {})],
    "scatter.value": [lambda T: ((T.f(3, 4), 1, _index(T), 1.5), {})],
    "scatter.reduce": [
        lambda T: ((T.f(3, 4), 1, T.l([[0, 0], [2, 3], [1, 1]]), T.f(3, 2)), {"reduce": "add"}),
        lambda T: ((T.f(3, 4), 1, _index(T), T.f(3, 2)), {"reduce": "multiply"}),
    ],
    "scatter.value_reduce": [
        lambda T: ((T.f(3, 4), 1, T.l([[0, 0], [2, 3], [1, 1]]), 1.5), {"reduce": "multiply"}),
        lambda T: ((T.f(3, 4), 1, _index(T), 1.5), {"reduce": "add"}),
    ],
    "triu": [lambda T: ((T.f(3, 3),), {})],
    "tril": [lambda T: ((T.f(3, 3), 1), {})],
    "index_select": [lambda T: ((T.f(4, 3), 0, T.l([0, 2, 0])), {})],
    "gather": [lambda T: ((T.f(3, 4), 1, _index(T)), {})],
    "cross_entropy_loss": [lambda T: ((T.f(3, 4), T.l([0, 2, 1])), {})],
    "sign": [_unary],
    "remainder.Scalar": [_scalar(1.5)],
    "remainder.Tensor": [lambda T: ((T.f(2, 3), T.p(2, 3)), {})],
    "remainder.Scalar_Tensor": [lambda T: ((2.0, T.p(2, 3)), {})],
    "min": [_unary],
    "max": [_unary],
    "maximum": [_binary],
    "max.other": [_binary],
    "minimum": [_binary],
    "min.other": [_binary],
    "sort": [_unary],
    "sort.stable": [lambda T: ((T.f(2, 3),), {"stable": True})],
    "topk": [lambda T: ((T.f(2, 3), 2), {})],
    "all": [_unary],
    "any": [_unary],
    "isclose": [_binary, lambda T: ((T.f(2, 3), T.c(2, 3)), {"rtol": 0.5, "atol": 0.25})],
    "allclose": [_binary, lambda T: ((T.f(2, 3), T.c(2, 3)), {"rtol": 2.0, "atol": 4.0})],
    "equal": [_binary, lambda T: ((T.l([1, 2]), T.l([1, 2])), {})],
    "count_nonzero": [_unary, lambda T: ((T.f(2, 3),), {"dim": -1})],
    "count_nonzero.dim_IntList": [lambda T: ((T.f(2, 3), [0, 1]), {})],
    "pow.Tensor_Tensor": [lambda T: ((T.p(2, 3), T.f(2, 3)), {})],
    "pow.Scalar": [lambda T: ((2.0, T.f(2, 3)), {})],
    "pow.Tensor_Scalar": [_scalar(3)],
    "alias": [_unary],
    "mse_loss": [_binary],
    "nll_loss": [lambda T: ((T.f(3, 4), T.l([0, 2, 1])), {})],
    "nll_loss_forward": [
        lambda T: ((T.f(3, 4), T.l([0, 2, 1]), None, 1, -100), {}),
        lambda T: ((T.f(3, 4), T.l([0, 2, 1]), T.f(4), 1, -100), {}),  # weight may not
    ],
    "nll_loss_backward": [
        lambda T: ((T.f(), T.f(3, 4), T.l([0, 2, 1]), None, 1, -100, T.c().abs() + 2), {})
    ],
    "outer": [lambda T: ((T.f(3), T.f(4)), {})],
    "floor_divide": [lambda T: ((T.f(2, 3), T.p(2, 3)), {})],
    "floor_divide.Scalar": [lambda T: ((T.f(2, 3), 0.75), {})],
    # overloads without a functional one: on a non-leaf, and on a leaf (refused)
    "copy_": [lambda T: ((T.f(2, 3) * 1, T.f(3)), {}), lambda T: ((T.f(2, 3), T.f(3)), {})],
    "fill_.Scalar": [lambda T: ((T.f(2, 3) * 1, 1.5), {}), lambda T: ((T.f(2, 3), 1.5), {})],
    "fill_.Tensor": [lambda T: ((T.f(2, 3) * 1, T.f()), {}), lambda T: ((T.f(2, 3), T.f()), {})],
    "zero_": [lambda T: ((T.f(2, 3) * 1,), {}), lambda T: ((T.f(2, 3),), {})],
    "uniform_": [lambda T: ((T.f(2, 3) * 1, -1.0, 2.0), {}), lambda T: ((T.f(2, 3),), {})],
    "normal_": [lambda T: ((T.f(2, 3) * 1, 0.5, 2.0), {}), lambda T: ((T.f(2, 3),), {})],
    "random_.from": [lambda T: ((T.f(2, 3) * 1, 2, 9), {}), lambda T: ((T.f(2, 3), 2, None), {})],
    "random_.to": [lambda T: ((T.f(2, 3) * 1, 9), {}), lambda T: ((T.f(2, 3), 9), {})],
    "random_": [lambda T: ((T.f(2, 3) * 1,), {}), lambda T: ((T.f(2, 3),), {})],
    "bernoulli": [lambda T: ((T.f(2, 3) * 0 + 0.5,), {})],
    "bernoulli.p": [lambda T: ((T.f(2, 3), 0.25), {})],
    "bernoulli_.float": [lambda T: ((T.f(2, 3) * 1, 0.25), {}), lambda T: ((T.f(2, 3),), {})],
    "bernoulli_.Tensor": [
        lambda T: ((T.f(2, 3) * 1, T.f(3) * 0 + 0.5), {}),
        lambda T: ((T.f(2, 3), T.c(3) * 0 + 0.5), {}),
    ],
    "resize_": [lambda T: ((T.f(2, 3) * 1, [6]), {}), lambda T: ((T.c(2, 3), [6]), {})],
    "set_": [lambda T: ((T.f(2, 3) * 1,), {}), lambda T: ((T.c(2, 3),), {})],
    "set_.source_Tensor": [
        lambda T: ((T.c(2, 3), T.f(6)), {}),
        lambda T: ((T.f(2, 3) * 1, T.c(6)), {}),
        lambda T: ((T.f(2, 3), T.c(6)), {}),
    ],
    "set_.source_Tensor_storage_offset": [lambda T: ((T.c(2, 3), T.f(6), 1, [2, 2], [1, 2]), {})],
    "set_.source_Storage": [lambda T: ((T.c(2, 3), T.c(6).untyped_storage()), {})],
    "set_.source_Storage_storage_offset": [
        lambda T: ((T.c(2, 3), T.c(6).untyped_storage(), 2, [2, 2]), {}),
        lambda T: ((T.f(2, 3) * 1, T.c(6).untyped_storage(), 2, [2, 2]), {}),
    ],
    # no kernel but a CUDA one; on meta the fallback's refusal (on cpu the missing-kernel
    # error, whose registration list ember's Tracer fallback prints otherwise)
    "record_stream": [lambda T: ((T.c(2, 3).to("meta"), T.lib.Stream()), {})],
    # out_dtype overloads: PyTorch has no CPU kernel for them; the meta ones shape the result
    "mm.dtype": [
        lambda T: ((T.f(2, 3).to("meta"), T.f(3, 2).to("meta"), T.lib.float64), {}),
        lambda T: ((T.f(2, 3).to("meta"), T.f(3, 2).to("meta"), T.lib.float32), {}),
    ],
    "mm.dtype_out": [
        lambda T: ((T.c(2, 3).to("meta"), T.c(3, 2).to("meta"), T.lib.float64), _meta_out(T)),
    ],
    "bmm.dtype": [
        lambda T: ((T.f(1, 2, 3).to("meta"), T.f(1, 3, 2).to("meta"), T.lib.float64), {}),
    ],
    "bmm.dtype_out": [
        lambda T: ((T.c(1, 2, 3).to("meta"), T.c(1, 3, 2).to("meta"), T.lib.float64), _meta_out(T)),
    ],
    "addmm.dtype": [
        lambda T: (
            (T.f(2, 2).to("meta"), T.f(2, 3).to("meta"), T.f(3, 2).to("meta"), T.lib.float64),
            {},
        ),
    ],
    "addmm.dtype_out": [
        lambda T: (
            (T.c(2, 2).to("meta"), T.c(2, 3).to("meta"), T.c(3, 2).to("meta"), T.lib.float64),
            _meta_out(T),
        ),
    ],
    # the factories' out= overloads: a constant out, and one that requires grad (refused)
    "zeros.out": [lambda T: (([2, 3],), {"out": T.c(3)}), lambda T: (([2],), {"out": T.f(2)})],
    "ones.out": [lambda T: (([2, 3],), {"out": T.c(3)}), lambda T: (([2],), {"out": T.f(2)})],
    "full.out": [
        lambda T: (([2, 3], 1.5), {"out": T.c(3)}),
        lambda T: (([2], 1.5), {"out": T.f(2)}),
    ],
    "empty.out": [lambda T: (([2, 3],), {"out": T.c(3)}), lambda T: (([2],), {"out": T.f(2)})],
    "rand.out": [lambda T: (([2, 3],), {"out": T.c(3)}), lambda T: (([2],), {"out": T.f(2)})],
    "rand.generator_out": [lambda T: (([2, 3],), {"generator": None, "out": T.c(3)})],
    "randn.out": [lambda T: (([2, 3],), {"out": T.c(3)}), lambda T: (([2],), {"out": T.f(2)})],
    "randn.generator_out": [lambda T: (([2, 3],), {"generator": None, "out": T.c(3)})],
    "randint.out": [
        lambda T: ((5, [2, 3]), {"out": T.c(3)}),
        lambda T: ((5, [2]), {"out": T.f(2)}),
    ],
    "randint.low_out": [lambda T: ((1, 5, [2, 3]), {"out": T.c(3)})],
    "randperm.out": [lambda T: ((5,), {"out": T.c(3)})],
    "linalg_lstsq.out": [
        lambda T: (
            (T.c(4, 3), T.c(4, 2)),
            {"solution": T.c(0), "residuals": T.c(0), "rank": T.l([0]), "singular_values": T.c(0)},
        ),
    ],  # fmt: skip
    "randperm.generator_out": [lambda T: ((5,), {"generator": None, "out": T.c(3)})],
    "randint.generator_out": [lambda T: ((5, [2, 3]), {"generator": None, "out": T.c(3)})],
    "randint.low_generator_out": [
        lambda T: ((1, 5, [2, 3]), {"generator": None, "out": T.c(3)}),
    ],
    "arange.out": [
        lambda T: ((4.0,), {"out": T.c(3)}),
        lambda T: ((4.0,), {"out": T.f(4)}),  # refused: out requires grad
    ],
    "arange.start_out": [
        lambda T: ((1.0, 4.0), {"out": T.c(3)}),
        lambda T: ((1.0, 4.0), {"out": T.f(3)}),  # refused: out requires grad
        lambda T: ((1.0, 4.0), {"out": T.f(3) * 1}),  # NotImplemented
    ],
    "linspace.out": [
        lambda T: ((0.0, 1.0, 3), {"out": T.c(3)}),
        lambda T: ((0.0, 1.0, 3), {"out": T.f(3)}),
    ],
}

for _name in ("eq", "ne", "ge", "le", "gt", "lt"):
    S[f"{_name}.Scalar"] = [_scalar(0.5)]
    S[f"{_name}.Tensor"] = [_binary]


# Integral operators (no gradients): int64 operands, and a float one (refused in both).
def _ints(T):
    return T.l([[1, 6, 3], [4, 5, 12]])


for _name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    S[f"{_name}.Tensor"] = [lambda T: ((_ints(T), _ints(T)), {}), _binary]
    S[f"{_name}.Scalar"] = [lambda T: ((_ints(T), 3), {})]
    S[f"{_name}.Scalar_Tensor"] = [lambda T: ((3, _ints(T)), {})]
for _name in ("__and__", "__or__", "__xor__", "__lshift__", "__rshift__"):
    S[f"{_name}.Tensor"] = [lambda T: ((_ints(T), T.l([[1, 2, 0], [3, 1, 2]])), {})]
    S[f"{_name}.Scalar"] = [lambda T: ((_ints(T), 2), {})]
    inplace = f"__i{_name[2:]}"
    S[f"{inplace}.Tensor"] = [lambda T: ((_ints(T), T.l([[1, 2, 0], [3, 1, 2]])), {})]
    S[f"{inplace}.Scalar"] = [lambda T: ((_ints(T), 2), {})]
for _name in ("bitwise_left_shift", "bitwise_right_shift"):
    S[f"{_name}.Tensor"] = [lambda T: ((_ints(T), T.l([[1, 2, 0], [3, 1, 2]])), {})]
    S[f"{_name}.Tensor_Scalar"] = [lambda T: ((_ints(T), 2), {})]
    S[f"{_name}.Scalar_Tensor"] = [lambda T: ((3, T.l([[1, 2, 0], [3, 1, 2]])), {})]
S["bitwise_not"] = [lambda T: ((_ints(T),), {}), _unary]
S["logical_xor"] = [_binary]
S["reciprocal"] = [_unary]
S["rsub.Tensor"] = [lambda T: ((T.f(2, 3), T.f(2, 3)), {"alpha": 2})]
S["rsub.Scalar"] = [_scalar(2.0)]
# The aliases of mul, sub and div (composite: they call their target) share its samples.
for _alias, _target in (("multiply", "mul"), ("subtract", "sub"), ("divide", "div"),
                        ("true_divide", "div")):  # fmt: skip
    for _overload in ("Tensor", "Scalar", "Tensor_mode", "Scalar_mode"):
        if f"{_target}.{_overload}" in S and not (_alias == "true_divide" and "mode" in _overload):
            S[f"{_alias}.{_overload}"] = S[f"{_target}.{_overload}"]

# addcmul, addcdiv, lerp (wOPTIM): broadcast operands, a non-unit value / weight
S["addcmul"] = [lambda T: ((T.f(2, 3), T.f(3), T.f(2, 1)), {"value": 0.5})]
S["addcdiv"] = [lambda T: ((T.f(2, 3), T.f(3), T.p(2, 1)), {"value": 0.5})]
S["lerp.Scalar"] = [
    lambda T: ((T.f(2, 3), T.f(2, 3), 0.25), {}),
    lambda T: ((T.f(2, 3), T.f(3), 0.75), {}),
]
S["lerp.Tensor"] = [lambda T: ((T.f(2, 3), T.f(2, 3), T.u(2, 3)), {})]

SAMPLES = S

# Random or uninitialised results: only metadata is compared.
NO_VALUES = frozenset({
    "empty.memory_format", "empty_like", "empty_strided", "new_empty", "new_empty_strided",
    "rand", "rand.generator", "rand_like", "randint", "randint.low", "randint.generator",
    "randint.low_generator", "randn", "randn.generator", "randn_like", "mm.dtype", "mm.dtype_out",
    "bmm.dtype", "bmm.dtype_out", "addmm.dtype", "addmm.dtype_out", "empty.out", "rand.out",
    "baddbmm.dtype", "baddbmm.dtype_out",
    "rand.generator_out", "randn.out", "randn.generator_out", "randint.out", "randint.low_out",
    "randint.generator_out", "randint.low_generator_out", "uniform_", "normal_", "random_.from",
    "random_.to", "random_", "bernoulli", "bernoulli.p", "bernoulli_.float", "bernoulli_.Tensor",
    "bernoulli.out",
    "randperm", "randperm.generator",
    "randperm.out", "randperm.generator_out", "randint_like", "randint_like.generator",
    "randint_like.Tensor", "randint_like.Tensor_generator", "randint_like.low_dtype",
    "randint_like.low_generator_dtype", "_efficientzerotensor",
})  # fmt: skip

# --- wNN: embedding, bilinear, the dropout family ---
S["embedding"] = [
    lambda T: ((T.f(5, 3), T.l([[1, 2], [4, 1]])), {}),
    lambda T: ((T.f(5, 3), T.l([0, 3, 3]), 3, True), {}),
]
S["embedding_backward"] = [lambda T: ((T.f(2, 3), T.l([1, 1]), 4, -1, False, False), {})]
S["embedding_dense_backward"] = [
    lambda T: ((T.f(3, 2), T.l([1, 3, 1]), 5, 3, False), {}),
    lambda T: ((T.f(3, 2), T.l([1, 3, 1]), 5, -1, True), {}),
]
S["embedding_renorm_"] = [lambda T: ((T.c(4, 3), T.l([0, 2, 2]), 1.0, 2.0), {})]
S["_trilinear"] = [
    lambda T: ((T.f(2, 3), T.f(4, 3, 2), T.f(2, 2), [1, 3], [0], [1, 2], [2, 3]), {}),
]
S["bilinear"] = [
    lambda T: ((T.f(2, 3), T.f(2, 2), T.f(4, 3, 2), T.f(4)), {}),
    lambda T: ((T.f(2, 2, 3), T.f(2, 2, 2), T.f(4, 3, 2)), {}),
]
for _name in ("dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout"):
    S[_name] = [
        lambda T: ((T.f(2, 3, 2), 0.5, False), {}),
        lambda T: ((T.f(2, 3, 2), 1.0, True), {}),
        lambda T: ((T.f(2, 3, 2), 0.0, True), {}),
    ]
    S[f"{_name}_"] = [
        lambda T: ((T.f(2, 3, 2) * 1, 0.5, False), {}),
        lambda T: ((T.f(2, 3, 2) * 1, 1.0, True), {}),
    ]

# --- wELEM: elementwise operators and torch.special ---
for _name in ("floor", "ceil", "trunc", "fix", "round", "frac", "sgn", "signbit", "positive",
              "square", "exp2", "sinc", "deg2rad", "rad2deg", "erf", "erfc", "lgamma",
              "digamma", "i0", "nan_to_num", "isinf", "isfinite", "isposinf", "isneginf",
              "isreal", "asinh", "atanh", "arcsinh", "arctanh", "arccos", "arcsin", "arctan",
              "absolute", "negative"):  # fmt: skip
    S[_name] = [_unary]
for _name in ("erfinv", "logit", "arccos", "arcsin", "atanh", "arctanh"):
    S[_name] = [lambda T: ((T.u(2, 3),), {})]
for _name in ("acosh", "arccosh", "mvlgamma"):
    S[_name] = [lambda T: ((T.p(2, 3) + 1,), {})]
S["mvlgamma"] = [lambda T: ((T.p(2, 3) + 1, 2), {})]
S["mvlgamma_"] = [lambda T: ((T.p(2, 3) * 1 + 1, 2), {}), lambda T: ((T.p(2, 3) + 1, 2), {})]
S["round.decimals"] = [lambda T: ((T.f(2, 3),), {"decimals": 1})]
S["logit"] = [lambda T: ((T.u(2, 3),), {}), lambda T: ((T.u(2, 3),), {"eps": 0.25})]
S["nan_to_num"] = [_unary, lambda T: ((T.f(2, 3) / 0,), {"nan": 1.5, "posinf": 2.0})]
S["polygamma"] = [lambda T: ((1, T.p(2, 3)), {}), lambda T: ((2, T.p(2, 3)), {})]
S["polygamma_"] = [lambda T: ((T.p(2, 3) * 1, 1), {}), lambda T: ((T.p(2, 3), 1), {})]
for _name in ("special_erfcx", "special_i0e", "special_i1", "special_i1e", "special_entr",
              "special_bessel_j0", "special_bessel_j1", "special_modified_bessel_i0",
              "special_modified_bessel_i1", "special_spherical_bessel_j0", "special_ndtr",
              "special_expm1", "special_exp2", "special_psi", "special_digamma",
              "special_gammaln", "special_erf", "special_erfc", "special_i0", "special_expit",
              "special_sinc", "special_round"):  # fmt: skip
    S[_name] = [_unary]
for _name in ("special_bessel_y0", "special_bessel_y1", "special_modified_bessel_k0",
              "special_modified_bessel_k1", "special_scaled_modified_bessel_k0",
              "special_scaled_modified_bessel_k1", "special_log1p", "special_log_ndtr"):  # fmt: skip
    S[_name] = [_positive]
S["special_ndtri"] = [lambda T: ((T.u(2, 3) * 0.5 + 0.5,), {})]
S["special_erfinv"] = S["special_logit"] = [lambda T: ((T.u(2, 3),), {})]
S["special_polygamma"] = [lambda T: ((1, T.p(2, 3)), {})]
S["special_multigammaln"] = [lambda T: ((T.p(2, 3) + 1, 2), {})]
S["special_softmax"] = S["special_log_softmax"] = [lambda T: ((T.f(2, 3), 1), {})]
S["special_logsumexp"] = [lambda T: ((T.f(2, 3), [1]), {})]
for _name in ("atan2", "arctan2", "hypot", "copysign.Tensor", "fmod.Tensor", "logaddexp",
              "logaddexp2", "nextafter", "fmax", "fmin", "clamp_min.Tensor",
              "clamp_max.Tensor", "heaviside", "ldexp.Tensor"):  # fmt: skip
    S[_name] = [_binary]
for _name in ("xlogy.Tensor", "special_xlogy", "special_xlog1py", "igamma", "igammac",
              "special_gammainc", "special_gammaincc", "float_power.Tensor_Tensor"):  # fmt: skip
    S[_name] = [lambda T: ((T.p(2, 3), T.p(2, 3)), {})]
S["special_zeta"] = [lambda T: ((T.p(2, 3) + 1, T.p(2, 3)), {})]
S["special_zeta.self_scalar"] = [lambda T: ((2.5, T.p(2, 3)), {})]
S["special_zeta.other_scalar"] = [lambda T: ((T.p(2, 3) + 1, 1.5), {})]
for _name in (
    "copysign.Scalar",
    "fmod.Scalar",
    "clamp_min",
    "clamp_max",
    "float_power.Tensor_Scalar",
):
    S[_name] = [_scalar(0.5)]
for _name in ("xlogy.Scalar_Self", "special_xlogy.self_scalar", "special_xlog1py.self_scalar",
              "float_power.Scalar"):  # fmt: skip
    S[_name] = [lambda T: ((2.0, T.p(2, 3)), {})]
for _name in ("xlogy.Scalar_Other", "special_xlogy.other_scalar", "special_xlog1py.other_scalar"):
    S[_name] = [lambda T: ((T.p(2, 3), 2.0), {})]
S["gcd"] = S["lcm"] = [lambda T: ((T.l([4, 6, 9]), T.l([6, 4, 3])), {})]
S["ldexp_"] = [
    lambda T: ((T.f(2, 3) * 1, T.l([1, 2, 3])), {}),
    lambda T: ((T.f(2, 3), T.l([1, 2, 3])), {}),
]
S["float_power_.Tensor"] = [lambda T: ((T.p(2, 3) * 1, T.p(2, 3)), {})]
S["float_power_.Scalar"] = [lambda T: ((T.p(2, 3) * 1, 2.0), {})]
S["special_airy_ai"] = [_unary]
for _name in ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
              "chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
              "laguerre_polynomial_l", "legendre_polynomial_p"):  # fmt: skip
    S[f"special_{_name}"] = [lambda T: ((T.u(2, 3), T.l([[0, 1, 2], [3, 4, 5]])), {})]
    S[f"special_{_name}.x_scalar"] = [lambda T: ((0.5, T.l([[0, 1, 2], [3, 4, 5]])), {})]
    S[f"special_{_name}.n_scalar"] = [lambda T: ((T.u(2, 3), 3), {})]
S["frexp.Tensor"] = [_unary]
S["angle"] = [_unary]
S["isin.Tensor_Tensor"] = [lambda T: ((T.l([1, 2, 3, 4]), T.l([2, 4])), {})]
S["isin.Tensor_Scalar"] = [lambda T: ((T.l([1, 2, 3, 4]), 2), {"invert": True})]
S["isin.Scalar_Tensor"] = [lambda T: ((3, T.l([1, 2, 3, 4])), {})]

from op_samples_shapeidx import SHAPEIDX_SAMPLES  # noqa: E402 (the wSHAPEIDX operators)

SAMPLES.update(SHAPEIDX_SAMPLES)

# wNORMACT: the activations and their backward operators.
S["elu"] = [_unary, lambda T: ((T.f(2, 3), 0.5, 1.5, 2.0), {})]
S["elu_backward"] = [
    lambda T: ((T.f(2, 3), 1.0, 1.0, 1.0, False, T.f(2, 3)), {}),
    lambda T: ((T.f(2, 3), 0.5, 1.5, 2.0, True, T.f(2, 3)), {}),
]
S["celu"] = [_unary, _scalar(0.5)]
S["selu"] = [_unary]
S["leaky_relu"] = [_unary, _scalar(0.2)]
S["leaky_relu_backward"] = [lambda T: ((T.f(2, 3), T.f(2, 3), 0.2, False), {})]
S["hardtanh"] = [_unary, lambda T: ((T.f(2, 3), -0.5, 1.5), {})]
S["hardtanh_backward"] = [lambda T: ((T.f(2, 3), T.f(2, 3), -0.5, 1.5), {})]
S["relu6"] = [lambda T: ((T.f(2, 3) * 4,), {})]
S["softplus"] = [_unary, lambda T: ((T.f(2, 3), 2.0, 1.0), {})]
S["softplus_backward"] = [lambda T: ((T.f(2, 3), T.f(2, 3), 2.0, 1.0), {})]
for _name in ("silu", "mish", "hardswish", "hardsigmoid"):
    S[_name] = [lambda T: ((T.f(2, 3) * 2,), {})]
    S[f"{_name}_backward"] = [lambda T: ((T.f(2, 3), T.f(2, 3) * 2), {})]
S["softshrink"] = [_unary, _scalar(1.0)]
S["softshrink_backward"] = [lambda T: ((T.f(2, 3), T.f(2, 3), 1.0), {})]
S["hardshrink"] = [_unary, _scalar(1.0)]
S["hardshrink_backward"] = [lambda T: ((T.f(2, 3), T.f(2, 3), 1.0), {})]
S["threshold"] = [lambda T: ((T.f(2, 3), 0.5, -1.0), {})]
S["glu"] = [lambda T: ((T.f(2, 4),), {}), lambda T: ((T.f(4, 3), 0), {})]
S["glu_backward"] = [lambda T: ((T.f(2, 2), T.f(2, 4), 1), {})]
S["log_sigmoid"] = [_unary]
S["log_sigmoid_forward"] = [_unary]
S["log_sigmoid_backward"] = [lambda T: ((T.f(2, 3), T.f(2, 3), T.p(2, 3)), {})]
S["prelu"] = [lambda T: ((T.f(2, 3), T.f(3)), {}), lambda T: ((T.f(2, 3), T.f(1)), {})]
S["_prelu_kernel"] = [lambda T: ((T.f(2, 3), T.f(1, 3)), {})]
S["_prelu_kernel_backward"] = [lambda T: ((T.f(2, 3), T.f(2, 3), T.f(1, 3)), {})]
S["gelu_backward"] = [_binary, lambda T: ((T.f(2, 3), T.f(2, 3)), {"approximate": "tanh"})]

# wNORMACT: the normalisations.
S["native_layer_norm"] = [lambda T: ((T.f(2, 3), [3], T.f(3), T.f(3), 1e-5), {})]
S["layer_norm"] = [lambda T: ((T.f(2, 3), [3]), {})]
S["native_layer_norm_backward"] = [
    lambda T: ((T.c(2, 3), T.c(2, 3), [3], T.c(2, 1), T.c(2, 1).abs(), T.c(3), T.c(3),
                [True, True, True]), {}),
]  # fmt: skip
S["native_batch_norm"] = [
    lambda T: ((T.f(3, 2), T.f(2), T.f(2), T.c(2), T.c(2).abs(), True, 0.1, 1e-5), {}),
    lambda T: ((T.f(3, 2), None, None, T.c(2), T.c(2).abs(), False, 0.1, 1e-5), {}),
]
S["batch_norm"] = [lambda T: ((T.f(3, 2), None, None, None, None, True, 0.1, 1e-5, False), {})]
S["instance_norm"] = [
    lambda T: ((T.f(2, 2, 3), None, None, None, None, True, 0.1, 1e-5, False), {})
]
S["native_batch_norm_backward"] = [
    lambda T: ((T.c(3, 2), T.c(3, 2), T.c(2), None, None, T.c(2), T.c(2).abs(), True, 1e-5,
                [True, True, True]), {}),
]  # fmt: skip
S["native_group_norm"] = [lambda T: ((T.f(2, 4, 3), T.f(4), T.f(4), 2, 4, 3, 2, 1e-5), {})]
S["native_group_norm_backward"] = [
    lambda T: ((T.c(2, 4, 3), T.c(2, 4, 3), T.c(2, 2), T.c(2, 2).abs(), T.c(4), 2, 4, 3, 2,
                [True, True, True]), {}),
]  # fmt: skip
S["group_norm"] = [lambda T: ((T.f(2, 4, 3), 2), {})]
S["rms_norm"] = [lambda T: ((T.f(2, 3), [3], T.f(3)), {})]

# wNORMACT: the losses.
for _name in ("l1_loss", "smooth_l1_loss", "huber_loss"):
    S[_name] = [lambda T: ((T.f(2, 3), T.f(2, 3)), {}), lambda T: ((T.f(2, 3), T.c(2, 3), 0), {})]
S["soft_margin_loss"] = [lambda T: ((T.f(2, 3), T.c(2, 3).sign()), {})]
S["smooth_l1_loss_backward"] = [lambda T: ((T.f(), T.f(2, 3), T.f(2, 3), 1, 0.5), {})]
S["huber_loss_backward"] = [lambda T: ((T.f(2, 3), T.f(2, 3), T.f(2, 3), 0, 0.5), {})]
S["soft_margin_loss_backward"] = [lambda T: ((T.f(), T.f(2, 3), T.c(2, 3).sign(), 1), {})]
S["binary_cross_entropy"] = [lambda T: ((T.u(2, 3).abs(), T.u(2, 3).abs().detach()), {})]
S["binary_cross_entropy_backward"] = [
    lambda T: ((T.f(), T.u(2, 3).abs(), T.u(2, 3).abs().detach()), {})
]
S["binary_cross_entropy_with_logits"] = [
    lambda T: ((T.f(2, 3), T.u(2, 3).abs()), {}),
    lambda T: ((T.f(2, 3), T.c(2, 3).abs(), T.c(3).abs(), T.c(3).abs()), {}),
]
S["kl_div"] = [lambda T: ((T.f(2, 3), T.f(2, 3)), {"log_target": True})]
S["poisson_nll_loss"] = [lambda T: ((T.f(2, 3), T.p(2, 3).detach(), True, False, 1e-8, 1), {})]
S["pairwise_distance"] = [lambda T: ((T.f(2, 3), T.f(2, 3)), {})]

# wNORMACT: attention.
S["scaled_dot_product_attention"] = [
    lambda T: ((T.f(2, 4, 3), T.f(2, 5, 3), T.f(2, 5, 3)), {}),
    lambda T: ((T.f(1, 2, 4, 3), T.f(1, 2, 4, 3), T.f(1, 2, 4, 3)), {"is_causal": True}),
]
S["_scaled_dot_product_attention_math"] = [
    lambda T: ((T.f(2, 4, 3), T.f(2, 5, 3), T.f(2, 5, 3)), {"scale": 0.5}),
]
S["_scaled_dot_product_flash_attention_for_cpu"] = [
    lambda T: ((T.f(1, 2, 4, 3), T.f(1, 2, 5, 3), T.f(1, 2, 5, 3)), {"attn_mask": T.c(4, 5)}),
]
S["_scaled_dot_product_flash_attention_for_cpu_backward"] = [
    lambda T: ((T.c(1, 2, 4, 3), T.c(1, 2, 4, 3), T.c(1, 2, 5, 3), T.c(1, 2, 5, 3),
                T.c(1, 2, 4, 3), T.c(1, 2, 4), 0.0, False), {}),
]  # fmt: skip
S["_safe_softmax"] = [lambda T: ((T.f(2, 3), 1), {})]

# --- wCONV: convolution and padding ---
_conv_x = lambda T: T.f(1, 2, 5)  # noqa: E731
S["convolution"] = [
    lambda T: ((T.f(1, 2, 5, 4), T.f(3, 2, 2, 2), T.f(3), [2, 1], [1, 0], [1, 2], False, [0], 1), {}),
    lambda T: ((T.f(1, 2, 3), T.f(2, 1, 2), None, [2], [0], [1], True, [1], 2), {}),
]  # fmt: skip
S["convolution_backward"] = [
    lambda T: (
        (T.f(1, 3, 3, 3), T.f(1, 2, 4, 4), T.f(3, 2, 2, 2), [3], [1, 1], [0, 0], [1, 1], False,
         [0, 0], 1, [True, True, True]),
        {},
    ),
]  # fmt: skip
S["_convolution_mode"] = [lambda T: ((_conv_x(T), T.f(2, 2, 2), None, [1], "same", [1], 1), {})]
S["conv1d"] = [lambda T: ((_conv_x(T), T.f(3, 2, 2), T.f(3)), {"stride": [2]})]
S["conv2d"] = [lambda T: ((T.f(2, 4, 4), T.f(3, 2, 2, 2)), {"padding": [1, 1]})]
S["conv3d"] = [lambda T: ((T.f(1, 2, 3, 3, 3), T.f(2, 2, 2, 2, 2)), {})]
S["conv1d.padding"] = [lambda T: ((_conv_x(T), T.f(3, 2, 3)), {"padding": "same"})]
S["conv2d.padding"] = [lambda T: ((T.f(1, 2, 4, 4), T.f(3, 2, 2, 2)), {"padding": "valid"})]
S["conv3d.padding"] = [lambda T: ((T.f(1, 2, 3, 3, 3), T.f(2, 2, 3, 1, 3)), {"padding": "same"})]
S["conv_transpose1d"] = [lambda T: ((_conv_x(T), T.f(2, 3, 2)), {"stride": [2]})]
S["conv_transpose2d.input"] = [lambda T: ((T.f(1, 2, 3, 3), T.f(2, 2, 2, 2), T.f(2)), {})]
S["conv_transpose3d.input"] = [lambda T: ((T.f(1, 2, 2, 2, 2), T.f(2, 1, 2, 2, 2)), {})]
S["constant_pad_nd"] = [
    lambda T: ((T.f(2, 3), [1, 2]), {}),
    lambda T: ((T.f(2, 3, 4), [1, -1, 0, 2], 1.5), {}),
]
S["pad"] = [lambda T: ((T.f(1, 2, 3), [1, 2]), {"mode": "reflect"})]
S["_pad_circular"] = [lambda T: ((T.f(1, 2, 3, 4), [1, 2, 2, 0]), {})]
for _kind in ("reflection", "replication"):
    for _d, _shape, _pad in ((1, (1, 2, 4), [1, 2]), (2, (1, 3, 4), [1, 2, 0, 1]),
                             (3, (1, 3, 3, 4), [1, 0, 2, 1, 1, 2])):  # fmt: skip
        S[f"{_kind}_pad{_d}d"] = [lambda T, s=_shape, p=_pad: ((T.f(*s), p), {})]
        _out = tuple(
            s + _pad[2 * i] + _pad[2 * i + 1] for i, s in enumerate(reversed(_shape[-_d:]))
        )
        _out = _shape[:-_d] + tuple(reversed(_out))
        S[f"{_kind}_pad{_d}d_backward"] = [
            lambda T, s=_shape, p=_pad, o=_out: ((T.f(*o), T.f(*s), p), {})
        ]

# --- wCONV: pooling ---
_pool_x = lambda T: T.f(1, 2, 5, 4)  # noqa: E731
S["max_pool1d_with_indices"] = [lambda T: ((T.f(2, 5), [2]), {})]
S["max_pool1d"] = [lambda T: ((T.f(1, 2, 5), [2], [1]), {})]
S["max_pool2d"] = [lambda T: ((_pool_x(T), [2, 2], [1, 2], [1, 1]), {})]
S["max_pool3d"] = [lambda T: ((T.f(1, 2, 3, 3, 3), [2, 2, 2]), {})]
S["max_pool2d_with_indices"] = [lambda T: ((_pool_x(T), [3, 2], [2, 1], [1, 0], [1, 1], True), {})]
S["max_pool3d_with_indices"] = [lambda T: ((T.f(2, 3, 3, 3), [2, 2, 2]), {})]
S["max_pool2d_with_indices_backward"] = [
    lambda T: (
        (
            T.f(1, 2, 2, 2),
            _pool_x(T),
            [2, 2],
            [2, 2],
            [0, 0],
            [1, 1],
            False,
            T.l([[[[0, 2], [9, 11]], [[4, 6], [13, 15]]]]),
        ),
        {},
    )  # fmt: skip
]
S["max_pool3d_with_indices_backward"] = [
    lambda T: (
        (
            T.f(1, 1, 1, 1),
            T.f(1, 2, 2, 2),
            [2, 2, 2],
            [2, 2, 2],
            [0, 0, 0],
            [1, 1, 1],
            False,
            T.l([[[[5]]]]),
        ),
        {},
    )  # fmt: skip
]
S["avg_pool1d"] = [lambda T: ((T.f(1, 2, 5), [2], [1], [1], True, False), {})]
S["avg_pool2d"] = [lambda T: ((_pool_x(T), [3, 2], [2, 1], [1, 0], True, False, None), {})]
S["avg_pool3d"] = [
    lambda T: ((T.f(2, 3, 3, 3), [2, 2, 2], [1, 1, 1], [1, 0, 1], False, True, 3), {})
]
S["avg_pool2d_backward"] = [
    lambda T: ((T.f(1, 2, 2, 2), _pool_x(T), [2, 2], [2, 2], [0, 0], False, True, None), {})
]
S["avg_pool3d_backward"] = [
    lambda T: (
        (T.f(1, 1, 1, 1), T.f(1, 2, 2, 2), [2, 2, 2], [2, 2, 2], [0, 0, 0], False, True, None),
        {},
    )  # fmt: skip
]
S["adaptive_avg_pool1d"] = [lambda T: ((T.f(1, 2, 5), [3]), {})]
S["adaptive_avg_pool2d"] = [
    lambda T: ((_pool_x(T), [3, 2]), {}),
    lambda T: ((_pool_x(T), [1, 1]), {}),
]
S["_adaptive_avg_pool2d"] = [lambda T: ((_pool_x(T), [3, 3]), {})]
S["_adaptive_avg_pool2d_backward"] = [lambda T: ((T.f(1, 2, 3, 3), _pool_x(T)), {})]
S["adaptive_max_pool1d"] = [lambda T: ((T.f(2, 5), [3]), {})]
S["adaptive_max_pool2d"] = [lambda T: ((_pool_x(T), [3, 2]), {})]
S["adaptive_max_pool2d_backward"] = [
    lambda T: ((T.f(1, 2, 1, 1), _pool_x(T), T.l([[[[3]], [[17]]]])), {})
]

# --- wCONV: upsampling ---
for _d, _names in ((1, ("upsample_nearest1d", "_upsample_nearest_exact1d", "upsample_linear1d")),
                   (2, ("upsample_nearest2d", "_upsample_nearest_exact2d", "upsample_bilinear2d",
                        "upsample_bicubic2d")),
                   (3, ("upsample_nearest3d", "_upsample_nearest_exact3d"))):  # fmt: skip
    _in = (1, 2) + (3,) * _d
    _outs = [5] * _d
    for _name in _names:
        _ac = (True,) if _name.endswith(("linear1d", "bilinear2d", "bicubic2d")) else ()
        _sc = (None,) * _d
        S[_name] = [lambda T, i=_in, o=_outs, a=_ac, s=_sc: ((T.f(*i), o, *a, *s), {})]
        S[f"{_name}.vec"] = [lambda T, i=_in, a=_ac, d=_d: ((T.f(*i), None, *a, [1.5] * d), {})]
        S[f"{_name}_backward"] = [
            lambda T, i=_in, o=_outs, a=_ac, s=_sc: ((T.f(1, 2, *o), o, list(i), *a, *s), {})
        ]
S["upsample_trilinear3d"] = [lambda T: ((T.f(1, 1, 2, 3, 2), [3, 4, 3], False), {})]
S["upsample_trilinear3d.vec"] = [lambda T: ((T.f(1, 1, 2, 3, 2), None, True, [1.5, 2.0, 1.0]), {})]
S["upsample_trilinear3d_backward"] = [
    lambda T: ((T.f(1, 1, 3, 4, 3), [3, 4, 3], [1, 1, 2, 3, 2], False), {})
]
S["im2col"] = [lambda T: ((T.f(1, 2, 4, 5), [2, 3], [1, 1], [1, 0], [2, 1]), {})]
S["col2im"] = [lambda T: ((T.f(1, 8, 4), [4, 5], [2, 2], [1, 1], [0, 0], [2, 2]), {})]
S["pixel_shuffle"] = [lambda T: ((T.f(1, 8, 2, 3), 2), {})]
S["pixel_unshuffle"] = [lambda T: ((T.f(1, 2, 4, 6), 2), {})]

# --- wLINALG: the decompositions (well-conditioned matrices: a leaf plus 4 I) ---


def _square(T, *batch, n=3):
    eye = T.lib.eye(n, dtype=T.lib.float64)
    return T.f(*batch, n, n) + 4 * eye


def _spd(T, n=3):
    x = T.f(n, n)
    return x @ x.mT + n * T.lib.eye(n, dtype=T.lib.float64)


def _separated(T, m, n):
    """A leaf near diag(3, 2, 1, ...): singular values (and eigenvalues) far apart. The signs
    of singular vectors and eigenvectors are the LAPACK build's (PyTorch's MKL, NumPy's
    OpenBLAS), which agree on such matrices but not on every matrix."""
    k = min(m, n)
    scale = T.lib.tensor([[float(k - i) if i == j else 0.0 for j in range(n)] for i in range(m)],
                         dtype=T.lib.float64)  # fmt: skip
    return 0.125 * T.f(m, n) + scale


def _separated_spd(T, n=3):
    x = _separated(T, n, n)
    return x @ x.mT


def _square1(T):
    return (_square(T),), {}


for _name in ("_linalg_det", "linalg_det", "det", "_linalg_slogdet", "linalg_slogdet",
              "slogdet", "logdet", "linalg_inv_ex", "linalg_inv", "inverse"):  # fmt: skip
    S[_name] = [_square1, lambda T: ((_square(T, 2),), {})]
S["_linalg_check_errors"] = [
    lambda T: ((T.lib.zeros(2, dtype=T.lib.int32), "linalg.inv"), {"is_matrix": False}),
    lambda T: ((T.lib.tensor([0, 2], dtype=T.lib.int32), "linalg.inv"), {"is_matrix": False}),
]
for _name in ("_linalg_solve_ex", "linalg_solve_ex", "linalg_solve"):
    S[_name] = [
        lambda T: ((_square(T), T.f(3, 2)), {}),
        lambda T: ((_square(T, 2), T.f(3)), {}),
        lambda T: ((_square(T), T.f(2, 3)), {"left": False}),
    ]
for _name in ("linalg_cholesky_ex", "linalg_cholesky"):
    S[_name] = [lambda T: ((_spd(T),), {}), lambda T: ((_spd(T),), {"upper": True})]
S["linalg_qr"] = [
    lambda T: ((T.f(4, 3),), {}),
    lambda T: ((T.f(3, 4),), {"mode": "complete"}),
    lambda T: ((T.c(3, 3),), {"mode": "r"}),
]
S["qr"] = [lambda T: ((T.f(4, 3),), {}), lambda T: ((T.f(3, 3), False), {})]
S["_linalg_svd"] = [
    lambda T: ((_separated(T, 5, 3),), {}),
    lambda T: ((_separated(T, 3, 4), True), {}),
    lambda T: ((T.f(3, 3), False, False), {}),
]
S["linalg_svd"] = [lambda T: ((_separated(T, 5, 3),), {"full_matrices": False})]
S["linalg_svdvals"] = [lambda T: ((T.f(3, 4),), {})]
S["svd"] = [lambda T: ((_separated(T, 5, 3),), {}), lambda T: ((T.f(3, 4), True, False), {})]
S["_linalg_eigh"] = [
    lambda T: ((_separated_spd(T),), {}),
    lambda T: ((_spd(T), "U", False), {}),
]
S["linalg_eigh"] = [lambda T: ((_separated_spd(T),), {"UPLO": "U"})]
S["linalg_eigvalsh"] = [lambda T: ((_spd(T),), {})]
S["linalg_norm"] = [
    lambda T: ((T.f(2, 3),), {}),
    lambda T: ((T.f(2, 3), 1), {}),
    lambda T: ((T.f(2, 3, 2), -1, [0, 2], True), {}),
]
S["linalg_norm.ord_str"] = [lambda T: ((T.f(2, 3), "nuc"), {})]
S["linalg_matrix_norm"] = [
    lambda T: ((T.f(2, 3), 1), {}),
    lambda T: ((T.f(2, 3, 4), -2, [0, 2], True), {}),
]
S["linalg_matrix_norm.str_ord"] = [lambda T: ((T.f(2, 3),), {}), lambda T: ((T.f(3, 2), "nuc"), {})]
S["linalg_solve_ex.out"] = [
    lambda T: (
        (_square(T), T.f(3, 2)),
        {"result": T.c(0), "info": T.lib.zeros(0, dtype=T.lib.int32)},
    )
]

# --- wLINALG: torch.fft ---


def _c(T, *shape):
    return T.f(*shape).to(T.lib.complex128)


S["_fft_r2c"] = [
    lambda T: ((T.f(2, 5), [1], 0, True), {}),
    lambda T: ((T.f(2, 4), [0, 1], 2, False), {}),
]
S["_fft_c2c"] = [
    lambda T: ((_c(T, 2, 4), [1], 1, True), {}),
    lambda T: ((_c(T, 3), [0], 2, False), {}),
]
S["_fft_c2r"] = [
    lambda T: ((_c(T, 2, 3), [1], 2, 4), {}),
    lambda T: ((_c(T, 3, 3), [0, 1], 0, 5), {}),
]
# Constants where PyTorch takes a path ember cannot record alike: zero-padding a short
# signal (PyTorch's constant_pad_nd, ember's cat) and the conjugate of ifft / ihfft / hfft
# (PyTorch's lazily conjugated view, ConjBackward0; ember has no conjugate bit and records
# ConjPhysicalBackward0).
S["fft_fft"] = [lambda T: ((T.f(2, 5),), {}), lambda T: ((T.f(4), 3, 0, "ortho"), {}),
                lambda T: ((T.c(4), 6), {}), lambda T: ((_c(T, 2, 3),), {"n": 2})]  # fmt: skip
S["fft_rfft"] = [lambda T: ((T.f(2, 5),), {}), lambda T: ((T.f(4), 3, 0, "ortho"), {})]
S["fft_ifft"] = [lambda T: ((_c(T, 2, 3),), {"norm": "forward"}), lambda T: ((T.c(2, 5),), {})]
S["fft_ihfft"] = [lambda T: ((T.c(2, 5),), {}), lambda T: ((T.c(4), 6, 0, "ortho"), {})]
S["fft_irfft"] = [lambda T: ((_c(T, 2, 5),), {}), lambda T: ((_c(T, 4), 5, 0, "forward"), {})]
S["fft_hfft"] = [lambda T: ((T.c(2, 5).to(T.lib.complex128),), {})]
for _name in ("fft2", "ifft2", "rfft2", "fftn", "ifftn", "rfftn"):
    S[f"fft_{_name}"] = [lambda T: ((T.f(2, 3, 4),), {}), lambda T: ((T.f(3, 4), [2, 3]), {})]
for _name in ("ihfft2", "ihfftn"):
    S[f"fft_{_name}"] = [lambda T: ((T.c(2, 3, 4),), {}), lambda T: ((T.c(3, 4), [4, 2]), {})]
for _name in ("irfft2", "irfftn"):
    S[f"fft_{_name}"] = [lambda T: ((_c(T, 2, 3, 4),), {}), lambda T: ((_c(T, 3, 4), [2, 5]), {})]
for _name in ("hfft2", "hfftn"):
    S[f"fft_{_name}"] = [lambda T: ((T.c(2, 3, 4).to(T.lib.complex128),), {})]
S["fft_fftfreq"] = [lambda T: ((5,), {}), lambda T: ((4, 0.5), {"dtype": T.lib.float64})]
S["fft_rfftfreq"] = [lambda T: ((5,), {}), lambda T: ((6, 2.0), {"dtype": T.lib.float64})]
S["fft_fftfreq.out"] = [lambda T: ((5,), {"out": T.c(2)})]
S["fft_rfftfreq.out"] = [lambda T: ((5,), {"out": T.c(2)})]
S["fft_fftshift"] = [lambda T: ((T.f(3, 4),), {}), lambda T: ((T.f(3, 4), [1]), {})]
S["fft_ifftshift"] = [lambda T: ((T.f(3, 5),), {}), lambda T: ((T.f(3, 5), [0]), {})]

# --- wLINALG: matrix_power, diagonal, vecdot, eig ---
for _name in ("linalg_matrix_power", "matrix_power"):
    S[_name] = [
        lambda T: ((T.f(3, 3), 0), {}),
        lambda T: ((T.f(2, 3, 3), 5), {}),
        lambda T: ((_square(T), -2), {}),
        lambda T: ((T.f(3, 3), 3), {}),
    ]
S["linalg_diagonal"] = [lambda T: ((T.f(2, 3, 4),), {}), lambda T: ((T.f(3, 4),), {"offset": 1})]
S["linalg_vecdot"] = [
    lambda T: ((T.f(2, 3), T.f(3)), {}),
    lambda T: ((T.f(2, 3), T.f(2, 3)), {"dim": 0}),
]
# eigenvectors' signs are the LAPACK build's (see _separated): a matrix on which they agree
S["linalg_eig"] = [lambda T: ((_separated(T, 3, 3),), {})]
S["_linalg_eigvals"] = [lambda T: ((T.c(3, 3),), {})]
S["linalg_solve_triangular"] = [
    lambda T: ((_square(T), T.f(3, 2)), {"upper": True}),
    lambda T: ((_square(T, 2), T.f(2, 3)), {"upper": False, "left": False}),
    lambda T: ((_square(T), T.f(3, 2)), {"upper": False, "unitriangular": True}),
]
S["linalg_eigvals"] = [lambda T: ((_separated(T, 3, 3),), {})]

# --- wcopy: the view_copy operators ---
S["expand_copy"] = [lambda T: ((T.f(3, 1), [2, 3, 4]), {}), lambda T: ((T.f(3), [2, -1]), {})]
S["permute_copy"] = [lambda T: ((T.f(2, 3, 4), [2, 0, 1]), {})]
S["as_strided_copy"] = [
    lambda T: ((T.f(3, 3), [2, 2], [1, 2]), {}),
    lambda T: ((T.f(3, 3), [2], [3], 1), {}),
]
S["alias_copy"] = [_unary]
S["narrow_copy"] = [lambda T: ((T.f(4, 3), 0, 1, 2), {}), lambda T: ((T.f(4, 3), -1, -2, 1), {})]
S["view_copy"] = [lambda T: ((T.f(2, 3), [3, 2]), {}), lambda T: ((T.f(2, 3).t(), [-1]), {})]
S["view_copy.dtype"] = [lambda T: ((T.f(2, 3), T.lib.int64), {})]
S["unfold_copy"] = [lambda T: ((T.f(2, 5), 1, 2, 2), {})]
S["squeeze_copy"] = [lambda T: ((T.f(2, 1, 3),), {})]
S["squeeze_copy.dim"] = [lambda T: ((T.f(2, 1, 3), 1), {})]
S["squeeze_copy.dims"] = [lambda T: ((T.f(1, 2, 1), [0, 2]), {})]
S["unsqueeze_copy"] = [lambda T: ((T.f(2, 3), -1), {})]
S["transpose_copy.int"] = [lambda T: ((T.f(2, 3, 4), 0, 2), {})]
S["t_copy"] = [lambda T: ((T.f(2, 3),), {}), lambda T: ((T.f(3),), {})]
S["split_with_sizes_copy"] = [lambda T: ((T.f(5, 3), [2, 3]), {})]
S["unbind_copy.int"] = [lambda T: ((T.f(2, 3), 1), {})]
S["split_with_sizes_copy.out"] = [
    lambda T: ((T.c(5, 3), [2, 3]), {"out": [T.c(2, 3), T.c(0)]}),
    lambda T: ((T.f(5, 3), [2, 3]), {"out": [T.c(2, 3), T.f(3, 3)]}),
]
S["unbind_copy.int_out"] = [
    lambda T: ((T.c(2, 3), 1), {"out": [T.c(2), T.c(0), T.c(5)]}),
    lambda T: ((T.c(2, 3), 0), {"out": [T.f(3), T.c(3)]}),
]

# --- wcopy: scatter, fill, factories and small Tensor methods ---
S["as_strided_scatter"] = [
    lambda T: ((T.f(3, 3), T.f(2, 2), [2, 2], [1, 2], 1), {}),
    lambda T: ((T.f(4), T.f(2), [2], [2]), {}),
]
S["sum_to_size"] = [lambda T: ((T.f(2, 3), [1, 3]), {}), lambda T: ((T.f(2, 3), [3]), {})]
S["reshape_as"] = [lambda T: ((T.f(2, 3), T.c(3, 2)), {})]
S["fill.Scalar"] = [lambda T: ((T.f(2, 3), 1.5), {}), lambda T: ((T.f(2, 3).t(), 2), {})]
S["fill.Tensor"] = [lambda T: ((T.f(2, 3), T.f()), {})]
S["scalar_tensor"] = [lambda T: ((3,), {}), lambda T: ((1.5,), {"dtype": T.lib.float64})]
S["empty_permuted"] = [lambda T: (([2, 3, 4], [2, 0, 1]), {})]
S["resize_as_"] = [
    # as many elements as before: growing would leave new elements uninitialised, which
    # PyTorch fills from whatever its allocator hands back (the comparison would be chance)
    lambda T: ((T.c(6), T.c(2, 3)), {}),
    lambda T: ((T.c(2, 3), T.c(2)), {}),
    lambda T: ((T.f(2) * 1, T.c(3)), {}),
    lambda T: ((T.c(2, 3, 4, 5), T.c(2, 3, 4, 5)), {"memory_format": T.lib.channels_last}),
]
S["matrix_H"] = [lambda T: ((T.f(2, 3),), {})]
S["mH"] = [lambda T: ((T.f(2, 3, 4),), {})]
S["adjoint"] = [lambda T: ((T.f(3, 2),), {})]
S["nonzero_static"] = [
    lambda T: ((T.c(2, 3),), {"size": 4}),
    lambda T: ((T.b(2, 3),), {"size": 8, "fill_value": 5}),
]
S["_chunk_cat"] = [lambda T: (([T.f(2, 3), T.f(2, 5)], 1, 2), {})]
NO_VALUES = NO_VALUES | {"empty_permuted"}

# --- wcomplex ---
for _kind in "tuvw":
    S[f"special_shifted_chebyshev_polynomial_{_kind}"] = [
        lambda T: ((T.c(2, 3) / 4 + 0.5, T.l([[0, 1, 2], [3, 7, 9]])), {})
    ]
    S[f"special_shifted_chebyshev_polynomial_{_kind}.x_scalar"] = [
        lambda T: ((0.25, T.l([[0, 1, 2], [5, 8, 9]])), {})
    ]
    S[f"special_shifted_chebyshev_polynomial_{_kind}.n_scalar"] = [
        lambda T: ((T.c(2, 3) / 4 + 0.5, 3), {})
    ]
S["view_as_real"] = [lambda T: ((T.f(2, 3).to(T.lib.complex128),), {})]
S["view_as_complex"] = [lambda T: ((T.f(3, 2),), {}), lambda T: ((T.f(2, 4, 2)[:, 1:3],), {})]
S["real"] = [lambda T: ((T.f(2, 3).to(T.lib.complex128),), {}), lambda T: ((T.f(2, 3),), {})]
S["imag"] = [lambda T: ((T.f(2, 3).to(T.lib.complex128),), {}), lambda T: ((T.f(2, 3),), {})]
S["complex"] = [lambda T: ((T.f(2, 3), T.f(3)), {})]
S["polar"] = [lambda T: ((T.p(2, 3), T.f(2, 3)), {})]
S["logspace"] = [lambda T: ((0, 3, 4), {}), lambda T: ((1, -2, 5, 2.0), {"dtype": T.lib.float64})]
S["logspace.Tensor_Tensor"] = [lambda T: ((T.c(), T.c(), 4), {})]
S["logspace.Tensor_Scalar"] = [lambda T: ((T.c(), 2, 3, 2.0), {})]
S["logspace.Scalar_Tensor"] = [lambda T: ((1, T.c(), 3), {})]
S["logspace.out"] = [lambda T: ((0, 3, 4), {"out": T.c(4)})]
S["logspace.Tensor_Tensor_out"] = [lambda T: ((T.c(), T.c(), 4), {"out": T.c(4)})]
S["logspace.Tensor_Scalar_out"] = [lambda T: ((T.c(), 2, 3, 2.0), {"out": T.c(3)})]
S["logspace.Scalar_Tensor_out"] = [lambda T: ((1, T.c(), 3), {"out": T.c(2)})]
for _name in ("trapezoid", "trapz", "cumulative_trapezoid"):
    S[f"{_name}.x"] = [
        lambda T: ((T.f(3, 4), T.c(4)), {}),
        lambda T: ((T.f(3, 4), T.f(3, 4)), {"dim": 0}),
    ]
    S[f"{_name}.dx"] = [
        lambda T: ((T.f(3, 4),), {}),
        lambda T: ((T.f(3, 4),), {"dx": 0.5, "dim": 0}),
    ]
S["renorm"] = [
    lambda T: ((T.f(3, 4), 2, 0, 1.0), {}),
    lambda T: ((T.f(2, 3, 2), 1, -1, 0.5), {}),
    lambda T: ((T.f(3, 4), 3, 1, 100.0), {}),
]

# --- wlinalg: LU, Cholesky helpers, triangular_solve, pinv, rank, cond, cross, multi_dot,
# vander, tensorinv, tensorsolve, matrix_exp, geqrf, householder_product, ormqr ---


def _lu(T, m=3, n=3):
    return T.lib.linalg.lu_factor(_square(T) if m == n == 3 else T.c(m, n))


S["linalg_lu_factor"] = [lambda T: ((_square(T),), {}), lambda T: ((T.f(2, 3, 4),), {})]
S["linalg_lu_factor_ex"] = [lambda T: ((_square(T, 2),), {}), lambda T: ((T.f(4, 3),), {})]
S["linalg_lu"] = [lambda T: ((_square(T),), {}), lambda T: ((T.f(3, 4),), {}),
                  lambda T: ((T.f(4, 3),), {})]  # fmt: skip
S["_lu_with_info"] = [lambda T: ((_square(T),), {})]
S["lu_unpack"] = [
    lambda T: ((T.f(3, 3), T.lib.tensor([2, 3, 3], dtype=T.lib.int32)), {}),
    lambda T: ((T.f(4, 3), T.lib.tensor([4, 2, 3], dtype=T.lib.int32), True, False), {}),
]
S["linalg_lu_solve"] = [
    lambda T: (_lu(T) + (T.f(3, 2),), {}),
    lambda T: (_lu(T) + (T.f(2, 3),), {"left": False, "adjoint": True}),
]
S["lu_solve"] = [lambda T: ((T.f(3, 2),) + _lu(T), {})]
for _name in ("cholesky", "cholesky_inverse"):
    S[_name] = [lambda T: ((T.lib.linalg.cholesky(_spd(T)) + 0 * T.f(3, 3),), {}),
                lambda T: ((T.lib.linalg.cholesky(_spd(T), upper=True), True), {})]  # fmt: skip
S["cholesky"] = [lambda T: ((_spd(T),), {}), lambda T: ((_spd(T), True), {})]
S["cholesky_solve"] = [
    lambda T: ((T.f(3, 2), T.lib.linalg.cholesky(_spd(T))), {}),
    lambda T: ((T.f(2, 3, 2), T.lib.linalg.cholesky(_spd(T), upper=True), True), {}),
]
S["_cholesky_solve_helper"] = [lambda T: ((T.c(3, 2), T.lib.linalg.cholesky(_spd(T)), False), {})]
S["triangular_solve"] = [
    lambda T: ((T.f(3, 2), _square(T)), {}),
    lambda T: ((T.f(2, 3, 2), _square(T), False, True, True), {}),
]
S["triangular_solve.X"] = [
    lambda T: ((T.c(3, 2), T.c(3, 3) + 4 * T.lib.eye(3, dtype=T.lib.float64)),
               {"X": T.c(0), "M": T.c(0)}),
]  # fmt: skip
S["linalg_pinv.atol_rtol_tensor"] = [
    lambda T: ((_separated(T, 3, 4),), {}),
    lambda T: ((_separated_spd(T),), {"hermitian": True}),
]
S["linalg_pinv.atol_rtol_float"] = [lambda T: ((_separated(T, 4, 3),), {"rtol": 0.1})]
S["linalg_pinv"] = [lambda T: ((_separated(T, 3, 3), 0.1), {})]
S["linalg_pinv.rcond_tensor"] = [lambda T: ((_separated(T, 3, 3), T.lib.tensor(0.1)), {})]
S["pinverse"] = [lambda T: ((_separated(T, 3, 4),), {})]
S["linalg_matrix_rank.atol_rtol_tensor"] = [lambda T: ((T.c(3, 4),), {})]
S["linalg_matrix_rank.atol_rtol_float"] = [lambda T: ((T.c(3, 3),), {"atol": 0.5})]
S["linalg_matrix_rank"] = [lambda T: ((T.c(3, 3), 0.5), {})]
S["linalg_matrix_rank.tol_tensor"] = [lambda T: ((T.c(3, 3), T.lib.tensor(0.5)), {})]
S["linalg_cond"] = [lambda T: ((_separated(T, 3, 3),), {}), lambda T: ((T.c(3, 3), 1), {})]
S["linalg_cond.p_str"] = [lambda T: ((_separated(T, 3, 3), "nuc"), {})]
S["linalg_cross"] = [lambda T: ((T.f(2, 3), T.f(2, 3)), {}),
                     lambda T: ((T.f(3, 2), T.f(3, 1)), {"dim": 0})]  # fmt: skip
S["cross"] = [lambda T: ((T.f(2, 3), T.f(2, 3), 1), {})]
S["linalg_multi_dot"] = [
    lambda T: (([T.f(3), T.f(3, 2)],), {}),
    lambda T: (([T.f(2, 3), T.f(3, 4), T.f(4)],), {}),
    lambda T: (([T.f(1, 4), T.f(4, 2), T.f(2, 5), T.f(5, 3)],), {}),
]
S["linalg_vander"] = [lambda T: ((T.f(3),), {}), lambda T: ((T.f(2, 2),), {"N": 4})]
# a 1 x 1 inverse: its reshape is a view in both libraries (for larger ones PyTorch reshapes
# the column-major inverse with aten._reshape_alias, ReshapeAliasBackward0, which ember lacks)
S["linalg_tensorinv"] = [lambda T: ((T.f(1, 1, 1) + 2.0,), {"ind": 1})]
S["linalg_tensorsolve"] = [lambda T: ((_square(T, n=4).reshape(2, 2, 4), T.f(2, 2)), {})]
for _name in ("matrix_exp", "linalg_matrix_exp"):
    S[_name] = [lambda T: ((0.25 * T.f(3, 3),), {}), lambda T: ((T.f(2, 2, 2),), {})]
S["geqrf"] = [lambda T: ((T.f(4, 3),), {})]
S["geqrf.a"] = [lambda T: ((T.c(4, 3),), {"a": T.c(0), "tau": T.c(0)})]
S["linalg_householder_product"] = [lambda T: ((T.f(4, 3), 0.5 * T.f(2)), {})]
S["orgqr"] = [lambda T: ((T.f(4, 3), 0.5 * T.f(3)), {})]
S["ormqr"] = [
    lambda T: ((T.f(4, 3), 0.5 * T.f(3), T.f(4, 2)), {}),
    lambda T: ((T.f(3, 3), 0.5 * T.f(3), T.f(2, 3), False, True), {}),
]

# --- wnnloss: distances, margin losses, channel_shuffle, 3-d adaptive pools, max_unpool ---
S["cosine_similarity"] = [
    lambda T: ((T.f(3, 4), T.f(3, 4)), {}),
    lambda T: ((T.f(2, 3), T.f(3)), {"dim": -1}),
]
S["pdist"] = [lambda T: ((T.f(4, 3),), {}), lambda T: ((T.f(3, 2), 1.0), {})]
S["_pdist_forward"] = [lambda T: ((T.f(4, 3), 3.0), {})]
S["_pdist_backward"] = [lambda T: ((T.f(3), T.f(3, 2), 2.0, T.p(3)), {})]
S["cdist"] = [lambda T: ((T.f(3, 2), T.f(4, 2)), {}), lambda T: ((T.f(2, 3, 2), T.f(4, 2), 1.0), {}),
              lambda T: ((T.f(3, 2), T.f(4, 2), 2.0, 1), {})]  # fmt: skip
S["_euclidean_dist"] = [lambda T: ((T.f(3, 2), T.f(4, 2)), {})]
S["_cdist_forward"] = [lambda T: ((T.f(3, 2), T.f(4, 2), 3.0, None), {})]
S["_cdist_backward"] = [lambda T: ((T.f(3, 4), T.f(3, 2), T.f(4, 2), 2.0, T.p(3, 4)), {})]
S["channel_shuffle"] = [lambda T: ((T.f(2, 4, 3), 2), {})]
S["native_channel_shuffle"] = [lambda T: ((T.f(1, 6, 2), 3), {})]
S["margin_ranking_loss"] = [lambda T: ((T.f(4), T.f(4), T.c(4).sign()), {"margin": 0.5})]
S["hinge_embedding_loss"] = [lambda T: ((T.f(2, 3), T.c(2, 3).sign()), {})]
S["cosine_embedding_loss"] = [lambda T: ((T.f(3, 4), T.f(3, 4), T.c(3).sign()), {"margin": 0.25})]
S["triplet_margin_loss"] = [lambda T: ((T.f(3, 4), T.f(3, 4), T.f(3, 4)), {"swap": True})]
S["multi_margin_loss"] = [lambda T: ((T.f(3, 4), T.l([0, 3, 1])), {}),
                          lambda T: ((T.f(3, 4), T.l([2, 3, 1]), 2, 0.5, T.c(4)), {"reduction": 0})]  # fmt: skip
S["multi_margin_loss_backward"] = [lambda T: ((T.f(), T.f(3, 4), T.l([0, 3, 1]), 1, 1.0), {})]
S["multilabel_margin_loss"] = [lambda T: ((T.f(2, 4), T.l([[3, 0, -1, 1], [1, 2, 3, -1]])), {})]
S["multilabel_margin_loss_forward"] = [
    lambda T: ((T.f(2, 4), T.l([[3, 0, -1, 1], [1, -1, 3, 0]]), 0), {})
]
S["multilabel_margin_loss_backward"] = [
    lambda T: ((T.f(), T.f(4), T.l([3, 0, -1, 1]), 1, T.c(4).abs().sign()), {})
]
S["adaptive_avg_pool3d"] = [lambda T: ((T.f(1, 2, 3, 4, 5), [2, 3, 2]), {}),
                            lambda T: ((T.f(2, 3, 4, 5), [1, 1, 1]), {})]  # fmt: skip
S["_adaptive_avg_pool3d"] = [lambda T: ((T.f(1, 2, 3, 4, 5), [2, 3, 2]), {})]
S["_adaptive_avg_pool3d_backward"] = [lambda T: ((T.f(1, 2, 2, 3, 2), T.f(1, 2, 3, 4, 5)), {})]
S["adaptive_max_pool3d"] = [lambda T: ((T.f(1, 2, 3, 4, 5), [2, 3, 2]), {})]
S["adaptive_max_pool3d_backward"] = [
    lambda T: ((T.f(1, 2, 1, 1, 1), T.f(1, 2, 2, 2, 2), T.l([[[[[3]]], [[[7]]]]])), {})
]
S["max_unpool2d"] = [
    lambda T: ((T.f(1, 2, 2, 2), T.l([[[[0, 3], [9, 14]], [[5, 2], [8, 15]]]]), [4, 4]), {})
]
S["max_unpool3d"] = [
    lambda T: ((T.f(1, 1, 1, 2), T.l([[[[0, 5]]]]), [2, 2, 2], [2, 2, 2], [0, 0, 0]), {})
]

# --- wSTATS: random distributions, statistics, histograms, gradient, index_reduce ---


def _seeded(make):
    """A sample of a random operator: both libraries seeded alike, so values compare."""

    def sample(T):
        T.lib.manual_seed(0)
        return make(T)

    return sample


for _name, _args in (
    ("cauchy_", (0.5, 2.0)), ("log_normal_", (0.2, 0.5)), ("exponential_", (1.5,)),
    ("geometric_", (0.3,)),
):  # fmt: skip
    S[_name] = [
        _seeded(lambda T, a=_args: ((T.f(2, 3) * 1, *a), {})),
        _seeded(lambda T, a=_args: ((T.f(2, 3), *a), {})),
    ]
S["normal.Tensor_float"] = [_seeded(lambda T: ((T.f(2, 3), 0.5), {}))]
S["normal.float_Tensor"] = [_seeded(lambda T: ((1.5, T.p(2, 3)), {}))]
S["normal.Tensor_Tensor"] = [_seeded(lambda T: ((T.f(2, 3), T.p(3)), {}))]
S["normal.float_float"] = [_seeded(lambda T: ((0.5, 2.0, [2, 3]), {"dtype": T.lib.float64}))]
S["multinomial"] = [
    _seeded(lambda T: ((T.p(2, 5), 3), {})),
    _seeded(lambda T: ((T.p(6), 4, True), {})),
]
S["scalar_tensor"] = [lambda T: ((2.5,), {"dtype": T.lib.float64}), lambda T: ((3,), {})]
S["cov"] = [
    lambda T: ((T.f(3, 5),), {}),
    lambda T: ((T.f(2, 4),), {"correction": 0, "fweights": T.l([1, 2, 1, 3]), "aweights": T.p(4)}),
]
S["corrcoef"] = [lambda T: ((T.f(3, 5),), {})]


def _q(T):
    return T.lib.tensor([0.25, 0.75], dtype=T.lib.float64)


for _name in ("quantile", "nanquantile"):
    S[_name] = [
        lambda T: ((T.f(3, 4), _q(T)), {}),
        lambda T: ((T.f(3, 4), _q(T), 1, True), {"interpolation": "midpoint"}),
    ]
    S[f"{_name}.scalar"] = [lambda T: ((T.f(3, 4), 0.3), {"dim": 0, "interpolation": "lower"})]


def _edges(T, *values):
    return T.lib.tensor(values, dtype=T.lib.float64)


S["histogram.bins_tensor"] = [lambda T: ((T.c(6), _edges(T, -2.0, 0.0, 1.0, 2.0)), {})]
S["histogram.bin_ct"] = [
    lambda T: ((T.c(2, 3), 4), {"range": [-1.0, 1.0]}),
    lambda T: ((T.c(6), 3), {"weight": T.c(6), "density": True}),
]
S["_histogramdd_bin_edges"] = [lambda T: ((T.c(4, 2), [2, 3]), {})]
S["_histogramdd_from_bin_cts"] = [lambda T: ((T.c(4, 2), [2, 3]), {"density": True})]
S["_histogramdd_from_bin_tensors"] = [
    lambda T: ((T.c(4, 2), [_edges(T, -2.0, 0.0, 2.0), _edges(T, -1.0, 1.0)]), {})
]
S["histogramdd"] = [lambda T: ((T.c(4, 2), [2, 3]), {})]
S["histogramdd.int_bins"] = [lambda T: ((T.c(4, 2), 2), {"weight": T.c(4)})]
S["histogramdd.TensorList_bins"] = [
    lambda T: ((T.c(4, 2), [_edges(T, -2.0, 0.0, 2.0), _edges(T, -1.0, 1.0)]), {})
]
S["gradient.scalarint"] = [
    lambda T: ((T.f(3, 4),), {}),
    lambda T: ((T.f(3, 4),), {"spacing": 2.0, "dim": 1, "edge_order": 2}),
]
S["gradient.scalararray"] = [lambda T: ((T.f(3, 4),), {"spacing": 0.5, "dim": [0, 1]})]
S["gradient.array"] = [lambda T: ((T.f(3, 4),), {"dim": [1]})]
S["gradient.scalarrayint"] = [lambda T: ((T.f(3, 4),), {"spacing": [1.0, 2.0]})]
S["gradient.scalarrayarray"] = [
    lambda T: ((T.f(3, 4),), {"spacing": [2.0], "dim": [0], "edge_order": 2})
]
S["gradient.tensorarrayint"] = [
    lambda T: ((T.f(3, 4),), {"spacing": [_edges(T, 0.0, 1.0, 3.0), _edges(T, 0.0, 1, 2, 4)]})
]
S["gradient.tensorarray"] = [
    lambda T: ((T.f(3, 4),), {"spacing": [_edges(T, 0.0, 1, 2, 4)], "dim": [1], "edge_order": 2})
]
S["index_reduce"] = [
    lambda T: ((T.f(3, 2), 0, T.l([0, 2, 0]), T.f(3, 2), "prod"), {}),
    lambda T: ((T.f(3, 2), 0, T.l([0, 2, 0]), T.f(3, 2), "amax"), {"include_self": False}),
    lambda T: ((T.f(4), 0, T.l([1, 1, 3]), T.f(3), "mean"), {}),
]
S["normal.float_float_out"] = [_seeded(lambda T: ((0.5, 2.0, [2, 3]), {"out": T.c(3)}))]
# out= runs draw the functional overload's results first from torch's generator: the
# values of torch's call are then the next ones (only metadata is compared)
NO_VALUES = NO_VALUES | {
    "normal.Tensor_float_out", "normal.float_Tensor_out", "normal.Tensor_Tensor_out",
    "normal.float_float_out", "multinomial.out",
}  # fmt: skip
# --- wamp: RNN cells ---
S["lstm_cell"] = [
    lambda T: ((T.f(2, 3), [T.f(2, 2), T.f(2, 2)], T.f(8, 3), T.f(8, 2), T.f(8), T.f(8)), {}),
    lambda T: ((T.f(1, 3), [T.f(1, 2), T.f(1, 2)], T.f(8, 3), T.f(8, 2)), {}),
]
S["gru_cell"] = [lambda T: ((T.f(2, 3), T.f(2, 2), T.f(6, 3), T.f(6, 2), T.f(6), T.f(6)), {})]
S["rnn_tanh_cell"] = [lambda T: ((T.f(2, 3), T.f(2, 2), T.f(2, 3), T.f(2, 2), T.f(2), T.f(2)), {})]
S["rnn_relu_cell"] = [lambda T: ((T.f(2, 3), T.f(2, 2), T.f(2, 3), T.f(2, 2)), {})]
S["_addmm_activation"] = [
    lambda T: ((T.f(2, 3), T.f(2, 4), T.f(4, 3)), {"beta": 0.5, "alpha": 2}),
    lambda T: ((T.f(3), T.f(2, 4), T.f(4, 3)), {"use_gelu": True}),
]
S["_convolution"] = [
    lambda T: (
        (
            T.f(1, 2, 5, 5),
            T.f(3, 2, 2, 2),
            T.f(3),
            [2, 1],
            [1, 0],
            [1, 1],
            False,
            [0, 0],
            1,
            False,
            False,
            True,
            True,
        ),
        {},
    ),  # fmt: skip
    lambda T: (
        (T.f(1, 2, 4), T.f(2, 3, 2), None, [2], [0], [1], True, [1], 1, False, False, True, True),
        {},
    ),
]
S["_convolution.deprecated"] = [
    lambda T: (
        (
            T.f(1, 2, 5, 5),
            T.f(3, 2, 2, 2),
            T.f(3),
            [1, 1],
            [0, 0],
            [1, 1],
            False,
            [0, 0],
            1,
            False,
            False,
            True,
        ),
        {},
    ),  # fmt: skip
]
S["conv_tbc"] = [
    lambda T: ((T.f(5, 2, 3), T.f(3, 3, 4), T.f(4), 1), {}),
    lambda T: ((T.f(2, 2, 3), T.f(3, 3, 4), T.f(4)), {}),
]
S["conv_tbc_backward"] = [lambda T: ((T.f(5, 2, 4), T.f(5, 2, 3), T.f(3, 3, 4), T.f(4), 1), {})]
_T2D = [[[0, 2], [1, 1]], [[2, 0], [1, 0]]]
S["nll_loss2d"] = [
    lambda T: ((T.f(2, 3, 2, 2), T.l(_T2D)), {}),
    lambda T: ((T.f(2, 3, 2, 2), T.l(_T2D), T.p(3)), {"reduction": 0, "ignore_index": 1}),
    lambda T: ((T.f(2, 3, 2, 2), T.l(_T2D), T.p(3)), {"reduction": 2}),
]
S["nll_loss2d_forward"] = [lambda T: ((T.f(2, 3, 2, 2), T.l(_T2D), None, 1, -100), {})]
S["nll_loss2d_backward"] = [
    lambda T: ((T.f(), T.f(2, 3, 2, 2), T.l(_T2D), None, 1, -100, T.c() * 0 + 8), {})
]
S["fake_quantize_per_tensor_affine"] = [lambda T: ((T.f(2, 3), 0.1, 3, 0, 127), {})]
S["fake_quantize_per_tensor_affine_cachemask"] = [lambda T: ((T.f(2, 3), 0.25, -1, -8, 7), {})]
S["fake_quantize_per_tensor_affine_cachemask_backward"] = [lambda T: ((T.f(2, 3), T.b(2, 3)), {})]

# --- wfnz: the functional variant and the view copies functionalization calls ---
S["copy"] = [lambda T: ((T.c(2, 3), T.c(3)), {}), lambda T: ((T.c(3, 2).t(), T.c(2, 3)), {})]


# --- wmha: MultiheadAttention's fast path ---
def _mask_2x3(T):
    return T.lib.tensor([[True, False, False], [False, False, True]])


def _self_attention(T, **kwargs):
    x = T.f(2, 3, 4)
    weights = (T.f(12, 4), T.f(12), T.f(4, 4), T.f(4))
    return (x, x, x, 4, 2, *weights), kwargs


S["_transform_bias_rescale_qkv"] = [lambda T: ((T.f(2, 3, 12), T.f(12), 2), {})]
S["_masked_softmax"] = [
    lambda T: ((T.f(2, 3), _mask_2x3(T), 1, 2), {}),
    lambda T: ((T.f(1, 2, 3, 3), T.lib.tensor([[False, True, False]]), 3, 1), {}),
]
S["_masked_softmax_backward"] = [lambda T: ((T.c(2, 3), T.c(2, 3), _mask_2x3(T), 1), {})]
S["_native_multi_head_attention"] = [
    _self_attention,
    lambda T: _self_attention(T, need_weights=False),
    lambda T: (
        (T.c(2, 3, 4), T.c(2, 3, 4), T.c(2, 3, 4), 4, 2, T.c(12, 4), T.c(12), T.c(4, 4),
         T.c(4), T.lib.tensor([[False, False, True], [False, True, False]]), True, False, 1),
        {},
    ),
]  # fmt: skip

# --- wtop: the aliases, range and the window functions of torch's namespace ---
for _name in ("greater", "greater_equal", "less", "less_equal", "not_equal"):
    S[f"{_name}.Scalar"] = [_scalar(0.5)]
    S[f"{_name}.Tensor"] = [_binary]
S["clip"] = [lambda T: ((T.f(2, 3), -0.5, 0.5), {}), lambda T: ((T.f(2, 3),), {"max": 0.25})]
S["clip.Tensor"] = [lambda T: ((T.f(2, 3), T.c(2, 3), None), {})]
S["concat"] = [lambda T: (([T.f(2, 3), T.f(1, 3)],), {})]
S["concatenate"] = [lambda T: (([T.f(2, 3), T.f(2, 1)], 1), {})]
S["row_stack"] = [lambda T: (([T.f(3), T.f(2, 3)],), {})]
S["ger"] = [lambda T: ((T.f(3), T.f(2)), {})]
S["chain_matmul"] = [
    lambda T: (([T.f(2, 3), T.f(3, 4), T.f(4, 2)],), {}),
    lambda T: (([T.f(2, 2)],), {}),
]
S["range.step"] = [lambda T: ((0, 2, 0.5), {"dtype": T.lib.float64}), lambda T: ((1, 7, 3), {})]
S["range"] = [lambda T: ((-1.5, 2), {}), lambda T: ((0, 4), {"dtype": T.lib.int32})]
for _name in (
    "hann_window",
    "hamming_window",
    "blackman_window",
    "bartlett_window",
    "kaiser_window",
):
    S[_name] = [lambda T: ((5,), {"dtype": T.lib.float64}), lambda T: ((1,), {})]
    S[f"{_name}.periodic"] = [
        lambda T: ((6, False), {"dtype": T.lib.float64}),
        lambda T: ((0, True), {}),
    ]
S["hamming_window.periodic_alpha"] = [lambda T: ((5, False, 0.6), {"dtype": T.lib.float64})]
S["hamming_window.periodic_alpha_beta"] = [
    lambda T: ((6, True, 0.6, 0.3), {"dtype": T.lib.float64})
]
S["kaiser_window.beta"] = [lambda T: ((7, False, 3.0), {"dtype": T.lib.float64})]
S["is_nonzero"] = [lambda T: ((T.f(1),), {}), lambda T: ((T.c(1, 1) * 0,), {})]
S["is_same_size"] = [lambda T: ((T.f(2, 3), T.f(2, 3)), {}), lambda T: ((T.f(2), T.f(3)), {})]
S["is_signed"] = [lambda T: ((T.f(2),), {}), lambda T: ((T.b(2),), {})]
S["range.out_"] = [lambda T: ((0, 3), {"out": T.c(4)})]
S["range.out"] = [lambda T: ((0, 2, 0.5), {"out": T.c(2)})]
S["select_copy.int"] = [lambda T: ((T.f(2, 3), 1, -1), {}), lambda T: ((T.f(3), 0, 2), {})]
S["slice_copy.Tensor"] = [
    lambda T: ((T.f(4, 3), 0, 1, None, 2), {}),
    lambda T: ((T.f(2, 5), 1), {}),
]
S["split_copy.Tensor"] = [lambda T: ((T.f(5, 2), 2), {}), lambda T: ((T.f(2, 4), 3, 1), {})]
S["split_copy.Tensor_out"] = [
    lambda T: ((T.c(4, 2), 2), {"out": [T.c(2, 2), T.c(2, 2)]}),
    lambda T: ((T.c(4, 2), 2), {"out": [T.c(2, 2)]}),
]
S["detach_copy"] = [lambda T: ((T.f(2, 3),), {})]
S["view_as_real_copy"] = [lambda T: ((T.f(2, 3).to(T.lib.complex128),), {})]
S["view_as_complex_copy"] = [lambda T: ((T.c(3, 2),), {}), lambda T: ((T.c(2, 4, 2)[:, 1:3],), {})]
S["frobenius_norm.dim"] = [
    lambda T: ((T.f(2, 3), [0, 1]), {}),
    lambda T: ((T.f(2, 3), [1], True), {}),
]
S["nuclear_norm"] = [lambda T: ((T.f(3, 2),), {}), lambda T: ((T.f(2, 3), True), {})]
S["nuclear_norm.dim"] = [lambda T: ((T.f(2, 3, 2), [0, 2]), {})]
S["norm_except_dim"] = [
    lambda T: ((T.f(2, 3, 2),), {}),
    lambda T: ((T.f(2, 3, 2), 3, 1), {}),
    lambda T: ((T.f(2, 3), 2, -1), {}),
    lambda T: ((T.f(2, 3), 1, 1), {}),
]
S["vander"] = [
    lambda T: ((T.f(3),), {}),
    lambda T: ((T.f(3), 4, True), {}),
    lambda T: ((T.l([1, 2]), 3), {}),
]
S["native_dropout"] = [
    _seeded(lambda T: ((T.f(3, 4), 0.4, True), {})),
    lambda T: ((T.f(2, 3), 0.5, False), {}),
    _seeded(lambda T: ((T.f(2, 3), 1.0, None), {})),
]
S["native_dropout_backward"] = [lambda T: ((T.f(2, 3), T.b(2, 3), 2.0), {})]
