#!/usr/bin/env python3
"""Check the README's output blocks against real runs, or rewrite them (`make readme`).

Layer: docs (a tool of the repository, not of the package). The README marks
what it shows with HTML comments, invisible when rendered, each just before a
fenced block:

  <!-- readme: run COMMAND -->   (no block) a command to run, its output not shown
  <!-- readme: file NAME -->     the block is a file the commands below use
                                 (written to a scratch folder first)
  <!-- readme: output COMMAND --> the block is what COMMAND prints (stdout, then
                                 stderr); a line `...` in the block stands for
                                 output left out, so a block may show excerpts
  <!-- readme: json FILE WHERE --> the block is one event of the trace JSON in
                                 FILE (written by an earlier command), WHERE
                                 being `key=value,...` tests on the event;
                                 its children are shown as ["…"]

and every ```python block whose first line starts with `>>>` is run as a
doctest, all of them in one namespace, in order. COMMAND runs under bash in
the scratch folder (with a copy of examples/), with `ember` and `python` this
interpreter's, NO_COLOR set and REPO naming the repository. Figures that change from run to run are compared
as placeholders: durations (`7.61 ms`, `"elapsed_ns": 371737`) and, with
`numbers` after the command (`<!-- readme: output COMMAND ; numbers -->`),
every number. Anything else that moved (a `registered at FILE:LINE` whose line
changed, a count) makes the block stale. Paths inside the
repository print as `…/src/ember/...`; the scratch folder's as nothing.

    python docs/regen_readme.py           check; exit 1 and name each stale block
    python docs/regen_readme.py --write   rewrite the blocks from this run

Rewriting keeps each block's selection of lines and takes their text from the
new run; a line the run no longer prints cannot be rewritten, and is reported.
"""

from __future__ import annotations

import argparse
import doctest
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MARK = re.compile(
    r"^<!-- readme: (?:(run) (.*?) -->$|(file|output|json) (.*?) -->\n```[a-z]*\n(.*?)^```$)",
    re.M | re.S,
)
DOCTEST = re.compile(r"^```python\n(>>> .*?)^```$", re.M | re.S)
TIMEOUT_S = 300


@dataclass
class Block:
    kind: str  # file, output or json
    argument: str
    start: int  # offsets of the block's body in the README text
    end: int
    body: str


def blocks(text: str) -> list[Block]:
    found = []
    for m in MARK.finditer(text):
        if m.group(1):  # a command whose output is not shown
            found.append(Block("run", m.group(2), m.end(), m.end(), ""))
        else:
            found.append(Block(m.group(3), m.group(4), m.start(5), m.end(5), m.group(5)))
    return found


# -- normalising -----------------------------------------------------------------------------
_DURATION = re.compile(r"\b\d+(?:\.\d+)? ?(?:ns|µs|us|ms|s)\b")


def present(line: str, scratch: str) -> str:
    """An output line as the README shows it: paths shortened."""
    line = line.replace(str(ROOT / "src" / "ember") + "/", "…/src/ember/")
    return line.replace(scratch + "/", "")


def comparable(line: str, every_number: bool = False) -> str:
    """A line with the figures that differ from run to run replaced: durations always, every
    number (and the spacing that aligns numbers) when asked."""
    line = re.sub(r'("elapsed_ns": )\d+', r"\1N", _DURATION.sub("<duration>", line))
    if every_number:  # and the spaces that align them
        line = re.sub(r"\s+", " ", re.sub(r"\d+(?:\.\d+)?", "N", line))
    return line


# -- running ---------------------------------------------------------------------------------
def _scratch_folder(readme_blocks: list[Block]) -> tempfile.TemporaryDirectory:
    scratch = tempfile.TemporaryDirectory(prefix="ember-readme-")
    folder = Path(scratch.name)
    shutil.copytree(ROOT / "examples", folder / "examples")
    tools = folder / ".bin"
    tools.mkdir()
    for name, run in (("ember", "-m ember.tools.cli"), ("python", "")):
        (tools / name).write_text(f'#!/bin/sh\nexec "{sys.executable}" {run} "$@"\n')
        (tools / name).chmod(0o755)
    for block in readme_blocks:
        if block.kind == "file":
            (folder / block.argument).write_text(block.body)
    return scratch


def run(command: str, folder: Path) -> list[str]:
    env = dict(os.environ, NO_COLOR="1", COLUMNS="200", REPO=str(ROOT))
    env["PATH"] = f"{folder / '.bin'}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    done = subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=TIMEOUT_S)  # fmt: skip
    return [present(line, str(folder)) for line in (done.stdout + done.stderr).splitlines()]


