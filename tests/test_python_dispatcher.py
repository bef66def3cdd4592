"""torch._python_dispatcher.PythonDispatcher against PyTorch's: the same tables and errors."""

from __future__ import annotations

import importlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

from ember._python_dispatcher import PythonDispatcher


def _theirs():
    return importlib.import_module("torch._python_dispatcher").PythonDispatcher


KEYS = PythonDispatcher.supported_keys


def _texts(cls, keys):
    dispatcher = cls()
    try:
        dispatcher.register(keys)
    except RuntimeError as error:
        return ("raised", str(error))
    return (
        dispatcher.dispatchTable(),
        dispatcher.registrations(),
        dispatcher.rawRegistrations(),
        dispatcher.keys(),
    )


def test_the_keys_are_torchs():
    assert torch is not None and _theirs().supported_keys == KEYS
    assert PythonDispatcher().keys() == _theirs()().keys()


@pytest.mark.parametrize(
    "keys",
    [
        ["CPU", "XLA", "Lazy", "CompositeImplicitAutograd"],
        ["CPU", "XLA", "Lazy", "CompositeImplicitAutograd", "AutogradCPU"],
        ["CPU", "XLA", "Lazy", "CompositeExplicitAutograd", "AutogradCPU"],
        ["CPU", "FPGA", "CompositeImplicitAutograd"],
        ["Autograd", "FPGA"],
        [],
        ["CPU", "CPU"],
        ["CompositeExplicitAutograd", "CompositeImplicitAutograd"],
        ["QuantizedCPU"],
    ],
)
def test_tables_and_errors_equal_torchs(keys):
    assert _texts(PythonDispatcher, keys) == _texts(_theirs(), keys)


@settings(max_examples=40)
@given(st.lists(st.sampled_from(KEYS), max_size=6))
def test_any_registration_set_gives_torchs_table(keys):
    assert _texts(PythonDispatcher, keys) == _texts(_theirs(), keys)


def test_a_dropped_dispatcher_leaves_nothing_registered():
    dispatcher = PythonDispatcher()
    dispatcher.register(["CPU"])
    del dispatcher
    assert "CPU" not in PythonDispatcher().rawRegistrations()
