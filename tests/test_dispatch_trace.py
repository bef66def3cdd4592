"""ember.dispatch.trace(): what each recorded event holds, and that recording leaves no trace.

Layer: tests (ember.dispatch, ember._trace_views.render / route). Uses operators defined
here through ember.library, so the facts checked do not depend on aten's kernels.
"""

from __future__ import annotations

import threading

import pytest

import ember
from ember._dispatch import trace as trace_state
from ember._dispatch.dispatcher import dispatcher
from ember._trace_views.render import trace_text, trace_tree
from ember._trace_views.route import route_of, trace_page
from ember.tools.trace_schema import validate

_count = [0]


@pytest.fixture
def op():
    """A fresh ``ns::f(Tensor x, Tensor? y=None) -> Tensor`` with a CPU kernel that calls aten::mul."""
    _count[0] += 1
    ns = f"trace_test{_count[0]}"
    lib = ember.library.Library(ns, "DEF")
    lib.define("f(Tensor x, Tensor? y=None) -> Tensor")
    lib.define("boom(Tensor x) -> Tensor")

    def f_cpu(x, y=None):
        return x * 2

    def boom(x):
        raise ValueError("boom from the kernel")

    lib.impl("f", f_cpu, "CPU")
    lib.impl("boom", boom, "CPU")
    yield getattr(ember.ops, ns), ns
    lib._destroy()


def test_records_call_redispatch_and_nested_calls(op):
    ops, ns = op
    x = ember.ones(2)
    with ember.dispatch.trace() as recorded:
        ops.f(x)
    text = recorded.text()
    assert trace_text(recorded.to_dict()) == text
    assert text.startswith(
        f" [call] op=[{ns}::f], key=[AutogradCPU]\n"
        f"  [redispatch] op=[{ns}::f], key=[CPU]\n"
        "   [call] op=[aten::mul.Tensor], key=["
    )
    call = recorded.events[0]
    assert call.kind == "call" and call.depth == 0 and call.key == "AutogradCPU"
    assert call.to_dict()["arguments"] == [
        {"name": "x", "keys": ["CPU", "ADInplaceOrView", "AutogradCPU", "AutocastCPU"]}
    ]  # y is None: it contributes nothing
    assert call.to_dict()["tls_included"] == ["BackendSelect", "ADInplaceOrView"]
    assert call.mask_dropped == ["BackendSelect", "ADInplaceOrView"]
    assert call.kernel_label == "backend fallback" and call.kernel_debug.startswith(
        "registered at "
    )
    assert call.grad_mode and not call.inference_mode
    assert call.caller.endswith(f"test_dispatch_trace.py:{test_line('ops.f(x)')}")
    assert (
        call.source == "ops.f(x)" and call.schema == f"{ns}::f(Tensor x, Tensor? y=None) -> Tensor"
    )
    below = call.children[0]
    assert below.kind == "redispatch" and below.key == "CPU" and below.kernel_label == "kernel"
    assert below.kernel_name.endswith("f_cpu") and below.mask_dropped == []
    assert below.children[0].op == "aten::mul.Tensor" and below.children[0].depth == 2
    assert call.result == [
        {"shape": [2], "dtype": "ember.float32", "device": "cpu", "requires_grad": False,
         "grad_fn": None, "values": [2.0, 2.0]}
    ]  # fmt: skip
    assert "values" not in below.result[0]  # values only for top-level calls
    assert call.elapsed_ns >= below.elapsed_ns > 0
    validate(recorded.to_dict())


def test_modes_and_tls_are_recorded(op):
    ops, _ = op
    with ember.inference_mode():
        x = ember.ones(2)
        with ember.dispatch.trace() as recorded:
            ops.f(x)
    call = recorded.events[0]
    assert call.inference_mode and not call.grad_mode and call.key == "CPU"
    assert "AutogradOther" in call.to_dict()["tls_excluded"]
    x = ember.ones(2)
    with ember.no_grad(), ember.dispatch.trace() as recorded:
        ops.f(x)
    assert not recorded.events[0].grad_mode and recorded.events[0].key == "AutogradCPU"


def test_errors_are_recorded_and_raised(op):
    ops, ns = op
    x = ember.ones(1)
    with pytest.raises(ValueError, match="boom"), ember.dispatch.trace() as recorded:
        ops.boom(x)
    assert recorded.events[0].error == "ValueError: boom from the kernel"  # it left both
    assert recorded.events[0].children[0].error == "ValueError: boom from the kernel"
    assert recorded.events[0].result is None
    validate(recorded.to_dict())


def test_off_again_after_the_block(op):
    ops, _ = op
    handle = dispatcher.find_op(f"{op[1]}::f")
    fast = handle.call
    with ember.dispatch.trace():
        assert trace_state.is_active() and handle.call is not fast
    assert not trace_state.is_active()
    x = ember.ones(2)
    with ember.dispatch.trace() as outer:
        ops.f(x)
        with ember.dispatch.trace() as inner:
            ops.f(x)
    assert len(outer.events) == 2 and len(inner.events) == 1  # nested traces both record
    assert inner.events[0].depth == 0


def test_other_threads_are_not_recorded(op):
    ops, _ = op
    x = ember.ones(2)
    with ember.dispatch.trace() as recorded:
        worker = threading.Thread(target=lambda: ops.f(x))
        worker.start()
        worker.join()
    assert recorded.events == []


