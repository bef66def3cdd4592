"""ember.autograd: grad modes, the graph, the engine's API, custom Functions, gradcheck.

Layer: autograd (above aten). Mirrors torch/autograd/__init__.py. The
autograd kernels themselves are generated (autograd/_generated/) and loaded by
ember.autograd.load, which the package root imports after ember.aten.load; see
Note [Generated autograd kernels].
"""

from __future__ import annotations

from . import forward_ad, functional, grad_mode, graph
from .api import backward, grad
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ = [
    "backward",
    "grad",
    "Function",
    "FunctionCtx",
    "once_differentiable",
    "gradcheck",
    "gradgradcheck",
    "GradcheckError",
    "forward_ad",
    "functional",
    "grad_mode",
    "graph",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "install",
]


def install(tensor_class) -> None:
    """Put the autograd face on Tensor (ember._C binds the fallback-mode switches itself)."""
    from . import variable

    variable.install(tensor_class)
