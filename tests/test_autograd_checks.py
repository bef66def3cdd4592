"""The checks autograd makes on what it is given, against torch: gradients handed to
backward / autograd.grad (shape, dtype, device), gradients a backward function returns,
what hooks return (tensor, node pre- and post-hooks, post-accumulate hooks), out= with
arguments that require grad, and in-place changes of leaves, views and saved tensors.
Each program runs under both libraries; the error (type, message) or the result must be
the same."""

from __future__ import annotations

import functools
import warnings

import pytest
from oracle import torch

import ember


def _outcome(program, lib):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _plain(program(lib))  # reading grad_fn may raise too
    except Exception as error:  # noqa: BLE001 (compared with torch's)
        return type(error).__name__, str(error).replace("ember", "torch")


def _plain(value):
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (ember.Tensor, torch.Tensor)):
        dtype = str(value.dtype).split(".")[-1]
        data = None if value.device.type == "meta" else value.detach().tolist()
        grad_fn = None if value.grad_fn is None else value.grad_fn.name()
        return ("tensor", data, dtype, value.device.type, value.requires_grad, grad_fn)
    return value


def same(program):
    e, t = _outcome(program, ember), _outcome(program, torch)
    assert e == t
    return t


def _leaf(lib, n=3):
    return lib.ones(n, requires_grad=True)


# -- gradients given to backward and autograd.grad --------------------------------------

ROOT_GRADIENTS = {
    "meta_gradient": lambda t: (_leaf(t) * 2).backward(t.ones(3, device="meta")),
    "meta_0d_gradient": lambda t: _leaf(t).sum().backward(t.ones((), device="meta")),
    "meta_gradient_brief": lambda t: _leaf(t).sum().backward(t.ones(2, device="meta")),
    "wrong_shape": lambda t: _leaf(t).sum().backward(t.ones(2)),
    "wrong_shape_broadcastable": lambda t: (_leaf(t) * 2).backward(t.ones(1)),
    "wrong_shape_2d": lambda t: (_leaf(t) * 2).backward(t.ones(3, 1)),
    "double_gradient_is_cast": lambda t: _grad_of(t, t.ones(3, dtype=t.float64)),
    "int_gradient_is_cast": lambda t: _grad_of(t, t.ones(3, dtype=t.int64)),
    "grad_meta": lambda t: t.autograd.grad(_leaf(t) * 2, _leaf(t), t.ones(3, device="meta")),
    "grad_meta_0d": lambda t: _grad_with(t, lambda x: x.sum(), t.ones((), device="meta")),
    "grad_meta_1d": lambda t: _grad_with(t, lambda x: x * 2, t.ones(3, device="meta")),
    "grad_wrong_shape": lambda t: _grad_with(t, lambda x: x * 2, t.ones(2)),
    "grad_int": lambda t: _grad_with(t, lambda x: x * 2, t.ones(3, dtype=t.int64)),
    "second_root_on_meta": lambda t: _two_roots(t, t.ones(3, device="meta")),
    "not_a_tensor": lambda t: (_leaf(t) * 2).backward(3),
}


def _grad_of(t, gradient):
    x = _leaf(t)
    (x * 2).backward(gradient)
    return x.grad


def _grad_with(t, fn, gradient):
    x = _leaf(t)
    return t.autograd.grad(fn(x), x, gradient)


def _two_roots(t, second):
    x = _leaf(t)
    return t.autograd.grad([x * 2, x * 3], x, [t.ones(3), second])


@pytest.mark.parametrize("name", sorted(ROOT_GRADIENTS))
def test_root_gradients(name):
    same(ROOT_GRADIENTS[name])


