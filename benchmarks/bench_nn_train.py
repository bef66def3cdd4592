"""A training step written with torch.nn and torch.optim: ember against PyTorch.

`nn.Linear(64, 128) -> relu -> nn.Linear(128, 10)`, `nn.CrossEntropyLoss`, `optim.SGD`
with momentum, batch 128 of scikit-learn's digits, the same weights in both libraries;
side by side in one process, alternating rounds, PyTorch single-threaded. Target
(issue 13): at most 1.5x PyTorch per step.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ops import per_call  # noqa: E402

import ember  # noqa: E402


def _model(lib):
    class MLP(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.hidden = lib.nn.Linear(64, 128)
            self.out = lib.nn.Linear(128, 10)

        def forward(self, x):
            return self.out(lib.nn.functional.relu(self.hidden(x)))

    return MLP()


def _step(lib, data, weights):
    x_np, y_np = data
    model = _model(lib)
    with lib.no_grad():
        for parameter, value in zip(model.parameters(), weights):
            parameter.copy_(lib.tensor(value))
    loss_fn = lib.nn.CrossEntropyLoss()
    optimizer = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x, y = lib.tensor(x_np), lib.tensor(y_np)

    def step():
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    return step


def main() -> None:
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        print("scikit-learn is not installed: skipped")
        return
    digits = load_digits()
    data = ((digits.data[:128] / 16.0).astype(np.float32), digits.target[:128].astype(np.int64))
    rng = np.random.default_rng(0)
    weights = [
        rng.uniform(-0.125, 0.125, (128, 64)).astype(np.float32),
        np.zeros(128, np.float32),
        rng.uniform(-0.09, 0.09, (10, 128)).astype(np.float32),
        np.zeros(10, np.float32),
    ]
    steps = {"ember": _step(ember, data, weights)}
    try:
        import torch

        torch.set_num_threads(1)
        steps["torch"] = _step(torch, data, weights)
    except ImportError:
        pass
    times = per_call(steps, 20)
    mine, other = times["ember"], times.get("torch")
    ratio = f"{mine / other:.2f}x PyTorch" if other else "no PyTorch column"
    print(
        f"nn.Linear + CrossEntropyLoss + SGD(momentum), batch 128: {mine:.0f} µs per step, {ratio}"
    )
