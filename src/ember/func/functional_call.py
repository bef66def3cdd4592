"""torch.func.functional_call (a module called with given parameters and buffers) and
stack_module_state (same-class models' states stacked, for vmap over functional_call).

Layer: func (above nn). In: a module, one dict or a sequence of dicts of
{"dotted.name": tensor} (a name in two dicts is refused), the args, kwargs,
tie_weights and strict. Out: what nn.utils.stateless's reparametrized call
returns. Mirrors torch/_functorch/functional_call.py; it sits in ember.func,
not ember._functorch, because it calls into nn, which is above _functorch.
"""

from __future__ import annotations

from collections.abc import Sequence

from ember.aten._generated.python_functions import stack
from ember.nn.utils.stateless import _functional_call

__all__ = ["functional_call", "stack_module_state"]


def functional_call(
    module,
    parameter_and_buffer_dicts,
    args=None,
    kwargs=None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
):
    """module(*args, **kwargs) with the given tensors in place of the module's own."""
    if isinstance(parameter_and_buffer_dicts, dict):
        merged = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError(
                "Expected all elements of parameter_and_buffer_dicts to be dictionaries"
            )
        counts: dict = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(
                f"{repeated} appeared in multiple dictionaries; behavior of functional call is "
                "ambiguous"
            )
        merged = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but "
            f"got {type(parameter_and_buffer_dicts)}"
        )
    return _functional_call(module, merged, args, kwargs, tie_weights=tie_weights, strict=strict)


def _stacked_leaf(tensors: tuple, name: str):
    """One model state entry stacked along a new dim 0; a leaf requiring grad where all did."""
    all_grad = all(t.requires_grad for t in tensors)
    if not all_grad and any(t.requires_grad for t in tensors):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack(tensors)
    if all_grad:
        result = result.detach().requires_grad_()
    return result


def stack_module_state(models):
    """torch.func.stack_module_state: (params, buffers) of same-class models, each stacked."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode."
        )
    first = type(models[0])
    if not all(type(m) is first for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    params = {k: _stacked_leaf(tuple(p[k] for p in all_params), k) for k in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: _stacked_leaf(tuple(b[k] for b in all_buffers), k) for k in all_buffers[0]}
    return params, buffers
