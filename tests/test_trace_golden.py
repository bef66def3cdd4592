"""Golden dispatch traces of the seed programs (examples/*.py), recorded by `ember trace`.

Layer: tests (ember.dispatch, ember.tools). Each seed runs in its own process
under ``ember trace SCRIPT --json FILE`` with EMBER_SHOW_DISPATCH_TRACE=1; the
JSON must validate against trace.schema.json, its text must be exactly the
lines the env var printed in the same run (so recording adds no dispatch of its
own), and the text is compared with the golden copy below (docs/style.md, point 9: inline, so
a change of route reads as a diff).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ember._trace_views.render import trace_text
from ember.tools.trace_schema import validate

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
EMBER = [sys.executable, "-m", "ember.tools.cli"]
TRACE_LINE = re.compile(r"^ +\[(call|redispatch)\] op=\[.*\], key=\[.*\]$")

GOLDEN = {
    "01_mm_grad_fn": """\
 [call] op=[aten::mm], key=[AutogradCPU]
  [redispatch] op=[aten::mm], key=[CPU]
 [call] op=[aten::item], key=[AutogradCPU]
  [call] op=[aten::_local_scalar_dense], key=[AutogradCPU]
   [redispatch] op=[aten::_local_scalar_dense], key=[CPU]
""",
    "02_four_modes": """\
 [call] op=[aten::mm], key=[AutogradCPU]
  [redispatch] op=[aten::mm], key=[CPU]
 [call] op=[aten::item], key=[AutogradCPU]
  [call] op=[aten::_local_scalar_dense], key=[AutogradCPU]
   [redispatch] op=[aten::_local_scalar_dense], key=[CPU]
 [call] op=[aten::mm], key=[AutogradCPU]
  [redispatch] op=[aten::mm], key=[CPU]
 [call] op=[aten::item], key=[AutogradCPU]
  [call] op=[aten::_local_scalar_dense], key=[AutogradCPU]
   [redispatch] op=[aten::_local_scalar_dense], key=[CPU]
 [call] op=[aten::mm], key=[AutogradCPU]
  [redispatch] op=[aten::mm], key=[CPU]
 [call] op=[aten::item], key=[AutogradCPU]
  [call] op=[aten::_local_scalar_dense], key=[AutogradCPU]
   [redispatch] op=[aten::_local_scalar_dense], key=[CPU]
 [call] op=[aten::mm], key=[CPU]
 [call] op=[aten::item], key=[CPU]
  [call] op=[aten::_local_scalar_dense], key=[CPU]
""",
    # The forward and backward of the custom op; gradcheck and opcheck (hundreds of calls
    # from line 22 on) are checked only against the schema and the env-var trace.
    "03_custom_op": """\
 [call] op=[feng_dispatch::twice], key=[AutogradCPU]
  [redispatch] op=[feng_dispatch::twice], key=[CPU]
   [call] op=[aten::mul.Tensor], key=[CPU]
 [call] op=[aten::sum], key=[AutogradCPU]
  [redispatch] op=[aten::sum], key=[CPU]
   [call] op=[aten::sum.dim_IntList], key=[CPU]
 [call] op=[aten::ones_like], key=[CPU]
  [call] op=[aten::empty_like], key=[CPU]
  [call] op=[aten::fill_.Scalar], key=[CPU]
 [call] op=[aten::expand], key=[AutogradCPU]
  [redispatch] op=[aten::expand], key=[ADInplaceOrView]
   [redispatch] op=[aten::expand], key=[CPU]
    [call] op=[aten::as_strided], key=[CPU]
 [call] op=[aten::mul.Tensor], key=[AutogradCPU]
  [redispatch] op=[aten::mul.Tensor], key=[CPU]
 [call] op=[aten::detach], key=[AutogradCPU]
  [redispatch] op=[aten::detach], key=[ADInplaceOrView]
   [redispatch] op=[aten::detach], key=[CPU]
""",
    "04_inspect_tables": """\
 [call] op=[aten::empty.memory_format], key=[BackendSelect]
  [redispatch] op=[aten::empty.memory_format], key=[Meta]
 [call] op=[feng_dispatch::twice], key=[AutogradMeta]
  [redispatch] op=[feng_dispatch::twice], key=[Meta]
