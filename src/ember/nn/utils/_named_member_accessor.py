"""Swapping a module's tensors by dotted path (the part of NamedMemberAccessor functional_call uses).

Layer: nn. In: a module and {"sub.name": tensor}. Out: the tensors put in place
(into ``_parameters`` / ``_buffers`` where the name is registered there, else
as a plain attribute) and the originals, so that the swap can be undone. A
failed swap undoes what it did. Mirrors torch/nn/utils/_named_member_accessor.py.
"""

from __future__ import annotations

from ember._tensor import Tensor
from ember.nn.modules.module import Module

MISSING = object()


def swap_tensor(module, name: str, tensor, allow_missing: bool = False):
    """Put tensor (or MISSING: remove) at module.name; returns what was there (or MISSING)."""
    if not isinstance(module, Module):
        raise TypeError(f"{module} is not an instance of torch.nn.Module")
    if tensor is not MISSING and tensor is not None and not isinstance(tensor, Tensor):
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    if "." in name:
        raise KeyError('tensor name can\'t contain "."')
    if name == "":
        raise KeyError('tensor name can\'t be empty string ""')
    for table in (module._parameters, module._buffers):
        if name in table:
            orig = table[name]
            if tensor is MISSING:
                del table[name]
            else:
                table[name] = tensor
            return orig
    if hasattr(module, name):
        orig = getattr(module, name)
    elif not allow_missing:
        raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
    else:
        orig = MISSING
    if orig is not MISSING and orig is not None and not isinstance(orig, Tensor):
        raise TypeError(f"attribute `{name}`: {orig} is not an instance of torch.Tensor")
    if tensor is not MISSING:
        setattr(module, name, tensor)
    elif hasattr(module, name):
        delattr(module, name)
    return orig


class NamedMemberAccessor:
    """Dotted-path access to a module's submodules and tensors, submodule lookups cached."""

    def __init__(self, module) -> None:
        self.module = module
        self.memo: dict = {}

    def get_submodule(self, name: str):
        if not name:
            return self.module
        if name in self.memo:
            return self.memo[name]
        prefix, dot, attr = name.rpartition(".")
        parent = self.get_submodule(prefix) if dot else self.module
        try:
            sub = getattr(parent, attr)
        except AttributeError as ex:
            raise AttributeError(f"{parent._get_name()} has no attribute `{attr}`") from ex
        if not isinstance(sub, Module):
            raise TypeError(f"submodule `{name}`: {sub} is not an instance of torch.nn.Module")
        self.memo[name] = sub
        return sub

    def swap_tensor(self, name: str, value, allow_missing: bool = False):
        prefix, _, attr = name.rpartition(".")
        return swap_tensor(self.get_submodule(prefix), attr, value, allow_missing=allow_missing)

    def swap_tensors_dict(self, named_tensors: dict, allow_missing: bool = False):
        """Swap every entry; on an error, swap back what was swapped, then re-raise."""
        originals: dict = {}
        missing = []
        try:
            for name, tensor in named_tensors.items():
                orig = self.swap_tensor(name, tensor, allow_missing=True)
                if orig is MISSING:
                    missing.append(name)
                originals[name] = orig
        except Exception:
            for name, orig in originals.items():
                self.swap_tensor(name, orig, allow_missing=True)
            raise
        if missing and not allow_missing:
            for name, orig in originals.items():
                self.swap_tensor(name, orig, allow_missing=True)
            raise RuntimeError(f"Missing key(s): {', '.join(map(repr, missing))}.")
        return originals, missing

    def check_keys(self, keys) -> tuple[list, list]:
        keys = set(keys)
        valid = {n for n, _ in self.module.named_parameters(remove_duplicate=False)}
        valid |= {n for n, _ in self.module.named_buffers(remove_duplicate=False)}
        return sorted(valid - keys), sorted(keys - valid)
