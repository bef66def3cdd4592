"""Per-step time of the digits MLP (forward, backward, SGD update): ember against PyTorch.

Both run the same loop (benchmarks/mlp_digits.py) side by side in one process.
Target (issue 4): ember at most 2x PyTorch per step.
"""

from __future__ import annotations

import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import mlp_digits  # noqa: E402

import ember  # noqa: E402


def per_step(lib) -> float:
    x_train, y_train, _, _ = mlp_digits.load_split()
    params = mlp_digits.init_params(lib)
    x = lib.tensor(x_train[:128])
    y = lib.tensor(y_train[:128])
    step = lambda: mlp_digits.sgd_step(lib, params, x, y, 0.1)  # noqa: E731
    step()
    return min(timeit.repeat(step, number=20, repeat=5)) / 20 * 1e6


def main() -> None:
    try:
        import sklearn  # noqa: F401
    except ImportError:
        print("scikit-learn is not installed: skipped")
        return
    ours = per_step(ember)
    try:
        import torch
    except ImportError:
        print(f"MLP step (batch 128): ember {ours:.0f} µs")
        return
    theirs = per_step(torch)
    print(
        f"MLP step (batch 128), µs: ember {ours:.0f}  torch {theirs:.0f}  ratio {ours / theirs:.2f}x"
    )


if __name__ == "__main__":
    main()
