"""torch's process-wide switches (threads, deterministic algorithms, matmul precision,
warn-always, flush-denormal, print options), differential against PyTorch 2.13
(ember/_namespace/global_state.py, _c10/context.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from oracle import torch

import ember


def outcome(fn):
    try:
        return ("ok", repr(fn()).replace("ember.", "torch."))
    except Exception as error:  # noqa: BLE001 - the exception is the result compared
        return (type(error).__name__, str(error).replace("ember.", "torch."))


def both(fn):
    e, t = outcome(lambda: fn(ember)), outcome(lambda: fn(torch))
    assert e == t
    return e


@pytest.fixture
def restore():
    saved = {
        lib: (
            lib.get_num_threads(),
            lib.get_float32_matmul_precision(),
            lib.are_deterministic_algorithms_enabled(),
            lib.is_deterministic_algorithms_warn_only_enabled(),
            lib.is_warn_always_enabled(),
        )
        for lib in (ember, torch)
    }
    yield
    for lib, (threads, precision, det, warn_only, always) in saved.items():
        lib.set_num_threads(threads)
        lib.set_float32_matmul_precision(precision)
        lib.use_deterministic_algorithms(det, warn_only=warn_only)
        lib.set_warn_always(always)


@pytest.mark.parametrize(
    "value", [1, 3, np.int64(2), 0, -1, "a", 2.0, True, None], ids=lambda v: repr(v)
)
def test_set_num_threads(restore, value):
    both(lambda lib: (lib.set_num_threads(value), lib.get_num_threads()))


def test_thread_call_errors(restore):
    both(lambda lib: lib.set_num_threads())
    both(lambda lib: lib.set_num_threads(1, 2))
    both(lambda lib: lib.set_num_threads(n=2))
    both(lambda lib: lib.set_num_interop_threads(0))
    both(lambda lib: lib.set_num_interop_threads("x"))
    assert ember.get_num_threads() >= 1 and ember.get_num_interop_threads() >= 1


@pytest.mark.parametrize("precision", ["highest", "high", "medium", "foo", 1])
def test_float32_matmul_precision(restore, precision):
    def run(lib):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            result = outcome(lambda: lib.set_float32_matmul_precision(precision))
        return result, lib.get_float32_matmul_precision(), [str(w.message) for w in seen]

    assert run(ember) == run(torch)


DETERMINISTIC_CALLS = [
    lambda lib: lib.use_deterministic_algorithms(True),
    lambda lib: lib.use_deterministic_algorithms(True, warn_only=True),
    lambda lib: lib.use_deterministic_algorithms(False, warn_only=True),
    lambda lib: lib.use_deterministic_algorithms(mode=False),
    lambda lib: lib.use_deterministic_algorithms(1),
    lambda lib: lib.use_deterministic_algorithms(True, warn_only=1),
    lambda lib: lib.use_deterministic_algorithms(),
    lambda lib: lib.set_deterministic_debug_mode("error"),
    lambda lib: lib.set_deterministic_debug_mode("warn"),
    lambda lib: lib.set_deterministic_debug_mode("default"),
    lambda lib: lib.set_deterministic_debug_mode(2),
    lambda lib: lib.set_deterministic_debug_mode(True),
    lambda lib: lib.set_deterministic_debug_mode(3),
    lambda lib: lib.set_deterministic_debug_mode(-1),
    lambda lib: lib.set_deterministic_debug_mode("x"),
    lambda lib: lib.set_deterministic_debug_mode(1.0),
]


@pytest.mark.parametrize("call", DETERMINISTIC_CALLS)
def test_deterministic_switches(restore, call):
    both(
        lambda lib: (
            outcome(lambda: call(lib)),
            lib.are_deterministic_algorithms_enabled(),
            lib.is_deterministic_algorithms_warn_only_enabled(),
            lib.get_deterministic_debug_mode(),
        )
    )


def test_warn_always(restore):
    both(lambda lib: lib.set_warn_always(1))
    both(lambda lib: lib.set_warn_always(None))
    both(lambda lib: lib.set_warn_always())

    def run(lib):
        lib.set_warn_always(True)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            for _ in range(3):
                lib.set_default_tensor_type(lib.FloatTensor)  # TORCH_WARN_ONCE
        enabled = lib.is_warn_always_enabled()
        lib.set_warn_always(False)
        return enabled, lib.is_warn_always_enabled(), len(seen)

    assert run(ember) == run(torch) == (True, False, 3)


def test_flush_denormal_arguments():
    both(lambda lib: lib.set_flush_denormal(1))
    both(lambda lib: lib.set_flush_denormal())
    # NumPy cannot flush subnormals: ember reports the mode unsupported and keeps them
    assert ember.set_flush_denormal(True) is False
    assert ember.tensor([1e-39]).item() != 0.0


# -- set_printoptions: tensor reprs as torch prints them -----------------------------------

PRINT_CASES = [
    dict(precision=2),
    dict(precision=8),
    dict(threshold=5),
    dict(threshold=5, edgeitems=1),
    dict(linewidth=30),
    dict(sci_mode=True),
    dict(sci_mode=False),
    dict(profile="short"),
    dict(profile="full"),
    dict(profile="nonsense"),
    dict(profile="short", precision=6),
]
VALUES = [
    [1.123456789, 2.5, -3.0],
    list(np.linspace(0.0, 1.0, 12)),
    [[1e-5, 3.0], [1e8, 2.0]],
    list(range(40)),
    [[i * 0.37 for i in range(9)] for _ in range(8)],
]


@pytest.mark.parametrize("options", PRINT_CASES, ids=repr)
def test_set_printoptions_changes_repr(options):
    def run(lib):
        lib.set_printoptions(**options)
        try:
            return [repr(lib.tensor(v)) for v in VALUES] + [
                repr(lib.arange(2000)),
                repr(lib.tensor(VALUES[1], dtype=lib.float64)),
            ]
        finally:
            lib.set_printoptions(profile="default")

    e, t = run(ember), run(torch)
    assert [s.replace("ember.", "torch.") for s in e] == t


EMPTY_CALLS = [
    lambda lib: lib.empty(3),
    lambda lib: lib.empty(2, dtype=lib.int32),
    lambda lib: lib.empty(2, dtype=lib.uint8),
    lambda lib: lib.empty(2, dtype=lib.bool),
    lambda lib: lib.empty(2, dtype=lib.complex64),
    lambda lib: lib.empty(2, dtype=lib.float16),
    lambda lib: lib.empty_like(lib.ones(2, 2)),
    lambda lib: lib.empty_strided((2, 2), (1, 2)),
    lambda lib: lib.ones(2).new_empty(3),
    lambda lib: lib.empty(2, 2, device="meta"),
    lambda lib: lib.zeros(2),
]


@pytest.mark.parametrize("warn_only", [False, True])
@pytest.mark.parametrize("call", EMPTY_CALLS)
def test_deterministic_mode_fills_uninitialized_memory(restore, call, warn_only):
    def run(lib):
        lib.use_deterministic_algorithms(True, warn_only=warn_only)
        try:
            return repr(call(lib)).replace("ember.", "torch.")
        finally:
            lib.use_deterministic_algorithms(False)

    assert run(ember) == run(torch)
