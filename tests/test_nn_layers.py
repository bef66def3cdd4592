"""torch.nn's layers against PyTorch 2.13: Linear, Bilinear, Identity, Flatten, Unflatten,
Embedding, the dropout modules, and the operators a dispatch mode sees around them.

The same seed gives the same initial weights (bit-equal: kaiming_uniform_ and uniform_
draw PyTorch's stream); forward values, gradients, grad_fn names, reprs and errors are
compared in both libraries (nn_support).
"""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nn_support import both, close
from oracle import torch

import ember


def _mode_class(lib):
    base = lib.utils._python_dispatch.TorchDispatchMode

    class Recorder(base):
        def __init__(self):
            super().__init__()
            self.ops = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.ops.append(str(func))
            return func(*args, **(kwargs or {}))

    return Recorder


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**16), st.integers(1, 6), st.integers(1, 6), st.booleans())
def test_linear_initialisation_is_pytorchs(seed, fan_in, fan_out, bias):
    def program(lib, log):
        lib.manual_seed(seed)
        lin = lib.nn.Linear(fan_in, fan_out, bias=bias)
        log(lin.weight, lin.bias, repr(lin))

    both(program)


def test_linear_forward_backward_and_dtypes():
    def program(lib, log):
        lib.manual_seed(0)
        lin = lib.nn.Linear(3, 2, dtype=lib.float64)
        for x in (lib.randn(4, 3, dtype=lib.float64), lib.randn(3, dtype=lib.float64),
                  lib.randn(2, 5, 3, dtype=lib.float64)):  # fmt: skip
            y = lin(x)
            y.sum().backward()
            log(y, type(y.grad_fn).__name__, lin.weight.grad, lin.bias.grad)
            lin.zero_grad()
        log.attempt(lambda: lin(lib.randn(4, 5, dtype=lib.float64)))
        log.attempt(lambda: lin(lib.randn(4, 3)))

    close(program)


def test_operators_a_mode_sees_around_a_model():
    def program(lib, log):
        nn = lib.nn
        lib.manual_seed(0)
        model = nn.Sequential(
            nn.Linear(4, 3), nn.Flatten(0), nn.Unflatten(0, (5, 3)), nn.Linear(3, 2)
        )
        x = lib.randn(5, 4)
        with _mode_class(lib)() as mode:
            model(x).sum().backward()
        log(mode.ops)
        with _mode_class(lib)() as mode:
            nn.Linear(3, 2)
            nn.Embedding(4, 2, padding_idx=1)
            nn.Bilinear(2, 2, 3)
        log(mode.ops)
        emb, bil = nn.Embedding(6, 2, padding_idx=0), nn.Bilinear(2, 3, 4)
        with _mode_class(lib)() as mode:
            emb(lib.tensor([[0, 3], [5, 5]])).sum().backward()
            bil(lib.randn(2, 2), lib.randn(2, 3)).sum().backward()
            nn.Linear(2, 2, bias=False)(lib.randn(3, 2))
        log(mode.ops)
        drop = nn.Sequential(nn.Dropout(0.2), nn.Dropout1d(0.5), nn.AlphaDropout(0.3))
        with _mode_class(lib)() as mode:
            drop(lib.randn(2, 3, 4))
            nn.Dropout(0.5, inplace=True)(lib.randn(3))
            drop.eval()(lib.randn(2, 3, 4))
        log(mode.ops)

    both(program)


