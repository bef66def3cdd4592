"""The `ember` command line: every command's --help, exit codes, and what each prints.

Layer: tests (ember.tools.cli). Commands run in-process through ``main(argv)``
(fast) except where the console script itself matters (exit status of `ember`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import ember
from ember.tools import cli
from ember.tools.trace_schema import validate

COMMANDS = ["run", "trace", "table", "explain", "keys", "demo"]


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_for_every_command(command, capsys):
    argv = ["--help"] if command is None else [command, "--help"]
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: ember")
    if command is None:
        assert all(name in out for name in COMMANDS) and "2 usage error" in out


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["nonsense"])
    assert stop.value.code == 2
    assert cli.main(["table", "aten::no_such_op"]) == 2
    assert cli.main(["explain", "aten::no_such_op"]) == 2
    assert cli.main(["trace", "no_such_script.py"]) == 2
    assert "ember: error: unknown operator 'aten::no_such_op' (operators are named like" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize(
    "typed, message",
    [
        ("mm", "unknown operator 'mm'; did you mean aten::mm?"),
        ("mmm", "unknown operator 'mmm'; did you mean aten::mm?"),
        ("aten::mmm", "unknown operator 'aten::mmm'; did you mean aten::mm, aten::bmm or aten::mv?"),
        ("mm.oot", "unknown operator 'mm.oot'; did you mean aten::mm.out or aten::bmm.out?"),
        ("aten::add", "unknown operator 'aten::add'; did you mean "
                      "aten::add.Scalar, aten::add.Tensor or aten::add.out?"),
        ("add", "unknown operator 'add'; did you mean "
                "aten::add.Scalar, aten::add.Tensor or aten::add.out?"),
        ("zzzyx", "unknown operator 'zzzyx' (operators are named like aten::mm or aten::add.Tensor)"),
    ],
)  # fmt: skip
def test_unknown_operators_get_suggestions(typed, message, capsys):
    for command in ("table", "explain"):
        assert cli.main([command, typed]) == 2
        assert capsys.readouterr().err == f"ember: error: {message}\n"


def test_suggestions_come_from_the_live_tables(capsys):
    with ember.library._scoped_library("cli_suggest", "DEF") as lib:
        # a name no other test defines: custom ops of other tests stay in the process
        lib.define("cli_twice(Tensor x) -> Tensor")
        assert cli.main(["table", "cli_twice"]) == 2
        assert "did you mean cli_suggest::cli_twice?" in capsys.readouterr().err
        assert cli.main(["table", "cli_suggest::cli_twice"]) == 0


def test_trace_exit_status_and_outputs(tmp_path, capsys):
    script = tmp_path / "prog.py"
    script.write_text(
        "import sys\nimport ember as torch\n"
        "a = torch.ones(2)\nprint('args', sys.argv[1:])\n"
        "if sys.argv[1:] == ['fail']:\n    raise RuntimeError('the script failed')\n"
    )
    out_json, out_html = tmp_path / "t.json", tmp_path / "t.html"
    assert cli.main(["trace", str(script), "--json", str(out_json), "--html", str(out_html)]) == 0
    data = json.loads(out_json.read_text())
    validate(data)
    assert data["events"][0]["op"] == "aten::ones"
    assert "1: aten::ones" in out_html.read_text()
    assert "args []" in capsys.readouterr().out
    assert cli.main(["trace", str(script), "--text", "--", "fail"]) == 1
    captured = capsys.readouterr()
    assert (
        "args ['fail']" in captured.out
        and " [call] op=[aten::ones], key=[BackendSelect]\n" in captured.out
    )
    assert "RuntimeError: the script failed" in captured.err
    assert cli.main(["trace", str(script), "--tree"]) == 0
    assert "[call] aten::ones -> BackendSelect" in capsys.readouterr().out


def test_console_script_exit_status(tmp_path):
    script = tmp_path / "bad.py"
    script.write_text("raise SystemExit(3)\n")
    ember = Path(sys.executable).with_name("ember")
    if not ember.exists():
        pytest.skip("the ember console script is not installed beside this python")
    done = subprocess.run([str(ember), "trace", str(script)], capture_output=True, text=True)
    assert done.returncode == 1
    done = subprocess.run([str(ember), "table"], capture_output=True, text=True)
    assert done.returncode == 2 and "usage: ember table" in done.stderr


def test_table(capsys):
    import ember

    assert cli.main(["table", "aten::mm"]) == 0
    assert capsys.readouterr().out == ember._C._dispatch_dump_table("aten::mm")
    assert cli.main(["table", "aten::mm", "--registrations"]) == 0
    assert capsys.readouterr().out == ember._C._dispatch_dump("aten::mm")


def test_explain(capsys):
    assert (
        cli.main(["explain", "aten::mm", "--device", "cpu", "--requires-grad", "--mode", "no_grad"])
        == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("aten::mm(Tensor self, Tensor mat2) -> Tensor\n")
    assert "(requires grad)" in out and "mode:        grad mode off" in out
    assert (
        cli.main(["explain", "aten::mm", "--device", "meta", "--mode", "inference_mode", "--json"])
        == 0
    )
    facts = json.loads(capsys.readouterr().out)
    assert facts["key"] == "Meta" and facts["dispatch_keys"] == ["Meta"] and facts["inference_mode"]


def test_keys(capsys):
    assert cli.main(["keys"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("DispatchKey order")
    names = [line.split()[1] for line in lines[1:]]
    assert names.index("Undefined") < names.index("CPU") < names.index("AutogradCPU") < names.index(
        "PythonDispatcher"
    ) < names.index("Autograd")  # fmt: skip
    cpu = next(line for line in lines if line.split()[1] == "CPU")
    assert "kernels" in cpu
    assert cli.main(["keys", "--all"]) == 0
    assert "AutogradPrivateUse3" in capsys.readouterr().out


def test_demo_writes_an_offline_page(tmp_path, capsys):
    out = tmp_path / "route.html"
    assert cli.main(["demo", "--output", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "== grad on cpu ==" in printed and "== inference_mode on meta ==" in printed
    assert "backward node MmBackward0; result [[11.0]]" in printed
    assert "== grad on cpu under autocast ==" in printed
    assert (
        "kernels AutocastCPU [kernel] -> AutogradCPU [autograd kernel] -> CPU [kernel]" in printed
    )
    assert (
        "backward node MmBackward0; result [[11.0]] (shape [1, 1], ember.bfloat16, cpu)" in printed
    )
    assert "== grad on cpu under vmap ==" in printed
    assert (
        "kernels FuncTorchDynamicLayerFrontMode [backend fallback] -> FuncTorchBatched [kernel]"
        in printed
    )
    page = out.read_text()
    assert page.count("ember.dispatch.trace/1") >= 24  # one embedded trace per condition
    for banned in ("http://", "https://", "<link", " src="):
        assert banned not in page


def test_explain_works_for_every_aten_operator(capsys):
    """Placeholders bind to every aten schema, and explain runs no kernel for any of them."""
    from ember._dispatch.dispatcher import dispatcher

    names = [n for n in dispatcher.all_op_names() if n.startswith("aten::")]
    assert len(names) > 300
    failures = []
    for name in names:
        if dispatcher.find_op(name).schema is None:
            continue
        try:
            code = cli.main(["explain", name])
        except Exception as error:  # collected, so one report names every operator
            failures.append(f"{name}: {type(error).__name__}: {error}")
            continue
        if code != 0:
            failures.append(f"{name}: exit {code}")
    capsys.readouterr()
    assert failures == []


def test_explain_refuses_an_operator_without_a_schema(capsys):
    with ember.library._scoped_library("cli_noschema", "FRAGMENT") as lib:
        lib.impl("f", lambda x: x, "CPU")  # an impl without a def: kernels, no schema
        assert cli.main(["explain", "cli_noschema::f"]) == 2
    assert capsys.readouterr().err == (
        "ember: error: operator 'cli_noschema::f' has kernels but no schema: nothing to explain\n"
    )
