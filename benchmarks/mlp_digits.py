"""A two-layer MLP on scikit-learn's digits, trained with plain SGD, written once for any
`lib` that looks like torch (ember or torch itself). Used by tests/test_autograd_training.py
and benchmarks/bench_mlp.py."""

from __future__ import annotations

import numpy as np


def load_split(seed: int = 0):
    from sklearn.datasets import load_digits

    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(x))
    cut = int(0.8 * len(x))
    train, test = order[:cut], order[cut:]
    return x[train], y[train], x[test], y[test]


def init_params(lib, seed: int = 0, hidden: int = 64):
    rng = np.random.default_rng(seed)
    shapes = [(64, hidden), (hidden,), (hidden, 10), (10,)]
    params = []
    for shape in shapes:
        scale = 1.0 / np.sqrt(shape[0]) if len(shape) == 2 else 0.0
        value = (rng.standard_normal(shape) * scale).astype(np.float32)
        params.append(lib.tensor(value, requires_grad=True))
    return params


def forward(lib, params, x):
    w1, b1, w2, b2 = params
    hidden = (x.mm(w1) + b1).relu()
    return hidden.mm(w2) + b2


def sgd_step(lib, params, x, y, lr: float):
    logits = forward(lib, params, x)
    loss = lib.nn.functional.cross_entropy(logits, y)
    loss.backward()
    with lib.no_grad():
        for p in params:
            p.sub_(p.grad * lr)
            p.grad = None
    return loss


def train(lib, steps: int = 150, batch: int = 128, lr: float = 0.5, seed: int = 0):
    x_train, y_train, x_test, y_test = load_split(seed)
    params = init_params(lib, seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        index = rng.choice(len(x_train), batch, replace=False)
        sgd_step(lib, params, lib.tensor(x_train[index]), lib.tensor(y_train[index]), lr)
    with lib.no_grad():
        predicted = forward(lib, params, lib.tensor(x_test)).argmax(1)
    return float((predicted == lib.tensor(y_test)).to(lib.float32).mean().item())
