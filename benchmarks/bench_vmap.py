"""vmap of a per-sample function, ``(x @ w).relu().sum()``, over a batch of 64 (16 features,
a 16x16 weight): ember's vmap against PyTorch's vmap and against a Python loop over the
batch in ember.

All three run side by side in one process, in alternating rounds; the figure of each is
its best round. Targets (issue 14): ember's vmap at most 1.5x PyTorch's and at least 10x
faster than the ember loop.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_custom_ops import per_call  # noqa: E402

import ember  # noqa: E402

BATCH, FEATURES = 64, 16


def _data(lib):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((BATCH, FEATURES)).astype(np.float32))
    w = lib.tensor(rng.standard_normal((FEATURES, FEATURES)).astype(np.float32))
    return x, w


def _vmapped(lib):
    x, w = _data(lib)
    f = lib.func.vmap(lambda xi: (xi @ w).relu().sum())
    return lambda: f(x)


def _loop(lib):
    x, w = _data(lib)

    def loop():
        return lib.stack([(x[i] @ w).relu().sum() for i in range(BATCH)])

    return loop


def main() -> None:
    fns = {"ember vmap": _vmapped(ember), "ember loop": _loop(ember)}
    try:
        import torch

        torch.set_num_threads(1)
        fns["torch vmap"] = _vmapped(torch)
    except ImportError:
        pass
    times = per_call(fns, number=50, rounds=10)
    line = f"vmap((x @ w).relu().sum()) over {BATCH}, us: ember {times['ember vmap']:.1f}"
    line += f"  ember loop {times['ember loop']:.1f}"
    line += f"  loop/vmap {times['ember loop'] / times['ember vmap']:.1f}x"
    if "torch vmap" in times:
        line += f"  torch {times['torch vmap']:.1f}"
        line += f"  ember/torch {times['ember vmap'] / times['torch vmap']:.2f}x"
    print(line)


if __name__ == "__main__":
    main()
