"""Calling a Module: forward pre-hooks, forward, forward hooks (the always-called ones also
when forward raises), and the process-wide hooks of every module.

Layer: nn. In: the module, the call's args and kwargs. Out: forward's result as the
hooks leave it. Mirrors Module._call_impl and the ``register_module_forward_*`` functions
of torch/nn/modules/module.py; the full backward hooks come from backward_hook.py.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict

from ember.utils.hooks import RemovableHandle

__all__ = [
    "register_module_forward_pre_hook",
    "register_module_forward_hook",
    "call_with_hooks",
    "has_global_hooks",
]

# The hooks every module runs, for debugging and profiling (torch's module-level dicts).
global_forward_pre_hooks: OrderedDict = OrderedDict()
global_forward_hooks: OrderedDict = OrderedDict()
global_forward_hooks_with_kwargs: OrderedDict = OrderedDict()
global_forward_hooks_always_called: OrderedDict = OrderedDict()


def has_global_hooks() -> bool:
    return bool(global_forward_pre_hooks or global_forward_hooks)


def register_module_forward_pre_hook(hook) -> RemovableHandle:
    """A forward pre-hook common to all modules, run before their own."""
    handle = RemovableHandle(global_forward_pre_hooks)
    global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(
    hook, *, with_kwargs: bool = False, always_call: bool = False
) -> RemovableHandle:
    """A forward hook common to all modules, run before their own."""
    handle = RemovableHandle(global_forward_hooks, extra_dict=global_forward_hooks_always_called)
    global_forward_hooks[handle.id] = hook
    if with_kwargs:
        global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        global_forward_hooks_always_called[handle.id] = True
    return handle


def _run_pre_hooks(module, args, kwargs):
    for hook_id, hook in (*global_forward_pre_hooks.items(), *module._forward_pre_hooks.items()):
        if hook_id in module._forward_pre_hooks_with_kwargs:
            result = hook(module, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(
                        "forward pre-hook must return None or a tuple "
                        f"of (new_args, new_kwargs), but got {result}."
                    )
        else:
            result = hook(module, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    return args, kwargs


def call_with_hooks(module, forward_call, args, kwargs, backward_hook_factory):
    """Module._call_impl's slow path: some hook is registered."""
    result = None
    called_always = set()

    def inner():
        nonlocal result, args, kwargs
        args, kwargs = _run_pre_hooks(module, args, kwargs)
        bw_hook = None
        if module._backward_hooks or module._backward_pre_hooks:
            bw_hook = backward_hook_factory(module)
            if bw_hook is not None:
                args = bw_hook.setup_input_hook(args)
        result = forward_call(*args, **kwargs)
        for hook_id, hook in (*global_forward_hooks.items(), *module._forward_hooks.items()):
            if (
                hook_id in module._forward_hooks_always_called
                or hook_id in global_forward_hooks_always_called
            ):
                called_always.add(hook_id)
            if (
                hook_id in module._forward_hooks_with_kwargs
                or hook_id in global_forward_hooks_with_kwargs
            ):
                hook_result = hook(module, args, kwargs, result)
            else:
                hook_result = hook(module, args, result)
            if hook_result is not None:
                result = hook_result
        if bw_hook is not None:
            result = bw_hook.setup_output_hook(result)
        return result

    try:
        return inner()
    except Exception:
        for hook_id, hook in global_forward_hooks.items():
            if hook_id in global_forward_hooks_always_called and hook_id not in called_always:
                try:
                    hook_result = hook(module, args, result)
                    if hook_result is not None:
                        result = hook_result
                except Exception as e:  # noqa: BLE001 (PyTorch silences it with a warning)
                    warnings.warn(
                        "global module forward hook with ``always_call=True`` raised an "
                        f"exception that was silenced as another error was raised in forward: {e}",
                        stacklevel=2,
                    )
        for hook_id, hook in module._forward_hooks.items():
            if hook_id in module._forward_hooks_always_called and hook_id not in called_always:
                try:
                    if hook_id in module._forward_hooks_with_kwargs:
                        hook_result = hook(module, args, kwargs, result)
                    else:
                        hook_result = hook(module, args, result)
                    if hook_result is not None:
                        result = hook_result
                except Exception as e:  # noqa: BLE001
                    warnings.warn(
                        "module forward hook with ``always_call=True`` raised an exception "
                        f"that was silenced as another error was raised in forward: {e}",
                        stacklevel=2,
                    )
        raise
