"""ember._C diagnostics against torch._C (facts §1.2, §10.5)."""

from __future__ import annotations

import pytest
from conftest import CPU_TENSOR_KEYS, KeyCarrier
from oracle import torch

from ember import _C
from ember._c10.dispatch_key import DispatchKey, key_name
from ember.library import _scoped_library

TC = torch._C
ALL = range(int(DispatchKey.EndOfAliasKeys) + 1)


def test_parse_dispatch_key_uses_pytorchs_fixed_table():
    for value in ALL:
        name = key_name(value)
        theirs = TC._parse_dispatch_key(name)
        ours = _C._parse_dispatch_key(name)
        assert (ours is None) == (theirs is None), name
        if ours is not None:
            assert int(ours) == int(theirs), name
    for name in ("NotAKey", "CPUTensorId", "DefaultBackend", "Autocast", "CatchAll"):
        assert _C._parse_dispatch_key(name) is None
        assert TC._parse_dispatch_key(name) is None


@pytest.mark.parametrize(
    "device",
    ["cpu", "cuda", "meta", "xla", "mps", "xpu", "hpu", "lazy", "mtia", "maia", "ipu", "ve",
     "hip", "fpga", "vulkan", "privateuseone", "cuda:0", "mkldnn", "blah"],
)  # fmt: skip
def test_dispatch_key_for_device(device):
    def run(fn):
        try:
            return fn(device)
        except RuntimeError as error:
            return ("error", str(error))

    assert run(_C._dispatch_key_for_device) == run(TC._dispatch_key_for_device)


def test_key_set_values_and_helpers():
    assert str(_C._after_autograd_keyset) == str(TC._after_autograd_keyset)
    assert str(_C._after_ADInplaceOrView_keyset) == str(TC._after_ADInplaceOrView_keyset)
    assert str(_C._dispatch_autogradother_backends) == str(TC._dispatch_autogradother_backends)
    assert str(_C._dispatch_keyset_full()) == str(TC._dispatch_keyset_full())
    for value in ALL:
        if key_name(value) in ("UnknownUnknown",):
            continue
        ours, theirs = DispatchKey(value), TC.DispatchKey(value)
        assert _C._dispatch_key_name(ours) == TC._dispatch_key_name(theirs)
        if value < int(DispatchKey.EndOfFunctionalityKeys):
            assert str(_C._dispatch_keyset_full_after(ours)) == str(
                TC._dispatch_keyset_full_after(theirs)
            )
        if value <= int(DispatchKey.EndOfRuntimeBackendKeys) and "Autograd" in key_name(value):
            assert str(_C._dispatch_get_backend_keyset_from_autograd(ours)) == str(
                TC._dispatch_get_backend_keyset_from_autograd(theirs)
            )


def test_tensor_key_sets_and_tls_functions():
    carrier = KeyCarrier(*CPU_TENSOR_KEYS)
    assert str(_C._dispatch_keys(carrier)) == str(TC._dispatch_keys(torch.ones(1)))
    assert str(_C._dispatch_key_set(carrier)) == str(TC._dispatch_key_set(torch.ones(1)))
    assert str(_C._dispatch_tls_local_include_set()) == str(TC._dispatch_tls_local_include_set())
    assert str(_C._dispatch_tls_local_exclude_set()) == str(TC._dispatch_tls_local_exclude_set())
    with _C._AutoDispatchBelowADInplaceOrView(), TC._AutoDispatchBelowADInplaceOrView():
        assert str(_C._dispatch_tls_local_exclude_set()) == str(
            TC._dispatch_tls_local_exclude_set()
        )
    with (
        _C._IncludeDispatchKeyGuard(DispatchKey.Python),
        TC._IncludeDispatchKeyGuard(TC.DispatchKey.Python),
    ):
        assert str(_C._dispatch_tls_local_include_set()) == str(
            TC._dispatch_tls_local_include_set()
        )
    _C._dispatch_tls_set_dispatch_key_excluded(DispatchKey.Tracer, True)
    try:
        assert _C._dispatch_tls_is_dispatch_key_excluded(DispatchKey.Tracer)
    finally:
        _C._dispatch_tls_set_dispatch_key_excluded(DispatchKey.Tracer, False)
    assert not _C._dispatch_tls_is_dispatch_key_excluded(DispatchKey.Tracer)
    assert _C._dispatch_tls_is_dispatch_key_included(DispatchKey.BackendSelect)


def test_kernel_queries_match_torch():
    def queries(C, L, ns):
        with L._scoped_library(ns, "FRAGMENT") as lib:
            lib.define("foo(Tensor x) -> Tensor")
            lib.impl("foo", lambda x: x, "CPU")
            lib.impl("foo", L.fallthrough_kernel, "AutogradCPU")
            name = f"{ns}::foo"
            steps = [
                lambda: C._dispatch_has_kernel_for_dispatch_key(name, "CPU"),
                lambda: C._dispatch_has_kernel_for_dispatch_key(name, "Meta"),
                lambda: C._dispatch_has_kernel_for_dispatch_key(f"{ns}::nosuch", "CPU"),
                lambda: C._dispatch_has_computed_kernel_for_dispatch_key(name, "AutogradCPU"),
                lambda: C._dispatch_has_computed_kernel_for_dispatch_key(name, "CUDA"),
                lambda: C._dispatch_has_computed_kernel_for_dispatch_key(name, "Autograd"),
                lambda: C._dispatch_kernel_for_dispatch_key_is_fallthrough(name, "AutogradCPU"),
                lambda: C._dispatch_kernel_for_dispatch_key_is_fallthrough(name, "BackendSelect"),
                lambda: C._dispatch_has_backend_fallback(C.DispatchKey.BackendSelect),
                lambda: C._dispatch_has_backend_fallback(C.DispatchKey.CPU),
                lambda: C._dispatch_check_invariants(name),
                lambda: C._dispatch_find_schema_or_throw(f"{ns}::nosuch", "ov"),
                lambda: C._dispatch_dump(f"{ns}::nosuch"),
            ]
            results = []
            for step in steps:
                try:
                    results.append(("OK", step()))
                except RuntimeError as error:
                    results.append(("RuntimeError", str(error).replace(ns, "NS")))
            return results

    torch_library = torch.library
    from ember import library as ember_library

    assert queries(_C, ember_library, "embdiag") == queries(TC, torch_library, "embdiagt")
    assert _scoped_library is ember_library._scoped_library
