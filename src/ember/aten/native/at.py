"""`at.<kernel name>`: call another aten operator through the dispatcher from inside a kernel.

Layer: aten. Mirrors the `at::` functions of ATen/Functions.h: `at.add_Tensor(a, b, 1)`
dispatches `aten::add.Tensor` with the full argument list (Note [Dispatcher
calling convention]). Names are kernel names (`add__Tensor` is `add_.Tensor`,
`mm` is `mm`); each handle is looked up on first use and cached, behind a function that
reads `handle.call` per call (it changes when tracing starts or stops).
"""

from __future__ import annotations

from ember.aten.binding import handle


def _spellings(kernel_name: str):
    """Every `name.overload` whose kernel name is `kernel_name` (`add__Tensor` -> `add_.Tensor`)."""
    yield kernel_name
    for i, char in enumerate(kernel_name):
        if char == "_" and 0 < i < len(kernel_name) - 1:
            yield kernel_name[:i] + "." + kernel_name[i + 1 :]


def _caller(found):
    def call(*args):
        return found.call(*args)

    call.__name__ = found.name
    return call


def __getattr__(kernel_name: str):
    for spelling in _spellings(kernel_name):
        try:
            found = handle(spelling)
        except RuntimeError:
            continue
        globals()[kernel_name] = call = _caller(found)
        return call
    raise AttributeError(f"no aten operator has the kernel name {kernel_name!r}")
