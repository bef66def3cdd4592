"""The aliases, range and the window functions of torch's namespace, differential against
PyTorch 2.13: values, dtypes, grad_fn names, the operators a dispatch mode sees, errors
(aten/native/namespace_aliases.py, range_inclusive.py, windows.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from diff_support import ops_seen
from hypothesis import given
from hypothesis import strategies as st
from oracle import torch

import ember


def outcome(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("ok", repr(fn()).replace("ember.", "torch."))
    except Exception as error:  # noqa: BLE001 - the exception is the result compared
        return (type(error).__name__, str(error).replace("ember.", "torch."))


def both(fn):
    e, t = outcome(lambda: fn(ember)), outcome(lambda: fn(torch))
    assert e == t
    return e


def x_of(lib):
    return lib.tensor([[1.0, -2.0, 3.0], [0.5, 2.0, -1.0]], requires_grad=True)


COMPARISONS = [("greater", "gt"), ("greater_equal", "ge"), ("less", "lt"),
               ("less_equal", "le"), ("not_equal", "ne")]  # fmt: skip


@pytest.mark.parametrize("alias, target", COMPARISONS)
def test_comparison_aliases(alias, target):
    both(lambda lib: getattr(lib, alias)(x_of(lib), 0.5))
    both(lambda lib: getattr(lib, alias)(x_of(lib), x_of(lib).detach().flip(0)))
    both(lambda lib: getattr(x_of(lib), alias)(1))
    both(lambda lib: getattr(x_of(lib).detach().clone(), alias + "_")(0.5))
    both(lambda lib: getattr(lib, alias)(x_of(lib), 0, out=lib.empty(2, 3, dtype=lib.bool)))
    both(lambda lib: getattr(lib, alias)(x_of(lib), lib.ones(4)))
    # a composite alias: the mode sees the aliased operator
    seen = ops_seen(lambda lib: getattr(lib, alias)(lib.ones(2), 0.5), ember)
    assert seen == ops_seen(lambda lib: getattr(lib, alias)(lib.ones(2), 0.5), torch)
    assert seen == ["aten.ones.default", f"aten.{target}.Scalar"]


@given(
    st.lists(st.floats(-4, 4, allow_nan=False), min_size=1, max_size=6),
    st.floats(-4, 4),
)
def test_comparison_aliases_property(values, other):
    for alias, _ in COMPARISONS:
        both(lambda lib, alias=alias: getattr(lib, alias)(lib.tensor(values), other))


def test_clip():
    both(lambda lib: lib.clip(x_of(lib), 0, 1))
    both(lambda lib: lib.clip(x_of(lib), max=0))
    both(lambda lib: x_of(lib).clip(lib.zeros(3)))
    both(lambda lib: lib.clip_(x_of(lib).detach().clone(), -1, 1))
    both(lambda lib: x_of(lib).detach().clone().clip_(min=0))
    both(lambda lib: lib.clip(x_of(lib)))
    both(lambda lib: lib.clip(x_of(lib), 0, 1).grad_fn.name())
    both(lambda lib: lib.clip(x_of(lib), 0.5, out=lib.empty(0)))


def test_concat_row_stack():
    both(lambda lib: lib.concat([x_of(lib), x_of(lib)]))
    both(lambda lib: lib.concatenate([x_of(lib), x_of(lib)], dim=1))
    both(lambda lib: lib.concat([x_of(lib).detach()] * 2, 1, out=lib.empty(0)))
    both(lambda lib: lib.concat([x_of(lib), lib.ones(3, 3)], dim=1))
    both(lambda lib: lib.row_stack([x_of(lib)[0], x_of(lib)[1]]))
    both(lambda lib: lib.row_stack([x_of(lib)[0].detach()], out=lib.empty(0)))
    seen = ops_seen(lambda lib: lib.concat([lib.ones(2)]), ember)
    assert seen == ops_seen(lambda lib: lib.concat([lib.ones(2)]), torch)
    assert seen == ["aten.ones.default", "aten.cat.default"]


def test_ger_and_chain_matmul():
    both(lambda lib: lib.ger(x_of(lib)[0], x_of(lib)[1]))
    both(lambda lib: x_of(lib)[0].ger(x_of(lib)[1]).grad_fn.name())
    both(lambda lib: lib.ger(lib.ones(2), lib.ones(3), out=lib.empty(3, 3)))
    both(lambda lib: lib.ger(lib.ones(2, 2), lib.ones(2)))
    both(lambda lib: lib.ger(lib.ones(2), lib.ones(2), out=lib.empty(1)))
    both(lambda lib: lib.chain_matmul(x_of(lib), x_of(lib).T, x_of(lib)))
    both(lambda lib: lib.chain_matmul(x_of(lib)).grad_fn.name())
    both(lambda lib: lib.chain_matmul(lib.ones(2, 2), out=lib.empty(0)))
    both(lambda lib: lib.chain_matmul(lib.ones(2, 3), lib.ones(3, 2), out=lib.empty(0)))
    both(lambda lib: lib.chain_matmul())
    both(lambda lib: lib.chain_matmul(lib.ones(2)))
    both(lambda lib: lib.chain_matmul(lib.ones(2, 2), lib.ones(2)))


def test_chain_matmul_warns_as_torch():
    def run(lib):
        lib.set_warn_always(True)
        try:
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                lib.chain_matmul(lib.ones(2, 2), lib.ones(2, 2))
        finally:
            lib.set_warn_always(False)
        return [str(w.message).replace("ember.", "torch.") for w in seen]

    assert run(ember) == run(torch)


def test_tensor_predicates():
    both(lambda lib: (lib.is_signed(x_of(lib)), lib.is_signed(lib.ones(1, dtype=lib.uint8))))
    both(lambda lib: [lib.is_signed(lib.ones(1, dtype=d)) for d in (lib.bool, lib.bfloat16)])
    both(lambda lib: (lib.is_same_size(x_of(lib), x_of(lib)), x_of(lib).is_same_size(lib.ones(3))))
    both(lambda lib: (lib.is_nonzero(lib.tensor([2])), lib.tensor(0.0).is_nonzero()))
    both(lambda lib: (lib.is_nonzero(lib.tensor(float("nan"))), lib.is_nonzero(lib.tensor(0j))))
    both(lambda lib: lib.is_nonzero(lib.tensor([False])))
    both(lambda lib: lib.is_nonzero(lib.ones(2)))
    both(lambda lib: lib.is_nonzero(lib.ones(0)))
    both(lambda lib: lib.is_nonzero(lib.ones(1, device="meta")))
    both(lambda lib: lib.is_signed(3))


def test_detach_():
    def run(lib):
        y = x_of(lib) * 2
        out = lib.detach_(y)
        return out is y, y.requires_grad, y.grad_fn, repr(y).replace("ember.", "torch.")

    assert run(ember) == run(torch)
    both(lambda lib: lib.detach_(x_of(lib)[0]))


# -- range -----------------------------------------------------------------------------


RANGE_CASES = [
    ((0, 3), {}), ((0, 1, 0), {}), ((0, float("inf")), {}), ((1, 0), {}), ((0, 1, 0.1), {}),
    ((0, 10, 3), {"dtype": "int64"}), ((0.5, 3), {"dtype": "int64"}),
    ((0, 2, 0.3), {"dtype": "float16"}), ((-5, 5, 0.7), {"dtype": "float64"}),
    ((10, -3, -4), {"dtype": "int32"}), ((0, 3), {"dtype": "bool"}),
    ((0, 3), {"dtype": "complex64"}), ((0, 3), {"device": "meta"}),
    ((0, 3), {"requires_grad": True}), ((0, 3), {"dtype": "bfloat16"}),
]  # fmt: skip


@pytest.mark.parametrize("args, kwargs", RANGE_CASES, ids=repr)
def test_range(args, kwargs):
    def call(lib):
        options = {k: getattr(lib, v) if k == "dtype" else v for k, v in kwargs.items()}
        return lib.range(*args, **options)

    both(call)


def test_range_warns_and_out():
    def run(lib):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            lib.range(0, 2)
        return [(w.category, str(w.message).replace("ember.", "torch.")) for w in seen]

    assert run(ember) == run(torch)
    both(lambda lib: lib.range(0, 3, out=lib.empty(2, dtype=lib.int32)))
    both(lambda lib: lib.ops.aten.range.default(0, 3))
    both(lambda lib: lib.ops.aten.range.step(0, 3, 2))
    both(lambda lib: lib.ops.aten.range.out_(0, 3, out=lib.empty(0)))


@given(st.integers(-20, 20), st.integers(-20, 20), st.sampled_from([1, 2, 3, -1, -2, 0.25, -0.5]))
def test_range_property(start, end, step):
    # an integral dtype with a fractional step: torch divides by the truncated 0 (SIGFPE)
    dtypes = ("float32", "float64", "int64") if isinstance(step, int) else ("float32", "float64")
    for dtype in dtypes:
        both(lambda lib, dtype=dtype: lib.range(start, end, step, dtype=getattr(lib, dtype)))


# -- window functions ----------------------------------------------------------------------

WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]
FLOAT_DTYPES = ["float16", "bfloat16", "float32", "float64"]


def _close(e, t) -> None:
    assert e.dtype.__repr__().replace("ember.", "torch.") == repr(t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    assert e.requires_grad == t.requires_grad
    tol = {"float16": 1e-3, "bfloat16": 8e-3, "float32": 1e-6, "float64": 1e-12}
    name = repr(t.dtype).removeprefix("torch.")
    np.testing.assert_allclose(
        e.detach().double().numpy(), t.detach().double().numpy(), rtol=tol[name], atol=tol[name]
    )


@pytest.mark.parametrize("name", WINDOWS)
@given(
    length=st.integers(0, 40),
    periodic=st.booleans(),
    dtype=st.sampled_from(FLOAT_DTYPES),
)
def test_window_values(name, length, periodic, dtype):
    def call(lib):
        return getattr(lib, name)(length, periodic, dtype=getattr(lib, dtype))

    _close(call(ember), call(torch))


@given(
    length=st.integers(0, 30),
    periodic=st.booleans(),
    alpha=st.floats(0, 1),
    beta=st.floats(0, 1),
)
def test_hamming_window_parameters(length, periodic, alpha, beta):
    for lib_args in ((alpha,), (alpha, beta)):
        e = ember.hamming_window(length, periodic, *lib_args, dtype=ember.float64)
        t = torch.hamming_window(length, periodic, *lib_args, dtype=torch.float64)
        _close(e, t)


@given(length=st.integers(0, 30), periodic=st.booleans(), beta=st.floats(0, 20))
def test_kaiser_window_beta(length, periodic, beta):
    for dtype in ("float32", "float64"):
        e = ember.kaiser_window(length, periodic, beta, dtype=getattr(ember, dtype))
        t = torch.kaiser_window(length, periodic, beta, dtype=getattr(torch, dtype))
        _close(e, t)


@pytest.mark.parametrize("name", WINDOWS)
def test_window_defaults_options_and_errors(name):
    both(lambda lib: getattr(lib, name)(5))
    both(lambda lib: getattr(lib, name)(window_length=6, periodic=False))
    both(lambda lib: getattr(lib, name)(5, requires_grad=True))
    both(lambda lib: getattr(lib, name)(3, device="meta"))
    both(lambda lib: getattr(lib, name)(4, dtype=lib.long))
    both(lambda lib: getattr(lib, name)(-1))
    both(lambda lib: getattr(lib, name)(3, dtype=lib.complex64))
    both(lambda lib: getattr(lib, name)(1, dtype=lib.float64, requires_grad=True))
    both(lambda lib: getattr(lib, name)(2.5))


# -- the view_copy operators ------------------------------------------------------------------


def _x64(lib):
    return lib.arange(12.0, dtype=lib.float64).reshape(3, 4).requires_grad_()


COPY_CALLS = [
    lambda lib: lib.select_copy(_x64(lib), 0, 1),
    lambda lib: lib.select_copy(_x64(lib), 1, -1).stride(),
    lambda lib: lib.select_copy(_x64(lib), 0, 5),
    lambda lib: lib.slice_copy(_x64(lib), 1, 0, 3),
    lambda lib: lib.slice_copy(_x64(lib).T, 0, 1, None, 2).stride(),
    lambda lib: lib.slice_copy(_x64(lib)),
    lambda lib: lib.split_copy(_x64(lib), 2, 1),
    lambda lib: lib.split_copy(_x64(lib), 2),
    lambda lib: lib.detach_copy(_x64(lib)),
    lambda lib: lib.detach_copy(_x64(lib)).grad_fn.name(),
    lambda lib: lib.view_as_real_copy(lib.tensor([1 + 2j, 3 - 1j], requires_grad=True)),
    lambda lib: lib.view_as_real_copy(_x64(lib)),
    lambda lib: lib.view_as_complex_copy(lib.arange(4.0).reshape(2, 2)),
    lambda lib: lib.view_as_complex_copy(lib.arange(4.0).reshape(2, 2).T),
    lambda lib: lib.view_as_complex_copy(_x64(lib).detach()),
    lambda lib: lib.select_copy(_x64(lib).detach(), 0, 1, out=lib.empty(0, dtype=lib.float64)),
    lambda lib: lib.select_copy(_x64(lib).detach(), 0, 1, out=lib.empty(0)),
    lambda lib: lib.slice_copy(_x64(lib).detach(), 0, 0, 2, out=lib.empty(0, dtype=lib.float64)),
    lambda lib: lib.split_copy(_x64(lib).detach(), 2, 1, out=[lib.empty(0, dtype=lib.float64)] * 2),
    lambda lib: lib.split_copy(_x64(lib).detach(), 2, 1, out=[lib.empty(0)]),
    lambda lib: lib.detach_copy(_x64(lib), out=lib.empty(0, dtype=lib.float64)),
    lambda lib: lib.view_as_real_copy(lib.tensor([1j]), out=lib.empty(0)),
    lambda lib: lib.view_as_complex_copy(lib.ones(2, 2), out=lib.empty(0, dtype=lib.complex64)),
]


@pytest.mark.parametrize("call", COPY_CALLS)
def test_view_copy_operators(call):
    both(call)


def test_view_copy_gradients():
    def run(lib):
        x = _x64(lib)
        total = lib.select_copy(x, 0, 1).sum() + lib.slice_copy(x, 1, 1, 3).pow(2).sum()
        pieces = lib.split_copy(x, 3, 1)
        names = [p.grad_fn.name() for p in pieces] + [lib.select_copy(x, 0, 0).grad_fn.name()]
        total = total + sum(p.sum() * (i + 1) for i, p in enumerate(pieces))
        total.backward()
        z = lib.tensor([1 + 2j, 3 - 1j], requires_grad=True)
        w = lib.view_as_real_copy(z)
        w.pow(2).sum().backward()
        return names + [w.grad_fn.name()], x.grad.tolist(), z.grad.tolist()

    assert run(ember) == run(torch)


# -- the deprecated norms and vander ------------------------------------------------------------


def _m(lib):
    return lib.tensor([[1.0, -2, 3], [0.5, 2, -1]], dtype=lib.float64, requires_grad=True)


def _v(lib):
    return lib.arange(24.0, dtype=lib.float64).reshape(2, 3, 4).requires_grad_()


NORM_CALLS = [
    lambda lib: lib.frobenius_norm(_m(lib), [0, 1]),
    lambda lib: lib.frobenius_norm(_m(lib), [1], True),
    lambda lib: lib.frobenius_norm(_m(lib), [0, 1, 1]),
    lambda lib: lib.frobenius_norm(_m(lib).detach(), [1], out=lib.empty(0, dtype=lib.float64)),
    lambda lib: lib.nuclear_norm(_m(lib)),
    lambda lib: lib.nuclear_norm(_m(lib), True),
    lambda lib: lib.nuclear_norm(_m(lib)[0]),
    lambda lib: lib.nuclear_norm(_m(lib).detach(), out=lib.empty(0, dtype=lib.float64)),
    lambda lib: lib.nuclear_norm(_m(lib), [0, 1]),
    lambda lib: lib.nuclear_norm(
        _m(lib).detach(), [1, 0], True, out=lib.empty(0, dtype=lib.float64)
    ),
    lambda lib: lib.norm_except_dim(_v(lib)),
    lambda lib: lib.norm_except_dim(_v(lib), 1, -2),
    lambda lib: lib.vander(lib.tensor([1.0, 2, 3])),
    lambda lib: lib.vander(lib.tensor([1, 2, 3]), N=4, increasing=True),
    lambda lib: lib.vander(lib.tensor([True, False]), 3),
    lambda lib: lib.vander(lib.tensor([1.0, 2]), 0),
    lambda lib: lib.vander(lib.tensor([1.0, 2]), 1),
    lambda lib: lib.vander(lib.ones(2, 2)),
    lambda lib: lib.vander(lib.ones(2), -1),
    lambda lib: lib.vander(lib.tensor([1, 2], dtype=lib.int8)),
    lambda lib: lib.vander(lib.tensor([1.0, 2, 3], requires_grad=True)).grad_fn.name(),
]


@pytest.mark.parametrize("call", NORM_CALLS)
def test_legacy_norms_and_vander(call):
    both(call)


@pytest.mark.parametrize("dim", [-1, 0, 1, 2])
@pytest.mark.parametrize("p", [1, 2, 3])
def test_norm_except_dim(dim, p):
    def run(lib):
        out = lib.norm_except_dim(_v(lib), p, dim)
        out.sum().backward()
        return out.grad_fn.name(), tuple(out.shape), out.detach().numpy()

    (e_name, e_shape, e_values), (t_name, t_shape, t_values) = run(ember), run(torch)
    assert (e_name, e_shape) == (t_name, t_shape)
    np.testing.assert_allclose(e_values, t_values, rtol=1e-12)


def test_deprecated_norms_warn_as_torch():
    def run(lib):
        lib.set_warn_always(True)
        try:
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                lib.frobenius_norm(lib.ones(2, 2), [0, 1])
                lib.nuclear_norm(lib.ones(2, 2))
                lib.nuclear_norm(lib.ones(2, 2), [0, 1])
        finally:
            lib.set_warn_always(False)
        return [str(w.message) for w in seen]

    assert run(ember) == run(torch)


@given(st.lists(st.integers(-3, 3), min_size=1, max_size=5), st.integers(0, 6), st.booleans())
def test_vander_property(values, n, increasing):
    both(lambda lib: lib.vander(lib.tensor(values), n, increasing))
    both(lambda lib: lib.vander(lib.tensor(values, dtype=lib.float64), n, increasing))


# -- native_dropout ----------------------------------------------------------------------------


@pytest.mark.parametrize("p", [0.0, 0.3, 0.5, 1.0])
@pytest.mark.parametrize("train", [True, False, None])
def test_native_dropout(p, train):
    def run(lib):
        lib.manual_seed(7)
        x = lib.randn(4, 5, dtype=lib.float64, requires_grad=True)
        out, mask = lib.native_dropout(x, p, train)
        (grad,) = lib.autograd.grad(out.pow(2).sum(), x, create_graph=True)
        grad.sum().backward()
        return (
            out.grad_fn.name(),
            grad.grad_fn.name(),
            repr(mask.dtype).replace("ember.", "torch."),
            out.tolist(),
            mask.tolist(),
            grad.tolist(),
            x.grad.tolist(),
        )

    assert run(ember) == run(torch)


def test_native_dropout_edge_cases():
    both(lambda lib: lib.native_dropout(lib.ones(0), 0.5, True))
    both(lambda lib: lib.native_dropout(lib.ones(3), 0.5, train=False))
    both(
        lambda lib: lib.ops.aten.native_dropout_backward(
            lib.ones(2), lib.tensor([True, False]), 2.0
        )
    )
