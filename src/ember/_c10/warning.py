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

__all__ = ["torch_warn"]


def _inside_ember(frame) -> bool:
    """A frame of ember's own code: its modules, and the call paths it builds with exec
    (their globals have no __name__)."""
    name = frame.f_globals.get("__name__")
    return name is None or name == "ember" or name.startswith("ember.")


def torch_warn(message: str, source: str, category=UserWarning) -> None:
    """Warn with ``message`` as TORCH_WARN at ``source`` ('aten/src/ATen/native/Resize.cpp:30')."""
    frame = sys._getframe(1)
    level = 2  # warnings.warn's stacklevel for the frame calling torch_warn
    while frame.f_back is not None and _inside_ember(frame):
        frame = frame.f_back
        level += 1
    text = f"{message} (Triggered internally at /__w/pytorch/pytorch/{source}.)"
    warnings.warn(text, category, stacklevel=level)
