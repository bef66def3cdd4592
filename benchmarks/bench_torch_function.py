"""__torch_function__: what plain tensors pay for the checks, and the subclass and mode paths.

Side by side with PyTorch in one process, alternating rounds (bench_ops.per_call). Plain
tensors should cost what they cost without the protocol (Note [Torch function checks]);
the subclass row is a Tensor subclass with the default __torch_function__ (every result
converted back to the subclass), the mode row a pass-through TorchFunctionMode.
"""

from __future__ import annotations

from bench_ops import per_call

import ember

try:
    import torch
except ImportError:  # the PyTorch column is left out
    torch = None


def _cases(lib):
    class Sub(lib.Tensor):
        pass

    class PassThrough(lib.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    a, b = lib.ones(4), lib.ones(4)
    s, t = a.as_subclass(Sub), b.as_subclass(Sub)
    mode = PassThrough()

    def under_mode():
        with mode:
            return lib.add(a, b)

    return {
        "add, plain tensors": lambda: lib.add(a, b),
        "a + b, plain tensors": lambda: a + b,
        "a.shape, plain tensor": lambda: a.shape,
        "a.size(), plain tensor": lambda: a.size(),
        "add, subclass (default __torch_function__)": lambda: lib.add(s, t),
        "with pass-through mode: add": under_mode,
    }


def main() -> None:
    ours = _cases(ember)
    theirs = _cases(torch) if torch is not None else {}
    print(f"{'op (µs per call)':<44} {'ember':>9} {'torch':>9} {'/torch':>9}")
    for name, fn in ours.items():
        fns = {"ember": fn}
        if name in theirs:
            fns["torch"] = theirs[name]
        times = per_call(fns, 2000 if "plain" in name else 300)
        mine, other = times["ember"], times.get("torch")
        ratio = f"{mine / other:>8.2f}x" if other else f"{'-':>9}"
        other_text = f"{other:>9.2f}" if other else f"{'-':>9}"
        print(f"{name:<44} {mine:>9.2f} {other_text} {ratio}")


if __name__ == "__main__":
    main()
