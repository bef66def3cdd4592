"""PyTorch's operator database (OpInfo) as ember's breadth test, entry by entry.

Every entry of the installed torch's `op_db` is a test: its samples run in both libraries
and must agree (tests/opinfo_support.py says how). Entries ember does not pass yet are in
tests/opinfo_expected_failures.txt, a list that may only shrink: an entry on it that passes
fails here (remove it from the list), and an entry off it that fails fails here.
"""

from __future__ import annotations

import pytest
from opinfo_support import entry_name, expected_failures, op_db, run_entry
from oracle import needs_torch

try:
    ENTRIES = {entry_name(op): op for op in op_db()}
except ImportError:  # no oracle: test_database_is_present says so (skipped, counted)
    ENTRIES = {}

EXPECTED = expected_failures()


@needs_torch
def test_database_is_present():
    assert len(ENTRIES) >= 700, "torch 2.13's op_db has 702 entries"


@needs_torch
def test_every_listed_entry_exists():
    stale = sorted(set(EXPECTED) - set(ENTRIES))
    assert not stale, f"listed in opinfo_expected_failures.txt but not in op_db: {stale}"


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_entry(name):
    result = run_entry(ENTRIES[name])
    if name in EXPECTED:
        assert not result.passed, (
            f"{name} passes now: remove it from tests/opinfo_expected_failures.txt"
        )
    else:
        assert result.passed, f"{name}:\n  " + "\n  ".join(result.problems[:6])
