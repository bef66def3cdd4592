"""Per-step time of the digits MLP (forward, backward, SGD update): ember against PyTorch.

Both run the same loop (benchmarks/mlp_digits.py) side by side in one process.
Target (issue 4): ember at most 2x PyTorch per step.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import mlp_digits  # noqa: E402
from bench_custom_ops import per_call  # noqa: E402

import ember  # noqa: E402


def _step(lib):
    x_train, y_train, _, _ = mlp_digits.load_split()
    params = mlp_digits.init_params(lib)
    x = lib.tensor(x_train[:128])
    y = lib.tensor(y_train[:128])
    return lambda: mlp_digits.sgd_step(lib, params, x, y, 0.1)


def main() -> None:
    try:
        import sklearn  # noqa: F401
    except ImportError:
        print("scikit-learn is not installed: skipped")
        return
    steps = {"ember": _step(ember)}
    try:
        import torch

        steps["torch"] = _step(torch)
    except ImportError:
        pass
    times = per_call(steps, number=20, rounds=25)  # alternating rounds: the same noise for both
    if "torch" not in times:
        print(f"MLP step (batch 128): ember {times['ember']:.0f} µs")
        return
    ours, theirs = times["ember"], times["torch"]
    print(
        f"MLP step (batch 128), µs: ember {ours:.0f}  torch {theirs:.0f}  ratio {ours / theirs:.2f}x"
    )


if __name__ == "__main__":
    main()