def json_event(argument: str, folder: Path) -> list[str]:
    """The event of a trace file that meets the tests, in the README's layout."""
    name, _, where = argument.partition(" ")
    tests = dict(pair.split("=", 1) for pair in where.split(",") if pair)
    events = json.loads((folder / name).read_text())["events"]
    event = next(e for e in events if all(str(e.get(k)) == v for k, v in tests.items()))
    event = {**event, "children": ["…"] if event.get("children") else []}
    text = json.dumps(event, ensure_ascii=False, indent=None)
    return [present(text, str(folder))]


def _find(pattern: list[str], have: list[str], start: int) -> int | None:
    """Where `pattern` occurs as consecutive lines of `have`, at or after `start`."""
    for at in range(start, len(have) - len(pattern) + 1):
        if have[at : at + len(pattern)] == pattern:
            return at
    return None


def refresh(block: Block, output: list[str], every_number: bool) -> tuple[str | None, list[str]]:
    """The block rewritten from `output` (None if it already matches), and the lines no
    longer printed. Runs of lines between `...` lines must appear in order, consecutively;
    a run is found again when only its figures changed (a count, a line number), and then
    it is stale: rewritten from the new output."""
    wanted = block.body.splitlines()
    runs: list[list[int]] = [[]]
    for index, line in enumerate(wanted):
        if line.strip() == "...":
            runs.append([])
        else:
            runs[-1].append(index)
    exact = [comparable(line, every_number) for line in output]
    loose = [comparable(line, True) for line in output]
    new, lost, position = list(wanted), [], 0
    for indices in filter(None, runs):
        at = _find([comparable(wanted[i], every_number) for i in indices], exact, position)
        if at is None:
            at = _find([comparable(wanted[i], True) for i in indices], loose, position)
        if at is None:
            lost += [wanted[i] for i in indices]
            continue
        for offset, i in enumerate(indices):
            if comparable(wanted[i], every_number) != exact[at + offset]:
                new[i] = output[at + offset]
        position = at + len(indices)
    body = "\n".join(new) + "\n"
    return (None if body == block.body else body), lost


def check_json(block: Block, folder: Path) -> tuple[str | None, list[str]]:
    """Like `refresh`, for a json block: the layout is the README's, the values the run's."""

    def same(a: dict, b: dict) -> bool:  # the duration aside
        return {**a, "elapsed_ns": 0} == {**b, "elapsed_ns": 0}

    try:
        real = json.loads(json_event(block.argument, folder)[0])
        if same(real, json.loads(block.body)):
            return None, []
    except (OSError, StopIteration, json.JSONDecodeError) as error:
        return None, [f"cannot compare: {error!r}"]
    registered = real["kernel"]["registered_at"]
    body = re.sub(r'"elapsed_ns": \d+', f'"elapsed_ns": {real["elapsed_ns"]}', block.body)
    body = re.sub(r'"registered_at": "[^"]*"', lambda _: f'"registered_at": "{registered}"', body)
    if same(real, json.loads(body)):
        return body, []
    return None, [f"the event differs: {json.dumps(real, ensure_ascii=False)}"]


def doctests(text: str) -> list[str]:
    """Failures of the README's `>>>` blocks, run in one namespace."""
    parser, failures = doctest.DocTestParser(), []
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    namespace: dict = {}
    for number, match in enumerate(DOCTEST.finditer(text), 1):
        test = parser.get_doctest(match.group(1), namespace, f"README block {number}", None, 0)
        out: list[str] = []
        runner.run(test, out=out.append, clear_globs=False)
        namespace = test.globs  # the next block goes on where this one stopped
        failures += out
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite the stale blocks")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "src"))
    text = README.read_text()
    found = blocks(text)
    problems, replacements = doctests(text), []
    with _scratch_folder(found) as scratch:
        folder = Path(scratch)
        for block in found:
            if block.kind == "file":
                continue
            if block.kind == "run":
                run(block.argument, folder)
                continue
            if block.kind == "json":
                body, lost = check_json(block, folder)
            else:
                command, _, option = block.argument.partition(" ; ")
                body, lost = refresh(block, run(command, folder), option.strip() == "numbers")
            where = f"README.md:{text[: block.start].count(chr(10)) + 1} ({block.kind} {block.argument})"
            problems += [f"{where}: no longer printed: {line}" for line in lost]
            if body is not None:
                replacements.append((block, body))
                if not args.write:
                    problems.append(f"{where}: stale (python docs/regen_readme.py --write)")
    if args.write and replacements:
        for block, body in sorted(replacements, key=lambda pair: -pair[0].start):
            text = text[: block.start] + body + text[block.end :]
        README.write_text(text)
        print(f"rewrote {len(replacements)} blocks")
    for problem in problems:
        print(problem)
    if args.write:
        problems = [p for p in problems if "stale" not in p]
    print(f"{len(found)} blocks, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
