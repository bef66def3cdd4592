"""The engine and the Tensor autograd API against torch: backward / grad options, retained
and freed graphs, create_graph, hooks, retain_grad, errors with torch's messages."""

from __future__ import annotations

import numpy as np
import pytest
from autograd_support import cyclic_garbage
from oracle import torch

import ember


def outcome(program, lib):
    """What `program(lib)` returns (as nested Python values) or raises (type, message)."""
    try:
        result = program(lib)
    except Exception as error:  # noqa: BLE001 - the error itself is what we compare
        message = str(error).replace("torch.", "ember.")
        return ("raised", type(error).__name__, message)
    return ("returned", _plain(result))


def _plain(value):
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "tolist") and hasattr(value, "requires_grad"):
        array = np.array(value.detach().tolist(), dtype=float)
        return [float(f"{v:.6g}") for v in array.ravel()] + [list(array.shape)]
    if value is not None and hasattr(value, "name") and callable(value.name):
        return value.name()
    return value


def same(program):
    expected = outcome(program, torch)
    assert outcome(program, ember) == expected
    return expected


def leaf(lib, values=(1.0, 2.0, 3.0)):
    return lib.tensor(list(values), requires_grad=True)


def test_backward_accumulates_into_leaves():
    def program(t):
        x = leaf(t)
        (x * x).sum().backward()
        (x * 3).sum().backward()
        return x.grad

    same(program)


def test_second_backward_through_freed_graph_raises():
    def program(t):
        x = leaf(t)
        y = (x * x).sum()
        y.backward()
        y.backward()

    assert same(program)[0] == "raised"