""",
    "05_dispatch_mode": """\
 [call] op=[aten::randn], key=[PythonTLSSnapshot]
  [redispatch] op=[aten::randn], key=[Python]
   [call] op=[aten::randn], key=[BackendSelect]
    [redispatch] op=[aten::randn], key=[CPU]
     [call] op=[aten::empty.memory_format], key=[BackendSelect]
      [redispatch] op=[aten::empty.memory_format], key=[CPU]
 [call] op=[aten::randn], key=[PythonTLSSnapshot]
  [redispatch] op=[aten::randn], key=[Python]
   [call] op=[aten::randn], key=[BackendSelect]
    [redispatch] op=[aten::randn], key=[CPU]
     [call] op=[aten::empty.memory_format], key=[BackendSelect]
      [redispatch] op=[aten::empty.memory_format], key=[CPU]
 [call] op=[aten::add.Tensor], key=[PythonTLSSnapshot]
  [redispatch] op=[aten::add.Tensor], key=[AutogradCPU]
   [redispatch] op=[aten::add.Tensor], key=[Python]
    [call] op=[aten::add.Tensor], key=[CPU]
 [call] op=[aten::randn], key=[BackendSelect]
  [redispatch] op=[aten::randn], key=[CPU]
   [call] op=[aten::empty.memory_format], key=[BackendSelect]
    [redispatch] op=[aten::empty.memory_format], key=[CPU]
""",
    "06_dispatch_trace": """\
 [call] op=[aten::ones], key=[BackendSelect]
  [redispatch] op=[aten::ones], key=[CPU]
   [call] op=[aten::empty.memory_format], key=[BackendSelect]
    [redispatch] op=[aten::empty.memory_format], key=[CPU]
   [call] op=[aten::fill_.Scalar], key=[CPU]
 [call] op=[aten::ones], key=[BackendSelect]
  [redispatch] op=[aten::ones], key=[CPU]
   [call] op=[aten::empty.memory_format], key=[BackendSelect]
    [redispatch] op=[aten::empty.memory_format], key=[CPU]
   [call] op=[aten::fill_.Scalar], key=[CPU]
 [call] op=[aten::add.Tensor], key=[AutogradCPU]
  [redispatch] op=[aten::add.Tensor], key=[CPU]
""",
}


def _env(extra: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "EMBER_SHOW_DISPATCH_TRACE"}
    env.update(extra or {})
    return env


@pytest.fixture(scope="module", params=sorted(GOLDEN))
def seed(request, tmp_path_factory):
    name = request.param
    out = tmp_path_factory.mktemp(name) / "trace.json"
    script = EXAMPLES / f"{name}.py"
    env = _env({"EMBER_SHOW_DISPATCH_TRACE": "1"})
    run = subprocess.run([*EMBER, "trace", script.name, "--json", str(out)], cwd=EXAMPLES,
                         env=env, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert run.returncode == 0, run.stderr
    printed = [line for line in run.stderr.splitlines() if TRACE_LINE.match(line)]
    return name, json.loads(out.read_text()), printed


def test_trace_json_validates_against_the_schema(seed):
    _, trace, _ = seed
    validate(trace)
    assert trace["schema_version"] == "ember.dispatch.trace/1"


def test_trace_text_is_golden(seed):
    name, trace, _ = seed
    if name == "03_custom_op":  # only the calls made before gradcheck (line 22)
        first = next(i for i, e in enumerate(trace["events"]) if e["caller"].endswith(":22"))
        trace = {**trace, "events": trace["events"][:first]}
    assert trace_text(trace) == GOLDEN[name]


def test_trace_text_equals_what_the_env_var_prints(seed):
    _, trace, printed = seed
    assert trace_text(trace).splitlines() == printed


def test_top_level_events_know_their_caller(seed):
    name, trace, _ = seed
    for event in trace["events"]:
        assert re.fullmatch(rf"{name}\.py:\d+", event["caller"]), event["caller"]
        assert event["schema"] is not None and event["schema"].startswith(event["op"])
