"""Per-call cost of custom operators: Library.define/impl and custom_op, ember against PyTorch.

Both operators have a trivial CPU kernel that returns a preallocated tensor,
so the numbers are the cost of getting there: Python argument binding, the
dispatcher (autograd kernel, Python-kernel adapter) and, for custom_op, its
wrapper and output checks. Target (issue 5): ember cheaper than PyTorch for
both (PyTorch's custom_op costs about 10 us per call).
"""

import timeit

import ember

try:
    import torch
except ImportError:  # the PyTorch column is left out
    torch = None


def per_call(fns: dict, number: int = 5000, rounds: int = 20) -> dict:
    """Best per-call time in microseconds of each function, measured in alternating rounds.

    Alternating puts ember and PyTorch under the same machine noise; the best
    round of each is its figure.
    """
    best = dict.fromkeys(fns, float("inf"))
    for fn in fns.values():
        fn()
    for _ in range(rounds):
        for name, fn in fns.items():
            best[name] = min(best[name], timeit.timeit(fn, number=number) / number * 1e6)
    return best


def build(lib, tag: str):
    """(Library op, custom_op) in a fresh namespace of ``lib``; both return ``out``."""
    out = lib.zeros(4)
    library = lib.library.Library(f"bench_{tag}", "DEF")
    library.define("passthrough(Tensor x) -> Tensor")
    library.impl("passthrough", lambda x: out, "CPU")
    defined = getattr(lib.ops, f"bench_{tag}").passthrough.default

    @lib.library.custom_op(f"bench_{tag}::custom", mutates_args=())
    def custom(x: lib.Tensor) -> lib.Tensor:
        return out

    return library, defined, custom


def main() -> None:
    x_ember = ember.ones(4)
    keep = {"ember": build(ember, "ember")}
    fns = {
        ("Library.define/impl op", "ember"): lambda: keep["ember"][1](x_ember),
        ("custom_op op", "ember"): lambda: keep["ember"][2](x_ember),
    }
    if torch is not None:
        x_torch = torch.ones(4)
        keep["torch"] = build(torch, "torch")
        fns[("Library.define/impl op", "torch")] = lambda: keep["torch"][1](x_torch)
        fns[("custom_op op", "torch")] = lambda: keep["torch"][2](x_torch)
    times = per_call(fns)
    print(f"{'per call (us)':<28} {'ember':>9} {'torch':>9} {'ember/torch':>12}")
    for name in ("Library.define/impl op", "custom_op op"):
        ours = times[(name, "ember")]
        cells = [f"{name:<28}", f"{ours:>9.2f}"]
        if (name, "torch") in times:
            theirs = times[(name, "torch")]
            cells += [f"{theirs:>9.2f}", f"{ours / theirs:>11.2f}x"]
        print(" ".join(cells))


if __name__ == "__main__":
    main()
