"""`at.<kernel name>`: call another aten operator through the dispatcher from inside a kernel.

Layer: aten. Mirrors the `at::` functions of ATen/Functions.h: `at.add_Tensor(a, b, 1)`
dispatches `aten::add.Tensor` with the full argument list (Note [Dispatcher
calling convention]). Names are kernel names (`add__Tensor` is `add_.Tensor`,
`mm` is `mm`); each is looked up on first use and cached as the handle's `call`
itself. A handle swaps its `call` when dispatch tracing starts or stops (Note
[Dispatch tracing costs nothing when off]), so this module re-binds every cached
name when that happens.
"""

from __future__ import annotations

from ember._dispatch import trace
from ember.aten.binding import handle

_HANDLES: dict = {}  # kernel name -> operator handle, for every name bound so far


def _spellings(kernel_name: str):
    """Every `name.overload` whose kernel name is `kernel_name` (`add__Tensor` -> `add_.Tensor`)."""
    yield kernel_name
    for i, char in enumerate(kernel_name):
        if char == "_" and 0 < i < len(kernel_name) - 1:
            yield kernel_name[:i] + "." + kernel_name[i + 1 :]


def _rebind(_active: bool) -> None:
    """After the dispatcher has swapped every handle's call path (it registered first)."""
    for kernel_name, found in _HANDLES.items():
        globals()[kernel_name] = found.call


trace._on_change.append(_rebind)


def __getattr__(kernel_name: str):
    for spelling in _spellings(kernel_name):
        try:
            found = handle(spelling)
        except RuntimeError:
            continue
        _HANDLES[kernel_name] = found
        globals()[kernel_name] = found.call
        return found.call
    raise AttributeError(f"no aten operator has the kernel name {kernel_name!r}")
