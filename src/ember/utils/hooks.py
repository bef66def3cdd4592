"""torch.utils.hooks: the handle a hook registration returns.

Layer: utils (imports nothing of ember). In: the dict (or dicts) a hook was stored in,
keyed by the handle's id. Out: ``remove()`` deletes that key from each of them. Mirrors
torch/utils/hooks.py's RemovableHandle: ids come from one process-wide counter, the
dicts are held weakly, and the handle is a context manager that removes on exit.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from typing import Any

__all__ = ["RemovableHandle", "unserializable_hook"]


class RemovableHandle:
    """A handle that removes its hook from ``hooks_dict`` (and from ``extra_dict``, one
    dict or a list of dicts that store flags under the same id)."""

    id: int
    next_id: int = 0

    def __init__(self, hooks_dict: Any, *, extra_dict: Any = None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref: tuple = ()
        if isinstance(extra_dict, dict):
            self.extra_dict_ref = (weakref.ref(extra_dict),)
        elif isinstance(extra_dict, list):
            self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self) -> None:
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            hooks = ref()
            if hooks is not None and self.id in hooks:
                del hooks[self.id]

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref))

    def __setstate__(self, state) -> None:
        # a dict that died with the handle's owner gives a dead reference
        self.hooks_dict_ref = weakref.ref(OrderedDict() if state[0] is None else state[0])
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        extra = state[2] if len(state) > 2 else None
        self.extra_dict_ref = () if extra is None else tuple(weakref.ref(d) for d in extra)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, type: Any, value: Any, tb: Any) -> None:  # noqa: A002
        self.remove()


def unserializable_hook(f):
    """Mark ``f`` as a hook that is not serialised (no warning when its tensor is saved)."""
    f.__torch_unserializable__ = True
    return f
