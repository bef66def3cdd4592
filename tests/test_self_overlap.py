"""In-place ops on a tensor that reaches its own elements twice, and cumsum's accumulator.

Layer: tests (differential, PyTorch 2.13 as the oracle). A written tensor whose layout
PyTorch's overlap check calls TooHard (`as_strided((3, 2), (1, 1))`) is let through, and
PyTorch's loop then reads elements it already wrote: `w.add_(1)` adds 1 twice to an
element that w holds twice. ember computes the same values in PyTorch's loop order, or
refuses (NotImplementedError) where PyTorch vectorizes; it never returns NumPy's
read-everything-first values. cumsum runs along its dim in PyTorch's order over such
memory, and sums in PyTorch's accumulator type (double for float32).
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from oracle import torch

import ember

N = 12
# Exact arithmetic only: a transcendental formula (sigmoid, exp) may differ from PyTorch's libm
# in the last bit, which says nothing about the order.

INPLACE = {
    "add_": lambda lib, w: w.add_(1),
    "add_tensor": lambda lib, w: w.add_(lib.tensor(2.0)),
    "mul_": lambda lib, w: w.mul_(2),
    "sub_": lambda lib, w: w.sub_(1),
    "div_": lambda lib, w: w.div_(2),
    "pow_": lambda lib, w: w.pow_(2),
    "neg_": lambda lib, w: w.neg_(),
    "abs_": lambda lib, w: w.abs_(),
    "clamp_": lambda lib, w: w.clamp_(2, 3),
    "masked_fill_": lambda lib, w: w.masked_fill_(w > 2, 0),
    "cumsum_0": lambda lib, w: w.cumsum_(0),
    "cumsum_1": lambda lib, w: w.cumsum_(1),
    "add_self": lambda lib, w: w.add_(w),
    "add_out_self": lambda lib, w: lib.add(w, 1, out=w),
}


def _outcome(lib, op, sizes, strides, offset):
    storage = lib.arange(1.0, N + 1.0)
    written = storage.as_strided(sizes, strides, offset)
    try:
        INPLACE[op](lib, written)
    except Exception as exc:  # noqa: BLE001 (compared with torch's)
        return type(exc).__name__, str(exc)
    return "ok", storage.tolist()


def _agrees(op, sizes, strides, offset):
    theirs = _outcome(torch, op, sizes, strides, offset)
    ours = _outcome(ember, op, sizes, strides, offset)
    if ours[0] == "NotImplementedError" and theirs[0] == "ok":
        assert "Please clone() the input first." in ours[1]  # a refusal, never other values
        return
    assert ours == theirs


@pytest.mark.parametrize("op", sorted(INPLACE))
def test_a_tensor_holding_its_elements_twice_is_written_in_torchs_order(op):
    _agrees(op, (3, 2), (1, 1), 0)
    _agrees(op, (2, 3), (1, 2), 1)


@st.composite
def geometry(draw):
    ndim = draw(st.integers(2, 3))
    sizes = tuple(draw(st.integers(1, 3)) for _ in range(ndim))
    strides = tuple(draw(st.integers(0, 3)) for _ in range(ndim))
    span = 1 + sum((s - 1) * t for s, t in zip(sizes, strides))
    assume(span <= N)
    offset = draw(st.integers(0, max(0, N - span)))
    return sizes, strides, offset


@given(op=st.sampled_from(sorted(INPLACE)), where=geometry())
def test_every_small_layout_agrees_or_is_refused(op, where):
    sizes, strides, offset = where
    if op == "cumsum_1" and len(sizes) < 2:
        return
    _agrees(op, sizes, strides, offset)


CUMSUM = {
    "float32_long": lambda lib: lib.cumsum(lib.full((100000,), 0.1), 0)[-1],
    "float32_to_half": lambda lib: lib.cumsum(lib.full((3000,), 0.1), 0, dtype=lib.float16),
    "double_to_half": lambda lib: lib.cumsum(
        lib.full((3000,), 0.1, dtype=lib.float64), 0, dtype=lib.float16
    ),  # fmt: skip
    "bfloat16": lambda lib: lib.cumsum(lib.full((500,), 0.1, dtype=lib.bfloat16), 0),
    "int8_wraps": lambda lib: lib.cumsum(lib.full((100,), 3, dtype=lib.int8), 0, dtype=lib.int8),
    "complex64": lambda lib: lib.cumsum(lib.full((20000,), 0.1 + 0.1j), 0)[-1],
    "bool": lambda lib: lib.cumsum(lib.ones(5, dtype=lib.bool), 0),
    "rows": lambda lib: lib.cumsum(lib.full((4, 30000), 0.1).t(), 0)[-1, :3],
}


@pytest.mark.parametrize("case", sorted(CUMSUM))
def test_cumsum_accumulates_in_torchs_acc_type(case):
    theirs, ours = CUMSUM[case](torch), CUMSUM[case](ember)
    assert repr(ours.dtype).split(".")[1] == repr(theirs.dtype).split(".")[1]
    assert ours.tolist() == theirs.tolist()


# Kernels PyTorch does not check at all (BLAS's gemm, the reductions) write out= while they
# read an input that shares its elements, in an order ember does not reproduce: refused.
UNORDERED = {
    "mm_out_self": lambda lib, x: lib.mm(
        x.view(2, 3)[:, :2], x.view(2, 3)[:, :2].t(), out=x.view(2, 3)[:, :2]
    ),  # fmt: skip
    "mm_out_overlapping": lambda lib, x: lib.mm(
        x.view(3, 2), lib.ones(2, 2), out=x[1:5].view(2, 2)
    ),
    "bmm_out": lambda lib, x: lib.bmm(x.view(1, 2, 3), lib.ones(1, 3, 1), out=x[:2].view(1, 2, 1)),
    "addmm_mat1": lambda lib, x: x.view(2, 3)[:, :2].addmm_(x.view(2, 3)[:, 1:], lib.ones(2, 2)),
    "sum_out": lambda lib, x: lib.sum(x.view(2, 3), 1, out=x[:2]),
    "mean_out": lambda lib, x: lib.mean(x.view(2, 3), 0, out=x[1:4]),
    "amax_out": lambda lib, x: lib.amax(x.view(2, 3), 1, out=x[1:3]),
}
# ... and computed where the two share a storage but no element
DISJOINT = {
    "mm_out": lambda lib, x: lib.mm(x[:4].view(2, 2), lib.ones(2, 1), out=x[4:6].view(2, 1)),
    "sum_out": lambda lib, x: lib.sum(x[:4].view(2, 2), 1, out=x[4:6]),
    "sum_strided": lambda lib, x: lib.sum(x[::2].view(1, 3), 0, out=x[1::2]),
}


@pytest.mark.parametrize("case", sorted(UNORDERED))
def test_unchecked_kernels_refuse_to_read_what_they_write(case):
    x = ember.arange(1.0, 7.0)
    with pytest.raises(NotImplementedError, match=r"Please clone\(\) the input first\."):
        UNORDERED[case](ember, x)
    assert x.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]  # refused before writing
    UNORDERED[case](torch, torch.arange(1.0, 7.0))  # PyTorch accepts (and computes in its order)


@pytest.mark.parametrize("case", sorted(DISJOINT))
def test_a_shared_storage_without_shared_elements_computes_as_torch(case):
    theirs, ours = torch.arange(1.0, 7.0), ember.arange(1.0, 7.0)
    DISJOINT[case](torch, theirs)
    DISJOINT[case](ember, ours)
    assert ours.tolist() == theirs.tolist()
