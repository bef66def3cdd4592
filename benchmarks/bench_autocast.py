"""autocast('cpu') on against off: the per-call cost it adds, ember beside PyTorch.

Issue 14's target: with autocast on, an operator pays at most 1.5 µs more than with it
off. Rows: an operator outside the CPU autocast list (a + b, float32: the AutocastCPU
fallthrough), one inside it with inputs already in the autocast dtype (mm on bfloat16:
the kernel's policy check, no cast) and with float32 inputs (mm: two casts to bfloat16
included, as a real program pays them). Each loop runs inside one autocast region
(entered once per 1000 calls); rounds alternate between the libraries and the two
states (bench_ops.per_call's scheme, CPU time).
"""

from __future__ import annotations

import time

import ember

try:
    import torch
except ImportError:  # the PyTorch columns are left out
    torch = None

CALLS = 1000
ROUNDS = 15


def _loop(op, region):
    def run():
        if region is None:
            start = time.process_time()
            for _ in range(CALLS):
                op()
            return time.process_time() - start
        with region():
            start = time.process_time()
            for _ in range(CALLS):
                op()
            return time.process_time() - start

    return run


def _rows(lib):
    a, b = lib.rand(4), lib.rand(4)
    m, n = lib.rand(2, 2), lib.rand(2, 2)
    mb, nb = m.to(lib.bfloat16), n.to(lib.bfloat16)
    return {
        "a + b (float32, unlisted)": lambda: a + b,
        "mm 2x2 (bfloat16 in)": lambda: lib.mm(mb, nb),
        "mm 2x2 (float32 in, casts)": lambda: lib.mm(m, n),
    }


def measure() -> dict:
    """{(row, library, "off" | "on"): best µs per call}."""
    libraries = {"ember": ember}
    if torch is not None:
        torch.set_num_threads(1)
        libraries["torch"] = torch
    loops = {}
    for name, lib in libraries.items():

        def region(lib=lib):
            return lib.autocast("cpu", dtype=lib.bfloat16)

        for row, op in _rows(lib).items():
            loops[(row, name, "off")] = _loop(op, None)
            loops[(row, name, "on")] = _loop(op, region)
    best = dict.fromkeys(loops, float("inf"))
    for run in loops.values():
        run()
    for _ in range(ROUNDS):
        for key, run in loops.items():
            best[key] = min(best[key], run() / CALLS * 1e6)
    return best


def main() -> None:
    best = measure()
    rows = sorted({row for row, _, _ in best}, key=list(_rows(ember)).index)
    print(f"{'per call (µs)':<28} {'ember off':>9} {'on':>7} {'added':>7}"
          f" {'torch off':>9} {'on':>7} {'added':>7}")  # fmt: skip
    for row in rows:
        cells = [f"{row:<28}"]
        for name in ("ember", "torch"):
            if (row, name, "off") not in best:
                cells.append(f"{'-':>9} {'-':>7} {'-':>7}")
                continue
            off, on = best[(row, name, "off")], best[(row, name, "on")]
            cells.append(f"{off:>9.2f} {on:>7.2f} {on - off:>+7.2f}")
        print(" ".join(cells))


if __name__ == "__main__":
    main()
