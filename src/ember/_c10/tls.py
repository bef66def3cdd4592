"""Thread-local dispatch state: the local include and exclude key sets, and their guards.

Layer: _c10. Mirrors c10/core/impl/LocalDispatchKeySet.h and the guards of
c10/core/impl/LocalDispatchKeySet.h / LegacyTypeDispatch.h.
Every thread starts from PyTorch's defaults: include {BackendSelect,
ADInplaceOrView}, exclude the ten Autocast keys. State changes only through
guards that restore what they found, even when the body raises.
"""

from __future__ import annotations

from .dispatch_key import DispatchKey
from .dispatch_key_set import (
    FUNCTIONALITY_MASK,
    DispatchKeySet,
    autograd_dispatch_keyset,
    key_bits,
)
from .thread_state import DEFAULT_EXCLUDED, DEFAULT_INCLUDED, StateFace  # noqa: F401


class _LocalDispatchState(StateFace):
    """This thread's raw include/exclude bits; a new thread starts from the defaults.
    The hot paths read them from per_thread.state directly (Note [Thread state per OS
    thread])."""

    __slots__ = ()
    _fields = ("included", "excluded")


local_state = _LocalDispatchState()


def tls_local_include_set() -> DispatchKeySet:
    return DispatchKeySet.from_raw(local_state.included)


def tls_local_exclude_set() -> DispatchKeySet:
    return DispatchKeySet.from_raw(local_state.excluded)


def tls_is_dispatch_key_included(key: DispatchKey) -> bool:
    bits = key_bits(key)
    return local_state.included & bits == bits


def tls_is_dispatch_key_excluded(key: DispatchKey) -> bool:
    bits = key_bits(key)
    return local_state.excluded & bits == bits


def tls_set_dispatch_key_included(key: DispatchKey, desired: bool) -> None:
    bits = key_bits(key)
    if desired:
        local_state.included |= bits
    else:
        local_state.included &= ~(bits & FUNCTIONALITY_MASK)


def tls_set_dispatch_key_excluded(key: DispatchKey, desired: bool) -> None:
    bits = key_bits(key)
    if desired:
        local_state.excluded |= bits
    else:
        local_state.excluded &= ~(bits & FUNCTIONALITY_MASK)


def _bits_of(keys: DispatchKeySet | DispatchKey | str) -> int:
    if isinstance(keys, DispatchKeySet):
        return keys.raw_repr()
    if isinstance(keys, str):  # a key name, as torch._C._IncludeDispatchKeyGuard takes
        return DispatchKeySet(keys).raw_repr()
    return key_bits(keys)


class IncludeDispatchKeyGuard:
    """Adds keys to the local include set; restores the previous set on exit."""

    __slots__ = ("_bits", "_saved")

    def __init__(self, keys: DispatchKeySet | DispatchKey) -> None:
        self._bits = _bits_of(keys)
        self._saved = None

    def __enter__(self) -> IncludeDispatchKeyGuard:
        self._saved = local_state.included
        local_state.included = self._saved | self._bits
        return self

    def __exit__(self, *exc: object) -> None:
        local_state.included = self._saved


class ExcludeDispatchKeyGuard:
    """Adds keys to the local exclude set; restores the previous set on exit."""

    __slots__ = ("_bits", "_saved")

    def __init__(self, keys: DispatchKeySet | DispatchKey) -> None:
        self._bits = _bits_of(keys)
        self._saved = None

    def __enter__(self) -> ExcludeDispatchKeyGuard:
        self._saved = local_state.excluded
        local_state.excluded = self._saved | self._bits
        return self

    def __exit__(self, *exc: object) -> None:
        local_state.excluded = self._saved


class ForceDispatchKeyGuard:
    """Sets the local include and exclude sets to exactly the given ones; restores on exit."""

    __slots__ = ("_included", "_excluded", "_saved")

    def __init__(self, included: DispatchKeySet, excluded: DispatchKeySet) -> None:
        self._included = included.raw_repr()
        self._excluded = excluded.raw_repr()
        self._saved = None

    def __enter__(self) -> ForceDispatchKeyGuard:
        self._saved = (local_state.included, local_state.excluded)
        local_state.included = self._included
        local_state.excluded = self._excluded
        return self

    def __exit__(self, *exc: object) -> None:
        local_state.included, local_state.excluded = self._saved


class AutoDispatchBelowAutograd(ExcludeDispatchKeyGuard):
    """Excludes the autograd keys, so ADInplaceOrView still runs (view and in-place ops)."""

    __slots__ = ()

    def __init__(self) -> None:
        self._bits = BELOW_AUTOGRAD
        self._saved = None


class AutoDispatchBelowADInplaceOrView(ExcludeDispatchKeyGuard):
    """Excludes the autograd keys and ADInplaceOrView (functional ops)."""

    __slots__ = ()

    def __init__(self) -> None:
        self._bits = BELOW_AD_INPLACE_OR_VIEW
        self._saved = None


# The bits the two guards above exclude, computed once; generated kernels that spell
# the guards out inline use them too.
BELOW_AUTOGRAD = autograd_dispatch_keyset.raw_repr()
BELOW_AD_INPLACE_OR_VIEW = BELOW_AUTOGRAD | key_bits(DispatchKey.ADInplaceOrView)
