"""OperatorEntry: one operator's registrations and its computed dispatch table.

Layer: _dispatch. Mirrors ATen/core/dispatch/OperatorEntry.h / OperatorEntry.cpp
(and the fallthrough bookkeeping of DispatchKeyExtractor.cpp).
In: a schema (or none), kernels per dispatch key (runtime or alias), the
dispatcher's backend fallbacks. Out: a 137-slot table of (kernel, label), the
fallthrough mask, and the ``_dispatch_dump`` / ``_dispatch_dump_table`` texts.

Note [Computing the dispatch table]
-----------------------------------
Every slot of the table is computed by ONE pure function,
``compute_dispatch_table_entry``, from (the slot's key, the kernels registered
per key, the backend fallbacks). It follows facts §4.1 step by step. The table
is a cache of that function: it is recomputed in full, lazily, after any
registration or deregistration on the op or any change of a backend fallback
(``mark_dirty``). Because the function looks only at the *current* set of
registrations, any order of registrations gives the same table, and removing a
registration restores the previous table exactly. ``check_invariants``
recomputes and compares. The dispatcher's per-op key-set caches are derived
from the table and are dropped whenever it is (see Note [Dispatch caches] in
dispatcher.py).
"""

from __future__ import annotations

import threading
from typing import NamedTuple

from .._c10.dispatch_key import (
    ALIAS_KEYS,
    DispatchKey,
    is_per_backend_functionality,
    key_name,
    to_backend_component,
    to_functionality_key,
)
from .._c10.dispatch_key_set import (
    BACKEND_MASK,
    FULL_MASK,
    NUM_RUNTIME_ENTRIES,
    TABLE_KEYS,
    autogradother_backends,
    functionality_bit,
    get_backend_key_set_from_autograd,
    is_included_in_alias,
    key_bits,
)
from .kernel import AMBIGUOUS_AUTOGRADOTHER, KernelFunction

_D = DispatchKey
CEANF = _D.CompositeExplicitAutogradNonFunctional
CEA = _D.CompositeExplicitAutograd
CIA = _D.CompositeImplicitAutograd
CIANT = _D.CompositeImplicitAutogradNestedTensor
AUTOGRAD = _D.Autograd
BATCHED_DECOMP = _D.FuncTorchBatchedDecomposition
_ALIAS_SET = frozenset(ALIAS_KEYS)

# Labels of the computed table (OperatorEntry.cpp computeDispatchTableEntryWithDebug).
KERNEL = "kernel"
DEFAULT_BACKEND = "default backend kernel"
NESTED = "nested kernel"
MATH = "math kernel"
AMBIGUOUS = "ambiguous autogradother"
AUTOGRAD_KERNEL = "autograd kernel"
BATCHED = "batched kernel"
FALLBACK = "backend fallback"


class _SlotFacts(NamedTuple):
    """What the table computation needs to know about one slot's key, precomputed."""

    key: DispatchKey
    in_ceanf: bool
    in_cea: bool
    in_ciant: bool
    in_cia: bool
    in_autograd: bool
    in_batched_decomp: bool
    backend_bits_from_autograd: int  # raw bits of getBackendKeySetFromAutograd(key)


def _slot_facts(key: DispatchKey) -> _SlotFacts:
    undefined = key == _D.Undefined
    return _SlotFacts(
        key=key,
        in_ceanf=undefined or is_included_in_alias(key, CEANF),
        in_cea=undefined or is_included_in_alias(key, CEA),
        in_ciant=not undefined and is_included_in_alias(key, CIANT),
        in_cia=undefined or is_included_in_alias(key, CIA),
        in_autograd=is_included_in_alias(key, AUTOGRAD),
        in_batched_decomp=is_included_in_alias(key, BATCHED_DECOMP),
        backend_bits_from_autograd=get_backend_key_set_from_autograd(key).raw_repr(),
    )


