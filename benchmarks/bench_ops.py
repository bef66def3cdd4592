"""Per-call cost of tiny ops and throughput of large ops: ember against PyTorch and NumPy.

Everything is measured side by side in one process (best of several timeit
repeats), and reported as ratios, since single absolute times on a shared
machine mean little. Targets (issue 3): tiny ops at most 3x PyTorch's per-call
time, large ops at most 1.1x NumPy's.
"""

from __future__ import annotations

import time
import timeit

import numpy as np

import ember

try:
    import torch
except ImportError:  # the PyTorch columns are left out
    torch = None


def per_call(fns: dict, number: int, rounds: int = 15) -> dict[str, float]:
    """Best per-call CPU time of each function in microseconds, in alternating rounds.

    Alternating rounds put the libraries under the same machine noise. CPU time
    rather than wall time: on a shared, loaded machine wall time swings 2-3x,
    while all three libraries run single-threaded here (benchmarks/run.py).
    """
    best = dict.fromkeys(fns, float("inf"))
    for fn in fns.values():
        fn()
    for _ in range(rounds):
        for name, fn in fns.items():
            seconds = timeit.timeit(fn, number=number, timer=time.process_time)
            best[name] = min(best[name], seconds / number * 1e6)
    return best


def _row(name: str, times: dict[str, float]) -> str:
    cells = [f"{name:<28}"]
    for library in ("ember", "torch", "numpy"):
        value = times.get(library)
        cells.append(f"{value:>9.2f}" if value is not None else f"{'-':>9}")
    base = times["ember"]
    for library in ("torch", "numpy"):
        value = times.get(library)
        cells.append(f"{base / value:>8.2f}x" if value else f"{'-':>9}")
    return " ".join(cells)


def tiny_ops() -> list[str]:
    a_np = np.arange(4, dtype=np.float32)
    b_np = np.arange(4, dtype=np.float32) + 1
    m_np = np.arange(4, dtype=np.float32).reshape(2, 2)
    a, b, m = ember.from_numpy(a_np), ember.from_numpy(b_np), ember.from_numpy(m_np)
    cases = {
        "add, 4 elements": (
            lambda: ember.add(a, b),
            (lambda: torch.add(ta, tb)) if torch else None,
            lambda: np.add(a_np, b_np),
        ),
        "a + b, 4 elements": (
            lambda: a + b,
            (lambda: ta + tb) if torch else None,
            lambda: a_np + b_np,
        ),
        "mm, 2x2": (
            lambda: ember.mm(m, m),
            (lambda: torch.mm(tm, tm)) if torch else None,
            lambda: np.matmul(m_np, m_np),
        ),
    }
    if torch:
        ta, tb, tm = torch.from_numpy(a_np), torch.from_numpy(b_np), torch.from_numpy(m_np)
    rows = []
    for name, (ours, theirs, numpy_fn) in cases.items():
        fns = {"ember": ours, "numpy": numpy_fn}
        if theirs is not None:
            fns["torch"] = theirs
        rows.append(_row(name, per_call(fns, 5000)))
    return rows


def large_ops() -> list[str]:
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal(4 * 1024 * 1024).astype(np.float32)
    y_np = rng.standard_normal(4 * 1024 * 1024).astype(np.float32)
    m_np = rng.standard_normal((512, 512)).astype(np.float32)
    x, y, m = ember.from_numpy(x_np), ember.from_numpy(y_np), ember.from_numpy(m_np)
    rows = []
    cases = {
        "add, 4M float32": (lambda: ember.add(x, y), lambda: np.add(x_np, y_np)),
        "mm, 512x512 float32": (lambda: ember.mm(m, m), lambda: np.matmul(m_np, m_np)),
    }
    for name, (ours, numpy_fn) in cases.items():
        rows.append(_row(name, per_call({"ember": ours, "numpy": numpy_fn}, 10)))
    return rows


def main() -> None:
    header = f"{'op (µs per call)':<28} {'ember':>9} {'torch':>9} {'numpy':>9} {'/torch':>9} {'/numpy':>9}"
    print("Tiny ops: per-call time, ember / torch / numpy")
    print(header)
    print("\n".join(tiny_ops()))
    print()
    print("Large ops: ember against NumPy (target: at most 1.1x)")
    print(header)
    print("\n".join(large_ops()))


if __name__ == "__main__":
    main()
