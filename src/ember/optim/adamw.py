"""`ember.optim.AdamW`: Adam with decoupled weight decay (default 1e-2).

Layer: optim. Mirrors torch/optim/adamw.py: an Adam whose groups always carry
decoupled_weight_decay=True.
"""

from __future__ import annotations

from ember.optim.adam import Adam, adam

__all__ = ["AdamW", "adamw"]


class AdamW(Adam):
    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True


def adamw(*args, **kwargs) -> None:
    """The functional AdamW: adam with decoupled weight decay."""
    kwargs["decoupled_weight_decay"] = True
    adam(*args, **kwargs)
