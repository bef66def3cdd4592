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


def per_call(fn, number: int = 20000) -> float:
    """Best per-call time in microseconds over several repeats."""
    fn()
    return min(timeit.repeat(fn, number=number, repeat=5)) / number * 1e6


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
    rows = {}
    x_ember = ember.ones(4)
    keep_ember = build(ember, "ember")
    rows["Library.define/impl op"] = [per_call(lambda: keep_ember[1](x_ember))]
    rows["custom_op op"] = [per_call(lambda: keep_ember[2](x_ember))]
    if torch is not None:
        x_torch = torch.ones(4)
        keep_torch = build(torch, "torch")
        rows["Library.define/impl op"].append(per_call(lambda: keep_torch[1](x_torch)))
        rows["custom_op op"].append(per_call(lambda: keep_torch[2](x_torch)))
    print(f"{'per call (us)':<28} {'ember':>9} {'torch':>9} {'ember/torch':>12}")
    for name, times in rows.items():
        cells = [f"{name:<28}", f"{times[0]:>9.2f}"]
        if len(times) > 1:
            cells += [f"{times[1]:>9.2f}", f"{times[0] / times[1]:>11.2f}x"]
        print(" ".join(cells))


if __name__ == "__main__":
    main()