def test_renderings(op):
    ops, ns = op
    x = ember.ones(2)
    with ember.dispatch.trace() as recorded:
        ops.f(x)
        ops.f(x, x)
    data = recorded.to_dict()
    from rich.console import Console

    console = Console(record=True, width=200, color_system=None)
    console.print(trace_tree(data, "t"))
    tree = console.export_text()
    assert f"[call] {ns}::f -> AutogradCPU" in tree and "[redispatch]" in tree
    route = route_of(data["events"][0])
    assert [s["id"] for s in route["stages"]] == [
        "binding", "entry", "dispatcher", "autograd", "redispatch", "backend"
    ]  # fmt: skip
    assert len(route["arrows"]) == 5 and route["summary"]["kernels"].endswith("CPU [kernel]")
    with ember.dispatch.trace() as factory:
        ember.ones(2)
    stages = route_of(factory.to_dict()["events"][0])["stages"]
    ids = [stage["id"] for stage in stages]
    assert ids == ["binding", "entry", "dispatcher", "autograd", "kernel0", "redispatch", "backend"]
    assert stages[3]["skipped"] and stages[4]["title"] == "BackendSelect"
    page = recorded.to_html()
    assert page == trace_page(data, "ember dispatch trace")
    assert "<script" in page and "http://" not in page and "https://" not in page
    assert f"2: {ns}::f" in page


def test_calls_from_kernels_are_traced_after_their_callers_were_cached():
    """Kernels call other operators through `at`, which caches each handle's call path;
    a trace switched on later still sees those nested calls (at re-binds them)."""
    x = ember.ones(2, 3)
    x.t()  # at.transpose_int and at.as_strided are bound now, untraced
    with ember.dispatch.trace() as recorded:
        x.t()
    calls = [line.split("op=[")[1].split("]")[0] for line in recorded.text().splitlines()
             if "[call]" in line]  # fmt: skip
    assert calls == ["aten::t", "aten::transpose.int", "aten::as_strided"]
    with ember.dispatch.trace() as again:  # on, off and on again
        x.t()
    assert again.text() == recorded.text()


def test_line(text: str) -> int:
    """The line of this file that contains ``text`` (for the recorded caller)."""
    with open(__file__, encoding="utf-8") as source:
        for number, line in enumerate(source, start=1):
            if line.strip() == text:
                return number
    raise AssertionError(text)


test_line.__test__ = False  # a helper, not a test


def test_a_python_key_call_made_before_the_trace_still_shows_every_step():
    """The PythonTLSSnapshot kernel is specialised with the handle's redispatch inline while
    no trace is active; switching a trace on must bring back the traced redispatch step from
    PythonTLSSnapshot to Python, for an operator whose kernel was cached before."""
    from ember.utils._python_dispatch import TorchDispatchMode

    class PassThrough(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    x = ember.ones(2)
    with PassThrough():
        x.sin()  # caches the untraced snapshot kernel
        with ember.dispatch.trace() as recorded:
            x.sin()
    lines = recorded.text().splitlines()
    assert lines[0] == " [call] op=[aten::sin], key=[PythonTLSSnapshot]"
    assert lines[1:3] == [
        "  [redispatch] op=[aten::sin], key=[AutogradCPU]",  # the snapshot's step
        "   [redispatch] op=[aten::sin], key=[Python]",
    ]


def test_the_route_follows_autocasts_call_again_of_the_same_operator():
    """AutocastCPU's kernel casts, then calls the operator again with its key excluded;
    the route goes on through that call (Autograd, then the backend) as one route."""
    a = ember.tensor([[1.0, 2.0]], requires_grad=True)
    b = ember.tensor([[3.0], [4.0]])
    with ember.autocast("cpu", dtype=ember.bfloat16), ember.dispatch.trace() as recorded:
        ember.mm(a, b)
    route = route_of(recorded.to_dict()["events"][0])
    ids = [stage["id"] for stage in route["stages"]]
    assert ids == [
        "binding", "entry", "dispatcher", "kernel0", "call1", "autograd", "redispatch", "backend"
    ]  # fmt: skip
    assert route["summary"]["kernels"] == (
        "AutocastCPU [kernel] -> AutogradCPU [autograd kernel] -> CPU [kernel]"
    )
    assert "call aten::mm again, AutocastCPU excluded" in route["arrows"]
    assert len(route["arrows"]) == len(ids) - 1
    assert route["summary"]["backward_node"] == "MmBackward0"


def test_the_route_of_a_vmapped_mm_ends_at_the_batching_rule():
    """Under vmap, FrontMode's fallback calls mm again at FuncTorchBatched, whose rule calls
    matmul (another operator): the route stops at the rule and names what it calls."""
    a = ember.ones(1, 1, 2)
    b = ember.ones(2, 1)
    with ember.dispatch.trace() as recorded:
        ember.vmap(lambda x: ember.mm(x, b))(a)
    route = route_of(recorded.to_dict()["events"][0])
    ids = [stage["id"] for stage in route["stages"]]
    assert ids == ["binding", "entry", "dispatcher", "autograd", "kernel0", "call1", "backend"]
    last = route["stages"][-1]
    assert last["layer"] == "FuncTorchBatched kernel"
    assert ["then calls", "aten::matmul"] in last["lines"]
    assert route["summary"]["kernels"] == (
        "FuncTorchDynamicLayerFrontMode [backend fallback] -> FuncTorchBatched [kernel]"
    )