def test_bilinear():
    def program(lib, log):
        lib.manual_seed(3)
        bil = lib.nn.Bilinear(3, 2, 4, dtype=lib.float64)
        log(bil.weight, bil.bias, repr(bil), repr(lib.nn.Bilinear(1, 1, 1, bias=False)))
        x1, x2 = lib.randn(5, 3, dtype=lib.float64), lib.randn(5, 2, dtype=lib.float64)
        x1.requires_grad_()
        y = bil(x1, x2)
        y.pow(2).sum().backward()
        log(y, type(y.grad_fn).__name__, x1.grad, bil.weight.grad, bil.bias.grad)
        log(type(y.grad_fn.next_functions[0][0]).__name__)
        log(bil(x1.unsqueeze(0).expand(2, 5, 3), x2.unsqueeze(0).expand(2, 5, 2)).shape)
        log.attempt(lambda: lib.nn.Bilinear(0, 2, 2))
        w = lib.randn(4, 3, 2)
        for args in [(lib.randn(2, 3), lib.randn(2), w), (lib.randn(2, 3), lib.randn(3, 2), w),
                     (lib.randn(2, 1), lib.randn(2, 2), w), (lib.randn(2, 3), lib.randn(2, 1), w),
                     (lib.randn(2, 3), lib.randn(2, 2), w, lib.randn(3)),
                     (lib.randn(2, 3), lib.randn(2, 2).double(), w)]:  # fmt: skip
            log.attempt(lambda args=args: lib.nn.functional.bilinear(*args))

    close(program)


