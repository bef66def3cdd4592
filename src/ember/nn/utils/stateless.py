"""functional_call: run a module with some of its parameters and buffers replaced for one call.

Layer: nn. In: a module, {"dotted.name": tensor}, the call's args and kwargs,
tie_weights (tensors tied in the module, the same object under two names,
take the one given value; two different values for them raise) and strict
(the names must be exactly the module's). Out: the module's result; its own
tensors are back in place afterwards, also when the call raised. Mirrors
torch/nn/utils/stateless.py (``functional_call`` there is deprecated in favour of
torch.func.functional_call and warns so).
"""

from __future__ import annotations

import contextlib
import warnings

from ember.nn.utils._named_member_accessor import NamedMemberAccessor

__all__ = ["functional_call"]


def _untie_named_tensors_map(module, parameters_and_buffers: dict) -> dict:
    """The given dict plus every name tied to a given name, mapped to the given value."""
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    by_tensor: dict = {}
    for name, tensor in named.items():
        by_tensor.setdefault(id(tensor), set()).add(name)
    tied: dict = {}
    for names in by_tensor.values():
        if len(names) > 1:
            for name in names:
                tied[name] = names
    given = set(parameters_and_buffers)
    given_tied = {name for name in given if name in tied}
    for name in given_tied:
        names = tied[name]
        values = {id(parameters_and_buffers[n]) for n in names if n in parameters_and_buffers}
        if len(names & given_tied) > 1 and len(values) != 1:
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(names)}, which are tied. "
                "Consider using tie_weights=False"
            )
    untied = dict(parameters_and_buffers)
    for name in given_tied:
        for other in tied[name]:
            untied[other] = parameters_and_buffers[name]
    return untied


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers: dict, tie_weights=False, strict=False):
    untied = (
        _untie_named_tensors_map(module, parameters_and_buffers)
        if tie_weights
        else parameters_and_buffers
    )
    accessor = NamedMemberAccessor(module)
    if strict:
        missing, unexpected = accessor.check_keys(untied)
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            raise RuntimeError(
                f"Error(s) in reparametrizing for {module._get_name()}:\n\t" + "\n\t".join(msgs)
            )
    originals: dict = {}
    try:
        originals, _ = accessor.swap_tensors_dict(untied, allow_missing=True)
        yield
    finally:
        new, _ = accessor.swap_tensors_dict(originals, allow_missing=True)
        parameters_and_buffers.update({k: new[k] for k in parameters_and_buffers if k in new})


def _functional_call(
    module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False
):
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(
        module, parameters_and_buffers, tie_weights=tie_weights, strict=strict
    ):
        return module(*args, **kwargs)


def functional_call(
    module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False
):
    """Deprecated alias of torch.func.functional_call for a single dict."""
    warnings.warn(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will "
        "be removed in a future version of PyTorch. Please use `torch.func.functional_call` "
        "instead which is a drop-in replacement.",
        FutureWarning,
        stacklevel=2,
    )
    return _functional_call(
        module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict
    )
