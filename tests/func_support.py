"""Shared by the torch.func / autograd.functional tests: one program under ember and torch.

Layer: tests. ``same(program)`` runs ``program(lib)`` with lib = ember and lib =
torch and asserts the same outcome: results as plain data (values within
float32 rounding, dtype, shape, strides, requires_grad, grad_fn name, the
containers' kinds and keys), or the same exception type and message.
"""

from __future__ import annotations

import math

from autograd_support import outcome
from oracle import torch

import ember


def _close(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_close, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_close(a[k], b[k]) for k in a)
    return a == b


def same(program):
    """Assert program(ember) and program(torch) agree; return torch's outcome."""
    ours, theirs = outcome(program, ember), outcome(program, torch)
    assert _close(ours, theirs), (ours, theirs)
    return theirs
