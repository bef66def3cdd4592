"""The stand-in for torch (tests/oracle.py) and the end-of-run skip report (conftest.py).

Layer: tests. Without torch a test skips exactly when it uses torch; the report
names every skip reason with its count; CI's EMBER_REQUIRE_TORCH=1 refuses to
run without the oracle. The report is checked in a separate pytest run
(pytester) on a machine where ``import torch`` is made to fail.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from oracle import _Missing

HERE = Path(__file__).resolve().parent
SKIP = pytest.skip.Exception


def test_attribute_chains_are_lazy_and_uses_skip():
    fake = _Missing("torch")
    functional = fake.nn.functional  # a module-level alias costs nothing
    with pytest.raises(SKIP, match=r"uses torch\.nn\.functional\.relu"):
        functional.relu(1)
    for use in (lambda: fake.tensor([1.0]), lambda: str(fake.float32), lambda: list(fake.ops),
                lambda: fake.float32 == 1, lambda: bool(fake), lambda: fake.__version__):  # fmt: skip
        with pytest.raises(SKIP, match="torch==2.13.0"):
            use()


def test_no_object_is_an_instance_of_a_missing_type():
    fake = _Missing("torch")
    assert not isinstance(1.0, fake.Tensor) and not issubclass(float, fake.Tensor)
    assert {fake.float32: 1}  # hashable: parametrisations may hold it


def test_subclassing_a_missing_type_skips():
    fake = _Missing("torch")
    with pytest.raises(SKIP):

        class Sub(fake.Tensor):
            pass


def _suite(pytester, body: str, torch_importable: bool) -> list[str]:
    """A pytester folder with this suite's conftest and oracle and one test file; the options
    that run it (with a plugin, loaded before the conftest, that makes `import torch` fail)."""
    pytester.makeconftest((HERE / "conftest.py").read_text())
    pytester.makepyfile(oracle=(HERE / "oracle.py").read_text(), test_inner=body)
    pytester.makepyfile(no_torch="import sys\n\nsys.modules['torch'] = None\n")
    return ["-p", "no:cacheprovider"] + ([] if torch_importable else ["-p", "no_torch"])


INNER = """
import pytest
from oracle import torch

def test_needs_no_torch():
    assert 1 + 1 == 2

def test_uses_torch():
    torch.ones(2)

@pytest.mark.skipif(True, reason="something else")
def test_other():
    pass
"""


def test_without_torch_only_tests_that_use_it_skip_and_the_report_counts_them(
    pytester, monkeypatch
):
    monkeypatch.delenv("EMBER_REQUIRE_TORCH", raising=False)  # CI sets it for the outer run
    options = _suite(pytester, INNER, torch_importable=False)
    result = pytester.runpytest_subprocess(*options)
    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.fnmatch_lines(
        [
            "*2 tests SKIPPED: they did not run*",
            "*1  torch==2.13.0 (the PyTorch oracle) is not installed",
            "*in test_inner.py (1)",
            "*1  something else",
            "*install the oracle to run them*",
        ]
    )


def test_ci_refuses_to_run_without_the_oracle(pytester, monkeypatch):
    options = _suite(pytester, INNER, torch_importable=False)
    monkeypatch.setenv("EMBER_REQUIRE_TORCH", "1")
    result = pytester.runpytest_subprocess(*options)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*EMBER_REQUIRE_TORCH=1 but torch==2.13.0*"])


def test_a_run_that_collects_nothing_fails(pytester):
    result = pytester.runpytest_subprocess(*_suite(pytester, "", torch_importable=True))
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED != 0
