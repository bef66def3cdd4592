#!/usr/bin/env python3
"""Run the example programs and check that each prints what its .expected file says.

Every NN_name.py beside this file is a program written for PyTorch, as its
users write them (`import torch`); NN_name.expected is what PyTorch 2.13
prints for it. Each program can be run three ways:

  run     `ember run NN_name.py`: the file unchanged, ember's import hook
          answering `import torch` (and `torch.X`) with ember;
  import  a copy whose torch imports are rewritten to ember's
          (`import torch` -> `import ember as torch`, `from torch.X import Y`
          -> `from ember.X import Y`), line numbers kept, run by python; ember,
          imported as itself, prints `ember.float32` where PyTorch prints
          `torch.float32`, so this way reads `ember.` as `torch.`;
  torch   the file unchanged under PyTorch itself, which checks that the
          .expected file is what PyTorch prints (needs torch==2.13.0).

The default is `run` and `import`. Comment lines at the top of a program:
  # env: NAME=VALUE ...   environment variables for its run
  # pytorch: WHY          PyTorch does not print this (the `torch` way skips it)

An .expected file is either exact (the output, stdout then stderr, line for
line) or a list of requirements, when any of its lines starts with `~re:`:
each line, in order, must match a later output line (`~re:PATTERN` a regular
expression searched in the line, any other line the whole line).

Usage: python examples/check.py [--way run|import|torch ...] [--folder DIR] [NAME ...]
NAME selects the programs whose file names contain it. The last line reads
'N passed, M failed' (one count per program and way); exit status 0 when none
failed and at least one ran, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
WAYS = ("run", "import", "torch")
TIMEOUT_S = 300


def programs(folder: Path = HERE, names: list[str] | None = None) -> list[Path]:
    found = sorted(folder.glob("[0-9]*.py"))
    return [p for p in found if not names or any(name in p.name for name in names)]


def headers(program: Path) -> dict[str, str]:
    """The `# key: value` comment lines that open a program."""
    found = {}
    for line in program.read_text().splitlines():
        match = re.match(r"# (env|pytorch): (.*)", line)
        if match is None:
            break
        found[match.group(1)] = match.group(2)
    return found


_IMPORT = re.compile(r"^(\s*)import torch(\.[\w.]+)?(\s+as\s+\w+)?\s*$")
_FROM = re.compile(r"^(\s*)from torch(\.[\w.]+)?(\s+import\s.*)$")


def as_ember(source: str) -> str:
    """The program with each torch import written as the matching ember import, line for line.

    `import torch.X` binds the name `torch` to the top package, so it becomes
    `import ember.X, ember as torch`."""
    lines = []
    for line in source.splitlines(keepends=True):
        end = "\n" if line.endswith("\n") else ""
        body = line.removesuffix("\n")
        plain, from_ = _IMPORT.match(body), _FROM.match(body)
        if plain:
            indent, sub, alias = plain.groups()
            if sub is None:
                body = f"{indent}import ember{alias or ' as torch'}"
            elif alias:
                body = f"{indent}import ember{sub}{alias}"
            else:
                body = f"{indent}import ember{sub}, ember as torch"
        elif from_:
            indent, sub, rest = from_.groups()
            body = f"{indent}from ember{sub or ''}{rest}"
        lines.append(body + end)
    return "".join(lines)


def run(program: Path, way: str, python: str = sys.executable) -> tuple[int, list[str]]:
    """Run one program one way: its exit status and output lines (stdout, then stderr)."""
    env = dict(os.environ)
    for pair in headers(program).get("env", "").split():
        name, _, value = pair.partition("=")
        env[name] = value
    with tempfile.TemporaryDirectory() as scratch:
        cwd, target = program.parent, program
        if way == "import":
            cwd = Path(scratch)
            target = cwd / program.name
            target.write_text(as_ember(program.read_text()))
        command = [python, str(target)]
        if way == "run":
            command = [python, "-m", "ember.tools.cli", "run", str(target)]
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=TIMEOUT_S)  # fmt: skip
    return done.returncode, (done.stdout + done.stderr).splitlines()


def mismatch(expected: list[str], actual: list[str]) -> str | None:
    """None when `actual` satisfies `expected`, else what is wrong."""
    if not any(line.startswith("~re:") for line in expected):
        for number, (want, got) in enumerate(zip(expected, actual), 1):
            if want != got:
                return f"line {number}: expected {want!r}, got {got!r}"
        if len(expected) != len(actual):
            return f"expected {len(expected)} lines, got {len(actual)}"
        return None
    position = 0
    for want in expected:
        if want.startswith("~re:"):
            pattern = re.compile(want.removeprefix("~re:"))
            matches = pattern.search
        else:
            matches = want.__eq__
        while position < len(actual) and not matches(actual[position]):
            position += 1
        if position == len(actual):
            return f"no line, in order, matching {want!r}"
        position += 1
    return None


def check(program: Path, way: str, python: str = sys.executable) -> tuple[str | None, list[str]]:
    """Run and compare: (None or the reason it failed, the output lines)."""
    expected = program.with_suffix(".expected").read_text().splitlines()
    try:
        status, output = run(program, way, python)
    except subprocess.TimeoutExpired:
        return f"no result within {TIMEOUT_S} s", []
    if status != 0:
        return f"exit status {status}", output
    if way == "import":  # ember imported as itself names its objects ember.X
        output = [re.sub(r"\bember\.", "torch.", line) for line in output]
    return mismatch(expected, output), output


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="run only the programs whose names contain one")
    parser.add_argument("--way", action="append", choices=WAYS,
                        help="how to run each program (repeatable; default: run and import)")  # fmt: skip
    parser.add_argument("--folder", type=Path, default=HERE, help="where the programs are")
    parser.add_argument("--python", default=sys.executable, help="the interpreter to use")
    args = parser.parse_args(argv)
    passed = failed = 0
    for program in programs(args.folder, args.names):
        for way in args.way or ["run", "import"]:
            if way == "torch" and "pytorch" in headers(program):
                print(f"SKIP {program.name} [torch]: {headers(program)['pytorch']}")
                continue
            why, output = check(program, way, args.python)
            if why is None:
                passed += 1
                print(f"PASS {program.name} [{way}]")
                continue
            failed += 1
            print(f"FAIL {program.name} [{way}]: {why}")
            for line in output[-15:]:
                print(f"    | {line}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
