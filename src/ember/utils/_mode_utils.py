"""``no_dispatch`` and the guard behind it, ``torch._C._DisableTorchDispatch``.

Layer: utils (imports _c10). Mirrors torch/utils/_mode_utils.py and the DisableTorchDispatch
guard of torch/csrc/autograd/init.cpp. In: a ``with`` block. Out: the Python,
PythonTLSSnapshot and PreDispatch keys in the TLS exclude set for its duration, so neither
a mode nor a subclass's ``__torch_dispatch__`` sees the calls inside it.
"""

from __future__ import annotations

import contextlib

from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import DispatchKeySet
from ember._c10.tls import local_state

__all__ = ["DisableTorchDispatch", "no_dispatch", "all_same_mode"]

_BITS = DispatchKeySet(DispatchKey.Python).raw_repr()
_BITS |= DispatchKeySet(DispatchKey.PythonTLSSnapshot).raw_repr()
_BITS |= DispatchKeySet(DispatchKey.PreDispatch).raw_repr()


class DisableTorchDispatch:
    """Excludes the Python keys from construction until ``__exit__`` or collection.

    Like c10's ExcludeDispatchKeyGuard it removes on release only the keys it added, so
    keys excluded before it stay excluded.
    """

    __slots__ = ("_added",)

    def __init__(self) -> None:
        excluded = local_state.excluded
        self._added = _BITS & ~excluded
        local_state.excluded = excluded | _BITS

    def _release(self) -> None:
        added, self._added = self._added, 0
        if added:
            local_state.excluded &= ~added

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> None:
        self._release()

    def __del__(self) -> None:
        self._release()


@contextlib.contextmanager
def no_dispatch():
    """Calls inside the block skip every mode and ``__torch_dispatch__``."""
    guard = DisableTorchDispatch()
    try:
        yield
    finally:
        guard._release()


def all_same_mode(modes) -> bool:
    return all(modes[0] == mode for mode in modes)
