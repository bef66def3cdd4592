"""DispatchKey and DispatchKeySet against PyTorch 2.13 (facts §1-2)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracle import torch

from ember._c10.dispatch_key import ALIAS_KEYS, RUNTIME_KEYS, DispatchKey, key_name
from ember._c10.dispatch_key_set import (
    NUM_RUNTIME_ENTRIES,
    TABLE_KEYS,
    DispatchKeySet,
    after_ADInplaceOrView_keyset,
    after_autograd_keyset,
    autogradother_backends,
    get_backend_key_set_from_autograd,
    get_runtime_dispatch_key_set,
    is_included_in_alias,
)

C = torch._C


def test_every_key_number_has_pytorchs_name_and_repr():
    for value in range(156):
        ours, theirs = DispatchKey(value), C.DispatchKey(value)
        assert str(ours) == str(theirs)
        assert repr(ours) == repr(theirs)


def test_key_names_in_key_sets_match_to_string():
    for value in range(156):
        theirs = C._dispatch_key_name(C.DispatchKey(value))
        assert key_name(value) == theirs


def test_table_has_137_slots_and_136_runtime_keys():
    assert NUM_RUNTIME_ENTRIES == 137
    assert len(RUNTIME_KEYS) == 136
    assert str(DispatchKeySet(RUNTIME_KEYS)) == str(C._dispatch_keyset_full())


@pytest.mark.parametrize("key", RUNTIME_KEYS, ids=lambda k: k.name)
def test_single_key_sets(key):
    ours, theirs = DispatchKeySet(key), C.DispatchKeySet(C.DispatchKey(int(key)))
    assert ours.raw_repr() == theirs.raw_repr()
    assert str(ours) == str(theirs)
    assert int(ours.highestPriorityTypeId()) == int(theirs.highestPriorityTypeId())
    assert TABLE_KEYS[ours.getDispatchTableIndexForDispatchKeySet()] == key


def test_table_index_examples():
    index = {k: DispatchKeySet(k).getDispatchTableIndexForDispatchKeySet() for k in RUNTIME_KEYS}
    assert index[DispatchKey.CPU] == 1
    assert index[DispatchKey.Meta] == 16
    assert index[DispatchKey.SparseCUDA] == 39
    assert index[DispatchKey.AutogradCPU] == 96
    assert index[DispatchKey.AutogradMeta] == 111
    assert index[DispatchKey.PythonDispatcher] == 136
    assert DispatchKeySet(DispatchKey.Dense).getDispatchTableIndexForDispatchKeySet() == 1


@given(st.lists(st.sampled_from(RUNTIME_KEYS), max_size=6))
def test_unions_print_order_and_priority_like_pytorch(keys):
    ours, theirs = DispatchKeySet(), C.DispatchKeySet(C.DispatchKey.Undefined)
    for key in keys:
        ours = ours | DispatchKeySet(key)
        theirs = theirs | C.DispatchKeySet(C.DispatchKey(int(key)))
    assert ours.raw_repr() == theirs.raw_repr()
    assert str(ours) == str(theirs)
    assert int(ours.highestPriorityTypeId()) == int(theirs.highestPriorityTypeId())
    for key in keys[:2]:
        removed = ours.remove(key)
        assert removed.raw_repr() == theirs.remove(C.DispatchKey(int(key))).raw_repr()
        assert ours.has(key) == theirs.has(C.DispatchKey(int(key)))
    other = DispatchKeySet(keys[:1])
    assert (ours - other).raw_repr() == (
        theirs - C.DispatchKeySet(C.DispatchKey(int(keys[0])) if keys else C.DispatchKey.Undefined)
    ).raw_repr()


def test_cross_product_and_removal_semantics():
    cpu_autograd_cuda = DispatchKeySet(DispatchKey.CPU) | DispatchKeySet(DispatchKey.AutogradCUDA)
    assert str(cpu_autograd_cuda) == "DispatchKeySet(CPU, CUDA, AutogradCPU, AutogradCUDA)"
    removed = DispatchKeySet(DispatchKey.AutogradCPU).remove(DispatchKey.AutogradCPU)
    assert removed.raw_repr() == 0x1 and str(removed) == "DispatchKeySet()"
    assert DispatchKeySet(DispatchKey.CPU).has(DispatchKey.Dense)
    assert not DispatchKeySet(DispatchKey.AutogradCPU).has(DispatchKey.CPU)


@pytest.mark.parametrize("alias", ALIAS_KEYS, ids=lambda k: k.name)
def test_alias_expansion_matches_is_included_in_alias(alias):
    for key in RUNTIME_KEYS:
        expected = C._dispatch_is_included_in_alias(
            C.DispatchKey(int(key)), C.DispatchKey(int(alias))
        )
        assert is_included_in_alias(key, alias) == expected, key
    counts = {"Autograd": 18, "CompositeImplicitAutograd": 103, "FuncTorchBatchedDecomposition": 1,
              "CompositeImplicitAutogradNestedTensor": 17, "CompositeExplicitAutograd": 69,
              "CompositeExplicitAutogradNonFunctional": 47}  # fmt: skip
    assert len(list(get_runtime_dispatch_key_set(alias))) == counts[alias.name]


def test_after_keysets_and_autogradother_backends():
    assert after_autograd_keyset.raw_repr() == C._after_autograd_keyset.raw_repr()
    assert after_ADInplaceOrView_keyset.raw_repr() == C._after_ADInplaceOrView_keyset.raw_repr()
    assert autogradother_backends.raw_repr() == C._dispatch_autogradother_backends.raw_repr()
    for key in RUNTIME_KEYS:
        full_after = DispatchKeySet.full_after(key)
        assert (
            full_after.raw_repr()
            == C._dispatch_keyset_full_after(C.DispatchKey(int(key))).raw_repr()
        )


def test_backend_keyset_from_autograd():
    for key in RUNTIME_KEYS:
        if "Autograd" not in key.name:
            continue
        theirs = C._dispatch_get_backend_keyset_from_autograd(C.DispatchKey(int(key)))
        assert get_backend_key_set_from_autograd(key).raw_repr() == theirs.raw_repr(), key