SLOT_FACTS = tuple(_slot_facts(key) for key in TABLE_KEYS)
_AUTOGRADOTHER_BACKEND_BITS = autogradother_backends.raw_repr()


def _has_kernel_for_any(kernels: dict, keyset_bits: int) -> bool:
    """hasKernelForAnyDispatchKey: a direct (non-alias) kernel on a key the set has."""
    for key in kernels:
        if key in _ALIAS_SET:
            continue
        bits = key_bits(key)
        if keyset_bits & bits == bits:
            return True
    return False


def compute_dispatch_table_entry(
    facts: _SlotFacts, kernels: dict, fallback: KernelFunction | None, why: list | None = None
) -> tuple[KernelFunction, str] | None:
    """The (kernel, label) for one table slot, or None when missing. Facts §4.1.

    ``kernels`` maps each key with registrations to its list, newest first;
    ``fallback`` is the dispatcher's backend fallback for this slot, if any.
    When ``why`` is a list, the steps that decided the slot are appended to it as
    readable sentences (ember.dispatch.explain shows them); the table itself never
    asks. See Note [Computing the dispatch table].
    """
    key = facts.key
    # 1. A kernel registered directly at this key.
    direct = kernels.get(key)
    if direct:
        _say(why, f"kernel registered directly here, {direct[0].debug}")
        return direct[0], KERNEL
    _say(why, "no kernel registered here")
    # 2.1 CompositeExplicitAutogradNonFunctional (Undefined included).
    if facts.in_ceanf and CEANF in kernels:
        _say(why, f"CompositeExplicitAutogradNonFunctional kernel, {kernels[CEANF][0].debug}")
        return kernels[CEANF][0], DEFAULT_BACKEND
    _not_covered(why, kernels, CEANF, facts.in_ceanf)
    # 2.2 CompositeExplicitAutograd (Undefined included).
    if facts.in_cea and CEA in kernels:
        _say(why, f"CompositeExplicitAutograd kernel, {kernels[CEA][0].debug}")
        return kernels[CEA][0], DEFAULT_BACKEND
    _not_covered(why, kernels, CEA, facts.in_cea)
    # 2.3 has_backend_kernel (a direct kernel on a backend this autograd key serves, or CEA)
    # matters only to 2.5 below, which computes it.
    # 2.4 CompositeImplicitAutogradNestedTensor: no has_backend_kernel check (C++ behaviour).
    if facts.in_ciant and CIANT in kernels:
        _say(why, f"CompositeImplicitAutogradNestedTensor kernel, {kernels[CIANT][0].debug}")
        return kernels[CIANT][0], NESTED
    _not_covered(why, kernels, CIANT, facts.in_ciant)
    # 2.5 CompositeImplicitAutograd, with the ambiguous-AutogradOther rule.
    if facts.in_cia and CIA in kernels:
        if key == _D.AutogradOther and _has_kernel_for_any(kernels, _AUTOGRADOTHER_BACKEND_BITS):
            _say(
                why, "CompositeImplicitAutograd and a kernel on an AutogradOther backend: ambiguous"
            )
            return AMBIGUOUS_AUTOGRADOTHER, AMBIGUOUS
        has_backend_kernel = (
            _has_kernel_for_any(kernels, facts.backend_bits_from_autograd) or CEA in kernels
        )
        if not has_backend_kernel:
            _say(why, f"CompositeImplicitAutograd kernel, {kernels[CIA][0].debug}")
            return kernels[CIA][0], MATH
        if why is not None:
            _say(
                why, f"CompositeImplicitAutograd not used because {_backend_kernel(facts, kernels)}"
            )
    else:
        _not_covered(why, kernels, CIA, facts.in_cia)
    # 2.6 The Autograd alias.
    if facts.in_autograd and AUTOGRAD in kernels:
        _say(why, f"Autograd kernel, {kernels[AUTOGRAD][0].debug}")
        return kernels[AUTOGRAD][0], AUTOGRAD_KERNEL
    _not_covered(why, kernels, AUTOGRAD, facts.in_autograd)
    # 2.7 FuncTorchBatchedDecomposition.
    if facts.in_batched_decomp and BATCHED_DECOMP in kernels:
        _say(why, f"FuncTorchBatchedDecomposition kernel, {kernels[BATCHED_DECOMP][0].debug}")
        return kernels[BATCHED_DECOMP][0], BATCHED
    _not_covered(why, kernels, BATCHED_DECOMP, facts.in_batched_decomp)
    # 3. The dispatcher's backend fallback for this key (possibly a fallthrough).
    if fallback is not None:
        fallthrough = "fallthrough " if fallback.is_fallthrough else ""
        _say(why, f"{fallthrough}backend fallback {fallback.debug}")
        return fallback, FALLBACK
    # 4. Missing.
    _say(why, "no backend fallback either: missing")
    return None


