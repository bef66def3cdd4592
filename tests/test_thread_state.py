"""Thread state belongs to the OS thread, as in PyTorch, whatever context a thread runs.

Note [Thread state per OS thread]: ``asyncio.to_thread``, ``copy_context().run``
in another thread and executors handed a copied context run a worker on a copy
of its caller's context; grad mode, inference mode, the dispatch key sets and
the dispatch mode stack must still be the worker's own, starting from the
defaults, while asyncio tasks of one thread share one state. Each program here
runs under PyTorch and under ember and must observe the same.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from oracle import torch
from torch.utils import _python_dispatch as torch_python_dispatch  # noqa: E402

import ember
from ember.utils import _python_dispatch as ember_python_dispatch

LIBRARIES = {"torch": (torch, torch_python_dispatch), "ember": (ember, ember_python_dispatch)}
TIMEOUT = 10


def _in_copied_context_thread(fn):
    """Run ``fn`` in a new thread on a copy of this thread's context; its result."""
    result = {}
    context = contextvars.copy_context()
    thread = threading.Thread(target=lambda: result.setdefault("value", context.run(fn)))
    thread.start()
    thread.join(TIMEOUT)
    return result["value"]


def grad_seen_by_workers(lib):
    """The caller is in no_grad; each kind of worker reports its own grad mode."""
    seen = {}
    with lib.no_grad():
        seen["to_thread"] = asyncio.run(asyncio.to_thread(lib.is_grad_enabled))
        seen["copied context"] = _in_copied_context_thread(lib.is_grad_enabled)
        with ThreadPoolExecutor(1) as pool:
            context = contextvars.copy_context()
            seen["executor"] = pool.submit(context.run, lib.is_grad_enabled).result(TIMEOUT)
        seen["caller"] = lib.is_grad_enabled()
    return seen


def worker_mode_changes_stay_in_the_worker(lib):
    """A worker's no_grad / inference_mode, held open, never reach its caller."""
    entered, release = threading.Event(), threading.Event()

    def worker(manager):
        with manager:
            entered.set()
            release.wait(TIMEOUT)

    seen = {}
    for name, make in [("no_grad", lib.no_grad), ("inference_mode", lib.inference_mode)]:
        entered.clear()
        release.clear()
        context = contextvars.copy_context()
        thread = threading.Thread(target=context.run, args=(worker, make()))
        thread.start()
        entered.wait(TIMEOUT)
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        seen[name] = (
            lib.is_grad_enabled(),
            lib.is_inference_mode_enabled(),
            x.is_inference(),
            y.grad_fn is not None,
        )
        release.set()
        thread.join(TIMEOUT)
    return seen


def set_grad_enabled_in_worker_does_not_leak(lib):
    """A worker that switches grad off and never restores it leaves its caller alone."""

    def worker():
        lib.set_grad_enabled(False)
        return lib.is_grad_enabled()

    in_worker = _in_copied_context_thread(worker)
    in_to_thread = asyncio.run(asyncio.to_thread(worker))
    return in_worker, in_to_thread, lib.is_grad_enabled()


def dispatch_mode_in_worker(lib, python_dispatch):
    """A TorchDispatchMode entered in a worker sees only the worker's calls."""
    calls: list[str] = []

    class Recorder(python_dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            calls.append(str(func))
            return func(*args, **(kwargs or {}))

    entered, release = threading.Event(), threading.Event()

    def worker():
        with Recorder():
            lib.zeros(1)
            entered.set()
            release.wait(TIMEOUT)

    async def main():
        task = asyncio.ensure_future(asyncio.to_thread(worker))
        await asyncio.get_running_loop().run_in_executor(None, entered.wait, TIMEOUT)
        caller = lib.ones(2) + 1
        release.set()
        await task
        return caller.tolist()

    caller_values = asyncio.run(main())
    return caller_values, calls, python_dispatch._get_current_dispatch_mode() is None


def tasks_of_one_thread_share_it(lib):
    """asyncio tasks run on one thread see each other's grad mode, also in a new thread
    whose state is first touched inside the tasks."""

    async def main():
        switched, checked = asyncio.Event(), asyncio.Event()
        seen = {}

        async def switcher():
            with lib.no_grad():
                switched.set()
                await checked.wait()
            seen["switcher after"] = lib.is_grad_enabled()

        async def observer():
            await switched.wait()
            seen["observer"] = lib.is_grad_enabled()
            checked.set()

        await asyncio.gather(asyncio.create_task(switcher()), asyncio.create_task(observer()))
        return seen

    in_main_thread = asyncio.run(main())
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("value", asyncio.run(main())))
    thread.start()
    thread.join(TIMEOUT)
    return in_main_thread, result["value"]


@pytest.mark.parametrize(
    "program",
    [
        grad_seen_by_workers,
        worker_mode_changes_stay_in_the_worker,
        set_grad_enabled_in_worker_does_not_leak,
        tasks_of_one_thread_share_it,
    ],
)
def test_same_as_torch(program):
    expected = program(torch)
    assert program(ember) == expected
    assert ember.is_grad_enabled() and not ember.is_inference_mode_enabled()


def test_dispatch_mode_in_worker_same_as_torch():
    expected = dispatch_mode_in_worker(*LIBRARIES["torch"])
    assert expected[0] == [2.0, 2.0] and expected[2]  # what torch shows
    assert dispatch_mode_in_worker(*LIBRARIES["ember"]) == expected


def test_each_worker_starts_from_the_default_key_sets():
    """The include / exclude sets of a worker on a copied context are the defaults."""
    from ember import _C
    from ember._c10.dispatch_key import DispatchKey

    def key_sets(lib):
        return str(lib._C._dispatch_tls_local_include_set()), str(
            lib._C._dispatch_tls_local_exclude_set()
        )

    defaults = key_sets(torch)
    assert key_sets(ember) == defaults
    with _C._IncludeDispatchKeyGuard(DispatchKey.FuncTorchVmapMode):
        with torch._C._IncludeDispatchKeyGuard(torch._C.DispatchKey.FuncTorchVmapMode):
            assert key_sets(ember) == key_sets(torch) != defaults
            assert _in_copied_context_thread(lambda: key_sets(torch)) == defaults
            assert _in_copied_context_thread(lambda: key_sets(ember)) == defaults
            assert asyncio.run(asyncio.to_thread(key_sets, ember)) == defaults
