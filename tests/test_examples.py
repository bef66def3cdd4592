"""The example programs (examples/NN_*.py) print what PyTorch 2.13 prints for them.

Layer: tests (the whole product surface). Each program, written for PyTorch,
runs three ways through the project's runner, examples/check.py: unchanged
under `ember run` (with a shadow ``torch`` package on PYTHONPATH that fails if
the real PyTorch were imported), with its imports rewritten to
``import ember as torch``, and unchanged under PyTorch itself, which keeps
each .expected file honest. The runner's own rules (rewriting, matching,
exit status) are checked too.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from oracle import needs_torch

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
_spec = importlib.util.spec_from_file_location("examples_check", EXAMPLES / "check.py")
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)

PROGRAMS = check.programs()
IDS = [p.stem for p in PROGRAMS]


@pytest.fixture
def no_real_torch(tmp_path, monkeypatch):
    """Importing the real torch fails in the programs' processes."""
    shadow = tmp_path / "torch"
    shadow.mkdir()
    (shadow / "__init__.py").write_text("raise ImportError('the real torch was imported')\n")
    path = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))
    monkeypatch.setenv("PYTHONPATH", path)


def _verdict(program: Path, way: str) -> None:
    why, output = check.check(program, way)
    assert why is None, f"{program.name} [{way}]: {why}\n" + "\n".join(output[-20:])


def test_there_are_examples():
    assert len(PROGRAMS) >= 6 and all(p.with_suffix(".expected").exists() for p in PROGRAMS)


@pytest.mark.parametrize("program", PROGRAMS, ids=IDS)
def test_unchanged_under_ember_run(program, no_real_torch):
    _verdict(program, "run")


@pytest.mark.parametrize("program", PROGRAMS, ids=IDS)
def test_with_import_ember_as_torch(program, no_real_torch):
    _verdict(program, "import")


# A program whose header says PyTorch does not print its output (`# pytorch: WHY`; the
# dispatch trace, which release builds lack) is not run under PyTorch.
FOR_PYTORCH = [p for p in PROGRAMS if "pytorch" not in check.headers(p)]


def test_only_the_trace_program_is_not_pytorchs():
    assert [p.stem for p in PROGRAMS if p not in FOR_PYTORCH] == ["06_dispatch_trace"]


@needs_torch
@pytest.mark.parametrize("program", FOR_PYTORCH, ids=[p.stem for p in FOR_PYTORCH])
def test_expected_is_what_pytorch_prints(program):
    _verdict(program, "torch")


def test_imports_are_rewritten_line_for_line():
    source = (
        "import torch\nimport torch.nn.functional as F\nimport torch.nn\n"
        "from torch.library import Library\nfrom torch import nn\n"
        "    import torch\nx = 'import torch'\nimport torchvision\n"
    )
    assert check.as_ember(source) == (
        "import ember as torch\nimport ember.nn.functional as F\nimport ember.nn, ember as torch\n"
        "from ember.library import Library\nfrom ember import nn\n"
        "    import ember as torch\nx = 'import torch'\nimport torchvision\n"
    )


@pytest.mark.parametrize(
    "expected, output, verdict",
    [
        (["a", "b"], ["a", "b"], None),
        (["a", "b"], ["a", "c"], "line 2: expected 'b', got 'c'"),
        (["a"], ["a", "b"], "expected 1 lines, got 2"),
        (["~re:^x\\d$", "end"], ["noise", "x1", "more", "end"], None),
        (["end", "~re:^x\\d$"], ["x1", "end"], "no line, in order, matching '~re:^x\\\\d$'"),
    ],
)
def test_output_matching(expected, output, verdict):
    assert check.mismatch(expected, output) == verdict


def test_the_runner_reports_and_exits_1_on_a_mismatch(tmp_path):
    (tmp_path / "01_prints.py").write_text("print('hello')\n")
    (tmp_path / "01_prints.expected").write_text("goodbye\n")
    (tmp_path / "02_env.py").write_text(
        "# env: GREETING=hi\nimport os\nprint(os.environ['GREETING'])\n"
    )
    (tmp_path / "02_env.expected").write_text("hi\n")
    command = [sys.executable, str(EXAMPLES / "check.py"), "--folder", str(tmp_path)]
    done = subprocess.run(
        [*command, "--way", "import"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0] == "FAIL 01_prints.py [import]: line 1: expected 'goodbye', got 'hello'"
    assert lines[1:] == ["    | hello", "PASS 02_env.py [import]", "1 passed, 1 failed"]
    done = subprocess.run(
        [*command, "02", "--way", "run"], capture_output=True, text=True, timeout=120
    )
    assert (done.returncode, done.stdout) == (0, "PASS 02_env.py [run]\n1 passed, 0 failed\n")
    done = subprocess.run([*command, "no_such"], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (1, "0 passed, 0 failed\n")  # nothing ran: a failure
