"""TORCH_WARN: a warning from inside an operator, shown at the user's line.

Layer: _c10 (imports nothing of ember). In: the message and the PyTorch
source location that raises it. Out: a Python warning. Mirrors c10's
TORCH_WARN (c10/util/Exception.h) as torch/csrc's PyWarningHandler turns it
into a Python warning: the text gains " (Triggered internally at
/__w/pytorch/pytorch/<file>:<line>.)" and the warning is attributed to the
innermost frame outside the library (the line that called the operator), so
Python's once-per-location filters behave as they do with PyTorch.
"""

from __future__ import annotations

import sys
import warnings

__all__ = ["get_warn_always", "python_warn", "set_warn_always", "torch_warn", "torch_warn_once"]


def _inside_ember(frame) -> bool:
    """A frame of ember's own code: its modules, and the call paths it builds with exec
    (their globals have no __name__)."""
    name = frame.f_globals.get("__name__")
    return name is None or name == "ember" or name.startswith("ember.")


def _warn(text: str, category) -> None:
    frame = sys._getframe(2)  # the caller of torch_warn / torch_warn_once / python_warn
    level = 3  # warnings.warn's stacklevel for that frame
    while frame.f_back is not None and _inside_ember(frame):
        frame = frame.f_back
        level += 1
    warnings.warn(text, category, stacklevel=level)


def python_warn(message: str, category=UserWarning) -> None:
    """A warning PyTorch's Python code gives (no C++ source to name), at the user's line."""
    _warn(message, category)


def torch_warn(message: str, source: str, category=UserWarning) -> None:
    """Warn with ``message`` as TORCH_WARN at ``source`` ('aten/src/ATen/native/Resize.cpp:30')."""
    _warn(f"{message} (Triggered internally at /__w/pytorch/pytorch/{source}.)", category)


_WARNED_ONCE: set = set()
_WARN_ALWAYS = [False]  # c10::WarningUtils::set_warnAlways (torch.set_warn_always)


def set_warn_always(enabled: bool) -> None:
    _WARN_ALWAYS[0] = enabled


def get_warn_always() -> bool:
    return _WARN_ALWAYS[0]


def torch_warn_once(message: str, source: str, category=UserWarning) -> None:
    """TORCH_WARN_ONCE: as torch_warn, the first time in the process only (every time
    while torch.set_warn_always(True))."""
    if _WARN_ALWAYS[0] or message not in _WARNED_ONCE:
        _WARNED_ONCE.add(message)
        _warn(f"{message} (Triggered internally at /__w/pytorch/pytorch/{source}.)", category)
