"""conv2d forward + backward (batch 32, 3 -> 16 channels, 32x32, kernel 3, padding 1):
ember against PyTorch single-threaded and against a plain NumPy im2col of the same.

All three run side by side in one process, in alternating rounds; the figure of each
is its best round. Target (issue 13): ember at most 3x PyTorch.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_custom_ops import per_call  # noqa: E402

import ember  # noqa: E402

SHAPE_X, SHAPE_W = (32, 3, 32, 32), (16, 3, 3, 3)


def _data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(SHAPE_X).astype(np.float32)
    w = rng.standard_normal(SHAPE_W).astype(np.float32)
    b = rng.standard_normal(SHAPE_W[0]).astype(np.float32)
    return x, w, b


def _step(lib):
    x, w, b = (lib.tensor(a).requires_grad_() for a in _data())

    def step():
        x.grad = w.grad = b.grad = None
        y = lib.nn.functional.conv2d(x, w, b, padding=1)
        y.backward(lib.ones_like(y))

    return step


def _numpy_step():
    """The textbook im2col: pad, windows, one matmul forward; weight and input gradients
    by one matmul each and a col2im of one strided add per kernel offset."""
    x, w, b = _data()
    n, c, h, wd = x.shape
    k = w.shape[2]
    wm = w.reshape(w.shape[0], -1)

    def step():
        xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
        cols = sliding_window_view(xp, (k, k), axis=(2, 3))  # (N, C, H, W, k, k)
        cols = np.ascontiguousarray(cols.transpose(0, 2, 3, 1, 4, 5)).reshape(n * h * wd, -1)
        y = (cols @ wm.T).reshape(n, h, wd, -1).transpose(0, 3, 1, 2) + b[:, None, None]
        grad = np.ones_like(y)
        g = grad.transpose(0, 2, 3, 1).reshape(n * h * wd, -1)
        grad_w = (g.T @ cols).reshape(w.shape)
        grad_b = grad.sum(axis=(0, 2, 3))
        dcols = (g @ wm).reshape(n, h, wd, c, k, k)
        dx = np.zeros((n, c, h + 2, wd + 2), dtype=x.dtype)
        for i in range(k):
            for j in range(k):
                dx[:, :, i : i + h, j : j + wd] += dcols[..., i, j].transpose(0, 3, 1, 2)
        return dx[:, :, 1:-1, 1:-1], grad_w, grad_b

    return step


def main() -> None:
    steps = {"ember": _step(ember), "numpy": _numpy_step()}
    try:
        import torch

        torch.set_num_threads(1)
        steps["torch"] = _step(torch)
    except ImportError:
        pass
    times = per_call(steps, number=3, rounds=15)
    line = (
        f"conv2d fwd+bwd (32x3x32x32, 16 filters 3x3, pad 1), ms: ember {times['ember'] / 1e3:.2f}"
    )
    line += f"  numpy im2col {times['numpy'] / 1e3:.2f}"
    if "torch" in times:
        line += f"  torch {times['torch'] / 1e3:.2f}  ember/torch {times['ember'] / times['torch']:.2f}x"
    line += f"  ember/numpy {times['ember'] / times['numpy']:.2f}x"
    print(line)


if __name__ == "__main__":
    main()
