"""saved_tensors_hooks, save_on_cpu and disable_saved_tensors_hooks, differential against
torch: which tensors each node packs (and in what grad mode), what backward unpacks, the
gradients, nesting, and the errors (Note [Saved tensors through hooks])."""

from __future__ import annotations

import pytest
from oracle import torch

import ember


def _describe(lib, x):
    grad_fn = None if x.grad_fn is None else type(x.grad_fn).__name__
    return (tuple(x.shape), x.requires_grad, grad_fn, lib.is_grad_enabled())


def _run(lib, program):
    """The hooks' log, the program's result, or the error it raised (type and text)."""
    log = []

    def pack(x):
        log.append(("pack", *_describe(lib, x)))
        return x

    def unpack(x):
        log.append(("unpack", tuple(x.shape), lib.is_grad_enabled()))
        return x

    try:
        result = program(lib, lib.autograd.graph, pack, unpack, log)
    except Exception as error:  # noqa: BLE001 (compared with torch's)
        result = (type(error).__name__, str(error).replace("ember.", "torch."))
    if hasattr(result, "detach"):
        result = result.detach().tolist()
    return log, result


def _same(program):
    ours = _run(ember, program)
    assert ours == _run(torch, program)
    return ours


def _chain(lib, graph, pack, unpack, log):
    a = lib.ones(2, 3, requires_grad=True)
    b = lib.ones(2, 3) * 2
    with graph.saved_tensors_hooks(pack, unpack):
        y = (a * b).relu().sum()
        a.sin()
    log.append("backward")
    y.backward()
    return a.grad


def _mlp(lib, graph, pack, unpack, log):
    w = lib.ones(3, 4, requires_grad=True)
    x = lib.ones(3, 2)
    with graph.saved_tensors_hooks(pack, unpack):
        y = w.t().mm(x).relu().sum()
    y.backward()
    return w.grad


def _view(lib, graph, pack, unpack, log):
    a = lib.ones(2, 3, requires_grad=True)
    with graph.saved_tensors_hooks(pack, unpack):
        v = a.view(6)
        y = (v * v).sum()
    y.backward()
    return a.grad


def _custom_function(lib, graph, pack, unpack, log):
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x

    a = lib.tensor([1.0, 2.0], requires_grad=True)
    with graph.saved_tensors_hooks(pack, unpack):
        y = Double.apply(a).sum()
    y.backward()
    return a.grad


def _double_backward(lib, graph, pack, unpack, log):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with graph.saved_tensors_hooks(pack, unpack):
        (g,) = lib.autograd.grad((a * a * a).sum(), a, create_graph=True)
        log.append(type(g.grad_fn).__name__)
    g.sum().backward()
    return a.grad


def _no_grad(lib, graph, pack, unpack, log):
    a = lib.ones(2, requires_grad=True)
    with lib.no_grad(), graph.saved_tensors_hooks(pack, unpack):
        return (a * a).sum()


def _nested(lib, graph, pack, unpack, log):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    with graph.saved_tensors_hooks(lambda x: ("outer", x), lambda p: (log.append(p[0]), p[1])[1]):
        with graph.saved_tensors_hooks(
            lambda x: ("inner", x), lambda p: (log.append(p[0]), p[1])[1]
        ):
            inner = (a * a).sum()
        outer = a.relu().sum()
    inner.backward()
    outer.backward()
    return a.grad


def _unpack_gives_other_values(lib, graph, pack, unpack, log):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    with graph.saved_tensors_hooks(lambda x: 5, lambda p: lib.tensor([10.0, 20.0])):
        y = (a * a).sum()
    y.backward()
    return a.grad


def _unpack_changes_dtype(lib, graph, pack, unpack, log):
    d = lib.ones(2, dtype=lib.float64, requires_grad=True)
    with graph.saved_tensors_hooks(lambda x: x, lambda x: x.float()):
        y = (d * d).sum()
    y.backward()
    return str(d.grad.dtype).replace("ember.", "torch."), d.grad.tolist()


def _unpack_not_a_tensor(lib, graph, pack, unpack, log):
    a = lib.ones(2, requires_grad=True)
    with graph.saved_tensors_hooks(lambda x: x, lambda x: 3):
        y = (a * a).sum()
    y.backward()


def _pack_in_place(lib, graph, pack, unpack, log):
    a = lib.ones(2, requires_grad=True)
    b = lib.ones(2)
    with graph.saved_tensors_hooks(lambda x: x.mul_(2), lambda x: x):
        try:
            a * b
        finally:
            log.append(b.tolist())


