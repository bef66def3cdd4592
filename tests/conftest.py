"""Shared test helpers, and the end-of-run report of every skipped test.

``KeyCarrier`` stands in for a tensor wherever a test needs only what the
dispatcher reads from one: its key set as the raw int ``_key_bits`` (see
docs/architecture.md, "Key sets on the hot path").
"""

from __future__ import annotations

import os
import re
from collections import Counter

import pytest
from hypothesis import settings
from oracle import HAVE_TORCH, TORCH_MISSING

from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import DispatchKeySet

pytest_plugins = ["pytester"]  # test_oracle.py runs the skip report in a pytest of its own

# Every property test draws the same examples on every run (CI's verdict does not depend on
# luck) and keeps no example database. HYPOTHESIS_PROFILE=explore draws fresh ones, many more:
# for hunting, not for the gate.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", max_examples=1000, database=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


class KeyCarrier:
    """Any object with ``_key_bits`` takes part in dispatch like a tensor."""

    __slots__ = ("_key_bits", "label")

    def __init__(self, *keys: DispatchKey | str, bits: int | None = None, label: str = "") -> None:
        if bits is None:
            bits = DispatchKeySet([DispatchKey[k] if isinstance(k, str) else k for k in keys])
            bits = bits.raw_repr()
        self._key_bits = bits
        self.label = label

    def __repr__(self) -> str:
        return f"KeyCarrier({DispatchKeySet.from_raw(self._key_bits)})"


# Key sets of common torch tensors (facts §3.5).
CPU_TENSOR_KEYS = ("CPU", "ADInplaceOrView", "AutogradCPU", "AutocastCPU")
META_TENSOR_KEYS = ("Meta", "ADInplaceOrView", "AutogradMeta")
SPARSE_TENSOR_KEYS = ("SparseCPU", "ADInplaceOrView", "AutogradCPU", "AutocastCPU")

_LOCATION = re.compile(r"registered at \S+?:\d+")


def normalise(text: str) -> str:
    """Replace every ``registered at FILE:LINE`` (torch .cpp, ember .py, tests) by one placeholder."""
    return _LOCATION.sub("registered at <loc>", text)


# -- the skip report -----------------------------------------------------------------------------
# Every skip is counted and its reason printed at the end of the run, loudly: a skipped test is a
# test that did not run. The PyTorch oracle's absence is worded several ways by older tests
# (``needs_torch`` markers, ``importorskip``); they are counted as one reason.
_TORCH_ABSENT = re.compile(
    r"torch not installed|could not import 'torch'|\(the PyTorch oracle\) is not installed"
)


def _skip_reason(report) -> str:
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    reason = reason.removeprefix("Skipped: ")
    return TORCH_MISSING if _TORCH_ABSENT.search(reason) else reason


def pytest_configure(config):
    """CI sets EMBER_REQUIRE_TORCH=1: there the oracle must be present, never skipped."""
    if os.environ.get("EMBER_REQUIRE_TORCH") == "1" and not HAVE_TORCH:
        raise pytest.UsageError(f"EMBER_REQUIRE_TORCH=1 but {TORCH_MISSING}")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    skipped = terminalreporter.stats.get("skipped", [])
    if not skipped:
        return
    reasons: dict[str, list[str]] = {}
    for report in skipped:
        reasons.setdefault(_skip_reason(report), []).append(report.nodeid.split("::")[0])
    write = terminalreporter
    write.write_sep("!", f"{len(skipped)} tests SKIPPED: they did not run", red=True, bold=True)
    for reason, files in sorted(reasons.items(), key=lambda item: -len(item[1])):
        counts = Counter(files)
        where = ", ".join(f"{name} ({n})" for name, n in counts.most_common(4))
        more = f", and {len(counts) - 4} more files" if len(counts) > 4 else ""
        write.write_line(f"{len(files):6d}  {reason}", red=True, bold=True)
        write.write_line(f"        in {where}{more}")
    if not HAVE_TORCH:
        write.write_line(
            "        install the oracle to run them: .venv/bin/python -m pip install torch==2.13.0"
            " (`make test` tries this itself)",
            yellow=True,
        )
