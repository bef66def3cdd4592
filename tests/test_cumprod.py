"""cumprod / Tensor.cumprod / cumprod_ (and cumsum, which shares meta_func_cum_ops)
against PyTorch 2.13: values, dtypes, out= and in-place dtype rules, errors, and the
backward's three paths (no zeros; zeros in a plain backward; create_graph and
subclass-like inputs), each compared value for value with torch's gradients."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_support import same, same_outcome
from oracle import torch

import ember
from ember.utils._python_dispatch import TorchDispatchMode

X = [[1.0, 2.0, 0.0, 3.0], [0.5, 0.0, 2.0, 0.0], [1.5, -2.0, 4.0, 0.25]]


def _x(lib):
    return lib.tensor(X)


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize(
    "case",
    [
        lambda lib, f: getattr(lib, f)(_x(lib), 1),
        lambda lib, f: getattr(lib, f)(_x(lib), 0, dtype=lib.float64),
        lambda lib, f: getattr(_x(lib), f)(-1),
        lambda lib, f: getattr(_x(lib), f + "_")(1),
        lambda lib, f: getattr(_x(lib), f + "_")(1, dtype=lib.double),
        lambda lib, f: getattr(_x(lib).int(), f + "_")(1),
        lambda lib, f: getattr(_x(lib).int(), f + "_")(1, dtype=lib.int32),
        lambda lib, f: getattr(_x(lib).int(), f + "_")(1, dtype=lib.float),
        lambda lib, f: getattr(_x(lib).bool(), f + "_")(1),
        lambda lib, f: getattr(_x(lib), f + "_")(3),
        lambda lib, f: getattr(lib, f)(_x(lib), 2),
        lambda lib, f: getattr(lib, f)(_x(lib).long(), 1),
        lambda lib, f: getattr(lib, f)(_x(lib).bool(), 0),
        lambda lib, f: getattr(lib, f)(_x(lib).int(), 0, dtype=lib.float16),
        lambda lib, f: getattr(lib, f)(lib.tensor(3.0), 0),
        lambda lib, f: getattr(lib, f)(lib.ones(0, 3), 1),
        lambda lib, f: getattr(lib, f)(_x(lib).half(), 1),
        lambda lib, f: getattr(lib, f)(_x(lib).cfloat() * (1 + 1j), 1),
        lambda lib, f: getattr(lib, f)(lib.full((5,), 1e30), 0),
        lambda lib, f: getattr(lib, f)(lib.full((70,), 3, dtype=lib.long), 0),
        lambda lib, f: getattr(lib, f)(_x(lib), 1, out=lib.empty(0)),
        lambda lib, f: getattr(lib, f)(_x(lib), 1, dtype=lib.double, out=lib.empty(0)),
        lambda lib, f: getattr(lib, f)(_x(lib), 1, dtype=lib.double, out=lib.empty(0).double()),
        lambda lib, f: getattr(lib, f)(_x(lib), 1, out=lib.empty(0, dtype=lib.long)),
        lambda lib, f: getattr(lib, f)(_x(lib).long(), 1, out=lib.empty(0)),
        lambda lib, f: getattr(lib, f)(_x(lib).long(), 1, out=lib.empty(0, dtype=lib.int8)),
        lambda lib, f: getattr(lib, f)(_x(lib), 1, out=lib.empty(0, dtype=lib.bool)),
        lambda lib, f: getattr(lib, f)(lib.tensor(True), 0, out=lib.empty(0, dtype=lib.bool)),
        lambda lib, f: getattr(lib, f)(_x(lib), 1, out=lib.empty(12)),
        lambda lib, f: getattr(lib, f)(_x(lib).t(), 1, out=lib.empty(4, 3).t()),
    ],
)
def test_forward_against_torch(name, case):
    same_outcome(lambda lib: case(lib, name))


def _gradient(lib, values, dim, create_graph=False, dtype=None):
    a = lib.tensor(values, dtype=lib.float64).requires_grad_()
    result = lib.cumprod(a, dim, dtype=dtype)
    weights = lib.arange(result.numel(), dtype=result.dtype).reshape(result.shape) * 0.5 - 1
    (grad,) = lib.autograd.grad(result, a, weights, create_graph=create_graph)
    second = None
    if create_graph:
        try:
            (second,) = lib.autograd.grad((grad * grad).sum(), a)
        except RuntimeError as error:  # a one-element input: grad does not depend on it
            second = str(error)
    if not isinstance(second, (str, type(None))):
        second = second.detach()
    return result.grad_fn.name(), grad.detach(), second


matrices = st.integers(1, 4).flatmap(
    lambda rows: st.integers(1, 5).flatmap(
        lambda cols: st.lists(
            st.lists(st.sampled_from([0.0, 0.0, 1.0, -2.0, 0.5, 3.0, -0.25]), min_size=cols,
                     max_size=cols),
            min_size=rows, max_size=rows,
        )
    )
)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(values=matrices, dim=st.sampled_from([0, 1, -1]), create_graph=st.booleans())
def test_backward_equals_torch(values, dim, create_graph):
    e_name, e_grad, e_second = _gradient(ember, values, dim, create_graph)
    t_name, t_grad, t_second = _gradient(torch, values, dim, create_graph)
    assert e_name == t_name == "CumprodBackward0"
    same(e_grad, t_grad)
    if isinstance(t_second, str):
        assert e_second == t_second
    elif create_graph:
        same(e_second, t_second)


@pytest.mark.parametrize("values", [[2.0, 3.0, 4.0], [2.0, 0.0, 4.0, 0.0, 5.0], [[2.0], [3.0]]])
def test_backward_edge_shapes_and_dtype_argument(values):
    for dtype in (None, "float32"):
        e = _gradient(ember, values, -1, dtype=dtype and getattr(ember, dtype))
        t = _gradient(torch, values, -1, dtype=dtype and getattr(torch, dtype))
        same(e[1], t[1])
    for lib in (ember, torch):
        a = lib.tensor(2.0, requires_grad=True)
        lib.cumprod(a, 0).backward()
        assert a.grad.item() == 1.0


def test_complex_backward():
    """The conjugates of FunctionsManual's formula. Compared to 1e-15: ember's complex
    division (NumPy's) may round the last bit differently from C++'s std::complex."""

    def run(lib):
        a = (lib.tensor(X, dtype=lib.complex128) * (1 - 2j)).requires_grad_()
        lib.cumprod(a, 1).abs().sum().backward()
        return a.grad

    e, t = run(ember), run(torch)
    same(e, t, values=False)
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-15, atol=1e-15)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("values", [X, [[1.0, 2.0], [3.0, 4.0]]])
def test_backward_under_a_mode_sees_torchs_operators(values, create_graph):
    """areAnyTensorSubclassLike: under a dispatch mode the backward takes the path a
    subclass sees (where for masked_scatter_, stack for the O(n^2) products)."""

    def run(lib, mode_base):
        seen = []

        class Log(mode_base):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                shapes = [tuple(a.shape) if hasattr(a, "shape") else repr(a) for a in args]
                seen.append((str(func), shapes, sorted(kwargs or {})))
                return func(*args, **(kwargs or {}))

        a = lib.tensor(values, dtype=lib.float64).requires_grad_()
        result = lib.cumprod(a, 1)
        with Log():
            (grad,) = lib.autograd.grad(result, a, lib.ones_like(result), create_graph=create_graph)
        ops = [entry for entry in seen if entry[0] != "aten.detach.default"]
        return grad.detach(), [
            (n, [str(s).replace("torch.", "ember.") for s in shapes], kw) for n, shapes, kw in ops
        ]

    from torch.utils._python_dispatch import TorchDispatchMode as TorchMode

    (e_grad, e_ops), (t_grad, t_ops) = run(ember, TorchDispatchMode), run(torch, TorchMode)
    same(e_grad, t_grad)
    assert e_ops == t_ops


def test_what_a_mode_sees():
    def run(lib, mode_base):
        seen = []

        class Log(mode_base):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                seen.append((str(func), [repr(a) for a in args[1:]],
                             sorted((k, repr(v)) for k, v in (kwargs or {}).items())))  # fmt: skip
                return func(*args, **(kwargs or {}))

        x = lib.ones(2, 2)
        with Log():
            lib.cumprod(x, 0, dtype=lib.double)
            x.cumprod(1)
            x.clone().cumprod_(0)
            x[:, 1].contiguous(memory_format=lib.contiguous_format)
            x.t().contiguous()
        return [(name, [a.replace("torch.", "ember.") for a in args],
                 [(k, v.replace("torch.", "ember.")) for k, v in kw]) for name, args, kw in seen]  # fmt: skip

    from torch.utils._python_dispatch import TorchDispatchMode as TorchMode

    assert run(ember, TorchDispatchMode) == run(torch, TorchMode)
