"""DispatchKeySet: a 64-bit word of functionality bits and backend bits.

Layer: _c10. Mirrors c10/core/DispatchKeySet.h and DispatchKeySet.cpp.
In: DispatchKey numbers. Out: key sets, their printing and ordering, the
operator-table index of a set, alias expansion and the FULL_AFTER sets.

Note [DispatchKeySet Internal Representation]
---------------------------------------------
Bits 0-15 are backend bits (BackendComponent b at bit b - 1: CPU bit 0, Meta
bit 15). Functionality key f (1..46) sits at bit 15 + f. A per-backend runtime
key such as AutogradCUDA sets two bits: its functionality
(AutogradFunctionality) and its backend (CUDA). A set therefore means the
cross product {functionalities} x {backends}: CPU | AutogradCUDA contains
CPU, CUDA, AutogradCPU and AutogradCUDA. Removing keys (``-``, ``remove``)
clears only functionality bits, so backend bits survive. The dispatcher's hot
path works on the raw ints; DispatchKeySet objects are the public face.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .dispatch_key import (
    ALIAS_KEYS,
    NUM_BACKENDS,
    PER_BACKEND_FUNCTIONALITY_KEYS,
    BackendComponent,
    DispatchKey,
    is_per_backend_functionality,
    key_name,
    parse_dispatch_key,
    to_backend_component,
    to_functionality_key,
    to_runtime_per_backend_key,
)

BACKEND_MASK = (1 << NUM_BACKENDS) - 1
LAST_FUNCTIONALITY = int(DispatchKey.PythonDispatcher)  # 46
FULL_MASK = (1 << (NUM_BACKENDS + LAST_FUNCTIONALITY)) - 1
FUNCTIONALITY_MASK = FULL_MASK & ~BACKEND_MASK


def functionality_bit(functionality: int) -> int:
    return 1 << (NUM_BACKENDS - 1 + functionality)


def backend_bit(backend: int) -> int:
    return 1 << (backend - 1)


def key_bits(key: int) -> int:
    """The raw bits of the set holding just ``key`` (0 for Undefined and aliases)."""
    if 0 <= key < _KEY_COUNT:
        return _KEY_BITS[key]
    return _compute_key_bits(key)


def _compute_key_bits(key: int) -> int:
    key = int(key)
    if key == 0 or key > int(DispatchKey.EndOfRuntimeBackendKeys):
        return 0
    if key < int(DispatchKey.EndOfFunctionalityKeys):
        return functionality_bit(key)
    if key == int(DispatchKey.EndOfFunctionalityKeys):
        return 0
    bits = functionality_bit(to_functionality_key(key))
    backend = to_backend_component(key)
    if backend:
        bits |= backend_bit(backend)
    return bits


_KEY_COUNT = int(DispatchKey.EndOfAliasKeys) + 1
_KEY_BITS = tuple(_compute_key_bits(key) for key in range(_KEY_COUNT))


def keys_bits(keys: Iterable[int]) -> int:
    bits = 0
    for key in keys:
        bits |= key_bits(key)
    return bits


# ---------------------------------------------------------------------------
# The operator table layout (DispatchKeySet.cpp, initializeFunctionalityOffsetsAndMasks)


def _functionality_offsets() -> tuple[int, ...]:
    offsets = [0]
    for functionality in range(1, LAST_FUNCTIONALITY + 1):
        previous = functionality - 1
        step = NUM_BACKENDS if is_per_backend_functionality(previous) else 1
        offsets.append(offsets[-1] + step)
    return tuple(offsets)


FUNCTIONALITY_OFFSETS = _functionality_offsets()
NUM_RUNTIME_ENTRIES = FUNCTIONALITY_OFFSETS[-1] + 1  # 137: Undefined + 136 runtime keys

_PER_BACKEND_BITS = frozenset(int(k) for k in PER_BACKEND_FUNCTIONALITY_KEYS)


def raw_table_index(bits: int) -> int:
    """Index into an operator's table for the highest-priority key of ``bits``."""
    functionality = (bits >> NUM_BACKENDS).bit_length()
    if functionality == 0:
        return 0
    offset = FUNCTIONALITY_OFFSETS[functionality]
    if functionality in _PER_BACKEND_BITS:
        backend = (bits & BACKEND_MASK).bit_length()
        if backend:
            offset += backend - 1
    return offset


def raw_highest_priority_key(bits: int) -> DispatchKey:
    functionality = (bits >> NUM_BACKENDS).bit_length()
    if functionality == 0:
        return DispatchKey.Undefined
    if functionality in _PER_BACKEND_BITS:
        backend = (bits & BACKEND_MASK).bit_length()
        return DispatchKey(
            int(to_runtime_per_backend_key(functionality, 0)) + backend,
        )
    return DispatchKey(functionality)


