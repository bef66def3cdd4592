"""torch.norm, Tensor.norm and torch.linalg.vector_norm against PyTorch 2.13.

torch.norm is a Python function (torch/functional.py) that reaches
aten::linalg_vector_norm (or, for a string p over more than two dims,
linalg.matrix_norm's checks): the results, errors, grad_fn names
(LinalgVectorNormBackward0), gradients and what a __torch_dispatch__ mode sees
must be PyTorch's.
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ops_support import same_outcome
from oracle import torch

import ember


def _x(lib):
    return lib.arange(6.0).reshape(2, 3)


CASES = {
    "vector_norm empty inf": lambda lib: lib.linalg.vector_norm(lib.ones(0, 3), math.inf),
    "vector_norm empty -1": lambda lib: lib.linalg.vector_norm(lib.ones(0, 3), -1),
    "vector_norm empty -0.5 dim 0": lambda lib: lib.linalg.vector_norm(lib.ones(0, 3), -0.5, dim=0),
    "vector_norm empty inf dim 1": lambda lib: lib.linalg.vector_norm(lib.ones(0, 3), math.inf, 1),
    "vector_norm empty 2": lambda lib: lib.linalg.vector_norm(lib.ones(0, 3), 2),
    "vector_norm int": lambda lib: lib.linalg.vector_norm(lib.ones(2, dtype=lib.int64)),
    "vector_norm dtype int": lambda lib: lib.linalg.vector_norm(_x(lib), dtype=lib.int64),
    "vector_norm dtype complex": lambda lib: lib.linalg.vector_norm(_x(lib), dtype=lib.complex64),
    "vector_norm dtype narrowing": lambda lib: lib.linalg.vector_norm(_x(lib), dtype=lib.float16),
    "vector_norm dtype float64": lambda lib: lib.linalg.vector_norm(_x(lib), dtype=lib.float64),
    "vector_norm complex, real dtype": lambda lib: lib.linalg.vector_norm(
        _x(lib).to(lib.complex64), dtype=lib.float64
    ),
    "vector_norm complex128": lambda lib: lib.linalg.vector_norm(
        _x(lib).to(lib.complex64), dtype=lib.complex128
    ),
    "vector_norm ord 1j": lambda lib: lib.linalg.vector_norm(_x(lib), 1j),
    "vector_norm ord 'fro'": lambda lib: lib.linalg.vector_norm(_x(lib), "fro"),
    "vector_norm dims twice": lambda lib: lib.linalg.vector_norm(_x(lib), 2, (0, 0)),
    "vector_norm dim out of range": lambda lib: lib.linalg.vector_norm(_x(lib), 2, 5),
    "aten norm empty inf": lambda lib: lib.ops.aten.norm.Scalar(lib.ones(0, 3), math.inf),
    "aten norm empty -1 dim 0": lambda lib: lib.ops.aten.norm.ScalarOpt_dim(
        lib.ones(0, 3), -1, [0]
    ),
    "norm 'fro' over 3 dims": lambda lib: lib.norm(lib.ones(2, 2, 2), "fro", dim=(0, 1, 2)),
    "norm 'foo'": lambda lib: lib.norm(_x(lib), "foo"),
    "norm 'foo' dims": lambda lib: lib.norm(_x(lib), "foo", dim=(0, 1)),
    "norm 'fro' dim 1": lambda lib: lib.norm(_x(lib), "fro", dim=1),
    "norm 'fro' dims": lambda lib: lib.norm(_x(lib), "fro", dim=(0, 1)),
    "norm dim list": lambda lib: lib.norm(_x(lib), dim=[0, 1]),
    "norm dtype": lambda lib: lib.norm(_x(lib), dtype=lib.float64),
    "norm p None": lambda lib: lib.norm(_x(lib), None),
    "norm out": lambda lib: lib.norm(_x(lib), 2, dim=1, out=lib.empty(2)),
    "norm over a size-1 dim, p 3": lambda lib: lib.norm(lib.tensor([[-3.0]]), 3, dim=1),
    "norm over a size-1 dim, p 0": lambda lib: lib.norm(lib.tensor([[-3.0]]), 0, dim=1),
    "norm 0-dim": lambda lib: lib.norm(lib.tensor(-2.5), -1),
    "norm 0-dim keepdim": lambda lib: lib.norm(lib.tensor(2.5), -1, keepdim=True),
    "norm int": lambda lib: lib.norm(lib.tensor([[1, 2], [3, 4]]), 0),
    "norm bool": lambda lib: lib.norm(lib.tensor([[True, False], [True, True]]), 1),
    "norm tuple p": lambda lib: lib.norm(lib.ones(2, 3, 4), (0, 2)),
    "norm empty keepdim": lambda lib: lib.norm(lib.ones(0, 3), 1, keepdim=True),
    "norm transposed keepdim": lambda lib: lib.norm(_x(lib).t(), 0, keepdim=True),
    "norm dim=1": lambda lib: lib.norm(lib.ones(2, 3), dim=1),
    "norm p='fro'": lambda lib: lib.norm(lib.ones(2, 3), p="fro"),
    "x.norm(p=inf, dim=0)": lambda lib: _x(lib).norm(p=math.inf, dim=0),
    "x.norm(-inf)": lambda lib: _x(lib).norm(-math.inf),
    "x.norm(0.5, 1, True)": lambda lib: _x(lib).norm(0.5, 1, True),
    "complex norm": lambda lib: lib.tensor([3 + 4j, 1j]).norm(),
    "meta norm": lambda lib: lib.ones(2, 3, device="meta").norm(dim=1),
    "half norm": lambda lib: lib.ones(2, 3, dtype=lib.float16).norm(),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_norm_cases(name):
    same_outcome(CASES[name])


def test_the_harness_cases():
    same_outcome(lambda lib: lib.norm(lib.ones(2, 3), dim=1))
    same_outcome(lambda lib: lib.norm(lib.ones(2, 3), p="fro"))


ORDERS = [0, 0.5, 1, 1.5, 2, 3, math.inf, -math.inf, -1]


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.sampled_from(ORDERS),
    st.sampled_from([None, 0, 1, (0, 1), -1]),
    st.booleans(),
    st.sampled_from(["float64", "complex128"]),
    st.sampled_from(["norm", "method", "vector_norm"]),
    st.lists(st.sampled_from([0.0, 1.5, -2.0, 3.0, -0.5]), min_size=6, max_size=6),
)
def test_norm_gradients(p, dim, keepdim, dtype, entry, values):
    results = []
    for lib in (ember, torch):
        x = lib.tensor(values, dtype=getattr(lib, dtype)).reshape(2, 3)
        if dtype == "complex128":
            x = x * (1 + 0.5j) - 0.25j
        x.requires_grad_()
        if entry == "norm":
            out = lib.norm(x, p, dim, keepdim)
        elif entry == "method":
            out = x.norm(p, dim, keepdim)
        else:
            out = lib.linalg.vector_norm(x, p, dim, keepdim)
        cotangent = lib.arange(1.0, out.numel() + 1, dtype=out.dtype).reshape(out.shape)
        (grad,) = lib.autograd.grad(out, x, cotangent, allow_unused=True)
        grad = None if grad is None else grad.numpy()  # ord 0: no gradient at all
        results.append((out.detach().numpy(), grad, type(out.grad_fn).__name__))
    (out_e, grad_e, node_e), (out_t, grad_t, node_t) = results
    assert node_e == node_t == "LinalgVectorNormBackward0"
    np.testing.assert_allclose(out_e, out_t, rtol=1e-12)
    assert (grad_e is None) == (grad_t is None)
    if grad_t is not None:
        np.testing.assert_allclose(grad_e, grad_t, rtol=1e-10, atol=1e-12)


def test_a_dispatch_mode_sees_linalg_vector_norm():
    from torch.utils._python_dispatch import TorchDispatchMode as TorchMode

    from ember.utils._python_dispatch import TorchDispatchMode as EmberMode

    seen = {}
    for lib, mode in ((ember, EmberMode), (torch, TorchMode)):
        calls = []

        class Recorder(mode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None, calls=calls):
                calls.append(str(func))
                return func(*args, **(kwargs or {}))

        x = _x(lib)
        with Recorder():
            lib.norm(x)
            x.norm(dim=1)
            lib.norm(x, p="fro")
            lib.linalg.vector_norm(x, 3)
        seen[lib] = calls
    assert seen[ember] == seen[torch]