def _function_returning(t, make_gradient):
    class Fn(t.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a.clone()

        @staticmethod
        def backward(ctx, grad):
            return make_gradient(t)

    x = _leaf(t)
    Fn.apply(x).sum().backward()
    return x.grad


BACKWARD_RESULTS = {
    "meta": lambda t: t.ones(3, device="meta"),
    "meta_0d": lambda t: t.ones((), device="meta"),
    "wrong_shape": lambda t: t.ones(2),
    "broadcastable_shape": lambda t: t.ones(1),
    "double": lambda t: t.ones(3, dtype=t.float64),
    "int64": lambda t: t.ones(3, dtype=t.int64),
    "scalar": lambda t: t.tensor(2.0),
}


@pytest.mark.parametrize("name", sorted(BACKWARD_RESULTS))
def test_gradients_a_backward_returns(name):
    same(lambda t: _function_returning(t, BACKWARD_RESULTS[name]))


# -- hooks -------------------------------------------------------------------------------


def hook_five(grad):
    return grad.new_ones(5)


def hook_double(grad):
    return grad.double()


def hook_meta(grad):
    return grad.new_ones(3, device="meta")


def hook_long(grad):
    return grad.long()


def hook_bool(grad):
    return grad > 0


def hook_number(grad):
    return 3


def hook_list(grad):
    return [grad]


def hook_identity(grad):
    return grad


def hook_strided(grad):
    return grad.new_ones(6)[::2]


class CallableHook:
    def __call__(self, grad):
        return grad.new_ones(2)


TENSOR_HOOKS = {
    "size": hook_five,
    "dtype": hook_double,
    "device": hook_meta,
    "long": hook_long,
    "bool": hook_bool,
    "not_a_tensor": hook_number,
    "list": hook_list,
    "identity": hook_identity,
    "other_strides": hook_strided,
    "lambda": lambda grad: grad.new_ones(2),
    "callable_object": CallableHook(),
    "partial": functools.partial(hook_five),
}


@pytest.mark.parametrize("name", sorted(TENSOR_HOOKS))
def test_tensor_hook_on_a_non_leaf(name):
    def program(t):
        x = _leaf(t)
        y = x * 2
        y.register_hook(TENSOR_HOOKS[name])
        y.sum().backward()
        return x.grad

    same(program)


@pytest.mark.parametrize("name", sorted(TENSOR_HOOKS))
def test_tensor_hook_on_a_leaf(name):
    def program(t):
        x = _leaf(t)
        x.register_hook(TENSOR_HOOKS[name])
        (x * 2).sum().backward()
        return x.grad

    same(program)


def test_hooks_chain_and_each_result_is_checked():
    def program(t):
        x = _leaf(t)
        y = x * 2
        y.register_hook(lambda g: g * 3)
        y.register_hook(hook_five)
        y.sum().backward()

    same(program)


def test_a_hook_sees_an_undefined_gradient_as_none():
    def program(t):
        x = t.ones(2, 3, requires_grad=True)
        a, b = (x * 1).unbind()
        seen = []
        a.register_hook(lambda g: seen.append(g))
        b.sum().backward()
        return seen, x.grad

    same(program)


def test_a_hook_may_not_replace_an_undefined_gradient():
    def program(t):
        x = t.ones(2, 3, requires_grad=True)
        a, b = (x * 1).unbind()
        a.register_hook(lambda g: t.ones(3))
        b.sum().backward()

    same(program)


def test_leaf_hooks_and_post_accumulate_hooks_without_a_gradient():
    def program(t):
        class Fn(t.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a * b

            @staticmethod
            def backward(ctx, grad):
                return grad, None

        x, w = _leaf(t), _leaf(t)
        seen = []
        w.register_hook(lambda g: seen.append(("hook", g)))
        w.register_post_accumulate_grad_hook(lambda v: seen.append(("post", v.grad)))
        Fn.apply(x, w).sum().backward()
        return seen

    same(program)


@pytest.mark.parametrize("returned", ["size", "same", "none"])
def test_post_accumulate_hook_results_are_checked(returned):
    def program(t):
        w = _leaf(t)
        result = {"size": lambda v: t.ones(2), "same": lambda v: v, "none": lambda v: None}
        w.register_post_accumulate_grad_hook(result[returned])
        (w * 2).sum().backward()
        return w.grad

    same(program)


def pre_two(grads):
    return (grads[0], grads[0])


def pre_size(grads):
    return (grads[0].new_ones(2),)


def pre_dtype(grads):
    return (grads[0].double(),)


def pre_number(grads):
    return (3,)


def pre_list(grads):
    return [grads[0]]


def pre_int(grads):
    return 5


def pre_none_inside(grads):
    return (None,)


def pre_scaled(grads):
    return (grads[0] * 10,)


NODE_PRE_HOOKS = [pre_two, pre_size, pre_dtype, pre_number, pre_list, pre_int, pre_none_inside,
                  pre_scaled]  # fmt: skip


@pytest.mark.parametrize("hook", NODE_PRE_HOOKS, ids=lambda h: h.__name__)
def test_node_pre_hooks(hook):
    def program(t):
        x = _leaf(t)
        y = x * 2
        y.grad_fn.register_prehook(hook)
        y.sum().backward()
        return x.grad

    same(program)


def post_two(grad_inputs, grad_outputs):
    return (grad_inputs[0], grad_inputs[0])  # replaces the undefined one of `* 2`


def post_one(grad_inputs, grad_outputs):
    return (grad_inputs[0],)


def post_kept(grad_inputs, grad_outputs):
    return (grad_inputs[0] * 10, None)


def post_size(grad_inputs, grad_outputs):
    return (grad_inputs[0].new_ones(2), None)


def post_list(grad_inputs, grad_outputs):
    return list(grad_inputs)


NODE_POST_HOOKS = [post_two, post_one, post_kept, post_size, post_list]


@pytest.mark.parametrize("hook", NODE_POST_HOOKS, ids=lambda h: h.__name__)
def test_node_post_hooks(hook):
    def program(t):
        x = _leaf(t)
        y = x * 2
        y.grad_fn.register_hook(hook)
        y.sum().backward()
        return x.grad

    same(program)


# -- out= and autograd -----------------------------------------------------------------

OUT_CALLS = {
    "add": lambda t, a, out: t.add(a, 1, out=out),
    "add_two": lambda t, a, out: t.add(a, a, out=out),
    "exp": lambda t, a, out: t.exp(a, out=out),
    "mul": lambda t, a, out: t.mul(a, a, out=out),
    "sum": lambda t, a, out: t.sum(a, 0, keepdim=True, out=out[:1]),
    "cat": lambda t, a, out: t.cat([a[:1], a[1:]], out=out),
    "index_select": lambda t, a, out: t.index_select(a, 0, t.tensor([0, 2, 1]), out=out),
    "where": lambda t, a, out: t.where(a > 1, a, a, out=out),
    "clamp": lambda t, a, out: t.clamp(a, 0, 1, out=out),
    "floor_divide": lambda t, a, out: t.floor_divide(a, a, out=out),
    "eq": lambda t, a, out: t.eq(a, a, out=out.bool()),
    "argmax": lambda t, a, out: t.argmax(a, out=out.long()[:1].squeeze()),
    "max": lambda t, a, out: t.max(a, 0, out=(out[:1].squeeze(), out.long()[:1].squeeze())),
    "sort": lambda t, a, out: t.sort(a, out=(out, out.long())),
}


def _out_program(call, *, input_grad: bool, out_grad: bool, grad_mode: bool = True):
    def program(t):
        a = t.arange(1.0, 4.0, dtype=t.float64)
        if input_grad:
            a = a.requires_grad_() + 0
        out = t.zeros(3, dtype=t.float64, requires_grad=out_grad)
        with t.set_grad_enabled(grad_mode):
            result = OUT_CALLS[call](t, a, out)
        grad_fn = None if out.grad_fn is None else out.grad_fn.name()
        return result, out.requires_grad, grad_fn

    return program


@pytest.mark.parametrize("call", sorted(OUT_CALLS))
def test_out_with_an_input_that_requires_grad(call):
    same(_out_program(call, input_grad=True, out_grad=False))


@pytest.mark.parametrize("call", sorted(OUT_CALLS))
def test_out_that_requires_grad(call):
    same(_out_program(call, input_grad=False, out_grad=True))


@pytest.mark.parametrize("call", sorted(OUT_CALLS))
def test_out_under_no_grad_is_allowed(call):
    same(_out_program(call, input_grad=True, out_grad=True, grad_mode=False))


def test_out_that_is_a_non_leaf_requiring_grad():
    same(lambda t: t.add(t.ones(3), 1, out=t.ones(3, requires_grad=True) * 1))


def test_out_of_an_op_without_formula_becomes_not_implemented():
    def program(t):
        x = t.arange(1.0, 4.0).requires_grad_()
        out = t.empty(3)
        t.floor_divide(x, 2.0 * t.ones(3), out=out)
        return out.grad_fn.name(), [type(n).__name__ for n, _ in out.grad_fn.next_functions]

    same(program)


# -- in-place changes --------------------------------------------------------------------

INPLACE = {
    "leaf": lambda t: _leaf(t).add_(1),
    "view_of_leaf": lambda t: _leaf(t)[:2].add_(1),
    "leaf_in_no_grad": lambda t: _in_no_grad(t, lambda x: x.add_(1)),
    "view_made_in_no_grad": lambda t: _view_in_no_grad(t),
    "saved_output_modified": lambda t: _saved_modified(t, lambda y: y.exp()),
    "saved_input_modified": lambda t: _saved_input_modified(t),
    "multi_output_view": lambda t: (_leaf(t, 4) * 1).split(2)[0].mul_(2),
    "detached_shares_version": lambda t: _detached_version(t),
    "leaf_requires_grad_then_fill": lambda t: _leaf(t).fill_(2),
    "zero_on_leaf": lambda t: _leaf(t).zero_(),
    "copy_into_leaf": lambda t: _leaf(t).copy_(t.zeros(3)),
}


def _in_no_grad(t, fn):
    x = _leaf(t)
    with t.no_grad():
        fn(x)
    return x


def _view_in_no_grad(t):
    y = _leaf(t) * 1
    with t.no_grad():
        v = y[:2]
    v.add_(1)


def _saved_modified(t, fn):
    x = _leaf(t) * 1
    y = fn(x)
    y.add_(1)
    y.sum().backward()


def _saved_input_modified(t):
    x = _leaf(t) * 1
    y = x * x
    x.mul_(2)
    y.sum().backward()


def _detached_version(t):
    x = _leaf(t) * 1
    y = x.exp()
    y.detach().zero_()
    return y._version, y.sum().backward()


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_checks(name):
    same(INPLACE[name])


NOT_IMPLEMENTED_OUTS = {
    "leaf": lambda t: t.ones(3, requires_grad=True),
    "view_of_leaf": lambda t: t.ones(4, requires_grad=True)[:3],
    "non_leaf": lambda t: t.ones(3, requires_grad=True) * 1,
    "view_of_non_leaf": lambda t: (t.ones(4, requires_grad=True) * 1)[:3],
    "view_made_in_no_grad": lambda t: _no_grad_view(t),
    "multi_output_view": lambda t: (t.ones(6, requires_grad=True) * 1).split(3)[0],
}


def _no_grad_view(t):
    base = t.ones(4, requires_grad=True) * 1
    with t.no_grad():
        return base[:3]


@pytest.mark.parametrize("out", sorted(NOT_IMPLEMENTED_OUTS))
def test_out_of_an_op_without_formula_may_be_written(out):
    """autogradNotImplementedFallback's can_mutate_inplace on the out= tensor."""

    def program(t):
        target = NOT_IMPLEMENTED_OUTS[out](t)
        t.floor_divide(t.arange(1.0, 4.0), 2.0, out=target)
        return target

    same(program)
