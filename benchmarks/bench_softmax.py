"""softmax / log_softmax over 128 x 1000: ember against plain NumPy and PyTorch.

Side by side in one process, alternating rounds (bench_ops.per_call). The NumPy column is
the best plain-NumPy spelling of the same formula ember computes (subtract the row maximum,
exponentiate, sum, scale by the sum's reciprocal / subtract the log of the sum), written out here for comparison;
NumPy's own exp and reductions are slower than PyTorch's vectorised kernels, so the
PyTorch ratio is reported but cannot be reached on NumPy.
"""

from __future__ import annotations

import numpy as np
from bench_ops import per_call

import ember

try:
    import torch
except ImportError:  # the PyTorch column is left out
    torch = None

SHAPE = (128, 1000)


def numpy_softmax(x: np.ndarray) -> np.ndarray:
    shifted = x - x.max(axis=1, keepdims=True)
    exps = np.exp(shifted)
    exps *= np.reciprocal(exps.sum(axis=1, keepdims=True))
    return exps


def numpy_log_softmax(x: np.ndarray) -> np.ndarray:
    shifted = x - x.max(axis=1, keepdims=True)
    shifted -= np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return shifted


def main() -> None:
    values = np.random.default_rng(0).standard_normal(SHAPE).astype(np.float32)
    e = ember.from_numpy(values)
    rows = {
        "softmax(dim=1)": {
            "ember": lambda: ember.softmax(e, 1),
            "numpy": lambda: numpy_softmax(values),
        },
        "log_softmax(dim=1)": {
            "ember": lambda: ember.log_softmax(e, 1),
            "numpy": lambda: numpy_log_softmax(values),
        },
    }
    if torch is not None:
        torch.set_num_threads(1)
        t = torch.from_numpy(values)
        rows["softmax(dim=1)"]["torch"] = lambda: torch.softmax(t, 1)
        rows["log_softmax(dim=1)"]["torch"] = lambda: torch.log_softmax(t, 1)
    print(
        f"{'128x1000 float32 (µs)':<22} {'ember':>9} {'numpy':>9} {'torch':>9} {'/numpy':>9} {'/torch':>9}"
    )
    for name, fns in rows.items():
        times = per_call(fns, 50)
        mine = times["ember"]
        other = times.get("torch")
        torch_text = f"{other:>9.1f}" if other else f"{'-':>9}"
        ratio = f"{mine / other:>8.2f}x" if other else f"{'-':>9}"
        print(f"{name:<22} {mine:>9.1f} {times['numpy']:>9.1f} {torch_text} "
              f"{mine / times['numpy']:>8.2f}x {ratio}")  # fmt: skip
