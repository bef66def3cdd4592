"""The ZeroTensor key (torch._efficientzerotensor) against PyTorch 2.13: what reaches a
ZeroTensor, which results keep the key, the refusal of writes, the table entries."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import torch

import ember

CASES = {
    "make": lambda lib, y: y,
    "make 2-d float64": lambda lib, y: lib._efficientzerotensor((2, 2), dtype=lib.float64),
    "plus one": lambda lib, y: y + 1,
    "times tensor": lambda lib, y: y * lib.ones(3),
    "times two": lambda lib, y: y * 2,
    "times float64": lambda lib, y: lib.ones(3, dtype=lib.float64) * y,
    "zero plus zero": lambda lib, y: y + y,
    "zero minus ones": lambda lib, y: y - lib.ones(3),
    "ones minus zero": lambda lib, y: lib.ones(3) - y,
    "broadcast add": lambda lib, y: lib.ones(2, 3) + y,
    "add alpha": lambda lib, y: lib.add(y, lib.ones(3), alpha=3),
    "zero over x": lambda lib, y: y / lib.tensor([1.0, -2.0, 0.0]),
    "x over zero": lambda lib, y: lib.tensor([1.0, -2.0, 0.0]) / y,
    "zero over zero": lambda lib, y: y / y,
    "exp": lambda lib, y: y.exp(),
    "sum": lambda lib, y: y.sum(),
    "clone": lambda lib, y: y.clone(),
    "zeros_like": lambda lib, y: lib.zeros_like(y),
    "index": lambda lib, y: y[0],
    "view": lambda lib, y: y.view(3),
    "reshape": lambda lib, y: y.reshape(3, 1),
    "expand": lambda lib, y: y.expand(2, 3),
    "transpose of 2-d": lambda lib, y: lib._efficientzerotensor(2, 3).t(),
    "cat": lambda lib, y: lib.cat([y, lib.ones(2)]),
    "stack": lambda lib, y: lib.stack([y, y]),
    "matmul": lambda lib, y: lib._efficientzerotensor(2, 3) @ lib.ones(3, 2),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_results_and_their_zerotensor_bit_are_torch(case):
    outs = []
    for lib in (torch, ember):
        out = CASES[case](lib, lib._efficientzerotensor(3))
        outs.append(
            (
                out.numpy(force=True),
                tuple(out.shape),
                str(out.dtype).split(".")[-1],
                out._is_zerotensor(),
            )
        )
    (ours, *our_meta), (theirs, *their_meta) = outs[1], outs[0]
    assert our_meta == their_meta
    np.testing.assert_array_equal(ours, theirs)


def test_key_set_and_table_entries_are_torch():
    for lib in (torch, ember):
        assert repr(lib._C._dispatch_keys(lib._efficientzerotensor(3))).replace(
            "ember", "torch"
        ) == ("DispatchKeySet(CPU, ZeroTensor, ADInplaceOrView, AutogradCPU, AutocastCPU)")
    for name in ("aten::exp", "aten::mul.Tensor", "aten::add.Scalar", "aten::view", "aten::clone"):
        ours = [
            r
            for r in ember._C._dispatch_dump_table(name).splitlines()
            if r.startswith("ZeroTensor")
        ]
        theirs = [
            r
            for r in torch._C._dispatch_dump_table(name).splitlines()
            if r.startswith("ZeroTensor")
        ]
        assert [r.rsplit(" ", 1)[-1] for r in ours] == [r.rsplit(" ", 1)[-1] for r in theirs], name
        assert ("fallthrough" in ours[0]) == ("fallthrough" in theirs[0]), name


@pytest.mark.parametrize(
    "write",
    [
        lambda lib, y: y.add_(1),
        lambda lib, y: lib.add(lib.ones(3), 1, out=y),
        lambda lib, y: y.mul_(2),
    ],
)
def test_writing_a_zerotensor_is_refused_as_torch_does(write):
    messages = []
    for lib in (torch, ember):
        y = lib._efficientzerotensor(3)
        with pytest.raises(RuntimeError) as info:
            write(lib, y)
        messages.append(str(info.value))
        assert y.numpy(force=True).tolist() == [0.0, 0.0, 0.0]
    assert messages[1] == messages[0]


def test_a_library_kernel_at_the_zerotensor_key_sees_zerotensors():
    """PyTorch's test_create_new_library, in ember's words."""
    with ember.library._scoped_library("zt_test", "DEF") as define:
        define.define("sum(Tensor self) -> Tensor")
        define.impl("sum", lambda x: x.clone(), "CPU")
        op = ember.ops.zt_test.sum
        with ember.library._scoped_library("zt_test", "IMPL") as extra:
            extra.impl(
                "sum",
                lambda x: ember._efficientzerotensor(x.shape) if x._is_zerotensor() else x.clone(),
                "ZeroTensor",
            )
            assert op(ember._efficientzerotensor(3))._is_zerotensor()
            x = ember.tensor([1, 2])
            assert op(x).tolist() == [1, 2] and not op(x)._is_zerotensor()


def test_reading_a_zerotensor_outside_dispatch_is_refused_as_torch_does():
    for read in (lambda t: t.tolist(), lambda t: t.numpy(), lambda t: np.asarray(t)):
        messages = []
        for lib in (torch, ember):
            with pytest.raises(RuntimeError) as info:
                read(lib._efficientzerotensor(3))
            messages.append(str(info.value))
        assert messages[1] == messages[0]
    for lib in (torch, ember):
        y = lib._efficientzerotensor(3)
        assert (y.data_ptr(), y[0].item(), float(y[1])) == (0, 0.0, 0.0)
