"""The cost of dispatch tracing: off, off with the check patched out, and on.

See Note [Dispatch tracing costs nothing when off] (_dispatch/trace.py): with
tracing off the handle's ``call`` is the untraced fast path itself, so "off" and
"patched out" (a fast path freshly built, never touched by tracing) should
measure the same. Shown beside them: the same dispatch with a flag test added in
front (what a per-call check would cost) and with ``ember.dispatch.trace()``
recording, and with only EMBER_SHOW_DISPATCH_TRACE-style listeners.
"""

from __future__ import annotations

from bench_dispatch import Carrier, best_ns, noop  # shared with the dispatch benchmark

import ember
from ember._c10.dispatch_key import DispatchKey
from ember._dispatch import trace
from ember._dispatch.dispatcher import dispatcher
from ember.library import Library

NUMBER = 100_000


def main() -> None:
    lib = Library("benchtrace", "DEF")
    lib.define("noop(Tensor a, Tensor b) -> ()")
    dispatcher.register_impl("benchtrace::noop", DispatchKey.CPU, noop)
    handle = dispatcher.find_schema_or_throw("benchtrace::noop")
    x = Carrier("CPU", "AutocastCPU")  # an inference tensor's keys: exactly one dispatch

    with ember.dispatch.trace():  # switch on and off once: "off" is the path restored after
        handle.call(x, x)
    off = best_ns("call(x, x)", NUMBER, call=handle.call, x=x)
    patched_out, _ = handle._make_fast()
    bare = best_ns("call(x, x)", NUMBER, call=patched_out, x=x)

    def flagged(*args, _fast=patched_out, _trace=trace):
        if _trace._show:
            raise AssertionError("tracing is off in this benchmark")
        return _fast(*args)

    flag = best_ns("call(x, x)", NUMBER, call=flagged, x=x)
    remove = trace.add_listener(lambda label, op, bits, depth: None)
    listened = best_ns("handle.call(x, x)", number=NUMBER // 5, handle=handle, x=x)
    remove()
    with ember.dispatch.trace() as recorded:
        on = best_ns("handle.call(x, x)", number=NUMBER // 10, handle=handle, x=x)
    del recorded

    print(f"tracing off (handle.call)                 {off:8.0f} ns")
    print(
        f"same dispatch, check patched out          {bare:8.0f} ns   off/patched {off / bare:5.2f}x"
    )
    print(
        f"same dispatch behind one flag test        {flag:8.0f} ns   (the per-call check avoided)"
    )
    print(
        f"a trace listener attached                 {listened:8.0f} ns   {listened / off:5.1f}x off"
    )
    print(f"tracing on (ember.dispatch.trace records) {on:8.0f} ns   {on / off:5.1f}x off")
    lib._destroy()


if __name__ == "__main__":
    main()
