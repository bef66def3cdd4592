"""The process-wide settings of at::globalContext(): deterministic algorithms and their
debug mode, float32 matmul precision, flush-denormal, and the intra-/inter-op thread counts.

Layer: _c10 (imports nothing of ember). In: values already checked by the Python faces
(ember/_namespace/global_state.py). Out: the settings, read by kernels that honour them.
Mirrors ATen/Context.h / Context.cpp (and ATen/Parallel.h for the thread counts): one
process-wide object, not per thread, as in PyTorch.
"""

from __future__ import annotations

import os

__all__ = ["CONTEXT"]


def _default_threads() -> int:
    """at::init_num_threads' default: the cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class _Context:
    __slots__ = (
        "deterministic_algorithms",
        "deterministic_warn_only",
        "deterministic_fill_uninitialized_memory",
        "float32_matmul_precision",
        "num_threads",
        "num_interop_threads",
        "interop_threads_set",
    )

    def __init__(self) -> None:
        self.deterministic_algorithms = False
        self.deterministic_warn_only = False
        self.deterministic_fill_uninitialized_memory = True
        self.float32_matmul_precision = "highest"
        self.num_threads = _default_threads()
        self.num_interop_threads = _default_threads()
        self.interop_threads_set = False


CONTEXT = _Context()