def test_retain_graph_allows_a_second_backward():
    def program(t):
        x = leaf(t)
        y = (x.exp() * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        return x.grad

    same(program)


def test_saved_tensors_are_freed_after_backward():
    def program(t):
        x = leaf(t)
        y = x.exp()
        y.sum().backward()
        return y.grad_fn._saved_result if hasattr(y.grad_fn, "_saved_result") else None

    e = leaf(ember)
    y = e.exp()
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        _ = y.grad_fn._saved_result  # as in torch: the getter unpacks


def test_a_backward_pass_leaves_no_reference_cycles():
    """After backward frees the graph, plain reference counting reclaims it: a saved output
    (relu's, log_softmax's) must not keep its producer node alive through the saved variable."""
    w = ember.randn(4, 3, requires_grad=True)
    x = ember.randn(5, 4)

    def step():
        logits = x.mm(w).relu().exp()
        ember.nn.functional.cross_entropy(logits, ember.tensor([0, 1, 2, 0, 1])).backward()

    assert cyclic_garbage(step) == 0


@pytest.mark.parametrize(
    "build",
    [
        lambda x, w: x.mm(w),  # saves sizes and strides beside the tensors
        lambda x, w: x.mm(w).relu(),  # saves its output
        lambda x, w: ember.log_softmax(x.mm(w), 1),
        lambda x, w: x.mm(w) * x.mm(w),
    ],
    ids=["mm", "relu", "log_softmax", "mul"],
)
@pytest.mark.parametrize("retain", [False, True])
def test_backward_releases_every_saved_tensor_unless_retained(build, retain):
    x = ember.randn(2, 3, requires_grad=True)
    w = ember.randn(3, 4, requires_grad=True)
    out = build(x, w)
    node = out.grad_fn
    saved = [getattr(node, name) for name in node._saved_variables]
    assert saved and all(s is not None for s in saved)
    out.sum().backward(retain_graph=retain)
    for variable in saved:
        if retain:
            assert variable.unpack() is not None
        else:
            with pytest.raises(RuntimeError, match="backward through the graph a second time"):
                variable.unpack()


def test_create_graph_gives_differentiable_gradients():
    def program(t):
        x = leaf(t)
        (g,) = t.autograd.grad((x**3).sum(), x, create_graph=True)
        (h,) = t.autograd.grad(g.sum(), x)
        return g, h, g.requires_grad

    same(program)


def test_backward_with_create_graph_keeps_history_in_grad():
    def program(t):
        x = leaf(t)
        (x * x).sum().backward(create_graph=True)
        return x.grad, x.grad.requires_grad, x.grad.grad_fn

    same(program)


@pytest.mark.parametrize(
    "case",
    [
        lambda t: t.autograd.grad(leaf(t).sum(), [leaf(t)]),
        lambda t: t.autograd.grad(leaf(t).sum(), [t.ones(2)]),
        lambda t: t.ones(2).backward(),
        lambda t: (leaf(t) * 2).backward(),
        lambda t: (leaf(t) * 2).backward(t.ones(2)),
        lambda t: t.autograd.backward([leaf(t).sum(), leaf(t).sum()], [t.ones(())]),
    ],
    ids=["unused", "no_grad_input", "no_grad_root", "non_scalar", "shape", "count"],
)
def test_engine_errors_match_torch(case):
    assert same(case)[0] == "raised"


def _custom_backward(lib, make_grads):
    """A Function of (x, w) whose backward returns `make_grads(lib, grad)`."""

    class Custom(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            return x * 2 + w.sum()

        @staticmethod
        def backward(ctx, grad):
            return make_grads(lib, grad)

    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = lib.tensor([[1.0], [2.0]], dtype=lib.float64, requires_grad=True)
    Custom.apply(x, w).sum().backward()
    return x.grad, w.grad, w.grad.dtype is lib.float64


@pytest.mark.parametrize(
    "make_grads",
    [
        lambda lib, g: (g, lib.ones(2, 1, dtype=lib.float64)),  # as they should be
        lambda lib, g: (g, lib.ones(2, 1)),  # float32 for a float64 input: cast
        lambda lib, g: (g, lib.ones(4, 2, 1, dtype=lib.float64)),  # broadcast: summed back
        lambda lib, g: (g.expand(2, 3), None),  # summed over the leading dim
        lambda lib, g: (g, lib.ones(3, 1, dtype=lib.float64)),  # cannot be summed to [2, 1]
        lambda lib, g: (g.sum(), lib.ones(2, 1)),  # a 0-dim grad for [3]: rejected
        lambda lib, g: (g,),  # one gradient too few
        lambda lib, g: (g, None, None),  # one too many
    ],
    ids=["exact", "cast", "summed", "leading", "invalid", "scalar", "too_few", "too_many"],
)
def test_gradients_are_validated_as_torch(make_grads):
    """validate_outputs: each gradient is summed to its input's shape, cast to its dtype,
    or rejected with PyTorch's message; a wrong count is rejected too."""
    same(lambda lib: _custom_backward(lib, make_grads))


def test_grad_allow_unused_and_materialize():
    def program(t):
        x, y = leaf(t), leaf(t)
        a = t.autograd.grad((x * 2).sum(), [x, y], allow_unused=True, retain_graph=True)
        b = t.autograd.grad((x * 2).sum(), [x, y], materialize_grads=True)
        return a, b

    same(program)


def test_grad_does_not_accumulate_and_backward_inputs_does():
    def program(t):
        x, y = leaf(t), leaf(t)
        z = (x * y).sum()
        g = t.autograd.grad(z, [x], retain_graph=True)
        z.backward(inputs=[y])
        return g, x.grad, y.grad

    same(program)


def test_backward_inputs_accepts_non_leaves():
    def program(t):
        x = leaf(t)
        h = x * 2
        (h * h).sum().backward(inputs=[h])
        return h.grad, x.grad

    same(program)


def test_tensor_hooks_on_leaf_and_non_leaf():
    def program(t):
        x = leaf(t)
        seen = []
        x.register_hook(lambda g: g * 10)
        h = x * x
        handle = h.register_hook(lambda g: seen.append(g.tolist()) or g + 1)
        h.sum().backward(retain_graph=True)
        handle.remove()
        h.sum().backward()
        return x.grad, seen

    same(program)


def test_retain_grad_on_non_leaf():
    def program(t):
        x = leaf(t)
        h = x * 2
        h.retain_grad()
        (h * h).sum().backward()
        return h.grad, h.retains_grad, x.retains_grad

    same(program)


def test_node_hooks_and_prehooks():
    def program(t):
        x = leaf(t)
        y = x * 2
        calls = []
        y.grad_fn.register_prehook(lambda gout: calls.append("pre") or None)
        y.grad_fn.register_hook(lambda gin, gout: calls.append("post") or (gin[0] * 0.5, None))
        y.sum().backward()
        return x.grad, calls

    same(program)


def test_grad_fn_metadata_and_properties():
    def program(t):
        x = leaf(t)
        y = x.exp()
        return (
            y.grad_fn.name(),
            [type(n).__name__ if n is not None else None for n, _ in y.grad_fn.next_functions],
            y.is_leaf,
            x.is_leaf,
            y.requires_grad,
            y.output_nr,
            x.grad_fn,
        )

    same(program)


def test_sequence_numbers_order_execution():
    def program(t):
        x = leaf(t)
        order = []
        a = x * 2
        b = x * 3
        a.register_hook(lambda g: order.append("a"))
        b.register_hook(lambda g: order.append("b"))
        (a + b).sum().backward()
        return order

    same(program)


def test_grad_setter_and_requires_grad_setter():
    def program(t):
        x = leaf(t)
        x.grad = t.ones(3)
        y = x * 2
        results = [x.grad]
        try:
            y.requires_grad = False
        except RuntimeError as error:
            results.append(str(error))
        y.requires_grad = True
        return results

    same(program)


def test_requires_grad_on_integer_tensor():
    assert same(lambda t: t.ones(2, dtype=t.int64).requires_grad_())[0] == "raised"
    assert same(lambda t: t.tensor([1, 2], requires_grad=True))[0] == "raised"


def test_detach_and_data_versions():
    def program(t):
        x = leaf(t)
        y = x * 1
        d = y.detach()
        d.add_(1)
        v1 = y._version
        y.data.add_(1)
        v2 = y._version
        return v1, v2, d.requires_grad, d._base is None, y.data.requires_grad

    same(program)


def test_data_of_a_fresh_tensor_has_its_own_version_counter():
    """The harness case: a leaf's version counter is created lazily; .data must not share it."""

    def program(t):
        w = t.ones(2, 3, requires_grad=True)
        w.data.add_(1)
        d = w.data
        d.mul_(2)
        fresh = t.ones(2) * 3
        fresh.data.add_(1)
        return w._version, d._version, w.data._version, fresh._version, w.detach()._version

    same(program)


def test_detach_in_place():
    def program(t):
        x = leaf(t)
        y = x * 2
        y.detach_()
        return y.requires_grad, y.grad_fn, y.is_leaf

    same(program)


def test_version_counter_error_names_the_output():
    def program(t):
        x = leaf(t)
        y = x.exp()
        y.add_(1)
        y.sum().backward()

    assert same(program)[0] == "raised"


def test_version_counter_error_on_a_leaf_input():
    def program(t):
        x = leaf(t)
        w = t.ones(3)
        y = (x * w).sum()
        w.add_(1)
        y.backward()

    assert same(program)[0] == "raised"


def test_inplace_on_leaf_errors():
    assert same(lambda t: leaf(t).add_(1))[0] == "raised"
    assert same(lambda t: leaf(t)[:2].mul_(2))[0] == "raised"


def test_out_variant_with_grad_errors():
    assert same(lambda t: t.add(leaf(t), 1, out=t.empty(3)))[0] == "raised"

    def no_grad_ok(t):
        with t.no_grad():
            return t.add(leaf(t), 1, out=t.empty(3))

    same(no_grad_ok)


def test_not_implemented_derivative():
    def program(t):
        x = leaf(t)
        y = t.floor_divide(x, 2.0)
        names = y.grad_fn.name()
        y.sum().backward()
        return names

    result = same(program)
    assert result[0] == "raised"


def test_multi_output_gradients_with_unused_outputs():
    def program(t):
        x = t.tensor([[3.0, 1.0, 2.0], [0.5, 4.0, 1.5]], requires_grad=True)
        values, indices = x.max(1)
        parts = x.split(1, 1)
        (values.sum() + parts[2].sum()).backward()
        return x.grad, indices

    same(program)


def test_grad_mode_is_thread_local():
    import threading

    seen = []
    with ember.no_grad():

        def worker():
            seen.append(ember.is_grad_enabled())
            with ember.inference_mode():
                seen.append(ember.is_inference_mode_enabled())

        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        assert not ember.is_grad_enabled()
    assert seen == [True, True]
    assert ember.is_grad_enabled() and not ember.is_inference_mode_enabled()
