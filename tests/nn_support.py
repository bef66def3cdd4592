"""Helpers of the torch.nn differential tests: run one program in both libraries.

Layer: tests. ``both(program)`` calls ``program(lib)`` with real PyTorch and with ember and
asserts that the two produce the same record: each value a program returns (or appends
to its log) is reduced to plain data (a tensor to its class name, dtype, shape, values
and requires_grad; a string with ember's module name written as torch's, as the names
print under ``ember run``), and an exception to its type name and message.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np
from oracle import torch

import ember


def _text(value: str) -> str:
    return value.replace("ember", "torch")


def _nan_free(values):
    """Nested lists with each NaN as the string "nan" (NaN is unequal to itself)."""
    if isinstance(values, list):
        return [_nan_free(v) for v in values]
    return "nan" if isinstance(values, float) and math.isnan(values) else values


def plain(value):
    """``value`` as plain, comparable data."""
    if isinstance(value, (ember.Tensor, torch.Tensor)):
        data = value.detach()
        array = data.numpy() if data.dtype not in (ember.bfloat16, torch.bfloat16) else None
        return (
            "tensor",
            type(value).__name__,
            _text(str(value.dtype)),
            tuple(value.shape),
            None if array is None else _nan_free(array.tolist()),
            value.requires_grad,
        )
    if isinstance(value, BaseException):
        return ("raised", type(value).__name__, _text(str(value)))
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    if isinstance(value, dict):
        kind = "OrderedDict" if isinstance(value, OrderedDict) else "dict"
        return (kind, [(plain(k), plain(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [plain(v) for v in value])
    if isinstance(value, (ember.dtype, torch.dtype, ember.Size, torch.Size)):
        return _text(str(value))
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


class Log(list):
    """What a program records: ``log(value)`` appends; ``log.attempt(fn)`` records fn's
    result or the exception it raised."""

    def __call__(self, *values) -> None:
        self.extend(plain(v) for v in values)

    def attempt(self, fn) -> None:
        try:
            result = fn()
        except Exception as e:  # noqa: BLE001 (the exception is the record)
            self.append(plain(e))
        else:
            self.append(plain(result))


def run(program, lib) -> list:
    log = Log()
    program(lib, log)
    return log


def both(program) -> list:
    """Run ``program(lib, log)`` under torch and under ember; their logs must be equal."""
    expected = run(program, torch)
    actual = run(program, ember)
    assert len(actual) == len(expected), (actual, expected)
    for index, (a, e) in enumerate(zip(actual, expected, strict=True)):
        assert a == e, f"record {index} differs:\n ember: {a}\n torch: {e}"
    return actual


def _assert_close(a, e, rtol, atol) -> None:
    if isinstance(a, tuple) and a and a[0] == "tensor" and isinstance(e, tuple) and e:
        assert a[:4] == e[:4] and a[5] == e[5], (a, e)
        np.testing.assert_allclose(np.array(a[4]), np.array(e[4]), rtol=rtol, atol=atol)
    elif isinstance(a, float) and isinstance(e, float):
        assert math.isclose(a, e, rel_tol=rtol, abs_tol=atol), (a, e)
    elif isinstance(a, tuple) and len(a) == 2 and a[0] in ("list", "tuple") and a[0] == e[0]:
        assert len(a[1]) == len(e[1]), (a, e)
        for x, y in zip(a[1], e[1], strict=True):
            _assert_close(x, y, rtol, atol)
    else:
        assert a == e, (a, e)


def close(program, rtol=1.3e-6, atol=1e-5) -> None:
    """Run ``program(lib, log)`` in both; tensors and floats (also inside lists and tuples)
    must agree to the tolerances, all else exactly."""
    expected = run(program, torch)
    actual = run(program, ember)
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected, strict=True):
        _assert_close(a, e, rtol, atol)
