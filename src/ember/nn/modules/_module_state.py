"""A Module's state_dict and load_state_dict, with their hooks.

Layer: nn. In: a module tree (and, to load, a mapping of names to tensors). Out: an
OrderedDict of parameters and persistent buffers with PyTorch's ``_metadata``
(``{prefix: {"version": Module._version}}``), or the loaded tensors copied in place
under no_grad and an ``_IncompatibleKeys``; errors collected and raised together as
``Error(s) in loading state_dict for Linear:``. Mirrors the state-dict half of
torch/nn/modules/module.py; module.py installs these functions as Module's methods.
"""

from __future__ import annotations

import itertools
import warnings
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ember._tensor import Tensor
from ember.autograd.grad_mode import no_grad
from ember.nn.parameter import Parameter
from ember.utils.hooks import RemovableHandle

EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class _WrappedHook:
    """A load_state_dict pre-hook, given its module (held weakly) first when asked."""

    def __init__(self, hook, module=None) -> None:
        self.hook = hook
        self.with_module = module is not None
        if self.with_module:
            self.module = weakref.ref(module)

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)


def _is_tensor_like(value) -> bool:
    """torch.overrides.is_tensor_like."""
    return type(value) is Tensor or hasattr(value, "__torch_function__")


def _overrides(module, name: str, base) -> bool:
    return getattr(module.__class__, name, base) is not base


