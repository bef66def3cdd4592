"""OperatorEntry on its own: the table function, labels, mask, invariants, dump formats (facts §4).

No torch needed: the expectations are the verified tables of facts §4.3 and the
formats of §4.4-4.5 (the live comparison lives in test_registration_permutations.py).
"""

from __future__ import annotations

import pytest

from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import (
    FULL_MASK,
    NUM_RUNTIME_ENTRIES,
    TABLE_KEYS,
    functionality_bit,
)
from ember._dispatch.kernel import AMBIGUOUS_AUTOGRADOTHER, KernelFunction, make_fallthrough
from ember._dispatch.operator_entry import OperatorEntry

D = DispatchKey
COLUMNS = (D.Undefined, D.CPU, D.SparseCPU, D.NestedTensorCPU, D.AutogradCPU, D.AutogradOther,
           D.AutogradNestedTensor)  # fmt: skip
SHORT = {
    "math kernel": "math",
    "default backend kernel": "default backend",
    "kernel": "kernel",
    "autograd kernel": "autograd",
    "backend fallback": "backend fallback",
    "ambiguous autogradother": "ambiguous autogradother",
    "nested kernel": "nested",
    "batched kernel": "batched",
}


def kernel(name: str) -> KernelFunction:
    return KernelFunction(lambda *a: name, debug=f"registered at {name}.py:1", name=name)


def fallbacks_like_torch() -> list:
    """Backend fallbacks at the autograd keys (as PyTorch's), nothing else."""
    table = [None] * NUM_RUNTIME_ENTRIES
    for index, key in enumerate(TABLE_KEYS):
        if key.name in ("AutogradOther", "AutogradCPU", "AutogradMeta"):
            table[index] = kernel("fallback")
    return table


def entry_with(*keys: DispatchKey, fallbacks=None) -> OperatorEntry:
    entry = OperatorEntry(
        "test::op", fallbacks if fallbacks is not None else fallbacks_like_torch()
    )
    for key in keys:
        entry.register_kernel(key, kernel(key.name))
    return entry


def row(entry: OperatorEntry) -> list[str]:
    table = entry.table()
    cells = []
    for key in COLUMNS:
        slot = table[TABLE_KEYS.index(key)]
        cells.append("-" if slot is None else SHORT[slot[1]])
    return cells


# facts §4.3, column order as COLUMNS.
VERIFIED = [
    ((D.CompositeImplicitAutograd,), ["math"] * 7),
    ((D.CompositeExplicitAutograd,),
     ["default backend", "default backend", "default backend", "-", "backend fallback", "backend fallback", "-"]),
    ((D.CompositeExplicitAutogradNonFunctional,),
     ["default backend", "default backend", "-", "-", "backend fallback", "backend fallback", "-"]),
    ((D.Autograd,), ["-", "-", "-", "-", "autograd", "autograd", "autograd"]),
    ((D.CPU, D.CompositeImplicitAutograd),
     ["math", "kernel", "math", "math", "backend fallback", "math", "math"]),
    ((D.CompositeExplicitAutograd, D.CompositeImplicitAutograd),
     ["default backend", "default backend", "default backend", "-", "backend fallback", "backend fallback", "-"]),
    ((D.CompositeImplicitAutograd, D.Autograd), ["math"] * 7),
    ((D.SparseCPU, D.CompositeImplicitAutograd),
     ["math", "math", "kernel", "math", "math", "ambiguous autogradother", "math"]),
    ((D.AutogradCPU, D.CompositeImplicitAutograd),
     ["math", "math", "math", "math", "kernel", "math", "math"]),
]  # fmt: skip


@pytest.mark.parametrize(("keys", "expected"), VERIFIED, ids=lambda v: str(v)[:60])
def test_verified_tables(keys, expected):
    entry = entry_with(*keys)
    assert row(entry) == expected
    entry.check_invariants()


def test_funtorch_batched_decomposition_fills_only_functorch_batched():
    entry = entry_with(D.FuncTorchBatchedDecomposition)
    table = entry.table()
    filled = [TABLE_KEYS[i] for i, slot in enumerate(table) if slot and slot[1] == "batched kernel"]
    assert filled == [D.FuncTorchBatched]


def test_nested_kernel_ignores_has_backend_kernel():
    entry = entry_with(D.NestedTensorCPU, D.CompositeImplicitAutogradNestedTensor)
    assert row(entry)[3] == "kernel" and row(entry)[6] == "nested"


