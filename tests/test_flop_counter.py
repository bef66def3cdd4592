"""FlopCounterMode, differential against torch: the counts of a small MLP's forward and
backward, matmul through mm and bmm, custom formulas, register_flop_formula's errors, and
the printed table (drawn by `tabulate`; where it is not installed both libraries fail to
display with the same ModuleNotFoundError, and that is what is compared)."""

from __future__ import annotations

import contextlib
import importlib
import io
import warnings

import pytest
from oracle import torch

import ember


def _flop(lib):
    return importlib.import_module(f"{lib.__name__}.utils.flop_counter")


def _mlp(lib):
    x = lib.tensor([[0.5 * (i + j) for j in range(4)] for i in range(8)])
    w1 = lib.ones(16, 4, requires_grad=True)
    b1 = lib.ones(16, requires_grad=True)
    w2 = lib.ones(3, 16, requires_grad=True)
    F = lib.nn.functional
    F.linear(F.relu(F.linear(x, w1, b1)), w2).sum().backward()


def _matmuls(lib):
    lib.ones(2, 3, 4).matmul(lib.ones(4, 5))
    lib.ones(2, 3, 4) @ lib.ones(2, 4, 5)
    lib.ones(3) @ lib.ones(3)
    lib.ones(5, 6).mm(lib.ones(6, 7))
    lib.addmm(lib.ones(5, 7), lib.ones(5, 6), lib.ones(6, 7))


def _nothing(lib):
    lib.ones(2) + 1


def _big(lib):
    lib.ones(1000, 1000).mm(lib.ones(1000, 600))


def _counts(lib, program, **options):
    with _flop(lib).FlopCounterMode(display=False, **options) as counter:
        program(lib)
    counts = {
        scope: {str(op): n for op, n in ops.items()}
        for scope, ops in counter.get_flop_counts().items()
    }
    return counter.get_total_flops(), counts, counter


@pytest.mark.parametrize("program", [_mlp, _matmuls, _nothing, _big], ids=lambda p: p.__name__)
def test_counts_match_torch(program):
    ours = _counts(ember, program)
    theirs = _counts(torch, program)
    assert ours[:2] == theirs[:2]
    assert ours[0] > 0 or program is _nothing


def _printed(lib, program, **options):
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), _flop(lib).FlopCounterMode(**options) as counter:
            program(lib)
        tables = [counter.get_table(), counter.get_table(0), counter.get_table(1)]
    except Exception as error:  # noqa: BLE001 (compared with torch's: no tabulate)
        return type(error).__name__, str(error)
    return out.getvalue(), tables


@pytest.mark.parametrize("program", [_mlp, _matmuls, _nothing, _big], ids=lambda p: p.__name__)
def test_the_table_is_torch_table(program):
    ours = _printed(ember, program)
    assert ours == _printed(torch, program)
    assert ours[0].startswith("Module") or ours == (
        "ModuleNotFoundError",
        "No module named 'tabulate'",
    )


def test_display_false_prints_nothing():
    assert _printed(ember, _mlp, display=False)[0] in ("", "ModuleNotFoundError")


def test_custom_mapping_and_raw_formulas_match_torch():
    def relu_flops(x_shape, out_shape=None):
        return 7 * x_shape[0]

    def raw(x, out_val=None):
        return int(out_val.shape[0]) * 100

    raw._get_raw = True

    def program(lib):
        lib.ones(3).relu()
        lib.ones(4).neg()
        lib.ones(2, 2).mm(lib.ones(2, 2))

    def counts(lib):
        mapping = {lib.ops.aten.relu: relu_flops, lib.ops.aten.neg: raw}
        return _counts(lib, program, custom_mapping=mapping)[:2]

    assert counts(ember) == counts(torch)


def test_register_flop_formula_errors_match_torch():
    def outcome(lib, target):
        try:
            _flop(lib).register_flop_formula(target)(lambda *a, **k: 0)
        except Exception as error:  # noqa: BLE001 (compared with torch's)
            return type(error).__name__, str(error).replace("ember.", "torch.")
        return None

    for name in ("overload", "packet", "string"):

        def target(lib, name=name):
            return {
                "overload": lib.ops.aten.mm.default,
                "packet": lib.ops.aten.mm,
                "string": "aten::mm",
            }[name]

        assert outcome(ember, target(ember)) == outcome(torch, target(torch))


def test_register_flop_formula_counts_a_custom_operator():
    lib = ember.library.Library("flopq", "DEF")
    try:
        lib.define("scale(Tensor x) -> Tensor")
        lib.impl("scale", lambda x: x * 2, "CompositeExplicitAutograd")
        flop = _flop(ember)

        @flop.register_flop_formula(ember.ops.flopq.scale)
        def scale_flop(x_shape, out_shape=None):
            return x_shape[0] * 3

        with flop.FlopCounterMode(display=False) as counter:
            ember.ops.flopq.scale(ember.ones(5))
        assert counter.get_total_flops() == 15
        assert scale_flop.__name__ == "scale_flop"
    finally:
        _flop(ember).flop_registry.pop(ember.ops.flopq.scale, None)
        lib._destroy()


def test_mods_warns_as_torch():
    def shown(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _flop(lib).FlopCounterMode(mods=[], display=False)
        return [(w.category.__name__, str(w.message)) for w in caught]

    assert shown(ember) == shown(torch) != []
