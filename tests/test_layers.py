"""The layers stay layered: import-linter's contracts hold, and break when a layer imports upward.

Layer: tests (the whole package as an import graph). The contracts are in pyproject.toml
(`[tool.importlinter]`) and explained in docs/architecture.md ("Layers and the import
checker"); `make test` runs `lint-imports` too. What import-linter cannot see is checked here
with `ast`: imports by name at run time, imports inside the source ember executes, and the
console entry points.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from ember.codegen.autograd_model import AutogradOp, Derivative
from ember.codegen.model import load_native_functions

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "ember"
CONTRACTS = 5


def lint_imports(project: Path) -> subprocess.CompletedProcess:
    """`lint-imports` on the package under ``project``/src with ``project``'s pyproject.toml."""
    env = {**os.environ, "PYTHONPATH": str(project / "src")}
    command = "from importlinter.cli import lint_imports_command; lint_imports_command()"
    return subprocess.run(
        [sys.executable, "-c", command, "--no-cache", "--no-logo"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_every_contract_is_kept():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"Contracts: {CONTRACTS} kept, 0 broken." in result.stdout


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """A copy of the project's package and configuration, to break."""
    shutil.copytree(
        PACKAGE, tmp_path / "src" / "ember", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _append(copy: Path, module: str, code: str) -> None:
    with open(copy / "src" / "ember" / module, "a", encoding="utf-8") as out:
        out.write("\n\n" + code)


# (module of the copy, code appended to it, what lint-imports must then report). Most
# imports sit inside a function: they count as much as those at the top of a module.
VIOLATIONS = {
    "c10 imports aten": (
        "_c10/dtypes.py",
        "def _upward():\n    import ember.aten.binding\n",
        "ember._c10 is not allowed to import ember.aten:",
    ),
    "dispatch imports ops": (
        "_dispatch/kernel.py",
        "def _upward():\n    from ember import _ops\n",
        "ember._dispatch is not allowed to import ember._ops:",
    ),
    "a kernel imports autograd": (
        "aten/native/pointwise.py",
        "def _upward():\n    from ember.autograd import graph\n",
        "ember.aten is not allowed to import ember.autograd:",
    ),
    "autograd imports tools": (
        "autograd/formulas.py",
        "def _upward():\n    from ember.tools import cli\n",
        "ember.autograd is not allowed to import ember.tools:",
    ),
    "dispatch imports tools": (
        "dispatch.py",
        "from ember.tools import keys as _keys\n",
        "ember.dispatch is not allowed to import ember.tools:",
    ),
    "a kernel imports the root": (
        "aten/native/at.py",
        "def _upward():\n    import ember\n",
        "ember.aten.native.at is not allowed to import ember:",
    ),
    "library imports the root": (
        "_library/opcheck.py",
        "def _upward():\n    from ember import zeros\n",
        "ember._library.opcheck is not allowed to import ember:",
    ),
    "the root imports tools": (
        "__init__.py",
        "from ember.tools import cli as _cli\n",
        "ember is not allowed to import ember.tools.cli:",
    ),
    "the generator imports generated code": (
        "codegen/model.py",
        "def _stale():\n    from ember.aten._generated import definitions\n",
        "ember.codegen is not allowed to import ember.aten._generated:",
    ),
    "a kernel imports the argument parser": (
        "aten/native/reduction.py",
        "def _parse():\n    from ember.aten import python_arg_parser\n",
        "ember.aten.native is not allowed to import ember.aten.python_arg_parser:",
    ),
    "tools and codegen are independent": (
        "codegen/outputs.py",
        "def _tool():\n    from ember.tools import keys\n",
        "ember.codegen is not allowed to import ember.tools:",
    ),
}


@pytest.mark.parametrize("case", sorted(VIOLATIONS))
def test_an_upward_import_breaks_a_contract(copy, case):
    module, code, report = VIOLATIONS[case]
    _append(copy, module, code)
    result = lint_imports(copy)
    assert result.returncode == 1, result.stdout + result.stderr
    assert report in result.stdout, result.stdout


def test_a_module_outside_every_layer_breaks_the_layers_contract(copy):
    (copy / "src" / "ember" / "_stray.py").write_text('"""A module no layer declares."""\n')
    result = lint_imports(copy)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "The following modules are not listed as layers:" in result.stdout
    assert "- ember._stray" in result.stdout


# -- what import-linter cannot see ---------------------------------------------------------------

# ember/tools/run.py is the import hook of `ember run`: it answers `import torch` by importing
# ember by name, at the top of the layers.
# run.py installs the import hook; naming.py compares sys.modules' entries (imports none)
IMPORTS_BY_NAME_ALLOWED = {Path("tools/run.py"), Path("_c10/naming.py")}
_BY_NAME = {"__import__", "import_module", "find_spec", "reload", "module_from_spec"}
_IMPORT_LINE = re.compile(r"^\s*(import\s+\w|from\s+[\w.]+\s+import\s)", re.MULTILINE)


def imports_it_cannot_see(source: str) -> list[str]:
    """Imports in ``source`` that grimp's graph misses: a module imported by name
    (``importlib.import_module``, ``__import__``, ``sys.modules[...]``), and an import statement
    inside a string of a module that runs source with ``exec``."""
    tree = ast.parse(source)
    found = []
    runs_source = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name in _BY_NAME:
                found.append(f"line {node.lineno}: {name}(...)")
            runs_source |= name == "exec"
        elif isinstance(node, ast.Attribute) and node.attr == "modules":
            if isinstance(node.value, ast.Name) and node.value.id == "sys":
                found.append(f"line {node.lineno}: sys.modules")
    if runs_source:
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if _IMPORT_LINE.search(node.value):
                    found.append(f"line {node.lineno}: an import in source that is exec'd")
    return found


def test_every_import_inside_ember_is_one_the_checker_sees():
    unseen = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if relative in IMPORTS_BY_NAME_ALLOWED:
            continue
        found = imports_it_cannot_see(path.read_text(encoding="utf-8"))
        if found:
            unseen[str(relative)] = found
    assert not unseen


@pytest.mark.parametrize(
    "source",
    [
        "import importlib\nm = importlib.import_module('ember.tools.cli')\n",
        "def f():\n    return __import__('ember')\n",
        "import sys\nember = sys.modules['ember']\n",
        "from importlib.util import find_spec\nspec = find_spec('ember.tools')\n",
        "SOURCE = '''\ndef make():\n    from ember.tools import cli\n'''\nexec(SOURCE, {})\n",
    ],
)
def test_imports_the_checker_cannot_see_are_found(source):
    assert imports_it_cannot_see(source)


def test_exec_of_source_without_imports_is_fine():
    source = "SOURCE = '''\ndef make(op):\n    return op\n'''\nexec(SOURCE, {})\n"
    assert imports_it_cannot_see(source) == []


def test_the_console_entry_points_are_the_command_line():
    """Only the command line imports ember.tools: every console script enters through it."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts
    assert all(target.startswith("ember.tools.cli:") for target in scripts.values()), scripts


def test_a_formula_in_derivatives_yaml_cannot_reach_the_package_root():
    """Formulas sit in the autograd layer: `ember.<fn>` is no name they may use."""
    abs_ = next(f for f in load_native_functions() if f.name == "abs")
    derivative = Derivative(
        op="abs(Tensor self) -> Tensor",
        node=None,
        formulas={"self": "ember.zeros_like(grad)"},
        non_differentiable=(),
        output_differentiability=None,
        manual=False,
    )
    with pytest.raises(ValueError, match="unknown name ember"):
        AutogradOp(abs_, "record", derivative).check()
    layered = dataclasses.replace(derivative, formulas={"self": "zeros_like(grad)"})
    AutogradOp(abs_, "record", layered).check()
