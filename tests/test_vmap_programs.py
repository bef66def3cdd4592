"""Everyday per-sample code under vmap against PyTorch: indexing assignment, activations,
losses, normalisation, linear algebra, shape ops, in-place ops, and the errors of the ops
that refuse -- each run through ``vmap`` over a batch of 3, with values (or the error)
compared."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from vmap_support import same

x = np.random.default_rng(0).standard_normal((3, 4, 5)).astype(np.float32)

EXPRESSIONS = {
    "setitem": lambda lib: lambda a: (a.__setitem__(0, 1.0), a)[1],
    "setitem slice": lambda lib: lambda a: (a.__setitem__((slice(None), 1), a[:, 0]), a)[1],
    "where scalar": lambda lib: lambda a: lib.where(a > 0, a, 0.0),
    "clamp": lambda lib: lambda a: a.clamp(min=0, max=0.5),
    "softmax F": lambda lib: lambda a: lib.nn.functional.softmax(a, dim=-1),
    "T": lambda lib: lambda a: a.T,
    "mT": lambda lib: lambda a: a.mT,
    "mean": lambda lib: lambda a: a.mean(),
    "norm": lambda lib: lambda a: a.norm(),
    "einsum": lambda lib: lambda a: lib.einsum("ij,kj->ik", a, a),
    "layer_norm": lambda lib: lambda a: lib.nn.functional.layer_norm(a, (5,)),
    "linear": lambda lib: lambda a: lib.nn.functional.linear(a, lib.ones(2, 5)),
    "mse": lambda lib: lambda a: lib.nn.functional.mse_loss(a, lib.zeros(4, 5)),
    "mse sum": lambda lib: lambda a: lib.nn.functional.mse_loss(a, a[0], reduction="sum"),
    "mse none": lambda lib: lambda a: lib.nn.functional.mse_loss(a[0], a, reduction="none"),
    "layer_norm affine": lambda lib: (
        lambda a: lib.nn.functional.layer_norm(a, (4, 5), lib.ones(4, 5) * 2, lib.ones(4, 5))
    ),
    "embedding batched indices": lambda lib: (
        lambda a: lib.nn.functional.embedding(a.argmax(-1), lib.arange(15.0).reshape(5, 3))
    ),
    "cross_entropy": lambda lib: (
        lambda a: lib.nn.functional.cross_entropy(a, lib.tensor([0, 1, 2, 3]))
    ),
    "gelu": lambda lib: lambda a: lib.nn.functional.gelu(a),
    "repeat": lambda lib: lambda a: a.repeat(2, 1),
    "tril": lambda lib: lambda a: a.tril(),
    "gather": lambda lib: lambda a: a.gather(1, lib.zeros(4, 2, dtype=lib.long)),
    "index_select": lambda lib: lambda a: a.index_select(1, lib.tensor([0, 2])),
    "masked_fill": lambda lib: lambda a: a.masked_fill(a > 0, 0.0),
    "to dtype": lambda lib: lambda a: a.to(lib.float64).sum(0),
    "std": lambda lib: lambda a: a.std(),
    "max full": lambda lib: lambda a: a.max(),
    "cumsum": lambda lib: lambda a: a.cumsum(1),
    "outer": lambda lib: lambda a: lib.outer(a[0], a[1]),
    "diag": lambda lib: lambda a: lib.diag(a[0]),
    "trace": lambda lib: lambda a: a[:, :4].trace(),
    "abs_ inplace": lambda lib: lambda a: a.abs_(),
    "pow": lambda lib: lambda a: a**2 + 2**a,
    "argmax": lambda lib: lambda a: a.argmax(),
    "topk": lambda lib: lambda a: a.topk(2).values,
    "sort": lambda lib: lambda a: a.sort(dim=0).indices,
    "expand_as": lambda lib: lambda a: a[0:1].expand_as(a),
    "view_as": lambda lib: lambda a: a.reshape(20).view_as(a),
    "unflatten": lambda lib: lambda a: a.flatten().unflatten(0, (2, 10)),
    "split": lambda lib: lambda a: a.split([1, 3]),
    "logsumexp": lambda lib: lambda a: a.logsumexp(-1),
    "bmm-like matmul": lambda lib: lambda a: a @ a.T,
    "addmm": lambda lib: lambda a: lib.addmm(lib.zeros(4, 4), a, a.T),
    "dropout eval": lambda lib: lambda a: lib.nn.functional.dropout(a, 0.5, training=False),
    "relu_": lambda lib: lambda a: lib.relu_(a.clone()),
    "fill_": lambda lib: lambda a: a.clone().fill_(3),
    "zero_": lambda lib: lambda a: a.clone().zero_(),
    "new_tensor ops": lambda lib: lambda a: a + a.new_ones(5),
    "stack list": lambda lib: lambda a: lib.stack([a[0], a[1]]),
    "chunk": lambda lib: lambda a: a.chunk(2, 0),
    "var_mean": lambda lib: lambda a: lib.var_mean(a, 0),
    "nll": lambda lib: lambda a: lib.nn.functional.log_softmax(a, -1).sum(),
    "conv1d": lambda lib: lambda a: lib.nn.functional.conv1d(a[None], lib.ones(2, 4, 3)),
    "max_pool1d": lambda lib: lambda a: lib.nn.functional.max_pool1d(a, 2),
    "embedding": lambda lib: lambda a: lib.nn.functional.embedding(lib.tensor([0, 2]), a),
    "isnan any": lambda lib: lambda a: a.isnan().any(),
    "eq": lambda lib: lambda a: (a == a[0]).float(),
    "item err": lambda lib: lambda a: a[0, 0].item(),
}


@pytest.mark.parametrize("name", list(EXPRESSIONS))
def test_everyday_code_under_vmap(name):
    def program(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the loop fallback's performance warning
            return lib.vmap(EXPRESSIONS[name](lib))(lib.tensor(x))

    same(program, rtol=1e-4, atol=1e-5)
