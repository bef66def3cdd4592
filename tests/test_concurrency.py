"""Concurrency: each thread dispatches under its own TLS; registration is serialised by a lock."""

from __future__ import annotations

import threading

from conftest import CPU_TENSOR_KEYS, KeyCarrier

from ember import _C
from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import DispatchKeySet
from ember._dispatch.dispatcher import dispatcher
from ember._ops import ops
from ember.library import Library

CPU = KeyCarrier(*CPU_TENSOR_KEYS)
N_THREADS = 12
ROUNDS = 300


def test_threads_each_see_only_their_own_tls_state():
    lib = Library("embconc", "DEF")
    lib.define("probe(Tensor x) -> str")
    lib.impl("probe", lambda ks, x: ("cpu", str(ks)), "CPU", with_keyset=True)
    lib.impl("probe", lambda ks, x: ("tracer", str(ks)), "Tracer", with_keyset=True)
    probe = ops.embconc.probe.default
    # Thread i's TLS: 0 = default, 1 = include Tracer, 2 = below autograd, 3 = both.
    expected = {
        0: ("cpu", "DispatchKeySet(CPU)"),
        1: ("tracer", "DispatchKeySet(CPU, AutogradCPU, Tracer)"),
        2: ("cpu", "DispatchKeySet(CPU)"),
        3: ("tracer", "DispatchKeySet(CPU, Tracer)"),
    }
    start = threading.Barrier(N_THREADS)
    failures: list[str] = []

    def worker(index: int) -> None:
        mode = index % 4
        include = DispatchKeySet(DispatchKey.Tracer) if mode & 1 else DispatchKeySet()
        with _C._IncludeDispatchKeyGuard(include):
            guard = (
                _C._AutoDispatchBelowAutograd()
                if mode & 2
                else _C._IncludeDispatchKeyGuard(DispatchKeySet())
            )
            with guard:
                start.wait()
                for _ in range(ROUNDS):
                    got = probe(CPU)
                    if got != expected[mode]:
                        failures.append(f"thread {index} mode {mode}: {got}")
                        return

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(N_THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lib._destroy()
    assert failures == []
    assert (
        str(_C._dispatch_tls_local_include_set())
        == "DispatchKeySet(BackendSelect, ADInplaceOrView)"
    )


def test_registration_while_dispatching_is_consistent():
    lib = Library("embconc2", "DEF")
    lib.define("f(Tensor x) -> str")
    lib.impl("f", lambda x: "base", "CPU")
    f = ops.embconc2.f.default
    stop = threading.Event()
    seen: set[str] = set()
    errors: list[BaseException] = []

    def caller() -> None:
        try:
            while not stop.is_set():
                seen.add(f(CPU))
        except BaseException as error:  # noqa: BLE001
            errors.append(error)

    def registrar(index: int) -> None:
        for round_ in range(40):
            handle = dispatcher.register_impl(
                "embconc2::f",
                DispatchKey.CPU,
                lambda x, i=index: f"r{i}",
                f"registered at t{index}:{round_}",
            )
            handle.remove()

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        callers = [threading.Thread(target=caller) for _ in range(4)]
        registrars = [threading.Thread(target=registrar, args=(i,)) for i in range(4)]
        for thread in callers + registrars:
            thread.start()
        for thread in registrars:
            thread.join()
        stop.set()
        for thread in callers:
            thread.join()
    assert errors == []
    assert f(CPU) == "base"
    _C._dispatch_check_invariants("embconc2::f")
    assert "base" in seen
    lib._destroy()


def test_thread_state_is_per_thread_and_shared_by_contexts_within_one():
    """Note [Thread state per OS thread]: a new thread starts from the defaults
    whatever its parent has set; contexts copied inside one thread (asyncio tasks,
    copy_context().run) see and change that thread's one state, as thread-local
    storage would give them."""
    import asyncio
    import contextvars

    import ember
    from ember._c10.tls import local_state

    default_excluded = local_state.excluded
    seen = {}
    with ember.no_grad(), _C._ExcludeDispatchKeyGuard(DispatchKeySet(DispatchKey.Python)):
        changed = local_state.excluded
        assert changed != default_excluded

        def child():
            seen["thread"] = (ember.is_grad_enabled(), local_state.excluded)

        thread = threading.Thread(target=child)
        thread.start()
        thread.join()

        def in_copy():
            seen["copy"] = (ember.is_grad_enabled(), local_state.excluded)
            ember.set_grad_enabled(True)  # the thread's state: visible after run() returns

        contextvars.copy_context().run(in_copy)
        seen["after copy"] = ember.is_grad_enabled()
        ember.set_grad_enabled(False)

        async def task():
            return ember.is_grad_enabled(), local_state.excluded

        seen["task"] = asyncio.run(task())
    assert seen["thread"] == (True, default_excluded)
    assert seen["copy"] == (False, changed) and seen["after copy"] is True
    assert seen["task"] == (False, changed)
    assert ember.is_grad_enabled() and local_state.excluded == default_excluded
