"""Per-call cost of crossing into Python: dispatch modes, wrapper subclasses, autograd.Function.

Each case is written once against a library module (``ember`` or ``torch``) and
measured for both side by side in one process, in alternating rounds (best
round in CPU time), on 4-element float32 tensors:

- a pass-through TorchDispatchMode around ``a + b`` (the handler calls
  ``func(*args, **kwargs)`` and returns its result);
- a minimal wrapper subclass (``_make_wrapper_subclass``; ``__torch_dispatch__``
  unwraps, calls ``func`` and rewraps) doing ``a + b``;
- an ``autograd.Function`` (forward ``x * 2``, backward ``g * 2``): ``apply``
  alone, and ``apply`` followed by ``backward``.

Target (issue 12): each at most 1.0x PyTorch, goal 0.5x. Crossing into Python
is where ember, written in Python, should be cheaper than PyTorch. A second
table shows the crossing alone: each case minus the plain work inside it
(``a + b`` without a mode; the forward's ``x * 2`` under no_grad), since the
plain operator itself costs ember more than PyTorch (benchmarks/bench_ops.py).
"""

from __future__ import annotations

import time
import timeit

import numpy as np

import ember

try:
    import torch
except ImportError:  # the PyTorch column is left out
    torch = None


def per_call(fns: dict, number: int, rounds: int = 15) -> dict:
    """Best per-call CPU time of each function in microseconds, in alternating rounds."""
    best = dict.fromkeys(fns, float("inf"))
    for fn in fns.values():
        fn()
    for _ in range(rounds):
        for name, fn in fns.items():
            seconds = timeit.timeit(fn, number=number, timer=time.process_time)
            best[name] = min(best[name], seconds / number * 1e6)
    return best


def _dispatch_mode_class(lib):
    from importlib import import_module

    base = import_module(f"{lib.__name__}.utils._python_dispatch").TorchDispatchMode

    class PassThrough(base):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    return PassThrough


def _wrapper_class(lib):
    tensor = lib.Tensor

    class Wrapper(tensor):
        @staticmethod
        def __new__(cls, elem):
            return tensor._make_wrapper_subclass(
                cls, elem.shape, strides=elem.stride(), dtype=elem.dtype, device=elem.device
            )

        def __init__(self, elem) -> None:
            self.elem = elem

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            args = tuple(a.elem if isinstance(a, Wrapper) else a for a in args)
            out = func(*args, **(kwargs or {}))
            return Wrapper(out) if isinstance(out, tensor) else out

    disabled = getattr(lib._C, "_disabled_torch_function_impl", None)
    if disabled is not None:  # the usual wrapper skips __torch_function__
        Wrapper.__torch_function__ = disabled
    return Wrapper


def _double_function(lib):
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    return Double


def cases(lib) -> dict:
    """name -> a no-argument callable doing that case with ``lib``."""
    a_np = np.arange(4, dtype=np.float32)
    a, b = lib.from_numpy(a_np), lib.from_numpy(a_np + 1)
    mode = _dispatch_mode_class(lib)()
    wrapper = _wrapper_class(lib)
    wa, wb = wrapper(a), wrapper(b)
    double = _double_function(lib)
    x = lib.from_numpy(a_np).requires_grad_()
    seed = lib.ones(4)

    def in_mode():
        with mode:
            return a + b

    def mode_add():  # the mode is entered once; the figure is one op under it
        return a + b

    def forward_backward():
        double.apply(x).backward(seed)

    return {
        "a + b (no mode)": lambda: a + b,
        "x * 2 under no_grad": (lib.no_grad(), lambda: x * 2),  # the forward's own work
        "pass-through mode: a + b": (mode, mode_add),
        "enter mode + a + b": in_mode,
        "wrapper subclass: a + b": lambda: wa + wb,
        "Function.apply": lambda: double.apply(x),
        "Function.apply + backward": forward_backward,
    }


def _entered(entry):
    """A callable; ``(mode, fn)`` runs ``fn`` with ``mode`` (a dispatch mode, no_grad)
    entered around the whole timing."""
    if not isinstance(entry, tuple):
        return entry, None
    return entry[1], entry[0]


# case -> the plain work inside it: what is left is the cost of crossing into Python
_PLAIN = {
    "pass-through mode: a + b": "a + b (no mode)",
    "wrapper subclass: a + b": "a + b (no mode)",
    "Function.apply": "x * 2 under no_grad",
}


def main() -> None:
    libraries = {"ember": ember} if torch is None else {"ember": ember, "torch": torch}
    built = {name: cases(lib) for name, lib in libraries.items()}
    print(f"{'per call (us)':<28} {'ember':>9} {'torch':>9} {'ember/torch':>12}")
    figures = {}
    for case in built["ember"]:
        fns, modes = {}, []
        for name in libraries:
            fn, mode = _entered(built[name][case])
            fns[name] = fn
            if mode is not None:
                modes.append(mode)
        for mode in modes:  # one mode of each library: they are on separate stacks
            mode.__enter__()
        try:
            times = per_call(fns, 2000)
        finally:
            for mode in reversed(modes):
                mode.__exit__(None, None, None)
        figures[case] = times
        cells = [f"{case:<28}", f"{times['ember']:>9.2f}"]
        if "torch" in times:
            cells += [f"{times['torch']:>9.2f}", f"{times['ember'] / times['torch']:>11.2f}x"]
        print(" ".join(cells), flush=True)
    print("\nthe crossing alone: the case minus the plain work inside it (the row named)")
    for case, plain in _PLAIN.items():
        extra = {name: figures[case][name] - figures[plain][name] for name in figures[case]}
        cells = [f"{case:<28}", f"{extra['ember']:>9.2f}"]
        if "torch" in extra:
            cells += [f"{extra['torch']:>9.2f}", f"{extra['ember'] / extra['torch']:>11.2f}x"]
        print(" ".join(cells) + f"   (minus {plain})")


if __name__ == "__main__":
    main()
