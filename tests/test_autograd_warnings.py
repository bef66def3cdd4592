"""The warnings autograd gives, differential against PyTorch: reading `.grad` of a non-leaf
(TensorBody.h's TORCH_WARN, each time) and backward(create_graph=True) (engine.cpp's
TORCH_WARN_ONCE: torch is run with warnAlways and ember's once-set is cleared, so both
warn in every case and a test can compare case by case)."""

from __future__ import annotations

import warnings

import pytest
from oracle import torch

import ember
from ember._c10 import warning as ember_warning


@pytest.fixture
def warn_always():
    torch._C._set_warnAlways(True)
    try:
        yield
    finally:
        torch._C._set_warnAlways(False)


def _warnings(lib, program):
    if lib is ember:
        ember_warning._WARNED_ONCE.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        program(lib)
    return [(w.category, str(w.message)) for w in caught]


def _non_leaf(lib):
    a = lib.ones(2, requires_grad=True)
    b = a * 2
    assert b.grad is None
    b.grad  # noqa: B018  (a second read warns again)


def _retained(lib):
    a = lib.ones(2, requires_grad=True)
    b = a * 2
    b.retain_grad()
    b.grad  # noqa: B018


def _assigned(lib):
    a = lib.ones(2, requires_grad=True)
    b = a * 2
    b.grad = lib.zeros(2)
    b.grad  # noqa: B018


def _leaves(lib):
    a = lib.ones(2, requires_grad=True)
    a.grad  # noqa: B018
    lib.ones(2).grad  # noqa: B018
    with lib.no_grad():
        (a * 2).grad  # noqa: B018
    a.detach().grad  # noqa: B018


def _view_of_leaf(lib):
    a = lib.ones(3, requires_grad=True)
    a[0:2].grad  # noqa: B018


def _after_backward(lib):
    a = lib.ones(2, requires_grad=True)
    b = a * 2
    b.sum().backward()
    b.grad  # noqa: B018


def _create_graph(lib):
    a = lib.ones(2, requires_grad=True)
    (a * a).sum().backward(create_graph=True)


def _create_graph_functional(lib):
    a = lib.ones(2, requires_grad=True)
    lib.autograd.backward((a * a).sum(), create_graph=True)


def _create_graph_inputs(lib):
    a = lib.ones(2, requires_grad=True)
    b = a * 2
    b.sum().backward(create_graph=True, inputs=[b])


def _create_graph_on_leaf(lib):
    a = lib.ones(2, requires_grad=True)
    a.backward(lib.ones(2), create_graph=True)


def _grad_create_graph(lib):
    a = lib.ones(2, requires_grad=True)
    lib.autograd.grad((a * a).sum(), a, create_graph=True)


def _no_create_graph(lib):
    a = lib.ones(2, requires_grad=True)
    (a * a).sum().backward()


def _create_graph_failing(lib):
    a = lib.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError):
        (a.detach() * 2).sum().backward(create_graph=True)


PROGRAMS = [
    _non_leaf,
    _retained,
    _assigned,
    _leaves,
    _view_of_leaf,
    _after_backward,
    _create_graph,
    _create_graph_functional,
    _create_graph_inputs,
    _create_graph_on_leaf,
    _grad_create_graph,
    _no_create_graph,
    _create_graph_failing,
]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_autograd_warns_as_torch(program, warn_always):
    assert _warnings(ember, program) == _warnings(torch, program)


def test_the_non_leaf_warning_has_torch_text_and_points_at_the_reading_line():
    a = ember.ones(2, requires_grad=True)
    b = a * 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        b.grad  # noqa: B018
    assert caught[0].filename == __file__
    assert str(caught[0].message).startswith("The .grad attribute of a Tensor that is not a leaf")
    assert str(caught[0].message).endswith(
        " (Triggered internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)"
    )


def test_the_create_graph_warning_is_given_once_per_process():
    ember_warning._WARNED_ONCE.clear()
    a = ember.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (a * a).sum().backward(create_graph=True)
        (a * 3).sum().backward(create_graph=True)
    assert len(caught) == 1
    assert "reference cycle" in str(caught[0].message)
