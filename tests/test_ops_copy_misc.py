"""as_strided_scatter, fill, scalar_tensor, empty_permuted, resize_as_, sum_to_size,
reshape_as, Tensor.H / mH / adjoint, nonzero_static and _chunk_cat against torch: what the
OpInfo samples do not reach (out=, strides, errors, warnings, autograd, a mode's view).
"""

from __future__ import annotations

import numpy as np
import pytest
from diff_support import ops_seen
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch
from test_ops_copy_variants import agree

import ember


def _x(lib):
    return lib.arange(6.0).reshape(2, 3)


CALLS = {
    # as_strided_scatter keeps self's strides and storage offset; the rest of the storage too
    "as_strided_scatter of a transpose": lambda lib: lib.as_strided_scatter(
        _x(lib).t(), lib.ones(2), [2], [2], 1
    ),
    "as_strided_scatter of a slice": lambda lib: [
        r.storage_offset() for r in [lib.as_strided_scatter(_x(lib)[1], lib.ones(2), [2], [1])]
    ],
    "as_strided_scatter method": lambda lib: _x(lib).as_strided_scatter(
        lib.ones(2, 2), [2, 2], [1, 2]
    ),
    "as_strided_scatter size mismatch": lambda lib: lib.as_strided_scatter(
        _x(lib), lib.ones(3), [2], [1]
    ),
    "as_strided_scatter has no Python out=": lambda lib: lib.as_strided_scatter(
        _x(lib), lib.ones(2), [2], [1], out=lib.empty(0)
    ),
    "as_strided_scatter.out": lambda lib: lib.ops.aten.as_strided_scatter.out(
        _x(lib), lib.ones(2), [2], [1], out=lib.empty(0)
    ),
    "as_strided_scatter.out dtype": lambda lib: lib.ops.aten.as_strided_scatter.out(
        _x(lib), lib.ones(2), [2], [1], out=lib.empty(0, dtype=lib.int64)
    ),
    "as_strided_scatter expanded self": lambda lib: lib.as_strided_scatter(
        lib.ones(3).expand(2, 3), lib.zeros(2), [2], [1]
    ),
    # fill
    "fill keeps the layout": lambda lib: lib.fill(_x(lib).t(), 1.5),
    "fill int": lambda lib: lib.fill(_x(lib).long(), 2.7),
    "fill tensor value": lambda lib: lib.fill(_x(lib), lib.tensor(4)),
    "fill 1-d value": lambda lib: lib.fill(_x(lib), lib.tensor([4.0])),
    "fill bool": lambda lib: lib.fill(_x(lib).bool(), 0),
    # scalar_tensor
    "scalar_tensor int": lambda lib: lib.scalar_tensor(3),
    "scalar_tensor bool": lambda lib: lib.scalar_tensor(True),
    "scalar_tensor complex": lambda lib: lib.scalar_tensor(2 + 1j),
    "scalar_tensor complex dtype": lambda lib: lib.scalar_tensor(2 + 1j, dtype=lib.complex64),
    "scalar_tensor dtype": lambda lib: lib.scalar_tensor(3.7, dtype=lib.int64),
    "scalar_tensor requires_grad": lambda lib: lib.scalar_tensor(3, requires_grad=True),
    "scalar_tensor meta": lambda lib: lib.scalar_tensor(3, device="meta").shape,
    "scalar_tensor out": lambda lib: lib.scalar_tensor(3, out=lib.empty(0)),
    # empty_permuted
    "empty_permuted strides": lambda lib: lib.empty_permuted((2, 3, 4), (2, 0, 1)).stride(),
    "empty_permuted is no view": lambda lib: lib.empty_permuted((2, 3), (1, 0))._base is None,
    "empty_permuted dtype": lambda lib: str(
        lib.empty_permuted((2,), (0,), dtype=lib.int64).dtype
    ).split(".")[-1],
    "empty_permuted length": lambda lib: lib.empty_permuted((2, 3), (0,)),
    "empty_permuted negative": lambda lib: lib.empty_permuted((2, 3), (0, -1)),
    "empty_permuted duplicate": lambda lib: lib.empty_permuted((2, 3), (0, 0)),
    "empty_permuted requires_grad": lambda lib: (
        lib.empty_permuted((2, 3), (1, 0), requires_grad=True).requires_grad
    ),
    # resize_as_
    "resize_as_": lambda lib: lib.ones(2).resize_as_(lib.ones(2, 3)).shape,
    "resize_as_ function": lambda lib: lib.resize_as_(lib.ones(7), lib.ones(2, 3)).stride(),
    "resize_as_ preserve": lambda lib: (
        lib.ones(2)
        .resize_as_(
            lib.ones(2, 3, 4, 5).to(memory_format=lib.channels_last),
            memory_format=lib.preserve_format,
        )
        .stride()
    ),
    "resize_as_ channels_last": lambda lib: (
        lib.ones(2).resize_as_(lib.ones(2, 3, 4, 5), memory_format=lib.channels_last).stride()
    ),
    "resize_as_ requires grad": lambda lib: lib.ones(2, requires_grad=True).resize_as_(lib.ones(3)),
    "resize_as_ keeps the values": lambda lib: lib.arange(4.0).resize_as_(lib.ones(2)),
    # sum_to_size / reshape_as
    "sum_to_size varargs": lambda lib: _x(lib).sum_to_size(1, 3),
    "sum_to_size list": lambda lib: _x(lib).sum_to_size([3]),
    "sum_to_size same size": lambda lib: _x(lib).sum_to_size(2, 3),
    "sum_to_size to a 0-d": lambda lib: _x(lib).sum_to_size([]),
    "sum_to_size not expandable": lambda lib: _x(lib).sum_to_size(3, 3),
    "sum_to_size no size": lambda lib: _x(lib).sum_to_size(),
    "reshape_as": lambda lib: _x(lib).reshape_as(lib.ones(3, 2)),
    "reshape_as of a transpose": lambda lib: _x(lib).t().reshape_as(lib.ones(6)),
    "reshape_as wrong size": lambda lib: _x(lib).reshape_as(lib.ones(3, 3)),
    # H, mH, adjoint
    "H": lambda lib: _x(lib).H,
    "H of a vector": lambda lib: lib.ones(3).H,
    "H of a batch": lambda lib: lib.ones(3, 2, 2).H,
    "H of a complex matrix": lambda lib: [
        t.is_conj() for t in [lib.ones(2, 2, dtype=lib.complex64).H]
    ],
    "mH of a batch": lambda lib: lib.arange(12.0).reshape(2, 2, 3).mH,
    "mH of a vector": lambda lib: lib.ones(3).mH,
    "mH of a complex 0-d": lambda lib: lib.tensor(1 + 1j).mH,
    "adjoint": lambda lib: lib.adjoint(_x(lib)),
    "adjoint method": lambda lib: _x(lib).adjoint(),
    "adjoint of a vector": lambda lib: lib.adjoint(lib.ones(3)),
    # nonzero_static
    "nonzero_static padded": lambda lib: lib.nonzero_static(_x(lib), size=8, fill_value=7),
    "nonzero_static cut": lambda lib: _x(lib).nonzero_static(size=2),
    "nonzero_static 0-d": lambda lib: lib.nonzero_static(lib.tensor(0.0), size=2),
    "nonzero_static empty": lambda lib: lib.nonzero_static(lib.zeros(2, 0, 3), size=2),
    "nonzero_static negative size": lambda lib: lib.nonzero_static(_x(lib), size=-1),
    "nonzero_static out": lambda lib: lib.nonzero_static(
        _x(lib), size=2, out=lib.empty(1, 1, dtype=lib.int64)
    ),
    "nonzero_static out dtype": lambda lib: lib.nonzero_static(_x(lib), size=2, out=lib.empty(0)),
    "nonzero_static no size": lambda lib: lib.nonzero_static(_x(lib)),
    "nonzero_static huge size": lambda lib: lib.nonzero_static(_x(lib), size=2**62),
    "nonzero_static huge size out": lambda lib: lib.nonzero_static(
        _x(lib), size=2**62, out=lib.empty(0, dtype=lib.int64)
    ),
    "nonzero_static size checked first": lambda lib: lib.nonzero_static(
        _x(lib), size=-2, out=lib.empty(0)
    ),
    # _chunk_cat
    "_chunk_cat": lambda lib: lib._chunk_cat([_x(lib), lib.ones(2, 5)], 1, 2),
    "_chunk_cat negative dim": lambda lib: lib._chunk_cat([_x(lib), _x(lib)], -1, 4),
    "_chunk_cat out": lambda lib: lib._chunk_cat([_x(lib)], 0, 2, out=lib.empty(0)),
    "_chunk_cat dtypes": lambda lib: lib._chunk_cat([_x(lib), _x(lib).long()], 0, 2),
    "_chunk_cat empty tensor": lambda lib: lib._chunk_cat([_x(lib), lib.ones(0)], 0, 2),
    "_chunk_cat dim out of range": lambda lib: lib._chunk_cat([_x(lib)], 2, 2),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_calls(name):
    agree(CALLS[name])


AUTOGRAD = {
    "fill": lambda lib, x: lib.fill(x, 2.0),
    "fill tensor": lambda lib, x: lib.fill(x, x.sum()),
    "as_strided_scatter": lambda lib, x: lib.as_strided_scatter(x, x[0] * 2, [3], [1], 2),
    "sum_to_size": lambda lib, x: x.sum_to_size(1, 3),
    "reshape_as": lambda lib, x: x.reshape_as(lib.ones(3, 2)),
    "H": lambda lib, x: x.H,
    "mH": lambda lib, x: x.mH,
    "_chunk_cat": lambda lib, x: lib._chunk_cat([x, x], 1, 2),
    "as_strided_scatter.out": lambda lib, x: lib.ops.aten.as_strided_scatter.out(
        x, x[0], [3], [1], out=lib.empty(0)
    ),
}


@pytest.mark.parametrize("name", sorted(AUTOGRAD))
def test_autograd(name):
    def run(lib):
        x = _x(lib).requires_grad_()
        y = AUTOGRAD[name](lib, x)
        result = [y, y.grad_fn.name() if y.grad_fn is not None else None]
        try:
            y.backward(lib.ones_like(y))
        except Exception as exc:  # noqa: BLE001 (compared with torch's)
            return result + [type(exc).__name__, str(exc)]
        return result + [x.grad]

    agree(run)


def test_a_mode_sees_the_composite_explicit_operators_alone():
    def program(lib):
        x = _x(lib)
        lib.fill(x, 1.0)
        lib.scalar_tensor(2)
        lib.empty_permuted((2, 3), (1, 0))
        lib.as_strided_scatter(x, lib.ones(2), [2], [1])
        lib._chunk_cat([x], 0, 2)
        x.sum_to_size(1, 3)
        _ = x.H
        lib.ones(2).resize_as_(x)

    assert ops_seen(program, ember) == ops_seen(program, torch)


def test_a_mode_sees_resize_as_():
    assert "aten.resize_as_.default" in ops_seen(lambda lib: lib.ones(2).resize_as_(_x(lib)), ember)


def test_resize_as_bumps_the_version():
    def bumps(lib):
        t = lib.ones(2)
        before = t._version
        t.resize_as_(lib.ones(3))
        return t._version - before

    assert bumps(ember) == bumps(torch)


@settings(max_examples=25, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    num_chunks=st.integers(1, 4),
    data=st.data(),
)
def test_chunk_cat_shapes(sizes, num_chunks, data):
    dim = data.draw(st.integers(-len(sizes), len(sizes) - 1))
    values = np.arange(int(np.prod(sizes)), dtype=np.float64).reshape(sizes)
    other = list(sizes)
    other[dim] = data.draw(st.integers(1, 4))
    extra = np.ones(other)  # another width along dim: padded to its own multiple

    agree(lambda lib: lib._chunk_cat([lib.tensor(values), lib.tensor(extra)], dim, num_chunks))


@settings(max_examples=25, deadline=None)
@given(
    values=st.lists(st.sampled_from([0.0, 1.0, -2.0]), min_size=1, max_size=12),
    size=st.integers(0, 14),
    fill_value=st.integers(-3, 3),
)
def test_nonzero_static_matches(values, size, fill_value):
    array = np.array(values)
    agree(lambda lib: lib.nonzero_static(lib.tensor(array), size=size, fill_value=fill_value))


def test_torch_function_sees_the_properties_and_methods():
    def run(lib):
        seen = []

        class Logged(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                seen.append(getattr(func, "__name__", str(func)))
                return super().__torch_function__(func, types, args, kwargs or {})

        x = lib.ones(2, 3).as_subclass(Logged)
        kinds = [type(x.H), type(x.mH), type(x.sum_to_size(1, 3)), type(lib.fill(x, 1))]
        kinds += [type(lib.t_copy(x)), type(x.narrow_copy(0, 0, 1)), type(lib.unbind_copy(x)[0])]
        return [k.__name__ for k in kinds], seen

    assert run(ember) == run(torch)