def _pack_raises(lib, graph, pack, unpack, log):
    a = lib.ones(2, requires_grad=True)

    def boom(x):
        raise ValueError("boom")

    with graph.saved_tensors_hooks(boom, unpack):
        a * a


def _unpack_raises(lib, graph, pack, unpack, log):
    a = lib.ones(2, requires_grad=True)

    def boom(x):
        raise KeyError("k")

    with graph.saved_tensors_hooks(lambda x: x, boom):
        y = (a * a).sum()
    y.backward()


def _backward_twice(lib, graph, pack, unpack, log):
    a = lib.ones(2, requires_grad=True)
    with graph.saved_tensors_hooks(pack, unpack):
        y = (a * a).sum()
    y.backward()
    y.backward()


def _retain_graph(lib, graph, pack, unpack, log):
    a = lib.ones(2, requires_grad=True)
    with graph.saved_tensors_hooks(pack, unpack):
        y = (a * a).sum()
    y.backward(retain_graph=True)
    y.backward()
    return a.grad


def _no_version_check(lib, graph, pack, unpack, log):
    """With hooks, an in-place change after saving is not an error (nor is it seen)."""
    c = lib.ones(3, requires_grad=True) * 1
    with graph.saved_tensors_hooks(lambda x: x.clone(), lambda x: x):
        y = (c * c).sum()
    with lib.no_grad():
        c.add_(1)
    y.backward()
    return c.grad_fn is not None


def _save_on_cpu(lib, graph, pack, unpack, log):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    with graph.save_on_cpu():
        y = (a * a.relu()).sum()
    with graph.save_on_cpu(pin_memory=True):
        z = (a * a).sum()
    y.backward()
    z.backward()
    return a.grad


def _push_not_callable(lib, graph, pack, unpack, log):
    with graph.saved_tensors_hooks(1, 2):
        pass


def _disabled_push(lib, graph, pack, unpack, log):
    with graph.disable_saved_tensors_hooks("no hooks here"):
        with graph.saved_tensors_hooks(pack, unpack):
            pass


def _disabled_while_set(lib, graph, pack, unpack, log):
    a = lib.ones(2, requires_grad=True)
    with graph.saved_tensors_hooks(pack, unpack):
        try:
            with graph.disable_saved_tensors_hooks("no hooks here"):
                pass
        except RuntimeError as error:
            log.append(str(error))
        (a * a).sum()  # the hooks still apply, and can be set again
        with graph.saved_tensors_hooks(pack, unpack):
            pass
    with graph.disable_saved_tensors_hooks("outer"):
        with graph.disable_saved_tensors_hooks("inner"):
            pass
        with graph.save_on_cpu():
            pass


PROGRAMS = [
    _chain,
    _mlp,
    _view,
    _custom_function,
    _double_backward,
    _no_grad,
    _nested,
    _unpack_gives_other_values,
    _unpack_changes_dtype,
    _unpack_not_a_tensor,
    _pack_in_place,
    _pack_raises,
    _unpack_raises,
    _backward_twice,
    _retain_graph,
    _no_version_check,
    _save_on_cpu,
    _push_not_callable,
    _disabled_push,
    _disabled_while_set,
]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_saved_tensors_hooks_match_torch(program):
    _same(program)


def test_the_pack_hook_sees_the_saved_tensor_itself():
    seen = []
    a = ember.ones(2, requires_grad=True)
    with ember.autograd.graph.saved_tensors_hooks(lambda x: (seen.append(x), x)[1], lambda x: x):
        e = a.exp()
        a.sin()
    assert seen[0] is e and seen[1] is a


def test_hooks_belong_to_their_thread():
    import threading

    seen = []
    a = ember.ones(2, requires_grad=True)
    with ember.autograd.graph.saved_tensors_hooks(lambda x: (seen.append(x), x)[1], lambda x: x):
        worker = threading.Thread(target=lambda: a.exp())
        worker.start()
        worker.join()
    assert seen == []


def test_leaving_every_context_leaves_no_hooks_counted():
    """The cross-thread count SavedVariable reads first is back to 0 after each program,
    failed pushes and raising bodies included."""
    from ember.autograd.saved_tensor_hooks import hook_state, pushed_anywhere

    for program in PROGRAMS:
        _run(ember, program)
        assert pushed_anywhere[0] == 0 and hook_state.stack == (), program.__name__