def raw_keys(bits: int) -> Iterator[DispatchKey]:
    """Runtime keys of a set, lowest priority first (PB functionality with no backend: omitted)."""
    functionalities = bits >> NUM_BACKENDS
    backends = [b for b in range(1, NUM_BACKENDS + 1) if bits & backend_bit(b)]
    functionality = 0
    while functionalities:
        functionality += 1
        if functionalities & 1:
            if functionality in _PER_BACKEND_BITS:
                for backend in backends:
                    yield to_runtime_per_backend_key(functionality, backend)
            else:
                yield DispatchKey(functionality)
        functionalities >>= 1


def _runtime_key_for_index() -> tuple[DispatchKey, ...]:
    keys = [DispatchKey.Undefined] * NUM_RUNTIME_ENTRIES
    for functionality in range(1, LAST_FUNCTIONALITY + 1):
        offset = FUNCTIONALITY_OFFSETS[functionality]
        if functionality in _PER_BACKEND_BITS:
            for backend in range(1, NUM_BACKENDS + 1):
                keys[offset + backend - 1] = to_runtime_per_backend_key(functionality, backend)
        else:
            keys[offset] = DispatchKey(functionality)
    return tuple(keys)


# Slot i of every operator table belongs to TABLE_KEYS[i]; slot 0 is Undefined.
TABLE_KEYS = _runtime_key_for_index()


class DispatchKeySet:
    """An immutable set of dispatch keys. See Note [DispatchKeySet Internal Representation]."""

    __slots__ = ("_bits",)

    def __init__(self, keys: DispatchKey | str | Iterable[DispatchKey] | None = None) -> None:
        """A key (or its name, as torch._C.DispatchKeySet takes); ember also takes None,
        another set or an iterable of keys."""
        if keys is None:
            bits = 0
        elif isinstance(keys, DispatchKeySet):
            bits = keys._bits
        elif isinstance(keys, int):
            bits = key_bits(keys)
        elif isinstance(keys, str):
            bits = key_bits(parse_dispatch_key(keys))
        elif isinstance(keys, Iterable):
            bits = keys_bits(_as_key(key, "__init__") for key in keys)
        else:
            raise TypeError(_incompatible("__init__", keys))
        self._bits = bits

    @classmethod
    def from_raw(cls, bits: int) -> DispatchKeySet:
        keyset = cls.__new__(cls)
        keyset._bits = bits
        return keyset

    @staticmethod
    def from_raw_repr(bits: int) -> DispatchKeySet:
        """torch._C.DispatchKeySet.from_raw_repr: the set whose raw word is ``bits``."""
        return DispatchKeySet.from_raw(int(bits))

    @classmethod
    def full(cls) -> DispatchKeySet:
        return cls.from_raw(FULL_MASK)

    @classmethod
    def full_after(cls, key: DispatchKey) -> DispatchKeySet:
        """Every key below ``key``'s functionality, plus PythonDispatcher (FULL_AFTER)."""
        return cls.from_raw(full_after_bits(key))

    def raw_repr(self) -> int:
        return self._bits

    # -- set algebra ------------------------------------------------------
    def __or__(self, other: DispatchKeySet) -> DispatchKeySet:
        return DispatchKeySet.from_raw(self._bits | _as_bits(other, "__or__", self))

    def __and__(self, other: DispatchKeySet) -> DispatchKeySet:
        return DispatchKeySet.from_raw(self._bits & _as_bits(other, "__and__", self))

    def __sub__(self, other: DispatchKeySet) -> DispatchKeySet:
        """Clears only functionality bits; backend bits survive."""
        bits = _as_bits(other, "__sub__", self)
        return DispatchKeySet.from_raw(self._bits & ~(bits & FUNCTIONALITY_MASK))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DispatchKeySet):
            return self._bits == other._bits
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._bits)

    def add(self, key: DispatchKey | str) -> DispatchKeySet:
        return DispatchKeySet.from_raw(self._bits | key_bits(_as_key(key, "add", self)))

    def remove(self, key: DispatchKey | str) -> DispatchKeySet:
        return self - DispatchKeySet(_as_key(key, "remove", self))

    def has(self, key: DispatchKey | str) -> bool:
        bits = key_bits(_as_key(key, "has", self))
        return self._bits & bits == bits

    def has_any(self, other: DispatchKeySet) -> bool:
        return bool(self._bits & _as_bits(other))

    def isSupersetOf(self, other: DispatchKeySet) -> bool:  # noqa: N802 (PyTorch's name)
        bits = _as_bits(other)
        return self._bits & bits == bits

    def empty(self) -> bool:
        return self._bits == 0

    def __bool__(self) -> bool:
        return self._bits != 0

    # -- priority ---------------------------------------------------------
    def highestPriorityTypeId(self) -> DispatchKey:  # noqa: N802 (PyTorch's name)
        return raw_highest_priority_key(self._bits)

    def highestFunctionalityKey(self) -> DispatchKey:  # noqa: N802 (PyTorch's name)
        return DispatchKey((self._bits >> NUM_BACKENDS).bit_length())

    def highestBackendKey(self) -> BackendComponent:  # noqa: N802 (PyTorch's name)
        return BackendComponent((self._bits & BACKEND_MASK).bit_length())

    def getDispatchTableIndexForDispatchKeySet(self) -> int:  # noqa: N802 (PyTorch's name)
        return raw_table_index(self._bits)

    # -- iteration and printing -------------------------------------------
    def __iter__(self) -> Iterator[DispatchKey]:
        return raw_keys(self._bits)

    def __len__(self) -> int:
        return sum(1 for _ in raw_keys(self._bits))

    def __contains__(self, key: DispatchKey) -> bool:
        return self.has(key)

    def __repr__(self) -> str:
        return "DispatchKeySet(" + ", ".join(key_name(k) for k in raw_keys(self._bits)) + ")"

    __str__ = __repr__