def test_hip_plus_cia_keeps_math_at_autogradhip():
    entry = entry_with(D.HIP, D.CompositeImplicitAutograd)
    assert entry.table()[TABLE_KEYS.index(D.AutogradHIP)][1] == "math kernel"


def test_precedence_ceanf_over_cea_over_cia():
    entry = entry_with(D.CompositeImplicitAutograd, D.CompositeExplicitAutograd)
    assert entry.table()[0][0].name == "CompositeExplicitAutograd"
    entry.register_kernel(D.CompositeExplicitAutogradNonFunctional, kernel("CEANF"))
    assert entry.table()[0][0].name == "CEANF"
    assert entry.table()[TABLE_KEYS.index(D.CPU)][0].name == "CEANF"


def test_ambiguous_kernel_and_newest_first_lists():
    entry = entry_with(D.SparseCPU, D.CompositeImplicitAutograd)
    assert entry.table()[TABLE_KEYS.index(D.AutogradOther)][0] is AMBIGUOUS_AUTOGRADOTHER
    newer = kernel("newer")
    entry.register_kernel(D.SparseCPU, newer)
    assert entry.table()[TABLE_KEYS.index(D.SparseCPU)][0] is newer
    entry.deregister_kernel(D.SparseCPU, newer)
    assert entry.table()[TABLE_KEYS.index(D.SparseCPU)][0].name == "SparseCPU"
    with pytest.raises(RuntimeError, match="is not registered"):
        entry.deregister_kernel(D.SparseCPU, newer)
    entry.check_invariants()


def test_fallthrough_mask_global_and_per_backend():
    fallbacks = fallbacks_like_torch()
    fallbacks[TABLE_KEYS.index(D.BackendSelect)] = make_fallthrough("registered at bs.py:1")
    entry = entry_with(fallbacks=fallbacks)
    autograd_bit = functionality_bit(D.AutogradFunctionality)
    select_bit = functionality_bit(D.BackendSelect)
    assert entry.fallthrough_mask(0) == FULL_MASK & ~select_bit
    entry.register_kernel(D.AutogradCPU, make_fallthrough("registered at ft.py:1"))
    cpu_bits, meta_bits = 0x10001, 0x10000 | (1 << 15)
    assert entry.fallthrough_mask(cpu_bits) & autograd_bit == 0
    assert entry.fallthrough_mask(meta_bits) & autograd_bit
    assert entry.fallthrough_mask(cpu_bits) & select_bit == 0
    entry.check_invariants()


def test_check_invariants_detects_a_stale_table():
    entry = entry_with(D.CPU)
    entry.table()
    entry.kernels[D.CPU].insert(0, kernel("sneaky"))  # bypasses register_kernel
    with pytest.raises(RuntimeError, match="not the newest kernel"):
        entry.check_invariants()


def test_dump_format():
    entry = entry_with(D.CPU, D.CompositeImplicitAutograd)
    entry.register_kernel(D.CPU, kernel("CPU2"))
    entry.register_kernel(D.AutogradCPU, make_fallthrough("registered at ft.py:1"))
    assert entry.dump() == (
        "name: test::op\n"
        "schema: (none)\n"
        "CPU: registered at CPU2.py:1 :: (none) [ boxed ]\n"
        "CPU (inactive): registered at CPU.py:1 :: (none) [ boxed ]\n"
        "AutogradCPU: registered at ft.py:1 :: (none) [ fallthrough boxed ]\n"
        "CompositeImplicitAutograd[alias]: registered at CompositeImplicitAutograd.py:1 :: (none) [ boxed ]\n"
    )


def test_dump_table_format_and_available_keys():
    entry = entry_with(D.Meta)
    entry.register_kernel(D.AutogradCPU, make_fallthrough("registered at ft.py:1"))
    assert entry.dump_table() == (
        "Meta: registered at Meta.py:1 [kernel]\n"
        "AutogradOther: registered at fallback.py:1 [backend fallback]\n"
        "AutogradCPU: fallthrough registered at ft.py:1 [kernel]\n"
        "AutogradMeta: registered at fallback.py:1 [backend fallback]\n"
    )
    assert entry.list_all_dispatch_keys() == "[Meta, AutogradOther, AutogradCPU, AutogradMeta]"
    error = entry.missing_kernel_error(D.CPU)
    assert str(error).startswith("Could not run 'test::op' with arguments from the 'CPU' backend.")
    assert str(error).endswith(".\n\n" + entry.dump_table())