def _say(why: list | None, sentence: str) -> None:
    if why is not None:
        why.append(sentence)


def _not_covered(why: list | None, kernels: dict, alias: DispatchKey, covers: bool) -> None:
    """Note an alias kernel the op has that this step could not use (the slot is outside it)."""
    if why is not None and alias in kernels and not covers:
        why.append(f"the {key_name(alias)} kernel does not cover this key")


def _backend_kernel(facts: _SlotFacts, kernels: dict) -> str:
    """Which registration made ``has_backend_kernel`` true (for step 2.5's sentence)."""
    for key in kernels:
        bits = key_bits(key) if key not in _ALIAS_SET else 0
        if bits and facts.backend_bits_from_autograd & bits == bits:
            return f"{key_name(key)} has a kernel"
    return "CompositeExplicitAutograd has a kernel"


def compute_table(kernels: dict, fallbacks: list) -> list:
    """All 137 slots. See Note [Computing the dispatch table]."""
    return [
        compute_dispatch_table_entry(SLOT_FACTS[i], kernels, fallbacks[i])
        for i in range(NUM_RUNTIME_ENTRIES)
    ]


_NUM_BACKEND_COPIES = 16


def _mask_clearing(key: DispatchKey) -> tuple[int, int | None]:
    """(the functionality bit a fallthrough at ``key`` clears, its backend copy or None)."""
    functionality = to_functionality_key(key)
    if is_per_backend_functionality(functionality):
        return functionality_bit(functionality), to_backend_component(key) - 1
    return functionality_bit(functionality), None


_MASK_CLEARING = tuple(_mask_clearing(key) for key in TABLE_KEYS)


def compute_fallthrough_masks(table: list) -> tuple[int, ...]:
    """The 16 per-backend non-fallthrough masks of facts §3.3.

    A fallthrough at a per-backend runtime key clears its functionality bit in
    that backend's copy only; any other key clears its bit in every copy.
    """
    masks = [FULL_MASK] * _NUM_BACKEND_COPIES
    for index in range(1, NUM_RUNTIME_ENTRIES):
        entry = table[index]
        if entry is None or not entry[0].is_fallthrough:
            continue
        bit, copy = _MASK_CLEARING[index]
        if copy is None:
            masks = [mask & ~bit for mask in masks]
        else:
            masks[copy] &= ~bit
    return tuple(masks)


