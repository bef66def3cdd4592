"""autograd.Function and gradcheck / gradgradcheck, against torch."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import torch
from test_autograd_engine import same
from test_autograd_ops import CASES, POS, UNIT

import ember


def _functions(t):
    class Square(t.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.save_for_backward(x)
            ctx.scale = scale
            return x * x * scale

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 2 * x * ctx.scale, None

    class Split(t.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2, (x > 0).to(t.int64)

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.mark_non_differentiable(output[1])
            ctx.needs = ctx.needs_input_grad

        @staticmethod
        def backward(ctx, grad, _unused):
            return grad * 2

    class AddOneInPlace(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad

    class NoMaterialize(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 1, x * 2

        @staticmethod
        def backward(ctx, g1, g2):
            ctx.seen = (g1 is None, g2 is None)
            return g1 if g1 is not None else g2 * 2

    class Identity(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 3

    class WrongCount(t.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, grad):
            return grad

    return Square, Split, AddOneInPlace, NoMaterialize, Identity, WrongCount


def test_function_forward_backward_and_node():
    def program(t):
        square = _functions(t)[0]
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = square.apply(x, 3.0)
        node = y.grad_fn
        names = (type(node).__name__, node.name(), [n.name() for n, _ in node.next_functions])
        y.sum().backward()
        return names, x.grad, y.requires_grad

    same(program)


def test_function_second_order():
    def program(t):
        square = _functions(t)[0]
        x = t.tensor([1.0, 2.0], requires_grad=True)
        (g,) = t.autograd.grad(square.apply(x, 2.0).sum(), x, create_graph=True)
        (h,) = t.autograd.grad(g.sum(), x)
        return g, h

    same(program)


def test_setup_context_and_non_differentiable_outputs():
    def program(t):
        split = _functions(t)[1]
        x = t.tensor([1.0, -2.0], requires_grad=True)
        doubled, mask = split.apply(x)
        doubled.sum().backward()
        return x.grad, mask.requires_grad, doubled.grad_fn.needs

    same(program)


def test_mark_dirty():
    def program(t):
        add_one = _functions(t)[2]
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        z = add_one.apply(y)
        z.sum().backward()
        return z is y, z.grad_fn.name(), x.grad, y._version

    same(program)


def test_mark_dirty_on_leaf_raises():
    def program(t):
        add_one = _functions(t)[2]
        add_one.apply(t.tensor([1.0], requires_grad=True))

    assert same(program)[0] == "raised"


def test_set_materialize_grads():
    def program(t):
        fn = _functions(t)[3]
        x = t.tensor([1.0, 2.0], requires_grad=True)
        _, b = fn.apply(x)
        b.sum().backward()
        return x.grad, b.grad_fn.seen

    same(program)


def test_returning_an_input():
    def program(t):
        identity = _functions(t)[4]
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = identity.apply(x)
        y.sum().backward()
        return y is x, x.grad, y.grad_fn.name()

    same(program)


def test_wrong_number_of_gradients():
    def program(t):
        wrong = _functions(t)[5]
        x = t.tensor([1.0], requires_grad=True)
        wrong.apply(x, x).sum().backward()

    assert same(program)[0] == "raised"


def test_saved_tensor_modified_in_place():
    def program(t):
        square = _functions(t)[0]
        x = t.tensor([1.0, 2.0], requires_grad=True)
        h = x * 1
        y = square.apply(h, 1.0)
        h.add_(1)
        y.sum().backward()

    assert same(program)[0] == "raised"


def test_no_grad_apply_records_nothing():
    def program(t):
        square = _functions(t)[0]
        x = t.tensor([1.0, 2.0], requires_grad=True)
        with t.no_grad():
            y = square.apply(x, 1.0)
        return y.requires_grad, y.grad_fn

    same(program)


# -- gradcheck ------------------------------------------------------------------------


def _inputs(shapes, elements, seed):
    rng = np.random.default_rng(seed)
    arrays = []
    for shape in shapes:
        magnitude = rng.uniform(0.5, 1.5, shape)
        if elements is UNIT:  # inside (-1, 1): acos, asin
            magnitude = magnitude * 0.6
        if elements is not POS:
            magnitude = magnitude * rng.choice([-1.0, 1.0], shape)
        arrays.append(ember.tensor(magnitude).requires_grad_())
    return arrays


@pytest.mark.parametrize("name", sorted(set(CASES) - {"to_float32"}))  # float64 only
def test_gradcheck_passes_for_every_operator(name):
    fn, shapes, elements, _ = CASES[name]
    inputs = _inputs(shapes, elements, seed=len(name))
    assert ember.autograd.gradcheck(lambda *xs: fn(ember, *xs), inputs)


@pytest.mark.parametrize(
    "name",
    ["mul", "div", "exp", "log", "tanh", "sigmoid", "mm", "softmax", "log_softmax",
     "pow_tensor", "sum_keepdim", "var", "logsumexp", "mse_loss", "cat", "view_inplace"],
)  # fmt: skip
def test_gradgradcheck(name):
    fn, shapes, elements, _ = CASES[name]
    inputs = _inputs(shapes, elements, seed=len(name))
    assert ember.autograd.gradgradcheck(lambda *xs: fn(ember, *xs), inputs)


def test_gradcheck_reports_a_wrong_backward():
    class Wrong(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 3

    x = ember.tensor([1.0, 2.0], dtype=ember.float64, requires_grad=True)
    with pytest.raises(ember.autograd.GradcheckError, match="Jacobian mismatch for output 0"):
        ember.autograd.gradcheck(Wrong.apply, (x,))
    assert ember.autograd.gradcheck(Wrong.apply, (x,), raise_exception=False) is False


def test_gradcheck_signatures_match_torch():
    import inspect

    for name in ("gradcheck", "gradgradcheck"):
        ours = inspect.signature(getattr(ember.autograd, name))
        theirs = inspect.signature(getattr(torch.autograd, name))
        assert list(ours.parameters) == list(theirs.parameters)
        for key, parameter in theirs.parameters.items():
            assert ours.parameters[key].default == parameter.default, key
