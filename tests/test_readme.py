"""The README shows what the commands print today (docs/regen_readme.py).

Layer: tests (the product surface as documented). Every marked output block of
README.md is compared with a fresh run of its command, durations aside, and
every `>>>` block runs as a doctest; a stale block fails here, and
`make readme` (`python docs/regen_readme.py --write`) rewrites it. The
checker's own rules are tested on small blocks.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("regen_readme", ROOT / "docs" / "regen_readme.py")
regen = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = regen  # dataclasses look their module up
_spec.loader.exec_module(regen)


def _block(body: str) -> regen.Block:
    return regen.Block("output", "cmd", 0, len(body), body)


def test_every_readme_block_is_what_its_command_prints(capsys):
    status = regen.main([])
    report = capsys.readouterr().out
    assert status == 0, report
    assert int(report.splitlines()[-1].split()[0]) >= 15  # the blocks were found


def test_a_moved_line_number_makes_a_block_stale_and_is_rewritten():
    block = _block("A: registered at x.py:10 [kernel]\n")
    body, lost = regen.refresh(block, ["A: registered at x.py:12 [kernel]"], False)
    assert (body, lost) == ("A: registered at x.py:12 [kernel]\n", [])


def test_durations_are_not_staleness():
    block = _block("[call] aten::ones 7.61 ms => [2]\n")
    assert regen.refresh(block, ["[call] aten::ones 210.5 µs => [2]"], False) == (None, [])


def test_excerpts_keep_their_selection():
    block = _block("first\n...\nC 3\nD\n")
    output = ["first", "B", "C 4", "D", "E"]
    assert regen.refresh(block, output, False) == ("first\n...\nC 4\nD\n", [])
    assert regen.refresh(_block("first\n...\nZ\n"), output, False) == (None, ["Z"])
    assert regen.refresh(_block("D\n...\nfirst\n"), output, False)[1] == ["first"]  # in order


def test_every_number_may_vary_when_asked():
    block = _block("off   452 ns   1.01x\n")
    assert regen.refresh(block, ["off  2368 ns   5.2x"], True) == (None, [])
    assert regen.refresh(block, ["off  2368 ns   5.2x"], False)[0] is not None
