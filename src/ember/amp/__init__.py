"""ember.amp: autocast as a dispatch key (AutocastCPU), as torch.amp has it.

Layer: amp (above aten: its kernels call operators through the dispatcher). In: the
autocast regions a program opens. Out: the thread's autocast state (state.py), the
AutocastCPU kernels of PyTorch's CPU list (autocast_kernels.py), and torch.autocast /
custom_fwd / custom_bwd (autocast_mode.py). Mirrors torch/amp/ and
aten/src/ATen/autocast_mode.cpp.
"""

from . import autocast_kernels  # noqa: F401  (registers the AutocastCPU kernels)
from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_available"]
