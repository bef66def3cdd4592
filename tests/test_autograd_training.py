"""A real training loop on ember's autograd: a two-layer MLP on scikit-learn's digits,
plain SGD, reaches at least 90% test accuracy."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import ember

pytest.importorskip("sklearn")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import mlp_digits  # noqa: E402


def test_mlp_on_digits_reaches_90_percent():
    accuracy = mlp_digits.train(ember)
    assert accuracy >= 0.9, accuracy
