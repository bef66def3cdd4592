"""Elementwise kernels and cat writing into memory an input shares, against torch: the
values are PyTorch's, as its CPU loop reads and writes element by element (Note
[Overlapping operands in loop order] in aten/loop_order.py), or ember refuses where
PyTorch's vectorized or threaded loop would decide. Hypothesis draws the written view and
the input views of one storage (steps, offsets, 2-d slices and transposes)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import torch

import ember

REFUSAL = "PyTorch's loop reads some elements after writing others"


def _view(base, spec):
    kind, a, b, step = spec
    if kind == "flat":
        return base[a : a + b : step]
    grid = base[:24].view(4, 6)
    rows = grid[a % 4 :, b % 6 :: step]
    return rows.t() if kind == "t" else rows


def _run(lib, op, written, read):
    base = lib.arange(30.0) - 7.5
    out, src = _view(base, written), _view(base, read)
    if op == "cat_out":
        lib.cat([src, src], out=out)
    elif op.endswith("_out"):
        getattr(lib, op[:-4])(src, 2, out=out) if op != "exp_out" else lib.exp(src, out=out)
    elif op == "copy_":
        out.copy_(src if src.shape == out.shape else src.reshape(-1)[: out.numel()].view_as(out))
    else:
        other = src if src.shape == out.shape else src.reshape(-1)[: out.numel()].view_as(out)
        getattr(out, op)(other)
    return base.tolist(), out.shape  # (after an out= resize grew the storage: base sees it)


def _outcome(lib, *args):
    try:
        return _run(lib, *args), None
    except Exception as error:  # noqa: BLE001 (compared with torch's)
        return None, (type(error).__name__, str(error).replace("ember", "torch"))


VIEWS = st.tuples(
    st.sampled_from(["flat", "flat", "grid", "t"]),
    st.integers(0, 8),
    st.integers(0, 8),
    st.sampled_from([1, 2, 3]),
)
OPS = st.sampled_from(["add_", "sub_", "mul_", "div_", "copy_", "add_out", "mul_out",
                       "exp_out", "cat_out"])  # fmt: skip


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(OPS, VIEWS, VIEWS)
def test_overlapping_elementwise_calls_give_torchs_values(op, written, read):
    theirs, their_error = _outcome(torch, op, written, read)
    ours, our_error = _outcome(ember, op, written, read)
    if their_error is None and our_error is not None:
        assert our_error[0] == "NotImplementedError" and REFUSAL in our_error[1], our_error
        return
    assert our_error == their_error
    if ours is not None:
        assert ours[1] == theirs[1]
        _close(ours[0], theirs[0])


def _close(ours, theirs) -> None:
    """Equal up to the last bits of transcendental functions (NumPy's exp is not SLEEF's)."""
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=0)


CASES = {
    "strided_add_": lambda t: (lambda x: (x[::2].add_(x[:3]), x)[1])(t.arange(6.0)),
    "rows_add_": lambda t: (lambda x: (x.view(2, 3)[:, 1:].add_(x.view(2, 3)[:, :2]), x)[1])(
        t.arange(6.0)
    ),
    "transposed_add_": lambda t: (lambda x: (x.t()[1:].add_(x[:3, :3].t()), x)[1])(
        t.arange(12.0).reshape(3, 4)
    ),
    "int_add_": lambda t: (lambda x: (x[::2].add_(x[:3]), x)[1])(t.arange(6)),
    "other_dtype_input": lambda t: (lambda x: (x[::2].add_(x.view(t.int32)[:3]), x)[1])(
        t.arange(6.0)
    ),
    "out_resized_onto_input": lambda t: (lambda x: t.add(x[0:4], 1, out=x[3:3]))(t.arange(6.0)),
    "cat_out_resized_onto_input": lambda t: (lambda x: t.cat([x[::2], x[::2]], out=x[1:2]))(
        t.arange(6.0) - 1.5
    ),
    "exp_out": lambda t: (lambda x: (t.exp(x[::2], out=x[1:4]), x)[1])(t.arange(6.0)),
    "long_strided_input": lambda t: (lambda x: (x[:20].add_(x[::2]), x)[1])(t.arange(40.0)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_overlapping_cases_as_torch(name):
    def plain(lib):
        result = CASES[name](lib)
        return result.tolist(), result.stride(), result.storage_offset()

    (ours, *our_layout), (theirs, *their_layout) = plain(ember), plain(torch)
    assert our_layout == their_layout
    _close(ours, theirs)


def test_a_vectorized_overlapping_run_is_refused():
    """16 contiguous float32 elements a row: PyTorch's loop is vectorized (per ISA)."""
    x = ember.arange(64.0).view(2, 32)
    with pytest.raises(NotImplementedError, match=REFUSAL):
        x[:, 1:17].add_(x[:, :16])
