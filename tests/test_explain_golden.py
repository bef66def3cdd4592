"""Golden `ember.dispatch.explain` reports: examples/01's mm in the four modes, and a custom
operator with CPU and CompositeImplicitAutograd kernels (on cpu and on meta).

Layer: tests (ember.dispatch). Paths in ``registered at`` are shortened to the file
inside ember (or the basename) and line numbers read ``N`` (docs/style.md, point 9). The reasons
come from OperatorEntry's table function (explain_index), checked here against
the computed table itself.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

import pytest

import ember
from ember._c10.dispatch_key_set import TABLE_KEYS
from ember._dispatch.dispatcher import dispatcher

SRC = str(Path(ember.__file__).resolve().parents[1]) + "/"


def normalise(text: str) -> str:
    def short(match: re.Match) -> str:
        path = match[1]
        path = path[len(SRC) :] if path.startswith(SRC) else Path(path).name
        return f"registered at {path}:N"

    return re.sub(r"registered at (\S+):\d+", short, text)


def context(mode: str):
    if mode == "no_grad":
        return ember.no_grad()
    if mode == "inference_mode":
        return ember.inference_mode()
    return contextlib.nullcontext()


def explain_mm(mode: str):
    with context(mode):
        a = ember.tensor([[1.0, 2.0]], requires_grad=mode != "plain")
        b = ember.tensor([[3.0], [4.0]])
        return ember.dispatch.explain(ember.ops.aten.mm.default, a, b)


EXCLUDED = (
    "AutocastCPU, AutocastMTIA, AutocastMAIA, AutocastXPU, AutocastIPU, AutocastHPU, "
    "AutocastXLA, AutocastMPS, AutocastCUDA, AutocastPrivateUse1"
)
MASK = """\
  & mask      drops BackendSelect: fallthrough backend fallback registered at ember/_dispatch/builtin_fallbacks.py:N
              drops ADInplaceOrView: fallthrough backend fallback registered at ember/_dispatch/builtin_fallbacks.py:N
"""
CPU_ARGS = """\
  self        DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU, AutocastCPU){grad}
  mat2        DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU, AutocastCPU)
  union       DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU, AutocastCPU)
  | included  DispatchKeySet(BackendSelect, ADInplaceOrView)   adds BackendSelect
  - excluded  DispatchKeySet({excluded})   removes AutocastCPU
"""
AUTOGRAD_SLOT = """\
  =           DispatchKeySet(CPU, AutogradCPU)
highest key: AutogradCPU
table slot:  AutogradCPU: registered at ember/autograd/_generated/autograd_kernels.py:N [autograd kernel]
kernel:      ember.autograd._generated.autograd_kernels.mm
why:         AutogradCPU: no kernel registered here; the CompositeExplicitAutogradNonFunctional kernel does not cover this key; Autograd kernel, registered at ember/autograd/_generated/autograd_kernels.py:N
"""
THEN_CPU = """\
then:        redispatch with DispatchKeySet(CPU) -> CPU [kernel]
             CPU: kernel registered directly here, registered at ember/aten/_generated/register_cpu.py:N"""
HEAD = "aten::mm(Tensor self, Tensor mat2) -> Tensor\n"

GOLDEN_MM = {
    "grad": HEAD
    + CPU_ARGS.format(grad="  (requires grad)", excluded=EXCLUDED)
    + MASK
    + AUTOGRAD_SLOT
    + "mode:        grad mode on\n"
    + "autograd:    grad mode is on and self requires grad: a backward node is recorded\n"
    + THEN_CPU,
    "plain": HEAD
    + CPU_ARGS.format(grad="", excluded=EXCLUDED)
    + MASK
    + AUTOGRAD_SLOT
    + "mode:        grad mode on\n"
    + "autograd:    no input requires grad: the autograd kernel records no backward node\n"
    + THEN_CPU,
    "no_grad": HEAD
    + CPU_ARGS.format(grad="  (requires grad)", excluded=EXCLUDED)
    + MASK
    + AUTOGRAD_SLOT
    + "mode:        grad mode off\n"
    + "autograd:    grad mode is off: the autograd kernel records no backward node, then "
    + "redispatches\n"
    + THEN_CPU,
    "inference_mode": HEAD
    + f"""\
  self        DispatchKeySet(CPU, AutocastCPU)  (requires grad)
  mat2        DispatchKeySet(CPU, AutocastCPU)
  union       DispatchKeySet(CPU, AutocastCPU)
  | included  DispatchKeySet(BackendSelect)   adds BackendSelect
  - excluded  DispatchKeySet(AutogradOther, AutogradNestedTensor, {EXCLUDED})   removes AutocastCPU
  & mask      drops BackendSelect: fallthrough backend fallback registered at ember/_dispatch/builtin_fallbacks.py:N
  =           DispatchKeySet(CPU)