def test_bilinear_gradcheck():
    x1 = ember.randn(3, 2, dtype=ember.float64, requires_grad=True)
    x2 = ember.randn(3, 4, dtype=ember.float64, requires_grad=True)
    w = ember.randn(5, 2, 4, dtype=ember.float64, requires_grad=True)
    b = ember.randn(5, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(ember.nn.functional.bilinear, (x1, x2, w, b))
    assert ember.autograd.gradgradcheck(ember.nn.functional.bilinear, (x1, x2, w, b))


def test_embedding():
    def program(lib, log):
        nn = lib.nn
        lib.manual_seed(0)
        emb = nn.Embedding(6, 3, padding_idx=-2)
        log(emb.weight, emb.padding_idx, repr(emb))
        idx = lib.tensor([[1, 4, 4], [0, 2, 1]])
        y = emb(idx)
        (y * lib.arange(3.0)).sum().backward()
        log(y, type(y.grad_fn).__name__, emb.weight.grad)
        log(
            repr(
                nn.Embedding(
                    3, 2, max_norm=1.0, norm_type=1.5, scale_grad_by_freq=True, sparse=True
                )
            )
        )
        freq = nn.Embedding(5, 2, scale_grad_by_freq=True)
        freq(lib.tensor([1, 1, 1, 3])).sum().backward()
        log(freq.weight.grad)
        pre = nn.Embedding.from_pretrained(lib.arange(8.0).reshape(4, 2))
        log(pre.weight.requires_grad, pre(lib.tensor([3, 0])), repr(pre))
        pre = nn.Embedding.from_pretrained(
            lib.arange(8.0).reshape(4, 2) * 3, freeze=False, max_norm=2.0
        )
        log(pre(lib.tensor([1, 3, 1])), pre.weight, pre.weight.requires_grad)
        log(emb(lib.tensor(2)).shape, emb(lib.tensor([[1], [2]], dtype=lib.int32)).stride())
        for bad in (lambda: nn.Embedding(3, 2, padding_idx=3), lambda: nn.Embedding(3, 2, padding_idx=-4),
                    lambda: nn.Embedding.from_pretrained(lib.ones(3)),
                    lambda: nn.Embedding(3, 2, _weight=lib.ones(2, 2)),
                    lambda: emb(lib.tensor([1.0])), lambda: emb(lib.tensor([6])),
                    lambda: lib.embedding(lib.ones(3), lib.tensor([0])),
                    lambda: lib.embedding_renorm_(lib.ones(3), lib.tensor([0]), 1.0, 2.0),
                    lambda: lib.embedding_renorm_(lib.ones(3, 1), lib.tensor([0.0]), 1.0, 2.0)):  # fmt: skip
            log.attempt(bad)

    close(program)


def test_embedding_gradcheck_and_double_backward():
    def program(lib, log):
        lib.manual_seed(0)
        w = lib.randn(5, 3, dtype=lib.float64, requires_grad=True)
        idx = lib.tensor([[1, 2], [2, 4]])
        for padding_idx in (None, 2):  # the padding row's gradient is zero by design

            def fn(w, p=padding_idx):
                return lib.nn.functional.embedding(idx, w, padding_idx=p)

            log(lib.autograd.gradcheck(fn, (w,), raise_exception=False))
            log(lib.autograd.gradgradcheck(fn, (w,), raise_exception=False))

    both(program)


def test_embedding_sparse_gradients_are_refused():
    emb = ember.nn.Embedding(3, 2, sparse=True)
    out = emb(ember.tensor([1]))
    with pytest.raises(NotImplementedError, match="sparse=True"):
        out.sum().backward()


def test_flatten_unflatten_identity():
    def program(lib, log):
        nn = lib.nn
        x = lib.arange(24.0).reshape(2, 3, 4)
        log(nn.Flatten()(x).shape, nn.Flatten(0, 1)(x).shape, nn.Flatten(-2)(x).stride())
        log(nn.Unflatten(2, (2, 2))(x).shape, nn.Unflatten(-1, [1, 4])(x).shape)
        log(repr(nn.Flatten()), repr(nn.Unflatten(1, (3, 1))), repr(nn.Identity(54, unused="x")))
        log(nn.Identity(3)(x) is x)
        log.attempt(lambda: nn.Unflatten(1, 3))
        log.attempt(lambda: nn.Unflatten(1, (3, 1.0)))
        log.attempt(lambda: nn.Unflatten(1, (5, 2))(x))

    both(program)


DROPOUTS = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


@pytest.mark.parametrize("name", DROPOUTS)
@pytest.mark.parametrize("inplace", [False, True])
def test_dropout_modules(name, inplace):
    shape = (3, 4) if name == "Dropout1d" else (2, 3, 4, 2)

    def program(lib, log):
        lib.manual_seed(5)
        x = lib.randn(*shape, dtype=lib.float64)
        mod = getattr(lib.nn, name)(0.4, inplace=inplace)
        log(repr(mod))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = mod(x.clone())
            log(y, [str(w.message) for w in caught])
        leaf = x.clone().requires_grad_()
        lib.manual_seed(6)
        out = mod(leaf * 1)
        out.sum().backward()
        log(type(out.grad_fn).__name__, leaf.grad)
        log(lib.equal(mod.eval()(x), x), mod.training)
        log.attempt(lambda: getattr(lib.nn, name)(1.5))

    close(program)


def test_functional_dropout_errors_and_edges():
    def program(lib, log):
        F = lib.nn.functional
        t = lib.ones(2, 3)
        log(F.dropout(t, 1.0), F.alpha_dropout(t, 1.0, True), F.feature_alpha_dropout(t, 0.0, True))
        log(F.dropout(t, 0.5, training=False) is t, F.dropout1d(lib.ones(2, 3), 0.5, False))
        lib.manual_seed(0)
        r = F.dropout2d(t4 := lib.ones(2, 3, 2, 2), 0.5, inplace=True)
        log(r is t4, t4)
        log.attempt(lambda: F.dropout1d(lib.ones(2, 2, 2, 2)))
        log.attempt(lambda: F.dropout(t, -0.1))
        log.attempt(lambda: F.alpha_dropout(t, 2.0))
        log.attempt(lambda: lib.feature_dropout(lib.ones(3), 0.5, True))
        log.attempt(lambda: lib.alpha_dropout(lib.ones(3), 1.5, True))

    both(program)


def test_dropout_draws_pytorchs_mask():
    torch.manual_seed(11)
    ember.manual_seed(11)
    expected = torch.nn.functional.dropout(torch.ones(64, 33), 0.3)
    actual = ember.nn.functional.dropout(ember.ones(64, 33), 0.3)
    assert actual.numpy().tolist() == expected.numpy().tolist()
