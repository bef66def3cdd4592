"""`ember run SCRIPT.py`: an unchanged PyTorch program, its `import torch` answered by ember.

Layer: tests (ember.tools.run, ember.tools.cli). Each script runs in its own
process. What `python SCRIPT.py` itself does is the oracle for everything but
the imports: sys.argv, ``__name__``, ``__file__``, ``sys.path[0]``, exit
statuses, the traceback printed, stdout and stderr. A shadow ``torch`` package
on PYTHONPATH fails loudly if the real PyTorch were ever imported.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ember.tools.run import torch_is_ember

EMBER = [sys.executable, "-m", "ember.tools.cli"]


@pytest.fixture
def shadowed(tmp_path):
    """An environment in which importing the real torch fails (with a message saying so)."""
    shadow = tmp_path / "shadow" / "torch"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('the real torch was imported')\n")
    path = os.pathsep.join(filter(None, [str(shadow.parent), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path}


def _script(folder: Path, source: str, name: str = "prog.py") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(source))
    return path


def _both(script: Path, *args: str, cwd: Path, env=None):
    """(python's result, ember run's result) for the same script and arguments."""
    theirs = subprocess.run([sys.executable, script.name, *args], cwd=cwd, env=env,
                            capture_output=True, text=True, timeout=120)  # fmt: skip
    ours = subprocess.run([*EMBER, "run", script.name, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    return theirs, ours


def test_the_script_sees_what_python_gives_it(tmp_path):
    script = _script(tmp_path, """\
        import os, sys
        print(sys.argv, __name__, __file__, sys.path[0] == os.path.dirname(__file__))
        print(__spec__, __package__, sys.modules["__main__"].__dict__ is globals())
        if __name__ == "__main__":
            print("main block")
    """)  # fmt: skip
    theirs, ours = _both(script, "a", "--flag", "-x", "--", "--help", cwd=tmp_path)
    assert theirs.returncode == ours.returncode == 0
    assert ours.stdout == theirs.stdout and ours.stderr == theirs.stderr == ""
    assert "['prog.py', 'a', '--flag', '-x', '--', '--help'] __main__" in ours.stdout


@pytest.mark.parametrize(
    "ending",
    [
        "sys.exit(3)",
        "sys.exit(0)",
        "sys.exit()",
        "sys.exit('a message for stderr')",
        "raise SystemExit(True)",
        "print('out'); sys.stdout.flush(); print('err', file=sys.stderr); sys.exit(7)",
    ],
)
def test_exit_statuses_are_pythons(tmp_path, ending):
    script = _script(tmp_path, f"import sys\n{ending}\n")
    theirs, ours = _both(script, cwd=tmp_path)
    assert (ours.returncode, ours.stdout, ours.stderr) == (
        theirs.returncode,
        theirs.stdout,
        theirs.stderr,
    )


@pytest.mark.parametrize(
    "source",
    [
        # a chained exception raised two frames down
        """\
        def inner():
            raise ValueError("boom")

        def outer():
            try:
                inner()
            except ValueError as error:
                raise KeyError("k") from error

        outer()
        """,
        # the script cannot be compiled
        "x = 1\ndef (\n",
        # the script's own excepthook is honoured
        """\
        import sys
        sys.excepthook = lambda kind, value, tb: print("hooked", kind.__name__, file=sys.stderr)
        1 / 0
        """,
        # interrupted: python prints the traceback, then ends by SIGINT
        "raise KeyboardInterrupt\n",
    ],
    ids=["chained", "syntax-error", "excepthook", "keyboard-interrupt"],
)
def test_failures_print_pythons_traceback_and_status(tmp_path, source):
    script = _script(tmp_path, source)
    theirs, ours = _both(script, cwd=tmp_path)
    assert theirs.returncode != 0
    assert ours.returncode == theirs.returncode
    assert ours.stderr == theirs.stderr and ours.stdout == theirs.stdout
    assert "ember" not in ours.stderr  # no frame of ember's own


def test_keyboard_interrupt_ends_by_sigint(tmp_path):
    script = _script(tmp_path, "raise KeyboardInterrupt\n")
    _, ours = _both(script, cwd=tmp_path)
    assert ours.returncode == -signal.SIGINT


def test_torch_imports_are_answered_by_ember(tmp_path, shadowed):
    script = _script(tmp_path, """\
        import sys
        import torch
        import torch.nn.functional as F
        import torch.utils._python_dispatch
        from torch.library import Library
        from torch import nn
        import ember
        print(torch is ember, F is ember.nn.functional, nn is ember.nn)
        print(Library is ember.library.Library, sys.modules["torch.nn"] is ember.nn)
        print(torch.utils._python_dispatch.TorchDispatchMode.__module__)
        y = torch.mm(torch.ones(1, 2, requires_grad=True), torch.ones(2, 1))
        print(y.item(), type(y.grad_fn).__name__)
    """)  # fmt: skip
    done = subprocess.run([*EMBER, "run", script.name], cwd=tmp_path, env=shadowed,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "True True True",
        "True True",
        "ember.utils._python_dispatch",
        "2.0 MmBackward0",
    ]


def test_the_shadow_really_stands_for_torch(tmp_path, shadowed):
    """Without the hook, the same import reaches the shadow (so the test above can fail)."""
    script = _script(tmp_path, "import torch\n")
    done = subprocess.run([sys.executable, script.name], cwd=tmp_path, env=shadowed,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 1 and "the real torch was imported" in done.stderr


def test_a_module_ember_lacks_fails_as_a_missing_module(tmp_path, shadowed):
    script = _script(tmp_path, """\
        try:
            import torch.no_such_module
        except ModuleNotFoundError as error:
            print(type(error).__name__, error.name, "|", error)
        from torch.no_such_module import x
    """)  # fmt: skip
    done = subprocess.run([*EMBER, "run", script.name], cwd=tmp_path, env=shadowed,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.stdout == (
        "ModuleNotFoundError torch.no_such_module | "
        "No module named 'torch.no_such_module' (ember has no ember.no_such_module)\n"
    )
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        "ModuleNotFoundError: No module named 'torch.no_such_module' "
        "(ember has no ember.no_such_module)"
    )
    assert done.stderr.startswith("Traceback (most recent call last):\n  File ")
    assert "the real torch" not in done.stderr


def test_usage_errors(tmp_path):
    missing = subprocess.run([*EMBER, "run", "no_such_script.py"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=120)  # fmt: skip
    assert missing.returncode == 2
    assert missing.stderr == "ember: error: no such script: no_such_script.py\n"
    bare = subprocess.run([*EMBER, "run"], capture_output=True, text=True, timeout=120)
    assert bare.returncode == 2 and "usage: ember run [-h] SCRIPT [ARGS...]" in bare.stderr


def test_trace_accepts_pytorch_scripts(tmp_path, shadowed):
    script = _script(tmp_path, """\
        import sys
        import torch
        a = torch.ones(2).requires_grad_(True)
        c = a + torch.ones(2)
        print("args", sys.argv[1:])
    """)  # fmt: skip
    out = tmp_path / "trace.json"
    done = subprocess.run([*EMBER, "trace", script.name, "--json", str(out), "--", "x"],
                          cwd=tmp_path, env=shadowed, capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == "args ['x']\n"
    events = json.loads(out.read_text())["events"]
    assert [e["op"] for e in events if e["depth"] == 0][-1] == "aten::add.Tensor"
    assert events[-1]["caller"] == "prog.py:4"


def test_a_failing_traced_script_exits_1_with_its_traceback(tmp_path, shadowed):
    script = _script(tmp_path, "import torch\ntorch.ones(2)\nraise SystemExit(5)\n")
    done = subprocess.run([*EMBER, "trace", script.name], cwd=tmp_path, env=shadowed,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 1
    assert " [call] op=[aten::ones], key=[BackendSelect]" in done.stdout
    script = _script(tmp_path, "import torch\n\ntorch.ones(2) @ torch.ones(3)\n")
    done = subprocess.run([*EMBER, "trace", script.name], cwd=tmp_path, env=shadowed,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.startswith(  # callers are named as typed, in the trace and here
        'Traceback (most recent call last):\n  File "prog.py", line 3, in <module>\n'
    )


def test_the_hook_leaves_no_trace_in_the_process():
    before = {name: module for name, module in sys.modules.items() if name.startswith("torch")}
    with torch_is_ember():
        import torch  # noqa: PLC0415 (the point: inside the hook)
        import torch.nn.functional

        import ember

        assert torch is ember and torch.nn.functional is ember.nn.functional
    after = {name: module for name, module in sys.modules.items() if name.startswith("torch")}
    assert after == before  # a real torch imported earlier (the oracle) is back in place
