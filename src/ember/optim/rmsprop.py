"""`ember.optim.RMSprop`: RMSprop with smoothing `alpha`, centering, momentum, weight decay.

Layer: optim. In: parameters with their .grad; out: the parameters updated in place
and each one's state ('step', 'square_avg', 'momentum_buffer', 'grad_avg'). Mirrors
torch/optim/rmsprop.py: its checks and defaults, and _single_tensor_rmsprop's
arithmetic, operator for operator (Note [ember's optimizers run PyTorch's for-loop
arithmetic]).
"""

from __future__ import annotations

from ember._c10.memory_format import preserve_format
from ember._tensor import Tensor
from ember._tensor_ctors import tensor as _tensor
from ember.aten._generated.python_functions import zeros, zeros_like
from ember.autograd import grad_mode
from ember.optim.optimizer import (
    Optimizer,
    check_cpu_implementation,
    check_functional,
    is_sparse,
    scalar_dtype,
    use_grad_for_differentiable,
)

__all__ = ["RMSprop", "rmsprop"]


class RMSprop(Optimizer):
    def __init__(
        self,
        params,
        lr=1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)
        check_cpu_implementation(defaults)

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    p_state["step"] = _tensor(float(p_state["step"]), dtype=scalar_dtype())

    def _init_group(
        self, group, params_with_grad, grads, square_avgs, momentum_buffer_list, grad_avgs, steps
    ) -> bool:
        has_complex = False
        for p in group["params"]:
            if p.grad is None:
                continue
            has_complex |= p.is_complex()
            params_with_grad.append(p)
            if is_sparse(p.grad):
                raise RuntimeError("RMSprop does not support sparse gradients")
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = zeros((), dtype=scalar_dtype())
                state["square_avg"] = zeros_like(p, memory_format=preserve_format)
                if group["momentum"] > 0:
                    state["momentum_buffer"] = zeros_like(p, memory_format=preserve_format)
                if group["centered"]:
                    state["grad_avg"] = zeros_like(p, memory_format=preserve_format)
            square_avgs.append(state["square_avg"])
            steps.append(state["step"])
            if group["momentum"] > 0:
                momentum_buffer_list.append(state["momentum_buffer"])
            if group["centered"]:
                grad_avgs.append(state["grad_avg"])
        return has_complex

    @use_grad_for_differentiable
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()
        for group in self.param_groups:
            params_with_grad: list = []
            grads: list = []
            square_avgs: list = []
            grad_avgs: list = []
            momentum_buffer_list: list = []
            state_steps: list = []
            has_complex = self._init_group(
                group,
                params_with_grad,
                grads,
                square_avgs,
                momentum_buffer_list,
                grad_avgs,
                state_steps,
            )
            rmsprop(
                params_with_grad,
                grads,
                square_avgs,
                grad_avgs,
                momentum_buffer_list,
                state_steps,
                lr=group["lr"],
                alpha=group["alpha"],
                eps=group["eps"],
                weight_decay=group["weight_decay"],
                momentum=group["momentum"],
                centered=group["centered"],
                maximize=group["maximize"],
                has_complex=has_complex,
            )
        return loss


def rmsprop(
    params,
    grads,
    square_avgs,
    grad_avgs,
    momentum_buffer_list,
    state_steps,
    foreach: bool | None = None,
    maximize: bool = False,
    differentiable: bool = False,
    capturable: bool = False,
    has_complex: bool = False,
    *,
    lr: float,
    alpha: float,
    eps: float,
    weight_decay: float,
    momentum: float,
    centered: bool,
) -> None:
    """_single_tensor_rmsprop (capturable=False, differentiable=False)."""
    check_functional(None, capturable, differentiable, None, None)
    if has_complex:
        raise NotImplementedError(
            "ember.optim.RMSprop: complex parameters need torch.view_as_real, which ember lacks"
        )
    for i, param in enumerate(params):
        step = state_steps[i]
        grad = grads[i]
        grad = grad if not maximize else -grad
        square_avg = square_avgs[i]
        step += 1
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if centered:
            grad_avg = grad_avgs[i]
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add_(eps)
        if momentum > 0:
            buf = momentum_buffer_list[i]
            buf.mul_(momentum).addcdiv_(grad, avg)
            param.add_(buf, alpha=-lr)
        else:
            param.addcdiv_(grad, avg, value=-lr)
