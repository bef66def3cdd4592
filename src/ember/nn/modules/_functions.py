"""The autograd Functions of torch.nn.modules (here: BackwardHookFunction).

Layer: nn (above autograd). Mirrors torch/nn/modules/_functions.py's BackwardHookFunction:
an identity whose backward node (BackwardHookFunctionBackward) is where a Module's full
backward hooks are attached.
"""

from __future__ import annotations

from ember.autograd.function import Function

__all__ = ["BackwardHookFunction"]


class BackwardHookFunction(Function):
    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        return args
