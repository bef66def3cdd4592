"""torch.func.functional_call: a module called with given parameters and buffers.

Layer: func (above nn). In: a module, one dict or a sequence of dicts of
{"dotted.name": tensor} (a name in two dicts is refused), the args, kwargs,
tie_weights and strict. Out: what nn.utils.stateless's reparametrized call
returns. Mirrors torch/_functorch/functional_call.py; it sits in ember.func,
not ember._functorch, because it calls into nn, which is above _functorch.
"""

from __future__ import annotations

from collections.abc import Sequence

from ember.nn.utils.stateless import _functional_call

__all__ = ["functional_call"]


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
