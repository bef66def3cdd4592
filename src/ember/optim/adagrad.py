"""`ember.optim.Adagrad`: Adagrad with learning-rate decay and an initial accumulator value.

Layer: optim. In: parameters with their .grad; out: the parameters updated in place
and each one's state ('step', 'sum'), created for every parameter when the
optimizer is built, as PyTorch does. Mirrors torch/optim/adagrad.py: its checks and
defaults, and _single_tensor_adagrad's arithmetic, operator for operator (Note
[ember's optimizers run PyTorch's for-loop arithmetic]).
"""

from __future__ import annotations

from ember._c10.memory_format import preserve_format
from ember._tensor import Tensor
from ember._tensor_ctors import tensor as _tensor
from ember.aten._generated.python_functions import full_like
from ember.autograd import grad_mode
from ember.optim.optimizer import (
    Optimizer,
    check_cpu_implementation,
    check_functional,
    is_sparse,
    scalar_dtype,
    use_grad_for_differentiable,
)

__all__ = ["Adagrad", "adagrad"]


def _initial_sum(p, initial_accumulator_value):
    if p.is_complex():
        raise NotImplementedError(
            "ember.optim.Adagrad: complex parameters need torch.view_as_real, which ember lacks"
        )
    return full_like(p, initial_accumulator_value, memory_format=preserve_format)


class Adagrad(Optimizer):
    def __init__(
        self,
        params,
        lr=1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}"
            )
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        check_cpu_implementation(defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = _tensor(0.0, dtype=scalar_dtype())
                state["sum"] = _initial_sum(p, initial_accumulator_value)

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("fused", None)
        state_values = list(self.state.values())
        step_is_tensor = len(state_values) != 0 and isinstance(state_values[0]["step"], Tensor)
        if not step_is_tensor:
            for s in state_values:
                s["step"] = _tensor(float(s["step"]), dtype=scalar_dtype())

    def _init_group(self, group, params_with_grad, grads, state_sums, state_steps):
        has_sparse_grad, has_complex = False, False
        for p in group["params"]:
            if p.grad is None:
                continue
            has_sparse_grad |= is_sparse(p.grad)
            has_complex |= p.is_complex()
            params_with_grad.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _tensor(0.0, dtype=scalar_dtype())
                state["sum"] = _initial_sum(p, self.defaults["initial_accumulator_value"])
            state_sums.append(state["sum"])
            state_steps.append(state["step"])
        return has_sparse_grad, has_complex

    @use_grad_for_differentiable
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()
        for group in self.param_groups:
            params_with_grad: list = []
            grads: list = []
            state_sums: list = []
            state_steps: list = []
            has_sparse_grad, has_complex = self._init_group(
                group, params_with_grad, grads, state_sums, state_steps
            )
            adagrad(
                params_with_grad,
                grads,
                state_sums,
                state_steps,
                lr=group["lr"],
                weight_decay=group["weight_decay"],
                lr_decay=group["lr_decay"],
                eps=group["eps"],
                has_sparse_grad=has_sparse_grad,
                maximize=group["maximize"],
                has_complex=has_complex,
            )
        return loss


def adagrad(
    params,
    grads,
    state_sums,
    state_steps,
    fused: bool | None = None,
    grad_scale=None,
    found_inf=None,
    has_sparse_grad: bool = False,
    foreach: bool | None = None,
    differentiable: bool = False,
    has_complex: bool = False,
    *,
    lr: float,
    weight_decay: float,
    lr_decay: float,
    eps: float,
    maximize: bool,
) -> None:
    """_single_tensor_adagrad (dense gradients, differentiable=False)."""
    check_functional(fused, False, differentiable, grad_scale, found_inf)
    if has_sparse_grad:
        raise NotImplementedError("ember.optim.Adagrad: sparse gradients are not supported")
    for param, grad, state_sum, step_t in zip(params, grads, state_sums, state_steps):
        step_t += 1
        step = step_t.item()
        grad = grad if not maximize else -grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        clr = lr / (1 + (step - 1) * lr_decay)
        state_sum.addcmul_(grad, grad, value=1)
        std = state_sum.sqrt().add_(eps)
        param.addcdiv_(grad, std, value=-clr)