def _as_bits(other: DispatchKeySet | DispatchKey, method: str = "", owner=None) -> int:
    if isinstance(other, DispatchKeySet):
        return other._bits
    if isinstance(other, DispatchKey) and not method:  # ember's own has_any / isSupersetOf
        return key_bits(other)
    raise TypeError(_incompatible(method, other, owner))


def _as_key(key, method: str, owner=None) -> DispatchKey:
    """A DispatchKey argument as pybind11 loads it: a key, or a key name to parse."""
    if isinstance(key, str):
        return parse_dispatch_key(key)
    if isinstance(key, DispatchKey):
        return key
    if isinstance(key, int) and not isinstance(key, bool) and method == "__init__":
        return DispatchKey(key)  # ember's own callers pass raw key numbers
    raise TypeError(_incompatible(method, key, owner))


# pybind11's refusal of torch._C.DispatchKeySet's arguments (the signature, then the call).
_SIGNATURES = {
    "__init__": "torch._C.DispatchKeySet(arg0: torch._C.DispatchKey)",
    "add": "(self: torch._C.DispatchKeySet, arg0: torch._C.DispatchKey) -> torch._C.DispatchKeySet",
    "remove": "(self: torch._C.DispatchKeySet, arg0: torch._C.DispatchKey) -> "
    "torch._C.DispatchKeySet",
    "has": "(self: torch._C.DispatchKeySet, arg0: torch._C.DispatchKey) -> bool",
    "__or__": "(self: torch._C.DispatchKeySet, arg0: torch._C.DispatchKeySet) -> "
    "torch._C.DispatchKeySet",
}
_SIGNATURES["__and__"] = _SIGNATURES["__sub__"] = _SIGNATURES["__or__"]


def _incompatible(method: str, argument, owner=None) -> str:
    if method not in _SIGNATURES:
        return f"expected a DispatchKeySet or a DispatchKey, got {argument!r}"
    what = "constructor" if method == "__init__" else "function"
    invoked = repr(argument) if owner is None else f"{owner!r}, {argument!r}"
    return (
        f"{method}(): incompatible {what} arguments. The following argument types are "
        f"supported:\n    1. {_SIGNATURES[method]}\n\nInvoked with: {invoked}"
    )


def full_after_bits(key: DispatchKey) -> int:
    functionality = int(to_functionality_key(int(key)))
    below = functionality_bit(functionality) - 1
    return below | functionality_bit(int(DispatchKey.PythonDispatcher))


# ---------------------------------------------------------------------------
# Well-known sets (DispatchKeySet.h)


def _set(*names: str, backends: Iterable[int] = ()) -> DispatchKeySet:
    bits = keys_bits(DispatchKey[name] for name in names)
    for backend in backends:
        bits |= backend_bit(backend)
    return DispatchKeySet.from_raw(bits)


ALL_BACKENDS = range(1, NUM_BACKENDS + 1)

