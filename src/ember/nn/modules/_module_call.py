"""Calling a Module: forward pre-hooks, forward, forward hooks (the always-called ones also
when forward raises), backward hooks, the process-wide hooks of every module, and the
registration methods module.py installs on Module.

Layer: nn. In: the module, the call's args and kwargs. Out: forward's result as the
hooks leave it. Mirrors Module._call_impl and the ``register_module_forward_*`` functions
of torch/nn/modules/module.py; the full backward hooks come from _backward_hook.py.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict

from ember._tensor import Tensor
from ember.nn.modules._backward_hook import BackwardHook
from ember.nn.modules._module_state import _WrappedHook
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


def _attach_non_full_backward_hooks(module, args, result) -> None:
    """register_backward_hook's hooks: on the node of the (first) output tensor."""
    var = result
    while not isinstance(var, Tensor):
        if isinstance(var, dict):
            var = next(v for v in var.values() if isinstance(v, Tensor))
        else:
            var = var[0]
    grad_fn = var.grad_fn
    if grad_fn is not None:
        for hook in module._backward_hooks.values():
            grad_fn.register_hook(_WrappedHook(hook, module))
        _warn_non_full_backward_hook(args, result, grad_fn)


def _all_tensors(value) -> bool:
    return isinstance(value, tuple) and all(isinstance(v, Tensor) for v in value)


def _warn_non_full_backward_hook(inputs, result, grad_fn) -> None:
    """Module._maybe_warn_non_full_backward_hook: where the hook will miss gradients."""
    if not isinstance(result, Tensor):
        if not _all_tensors(result):
            warnings.warn(
                "Using non-full backward hooks on a Module that does not return a "
                "single Tensor or a tuple of Tensors is deprecated and will be removed "
                "in future versions. This hook will be missing some of the grad_output. "
                "Please use register_full_backward_hook to get the documented behavior.",
                FutureWarning,
                stacklevel=3,
            )
            return
    else:
        result = (result,)
    if not isinstance(inputs, Tensor):
        if not _all_tensors(inputs):
            warnings.warn(
                "Using non-full backward hooks on a Module that does not take as input a "
                "single Tensor or a tuple of Tensors is deprecated and will be removed "
                "in future versions. This hook will be missing some of the grad_input. "
                "Please use register_full_backward_hook to get the documented behavior.",
                FutureWarning,
                stacklevel=3,
            )
            return
    else:
        inputs = (inputs,)
    out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
    if len(out_grad_fn) == 0 or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
        warnings.warn(
            "Using a non-full backward hook when outputs are nested in python data structure "
            "is deprecated and will be removed in future versions. This hook will be missing "
            "some grad_output.",
            FutureWarning,
            stacklevel=3,
        )
    elif len(out_grad_fn) > 1:
        warnings.warn(
            "Using a non-full backward hook when outputs are generated by different autograd "
            "Nodes is deprecated and will be removed in future versions. This hook will be "
            "missing some grad_output. Please use register_full_backward_hook to get the "
            "documented behavior.",
            FutureWarning,
            stacklevel=3,
        )
    else:
        inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}
        next_functions = {n[0] for n in grad_fn.next_functions}
        if inputs_grad_fn != next_functions:
            warnings.warn(
                "Using a non-full backward hook when the forward contains multiple autograd "
                "Nodes is deprecated and will be removed in future versions. This hook will be "
                "missing some grad_input. Please use register_full_backward_hook to get the "
                "documented behavior.",
                FutureWarning,
                stacklevel=3,
            )


def call_with_hooks(module, forward_call, args, kwargs):
    """Module._call_impl's slow path: some hook is registered."""
    result = None
    called_always = set()

    def inner():
        nonlocal result, args, kwargs
        args, kwargs = _run_pre_hooks(module, args, kwargs)
        bw_hook = None
        if module._backward_hooks or module._backward_pre_hooks:
            bw_hook = _backward_hook_for_call(module)
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
            if not isinstance(result, (Tensor, tuple)):
                warnings.warn(
                    "For backward hooks to be called, module output should be a Tensor or a "
                    f"tuple of Tensors but received {type(result)}",
                    stacklevel=2,
                )
            result = bw_hook.setup_output_hook(result)
        if module._is_full_backward_hook is False and module._backward_hooks:
            _attach_non_full_backward_hooks(module, args, result)
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


# -- a module's hook registrations (module.py installs them as Module's methods) --------
def register_forward_pre_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False):
    handle = RemovableHandle(
        self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs
    )
    self._forward_pre_hooks[handle.id] = hook
    if with_kwargs:
        self._forward_pre_hooks_with_kwargs[handle.id] = True
    if prepend:
        self._forward_pre_hooks.move_to_end(handle.id, last=False)
    return handle


def register_forward_hook(
    self, hook, *, prepend: bool = False, with_kwargs: bool = False, always_call: bool = False
):
    handle = RemovableHandle(
        self._forward_hooks,
        extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called],
    )
    self._forward_hooks[handle.id] = hook
    if with_kwargs:
        self._forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        self._forward_hooks_always_called[handle.id] = True
    if prepend:
        self._forward_hooks.move_to_end(handle.id, last=False)
    return handle


def register_full_backward_pre_hook(self, hook, prepend: bool = False):
    handle = RemovableHandle(self._backward_pre_hooks)
    self._backward_pre_hooks[handle.id] = hook
    if prepend:
        self._backward_pre_hooks.move_to_end(handle.id, last=False)
    return handle


def register_backward_hook(self, hook):
    """The older backward hook, on the node of the forward's output (deprecated in
    favour of register_full_backward_hook, and as approximate as PyTorch's)."""
    if self._is_full_backward_hook is True:
        raise RuntimeError(
            "Cannot use both regular backward hooks and full backward hooks on a "
            "single Module. Please use only one of them."
        )
    self._is_full_backward_hook = False
    handle = RemovableHandle(self._backward_hooks)
    self._backward_hooks[handle.id] = hook
    return handle


def register_full_backward_hook(self, hook, prepend: bool = False):
    if self._is_full_backward_hook is False:
        raise RuntimeError(
            "Cannot use both regular backward hooks and full backward hooks on a "
            "single Module. Please use only one of them."
        )
    self._is_full_backward_hook = True
    handle = RemovableHandle(self._backward_hooks)
    self._backward_hooks[handle.id] = hook
    if prepend:
        self._backward_hooks.move_to_end(handle.id, last=False)
    return handle


def _backward_hook_for_call(self):
    """The BackwardHook of one call, or None when the module has no full backward
    hook and no backward pre-hook."""
    hooks = list(self._backward_hooks.values()) if self._is_full_backward_hook else []
    pre_hooks = list(self._backward_pre_hooks.values())
    if not hooks and not pre_hooks:
        return None
    return BackwardHook(self, hooks, pre_hooks)
