"""The cost of one dispatch: key set + cache lookup + call, for a do-nothing kernel.

Two tensor arguments whose key set is {CPU, AutocastCPU} (an inference-mode CPU
tensor: no autograd key, so exactly one dispatch), against calling the kernel
directly. Also shown: the same op on ordinary CPU tensors, which pass through
the autograd fallback and one redispatch, and PyTorch's own dispatch of a
Python kernel for reference when torch is installed.

Then the read every call makes first, this thread's state (Note [Thread state
per OS thread]): ember's ``per_thread.state`` (a ``threading.local``) beside the
ways considered instead: a ContextVar's ``get`` (faster, but not per OS thread:
copied contexts carry the caller's state into workers), a ContextVar checked
against the thread's id, and a dict keyed by the thread's id. Each figure is
the read plus one slot read, minus the same slot read on a plain global.
"""

from __future__ import annotations

import contextvars
import threading
import time
import timeit

from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import DispatchKeySet
from ember._c10.thread_state import ThreadState, per_thread
from ember._dispatch.dispatcher import dispatcher
from ember.library import Library

NUMBER = 200_000
REPEAT = 7


class Carrier:
    __slots__ = ("_key_bits",)

    def __init__(self, *keys: str) -> None:
        self._key_bits = DispatchKeySet([DispatchKey[k] for k in keys]).raw_repr()


def noop(a, b):
    return None


def best_ns(stmt: str, number: int = NUMBER, **names) -> float:
    """Best of REPEAT runs, in CPU time of this process (robust to other load on the machine)."""
    runs = timeit.repeat(stmt, number=number, repeat=REPEAT, timer=time.process_time, globals=names)
    return min(runs) / number * 1e9


def _state_readers() -> dict:
    """One function per way of reaching this thread's ThreadState, each reading a slot."""
    plain = ThreadState()
    variable: contextvars.ContextVar = contextvars.ContextVar("bench_thread_state")
    variable.set(plain)
    get, ident = variable.get, threading.get_ident
    owner = ident()
    by_thread = {owner: plain}

    def global_object():
        return plain.included

    def thread_local():  # what the dispatcher does
        return per_thread.state.included

    def context_variable():
        return get().included

    def context_variable_checked():
        state = get()
        if owner != ident():
            raise LookupError
        return state.included

    def dict_by_thread_id():
        return by_thread[ident()].included

    return {
        "plain global (baseline)": global_object,
        "threading.local (ember)": thread_local,
        "ContextVar.get (not per thread)": context_variable,
        "ContextVar + thread id check": context_variable_checked,
        "dict keyed by thread id": dict_by_thread_id,
    }


def thread_state_reads() -> None:
    readers = _state_readers()
    times = {name: best_ns("fn()", fn=fn) for name, fn in readers.items()}
    base = times.pop("plain global (baseline)")
    print("this thread's state, per read (beyond a plain global's slot read)")
    for name, ns in times.items():
        print(f"  {name:34s} {ns - base:6.0f} ns")


def main() -> None:
    lib = Library("benchdispatch", "DEF")
    lib.define("noop(Tensor a, Tensor b) -> ()")
    dispatcher.register_impl("benchdispatch::noop", DispatchKey.CPU, noop)
    handle = dispatcher.find_schema_or_throw("benchdispatch::noop")
    inference = Carrier("CPU", "AutocastCPU")
    ordinary = Carrier("CPU", "ADInplaceOrView", "AutogradCPU", "AutocastCPU")

    direct = best_ns("noop(x, x)", noop=noop, x=inference)
    one = best_ns("handle.call(x, x)", handle=handle, x=inference)
    two = best_ns("handle.call(x, x)", handle=handle, x=ordinary)
    print(f"kernel called directly             {direct:8.0f} ns")
    print(f"one dispatch (key set+lookup+call) {one:8.0f} ns   {one / direct:5.1f}x direct")
    print(f"  of which dispatch overhead       {one - direct:8.0f} ns")
    print(f"autograd fallback + redispatch     {two:8.0f} ns   {two / direct:5.1f}x direct")
    thread_state_reads()
    try:
        import torch
    except ImportError:
        return
    tlib = torch.library.Library("benchdispatch", "DEF")
    tlib.define("noop(Tensor a, Tensor b) -> ()")
    tlib.impl("noop", noop, "CPU")
    op = torch.ops.benchdispatch.noop.default
    with torch.inference_mode():
        x = torch.ones(4)
    theirs = best_ns("op(x, x)", number=NUMBER // 4, op=op, x=x)
    print(
        f"torch.ops dispatch to a Python kernel (inference tensors) {theirs:8.0f} ns"
        f"   ember one dispatch is {one / theirs:4.2f}x of it"
    )


if __name__ == "__main__":
    main()