class OperatorEntry:
    """Registrations for one operator name and the table computed from them."""

    def __init__(self, name: str, fallbacks: list, lock=None) -> None:
        self.name = name  # "ns::op" or "ns::op.overload"
        self._lock = lock if lock is not None else threading.RLock()  # the dispatcher's
        self.schema = None
        self.debug = ""
        self.alias_analysis = "FROM_SCHEMA"
        self.alias_analysis_is_default = False
        self.tags: tuple = ()
        # key -> list of KernelFunction, newest first. Keys with no kernels are absent.
        self.kernels: dict[DispatchKey, list[KernelFunction]] = {}
        self._fallbacks = fallbacks  # the dispatcher's, indexed like the table
        # (table, per-backend masks, the one mask or None when the copies differ), or None
        # when a registration changed; replaced as a whole so readers never see a mix.
        self._computed: tuple[list, tuple[int, ...], int | None] | None = None

    # -- registration -------------------------------------------------------
    def register_schema(self, schema, debug: str, alias_analysis: str | None, tags: tuple) -> None:
        """``alias_analysis`` None: CONSERVATIVE by default (a def without an explicit kind)."""
        self.schema = schema
        self.debug = debug
        self.alias_analysis = (
            "CONSERVATIVE" if alias_analysis is None else alias_analysis or "FROM_SCHEMA"
        )
        self.alias_analysis_is_default = alias_analysis is None
        self.tags = tuple(tags)

    def deregister_schema(self) -> None:
        self.schema = None
        self.debug = ""
        self.alias_analysis = "FROM_SCHEMA"
        self.alias_analysis_is_default = False
        self.tags = ()

    def register_kernel(self, key: DispatchKey, kernel: KernelFunction) -> bool:
        """Adds ``kernel`` as the newest at ``key``; returns whether it overrides one."""
        existing = self.kernels.setdefault(key, [])
        overrides = bool(existing)
        existing.insert(0, kernel)
        self.mark_dirty()
        return overrides

    def deregister_kernel(self, key: DispatchKey, kernel: KernelFunction) -> None:
        kernels = self.kernels.get(key, [])
        for i, candidate in enumerate(kernels):
            if candidate is kernel:
                del kernels[i]
                break
        else:
            raise RuntimeError(f"{self.name}: kernel {kernel!r} is not registered at {key.name}")
        if not kernels:
            del self.kernels[key]
        self.mark_dirty()

    def mark_dirty(self) -> None:
        self._computed = None

    # -- the computed table -------------------------------------------------
    def table(self) -> list:
        return self._compute()[0]

    def _compute(self) -> tuple[list, tuple[int, ...], int | None]:
        computed = self._computed
        if computed is None:
            with self._lock:  # registrations mutate self.kernels under the same lock
                table = compute_table(self.kernels, self._fallbacks)
                masks = compute_fallthrough_masks(table)
                mask = masks[0] if all(m == masks[0] for m in masks) else None
                computed = self._computed = (table, masks, mask)
        return computed

    def fallthrough_mask(self, bits: int) -> int:
        """The non-fallthrough mask for a call whose ``(ks | included) - excluded`` is ``bits``."""
        _, masks, mask = self._compute()
        if mask is not None:
            return mask
        backend = (bits & BACKEND_MASK).bit_length()
        return masks[backend - 1 if backend else 0]

    def lookup_index(self, index: int) -> tuple[KernelFunction, str] | None:
        return self.table()[index]

    def explain_index(self, index: int) -> tuple[tuple[KernelFunction, str] | None, list[str]]:
        """The slot's entry recomputed by the table function, and the steps that decided it."""
        why: list[str] = []
        with self._lock:
            entry = compute_dispatch_table_entry(
                SLOT_FACTS[index], self.kernels, self._fallbacks[index], why
            )
        return entry, why

    def has_kernel_for_key(self, key: DispatchKey) -> bool:
        return bool(self.kernels.get(key))

    def is_empty(self) -> bool:
        return self.schema is None and not self.kernels

    # -- diagnostics --------------------------------------------------------
    def list_all_dispatch_keys(self) -> str:
        """``[CPU, Meta, ...]``: every runtime key with a valid entry (Undefined excluded)."""
        table = self.table()
        names = [key_name(TABLE_KEYS[i]) for i in range(1, NUM_RUNTIME_ENTRIES) if table[i]]
        return "[" + ", ".join(names) + "]"

    def missing_kernel_error(self, key: DispatchKey) -> NotImplementedError:
        """Facts §5.1 / §5.3 (OperatorEntry::reportError) for a call that found no kernel."""
        available = self.list_all_dispatch_keys()
        if key == _D.Undefined:
            message = (
                "There were no tensor arguments to this function (e.g., you passed an empty "
                f"list of Tensors), but no fallback function is registered for schema {self.name}."
                "  This usually means that this function requires a non-empty list of Tensors, "
                "or that you (the operator writer) forgot to register a fallback function.  "
                f"Available functions are {available}.\n\n{self.dump_table()}"
            )
        else:
            message = (
                f"Could not run '{self.name}' with arguments from the '{key_name(key)}' backend. "
                "This could be because the operator doesn't exist for this backend, or was "
                "omitted during the selective/custom build process (if using custom build). If "
                "you are a Facebook employee using PyTorch on mobile, please visit "
                "https://fburl.com/ptmfixes for possible resolutions. "
                f"'{self.name}' is only available for these backends: {available}.\n\n"
                f"{self.dump_table()}"
            )
        return NotImplementedError(message)

    def dump_table(self) -> str:
        """The ``_dispatch_dump_table`` text (OperatorEntry::dumpComputedTable)."""
        lines = []
        for index, entry in enumerate(self.table()):
            if entry is None:
                continue
            kernel, label = entry
            fallthrough = "fallthrough " if kernel.is_fallthrough else ""
            lines.append(f"{key_name(TABLE_KEYS[index])}: {fallthrough}{kernel.debug} [{label}]\n")
        return "".join(lines)

    def dump(self) -> str:
        """The ``_dispatch_dump`` text (OperatorEntry::dumpState)."""
        out = [f"name: {self.name}\n"]
        if self.schema is not None:
            out.append(f"schema: {self.schema}\n")
            out.append(f"debug: {self.debug}\n")
            default = " (default)" if self.alias_analysis_is_default else ""
            out.append(f"alias analysis kind: {self.alias_analysis}{default}\n")
        else:
            out.append("schema: (none)\n")
        for key in sorted(self.kernels):
            alias = "[alias]" if key in _ALIAS_SET else ""
            for i, kernel in enumerate(self.kernels[key]):
                inactive = " (inactive)" if i > 0 else ""
                inferred = kernel.inferred_schema or "(none)"
                out.append(
                    f"{key_name(key)}{alias}{inactive}: {kernel.debug} :: {inferred} "
                    f"[ {kernel.dump_state()}]\n"
                )
        return "".join(out)

    def check_invariants(self) -> None:
        """OperatorEntry::checkInvariants, plus the fallthrough mask. Raises RuntimeError."""
        if self.schema is not None and self.schema.qualified_name != self.name:
            raise RuntimeError(f"{self.name}: schema names {self.schema.qualified_name}")
        for key, kernels in self.kernels.items():
            if not kernels:
                raise RuntimeError(f"{self.name}: empty kernel list at {key.name}\n{self.dump()}")
            if key == _D.Undefined:
                raise RuntimeError(f"{self.name}: kernel registered at Undefined\n{self.dump()}")
        table, masks, _ = self._compute()
        expected = compute_table(self.kernels, self._fallbacks)
        for index, (have, want) in enumerate(zip(table, expected)):
            key = TABLE_KEYS[index]
            direct = self.kernels.get(key)
            if direct and (have is None or have[0] is not direct[0]):
                raise RuntimeError(
                    f"{self.name}: table entry for {key_name(key)} is not the newest kernel "
                    f"registered there\n{self.dump()}"
                )
            if have != want:
                raise RuntimeError(
                    f"{self.name}: stale table entry for {key_name(key)}\n"
                    f"Canonical state\n~~~~~~~~~~~\n{self.dump()}\n\n"
                    f"Computed table:\n~~~~~~~~~~~\n{self.dump_table()}"
                )
        if masks != compute_fallthrough_masks(table):
            raise RuntimeError(f"{self.name}: fallthrough mask out of date")
