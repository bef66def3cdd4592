"""torch.cpu.amp: the deprecated spelling of torch.amp's CPU autocast.

Layer: cpu. Mirrors torch/cpu/amp/autocast_mode.py.
"""

from __future__ import annotations

import warnings

from ember.amp import autocast_mode

__all__ = ["autocast"]


class autocast(autocast_mode.autocast):  # noqa: N801 (PyTorch's name)
    """`torch.amp.autocast('cpu', ...)`, with a FutureWarning."""

    def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True):
        warnings.warn(
            "`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
            "`torch.amp.autocast('cpu', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        if dtype is None:
            from ember.amp import state

            dtype = state.get_autocast_dtype("cpu")
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)