highest key: CPU
table slot:  CPU: registered at ember/aten/_generated/register_cpu.py:N [kernel]
kernel:      ember.aten._generated.register_cpu.mm
why:         CPU: kernel registered directly here, registered at ember/aten/_generated/register_cpu.py:N
mode:        inference mode""",
}


@pytest.mark.parametrize("mode", list(GOLDEN_MM))
def test_explain_mm_in_each_mode(mode):
    assert normalise(str(explain_mm(mode))) == GOLDEN_MM[mode]


def test_explanation_is_data_and_agrees_with_a_real_call():
    facts = explain_mm("grad")
    assert facts.dispatch_keys == ["CPU", "AutogradCPU"]
    assert facts.key == "AutogradCPU" and facts.slot.label == "autograd kernel"
    assert [d["key"] for d in facts.mask_dropped] == ["BackendSelect", "ADInplaceOrView"]
    assert facts.below_autograd.key == "CPU" and facts.below_autograd.label == "kernel"
    assert facts.to_dict()["slot"]["steps"] == facts.slot.steps
    a = ember.tensor([[1.0, 2.0]], requires_grad=True)
    b = ember.tensor([[3.0], [4.0]])
    with ember.dispatch.trace() as recorded:
        ember.mm(a, b)
    call = recorded.events[0]
    assert call.key == facts.key and call.kernel_name == facts.slot.kernel_name
    assert call.children[0].kernel_name == facts.below_autograd.kernel_name


@pytest.fixture
def custom_op():
    lib = ember.library.Library("explain_golden", "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: x * 2, "CPU")
    lib.impl("f", lambda x: x + x, "CompositeImplicitAutograd")
    yield "explain_golden::f"
    lib._destroy()


GOLDEN_CUSTOM_CPU = f"""\
explain_golden::f(Tensor x) -> Tensor
  x           DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU, AutocastCPU)
  union       DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU, AutocastCPU)
  | included  DispatchKeySet(BackendSelect, ADInplaceOrView)   adds BackendSelect
  - excluded  DispatchKeySet({EXCLUDED})   removes AutocastCPU
{MASK}\
  =           DispatchKeySet(CPU, AutogradCPU)
highest key: AutogradCPU
table slot:  AutogradCPU: registered at ember/autograd/fallback.py:N [backend fallback]
kernel:      ember.autograd.fallback.autograd_fallback
why:         AutogradCPU: no kernel registered here; CompositeImplicitAutograd not used because CPU has a kernel; backend fallback registered at ember/autograd/fallback.py:N
mode:        grad mode on
autograd:    no input requires grad: the autograd kernel records no backward node
then:        redispatch with DispatchKeySet(CPU) -> CPU [kernel]
             CPU: kernel registered directly here, registered at test_explain_golden.py:N"""

GOLDEN_CUSTOM_META = f"""\
explain_golden::f(Tensor x) -> Tensor
  x           DispatchKeySet(Meta, ADInplaceOrView, AutogradMeta)
  union       DispatchKeySet(Meta, ADInplaceOrView, AutogradMeta)
  | included  DispatchKeySet(BackendSelect, ADInplaceOrView)   adds BackendSelect
  - excluded  DispatchKeySet({EXCLUDED})
{MASK}\
  =           DispatchKeySet(Meta, AutogradMeta)
highest key: AutogradMeta
table slot:  AutogradMeta: registered at test_explain_golden.py:N [math kernel]
kernel:      custom_op.<locals>.<lambda>
why:         AutogradMeta: no kernel registered here; CompositeImplicitAutograd kernel, registered at test_explain_golden.py:N
mode:        grad mode on
autograd:    a composite kernel fills the autograd slot: it runs here, above autograd, and the operators it calls record their own backward nodes (no redispatch)"""


def test_explain_custom_op_cpu_and_composite_implicit(custom_op):
    cpu = ember.dispatch.explain(custom_op, ember.ones(2))
    assert normalise(str(cpu)) == GOLDEN_CUSTOM_CPU
    meta = ember.dispatch.explain(ember.ops.explain_golden.f, ember.ones(2, device="meta"))
    assert normalise(str(meta)) == GOLDEN_CUSTOM_META


def test_reasons_come_from_the_table_function(custom_op):
    """Every slot explain_index recomputes holds the entry the operator's table has."""
    entry = dispatcher.find_op(custom_op).entry
    table = entry.table()
    for index, key in enumerate(TABLE_KEYS):
        recomputed, steps = entry.explain_index(index)
        assert recomputed == table[index], key
        assert steps, key


def test_explain_rejects_unknown_operators():
    with pytest.raises(RuntimeError, match="no operator named aten::nope"):
        ember.dispatch.explain("aten::nope", ember.ones(2))