def _save_to_state_dict(self, destination, prefix, keep_vars) -> None:
    for name, param in self._parameters.items():
        if param is not None:
            destination[prefix + name] = param if keep_vars else param.detach()
    for name, buf in self._buffers.items():
        if buf is not None and name not in self._non_persistent_buffers_set:
            destination[prefix + name] = buf if keep_vars else buf.detach()
    if _overrides(self, "get_extra_state", _base_methods["get_extra_state"]):
        destination[prefix + EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()


def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
    if args:
        warnings.warn(
            "Positional args are being deprecated, use kwargs instead. Refer to "
            "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict"
            " for details.",
            FutureWarning,
            stacklevel=2,
        )
        if destination is None:
            destination = args[0]
        if len(args) > 1 and prefix == "":
            prefix = args[1]
        if len(args) > 2 and keep_vars is False:
            keep_vars = args[2]
    if destination is None:
        destination = OrderedDict()
        destination._metadata = OrderedDict()
    local_metadata = dict(version=self._version)
    if hasattr(destination, "_metadata"):
        destination._metadata[prefix[:-1]] = local_metadata
    for hook in self._state_dict_pre_hooks.values():
        hook(self, prefix, keep_vars)
    self._save_to_state_dict(destination, prefix, keep_vars)
    for name, module in self._modules.items():
        if module is not None:
            module.state_dict(
                destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
            )
    for hook in self._state_dict_hooks.values():
        hook_result = hook(self, destination, prefix, local_metadata)
        if not getattr(hook, "_from_public_api", False):
            if hook_result is not None:
                destination = hook_result
        elif hook_result is not None:
            raise RuntimeError("state_dict post-hook must return None")
    return destination


def _register_state_dict_hook(self, hook):
    if getattr(hook, "_from_public_api", False):
        raise RuntimeError(
            "Cannot register the same function as the state dict post hook that was "
            "previously registered via register_state_dict_post_hook"
        )
    handle = RemovableHandle(self._state_dict_hooks)
    self._state_dict_hooks[handle.id] = hook
    return handle


def register_state_dict_post_hook(self, hook):
    hook._from_public_api = True
    handle = RemovableHandle(self._state_dict_hooks)
    self._state_dict_hooks[handle.id] = hook
    return handle


def register_state_dict_pre_hook(self, hook):
    handle = RemovableHandle(self._state_dict_pre_hooks)
    self._state_dict_pre_hooks[handle.id] = hook
    return handle


def _register_load_state_dict_pre_hook(self, hook, with_module=False):
    handle = RemovableHandle(self._load_state_dict_pre_hooks)
    self._load_state_dict_pre_hooks[handle.id] = _WrappedHook(hook, self if with_module else None)
    return handle


def register_load_state_dict_pre_hook(self, hook):
    return self._register_load_state_dict_pre_hook(hook, with_module=True)


def register_load_state_dict_post_hook(self, hook):
    handle = RemovableHandle(self._load_state_dict_post_hooks)
    self._load_state_dict_post_hooks[handle.id] = hook
    return handle


def _copy_one(self, key, name, param, input_param, assign, error_msgs) -> None:
    """One entry of _load_from_state_dict: checks, then a copy (or an assignment)."""
    if not _is_tensor_like(input_param):
        error_msgs.append(
            f'While copying the parameter named "{key}", '
            "expected torch.Tensor or Tensor-like object from checkpoint but "
            f"received {type(input_param)}"
        )
        return
    if len(param.shape) == 0 and len(input_param.shape) == 1 and input_param.shape[0] == 1:
        input_param = input_param[0]  # the old way of saving a 0-d tensor
    if input_param.shape != param.shape:
        error_msgs.append(
            f"size mismatch for {key}: copying a param with shape {input_param.shape} from "
            f"checkpoint, the shape in current model is {param.shape}."
        )
        return
    if param.is_meta and not input_param.is_meta and not assign:
        warnings.warn(
            f"for {key}: copying from a non-meta parameter in the checkpoint to a meta "
            "parameter in the current model, which is a no-op. (Did you mean to "
            "pass `assign=True` to assign items in the state dictionary to their "
            "corresponding key in the module instead of copying them in place?)",
            stacklevel=3,
        )
    try:
        with no_grad():
            if assign:
                if isinstance(param, Parameter):
                    if not isinstance(input_param, Parameter):
                        input_param = Parameter(input_param, requires_grad=param.requires_grad)
                    else:
                        input_param.requires_grad_(param.requires_grad)
                setattr(self, name, input_param)
            else:
                param.copy_(input_param)
    except Exception as ex:  # noqa: BLE001 (PyTorch collects it as a message)
        error_msgs.append(
            f'While copying the parameter named "{key}", '
            f"whose dimensions in the model are {param.size()} and "
            f"whose dimensions in the checkpoint are {input_param.size()}, "
            f"an exception occurred : {ex.args}."
        )


def _load_from_state_dict(
    self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
) -> None:
    for hook in self._load_state_dict_pre_hooks.values():
        hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
    persistent_buffers = {
        k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set
    }
    local_name_params = itertools.chain(self._parameters.items(), persistent_buffers.items())
    local_state = {k: v for k, v in local_name_params if v is not None}
    assign = local_metadata.get("assign_to_params_buffers", False)
    for name, param in local_state.items():
        key = prefix + name
        if key in state_dict:
            _copy_one(self, key, name, param, state_dict[key], assign, error_msgs)
        elif strict:
            missing_keys.append(key)
    extra_state_key = prefix + EXTRA_STATE_KEY_SUFFIX
    if _overrides(self, "set_extra_state", _base_methods["set_extra_state"]):
        if extra_state_key in state_dict:
            self.set_extra_state(state_dict[extra_state_key])
        elif strict:
            missing_keys.append(extra_state_key)
    elif strict and (extra_state_key in state_dict):
        unexpected_keys.append(extra_state_key)
    if strict:
        for key in state_dict:
            if key.startswith(prefix) and key != extra_state_key:
                input_name = key[len(prefix) :].split(".", 1)
                if len(input_name) > 1:
                    if input_name[0] not in self._modules:
                        unexpected_keys.append(key)
                elif input_name[0] not in local_state:
                    unexpected_keys.append(key)


def _load_tree(module, local_state_dict, prefix, metadata, assign, collected) -> None:
    """load_state_dict's walk: the module, then each child on the keys under its prefix."""
    missing_keys, unexpected_keys, error_msgs = collected
    local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
    if assign:
        local_metadata["assign_to_params_buffers"] = assign
    module._load_from_state_dict(
        local_state_dict, prefix, local_metadata, True, missing_keys, unexpected_keys, error_msgs
    )
    for name, child in module._modules.items():
        if child is not None:
            child_prefix = prefix + name + "."
            child_state_dict = {
                k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)
            }
            _load_tree(child, child_state_dict, child_prefix, metadata, assign, collected)
    incompatible_keys = _IncompatibleKeys(missing_keys, unexpected_keys)
    for hook in module._load_state_dict_post_hooks.values():
        if hook(module, incompatible_keys) is not None:
            raise AssertionError(
                "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                "expected to return new values, if incompatible_keys need to be modified, "
                "it should be done inplace."
            )


def load_state_dict(self, state_dict: Mapping, strict: bool = True, assign: bool = False):
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    missing_keys: list[str] = []
    unexpected_keys: list[str] = []
    error_msgs: list[str] = []
    metadata = getattr(state_dict, "_metadata", None)
    state_dict = OrderedDict(state_dict)
    if metadata is not None:
        state_dict._metadata = metadata

    _load_tree(self, state_dict, "", metadata, assign, (missing_keys, unexpected_keys, error_msgs))
    if strict:
        if unexpected_keys:
            error_msgs.insert(
                0,
                "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)
                ),
            )
        if missing_keys:
            error_msgs.insert(
                0,
                "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)
                ),
            )
    if error_msgs:
        raise RuntimeError(
            "Error(s) in loading state_dict for {}:\n\t{}".format(
                self.__class__.__name__, "\n\t".join(error_msgs)
            )
        )
    return _IncompatibleKeys(missing_keys, unexpected_keys)


# Module's own get_extra_state / set_extra_state, filled in by module.py (which imports this file) so that this half needs no import of its class.
_base_methods: dict = {}