# No backend bits: this is also what the autograd guards add to the exclude set.
autograd_dispatch_keyset = _set("AutogradFunctionality", "AutogradOther", "AutogradNestedTensor")
_all_backends = _set(backends=ALL_BACKENDS)
autogradother_backends = _set(
    "FPGA", "Vulkan", "Metal", "CustomRNGKeyId", "MkldnnCPU", "Quantized", "Sparse", "SparseCsr",
    backends=ALL_BACKENDS,
)  # fmt: skip
backend_dispatch_keyset = autogradother_backends | _set("Dense", backends=ALL_BACKENDS)
non_functional_backend_dispatch_keyset = DispatchKeySet.from_raw(
    (backend_dispatch_keyset - DispatchKeySet(DispatchKey.Sparse))._bits
    & ~backend_bit(BackendComponent.XLABit)
    & ~backend_bit(BackendComponent.LazyBit)
)
nested_dispatch_keyset = _set("NestedTensor", backends=ALL_BACKENDS)
math_dispatch_keyset = (
    backend_dispatch_keyset | nested_dispatch_keyset | autograd_dispatch_keyset | _all_backends
)
nested_composite_keyset = nested_dispatch_keyset | _set("AutogradNestedTensor")

after_autograd_keyset = DispatchKeySet.full_after(DispatchKey.AutogradOther)
after_ADInplaceOrView_keyset = DispatchKeySet.full_after(DispatchKey.ADInplaceOrView)  # noqa: N816
after_func_keyset = DispatchKeySet.full_after(DispatchKey.Functionalize).remove(
    DispatchKey.Functionalize
)

autocast_dispatch_keyset = _set(
    "AutocastCPU", "AutocastMTIA", "AutocastMAIA", "AutocastCUDA", "AutocastXPU",
    "AutocastIPU", "AutocastHPU", "AutocastXLA", "AutocastPrivateUse1", "AutocastMPS",
)  # fmt: skip

# Alias key -> the runtime keys it stands for (DispatchKeySet.cpp getRuntimeDispatchKeySet).
_ALIAS_EXPANSION = {
    DispatchKey.Autograd: autograd_dispatch_keyset | _all_backends,
    DispatchKey.CompositeImplicitAutograd: math_dispatch_keyset,
    DispatchKey.CompositeImplicitAutogradNestedTensor: nested_composite_keyset,
    DispatchKey.CompositeExplicitAutograd: backend_dispatch_keyset,
    DispatchKey.CompositeExplicitAutogradNonFunctional: non_functional_backend_dispatch_keyset,
    DispatchKey.FuncTorchBatchedDecomposition: _set("FuncTorchBatched"),
}
assert set(_ALIAS_EXPANSION) == set(ALIAS_KEYS)


def get_runtime_dispatch_key_set(key: DispatchKey) -> DispatchKeySet:
    """An alias key's runtime keys; a runtime key stands for itself."""
    if key in _ALIAS_EXPANSION:
        return _ALIAS_EXPANSION[key]
    return DispatchKeySet(key)


def runtime_keys_of(key: DispatchKey) -> tuple[DispatchKey, ...]:
    """The runtime keys a registration at ``key`` fills, in table order."""
    if key == DispatchKey.Undefined:
        return (DispatchKey.Undefined,)
    return tuple(get_runtime_dispatch_key_set(key))


def is_included_in_alias(key: DispatchKey, alias: DispatchKey) -> bool:
    """Whether runtime ``key`` is covered by ``alias`` (DispatchKeySet.cpp isIncludedInAlias)."""
    if key == DispatchKey.Undefined:
        return False
    return get_runtime_dispatch_key_set(alias).has(key)


_BACKEND_ONLY = {
    BackendComponent.CPUBit,
    BackendComponent.CUDABit,
    BackendComponent.XLABit,
    BackendComponent.LazyBit,
    BackendComponent.MetaBit,
    BackendComponent.MPSBit,
    BackendComponent.HPUBit,
    BackendComponent.IPUBit,
    BackendComponent.XPUBit,
    BackendComponent.MAIABit,  # observed in 2.13; the fact sheet's "empty" is stale
    BackendComponent.PrivateUse1Bit,
    BackendComponent.PrivateUse2Bit,
    BackendComponent.PrivateUse3Bit,
}


def get_backend_key_set_from_autograd(key: DispatchKey) -> DispatchKeySet:
    """The backend keys an autograd key serves (DispatchKeySet.cpp)."""
    if key == DispatchKey.AutogradOther:
        return autogradother_backends
    if key == DispatchKey.AutogradNestedTensor:
        return nested_dispatch_keyset
    if to_functionality_key(key) == DispatchKey.AutogradFunctionality:
        backend = to_backend_component(key)
        if backend in _BACKEND_ONLY:
            return DispatchKeySet(to_runtime_per_backend_key(DispatchKey.Dense, backend))
    return DispatchKeySet()


def get_autograd_key_from_backend(backend: BackendComponent) -> DispatchKey:
    """AutogradCPU for CPUBit, AutogradOther for InvalidBit."""
    if backend == BackendComponent.InvalidBit:
        return DispatchKey.AutogradOther
    return to_runtime_per_backend_key(DispatchKey.AutogradFunctionality, backend)
