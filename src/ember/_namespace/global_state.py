"""torch's process-wide switches: threads, deterministic algorithms, float32 matmul
precision, warn-always, flush-denormal.

Layer: _namespace. In: the user's values, checked as torch/csrc/Module.cpp checks them
(its RuntimeError / TypeError texts). Out: the settings of _c10/context.py and
_c10/warning.py. Mirrors torch/__init__.py (use_deterministic_algorithms,
set_deterministic_debug_mode, set_float32_matmul_precision) and torch/csrc/Module.cpp
(set_num_threads, setWarnAlways, set_flush_denormal). ember computes on NumPy in one
thread, so the thread counts and the matmul precision are recorded and reported, as a
CPU build without a reduced-precision matmul path does; flush-denormal is reported as
unsupported (False), since NumPy cannot flush subnormals.
"""

from __future__ import annotations

import builtins

from ember._c10 import warning
from ember._c10.context import CONTEXT
from ember._c10.naming import prefix
from ember.aten.python_arg_parser import PythonArgParser

__all__ = [
    "are_deterministic_algorithms_enabled",
    "get_deterministic_debug_mode",
    "get_float32_matmul_precision",
    "get_num_interop_threads",
    "get_num_threads",
    "is_deterministic_algorithms_warn_only_enabled",
    "is_warn_always_enabled",
    "set_deterministic_debug_mode",
    "set_float32_matmul_precision",
    "set_flush_denormal",
    "set_num_interop_threads",
    "set_num_threads",
    "set_warn_always",
    "use_deterministic_algorithms",
]


def _check_int(name: str, value) -> int:
    """THPUtils_checkLong: a Python int (not bool) or an object with __index__ but no float."""
    if value.__class__ is builtins.bool or not hasattr(value, "__index__"):
        raise RuntimeError(f"{name} expects an int, but got {type(value).__name__}")
    return value.__index__()


def _check_bool(name: str, value) -> builtins.bool:
    if value.__class__ is not builtins.bool:
        raise RuntimeError(f"{name} expects a bool, but got {type(value).__name__}")
    return value


def _one_argument(name: str, args, kwargs):
    """A METH_O function's argument (torch.set_num_threads(n))."""
    if kwargs:
        raise TypeError(f"{prefix()}.{name}() takes no keyword arguments")
    if len(args) != 1:
        raise TypeError(f"{prefix()}.{name}() takes exactly one argument ({len(args)} given)")
    return args[0]


# -- threads (ATen/Parallel.h) --------------------------------------------------------------


def get_num_threads() -> int:
    """The number of threads used for intra-op parallelism."""
    return CONTEXT.num_threads


def set_num_threads(*args, **kwargs) -> None:
    value = _one_argument("set_num_threads", args, kwargs)
    n = _check_int("set_num_threads", value)
    if n <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    CONTEXT.num_threads = n


def get_num_interop_threads() -> int:
    return CONTEXT.num_interop_threads


def set_num_interop_threads(*args, **kwargs) -> None:
    value = _one_argument("set_num_interop_threads", args, kwargs)
    n = _check_int("set_num_interop_threads", value)
    if n <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if CONTEXT.interop_threads_set:
        raise RuntimeError(
            "Error: cannot set number of interop threads after parallel work has started or "
            "set_num_interop_threads called"
        )
    CONTEXT.num_interop_threads = n
    CONTEXT.interop_threads_set = True


# -- deterministic algorithms (torch/__init__.py) ---------------------------------------------

_deterministic_parser = PythonArgParser(
    ["_set_deterministic_algorithms(bool mode, *, bool warn_only=False)"]
)


def use_deterministic_algorithms(mode, *, warn_only=False) -> None:
    """Sets whether PyTorch operations must use deterministic algorithms."""
    mode, warn_only = _deterministic_parser.parse((mode,), {"warn_only": warn_only})[1]
    CONTEXT.deterministic_algorithms = mode
    CONTEXT.deterministic_warn_only = warn_only


def are_deterministic_algorithms_enabled() -> builtins.bool:
    return CONTEXT.deterministic_algorithms


def is_deterministic_algorithms_warn_only_enabled() -> builtins.bool:
    return CONTEXT.deterministic_warn_only


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode) -> None:
    """0 / "default": off; 1 / "warn": warn-only; 2 / "error": deterministic algorithms."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                f"but got {debug_mode}"
            )
        debug_mode = _DEBUG_MODES[debug_mode]
    elif not isinstance(debug_mode, builtins.int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(
            f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}"
        )
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> builtins.int:
    if not CONTEXT.deterministic_algorithms:
        return 0
    return 1 if CONTEXT.deterministic_warn_only else 2


# -- float32 matmul precision (ATen/Context.cpp) -----------------------------------------------


def get_float32_matmul_precision() -> str:
    return CONTEXT.float32_matmul_precision


def set_float32_matmul_precision(precision) -> None:
    if not isinstance(precision, str):
        raise RuntimeError(
            f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}"
        )
    if precision not in ("highest", "high", "medium"):
        warning.torch_warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
            "setFloat32MatmulPrecision call has no effect.",
            "aten/src/ATen/Context.cpp:458",
        )
        return
    CONTEXT.float32_matmul_precision = precision


# -- warnings and denormals (torch/csrc/Module.cpp) --------------------------------------------


def set_warn_always(b) -> None:
    """When True, a once-per-process warning (TORCH_WARN_ONCE) is given every time."""
    warning.set_warn_always(_check_bool("setWarnOnlyOnce", b))


def is_warn_always_enabled() -> builtins.bool:
    return warning.get_warn_always()


def set_flush_denormal(*args, **kwargs) -> builtins.bool:
    """False: NumPy cannot flush subnormals, so ember reports the mode unsupported, as
    PyTorch does on a CPU without SSE3 (and changes nothing)."""
    _check_bool("flush_denormal", _one_argument("set_flush_denormal", args, kwargs))
    return False
