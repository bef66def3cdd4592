"""Indexing operators against PyTorch 2.13: index_add / index_copy / index_fill (every
overload: functional, method, in-place, out=), scatter_add, scatter_reduce.two with each
reduction and include_self, take, put / put_, masked_select, masked_scatter, nonzero
(as_tuple, out=, its column-major strides), argwhere, where(condition). Values, dtypes,
strides, errors (type and message), float64 gradients and grad_fn names."""

import numpy as np
import pytest
from diff_support import grads_agree, ops_seen
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_support import same_outcome
from oracle import torch

import ember

A = np.arange(12.0).reshape(3, 4) - 5.5
IDX = [2, 0, 2]


def _a(lib, dtype=None):
    return lib.tensor(A, dtype=dtype or lib.float32)


def _i(lib, values=IDX):
    return lib.tensor(values)


FORWARD = {
    "index_add": lambda lib: lib.index_add(_a(lib), 0, _i(lib), lib.ones(3, 4)),
    "index_add_alpha": lambda lib: _a(lib).index_add(1, _i(lib), lib.ones(3, 3), alpha=2.5),
    "index_add_": lambda lib: _a(lib).index_add_(0, _i(lib).int(), lib.ones(3, 4)),
    "index_add_out": lambda lib: lib.index_add(
        _a(lib), 0, _i(lib), lib.ones(3, 4), out=lib.empty(0)
    ),
    "index_add_int": lambda lib: lib.index_add(
        _a(lib, lib.int64), 0, _i(lib), lib.ones(3, 4).long(), alpha=3
    ),
    "index_add_bounds": lambda lib: lib.index_add(_a(lib), 0, _i(lib, [5]), lib.ones(1, 4)),
    "index_add_dtype": lambda lib: lib.index_add(_a(lib), 0, _i(lib), lib.ones(3, 4).double()),
    "index_add_index_dtype": lambda lib: lib.index_add(_a(lib), 0, lib.ones(3), lib.ones(3, 4)),
    "index_add_index_2d": lambda lib: lib.index_add(
        _a(lib), 0, lib.zeros(1, 1).long(), lib.ones(1, 4)
    ),
    "index_add_count": lambda lib: lib.index_add(_a(lib), 0, _i(lib), lib.ones(2, 4)),
    "index_add_shape": lambda lib: lib.index_add(_a(lib), 0, _i(lib, [0, 1]), lib.ones(2, 3)),
    "index_copy": lambda lib: lib.index_copy(_a(lib), 1, _i(lib, [3, 0]), lib.ones(3, 2)),
    "index_copy_": lambda lib: _a(lib).index_copy_(0, _i(lib, [1]), lib.zeros(1, 4)),
    "index_copy_out": lambda lib: lib.index_copy(
        _a(lib), 0, _i(lib, [1]), lib.zeros(1, 4), out=lib.empty(3, 4)
    ),
    "index_copy_scalar": lambda lib: lib.index_copy(lib.ones(3), 0, _i(lib, [1]), lib.tensor(7.0)),
    "index_copy_bounds": lambda lib: lib.index_copy(_a(lib), 0, _i(lib, [3]), lib.zeros(1, 4)),
    "index_copy_int32": lambda lib: lib.index_copy(_a(lib), 0, _i(lib, [1]).int(), lib.zeros(1, 4)),
    "index_copy_slices": lambda lib: lib.index_copy(_a(lib), 0, _i(lib, [1]), lib.zeros(1, 3)),
    "index_copy_dims": lambda lib: lib.index_copy(_a(lib), 0, _i(lib, [1]), lib.zeros(4)),
    "index_fill_scalar": lambda lib: lib.index_fill(_a(lib), 1, _i(lib, [0, -1]), -1.5),
    "index_fill_tensor": lambda lib: _a(lib).index_fill(0, _i(lib, [1]), lib.tensor(9.0)),
    "index_fill_": lambda lib: _a(lib).index_fill_(1, _i(lib, [2]), 0),
    "index_fill_0d": lambda lib: lib.tensor(3.0).index_fill(0, _i(lib, [0]), 1.0),
    "index_fill_bounds": lambda lib: _a(lib).index_fill(0, _i(lib, [3]), 1.0),
    "index_fill_int32": lambda lib: _a(lib).index_fill(0, _i(lib, [1]).int(), 1.0),
    "index_fill_1d_value": lambda lib: _a(lib).index_fill(0, _i(lib, [1]), lib.ones(1)),
    "index_fill_complex": lambda lib: _a(lib).index_fill(0, _i(lib, [1]), 1j),
    "scatter_add": lambda lib: lib.scatter_add(
        _a(lib), 0, _i(lib, [[0, 1], [0, 2]]), lib.ones(2, 2)
    ),
    "scatter_add_": lambda lib: _a(lib).scatter_add_(1, _i(lib, [[3], [3], [0]]), lib.ones(3, 1)),
    "scatter_add_out": lambda lib: lib.scatter_add(
        _a(lib), 0, _i(lib, [[1]]), lib.ones(1, 1), out=lib.empty(0)
    ),
    "scatter_add_src_dims": lambda lib: lib.scatter_add(
        _a(lib), 0, _i(lib, [[1]]), lib.ones(1, 1, 1)
    ),
    "scatter_add_bounds": lambda lib: lib.scatter_add(_a(lib), 0, _i(lib, [[7]]), lib.ones(1, 1)),
    "scatter_reduce_bad": lambda lib: lib.scatter_reduce(
        _a(lib), 0, _i(lib, [[1]]), lib.ones(1, 1), "max"
    ),
    "take": lambda lib: lib.take(_a(lib), _i(lib, [[0, -1], [5, 5]])),
    "take_bounds": lambda lib: _a(lib).take(_i(lib, [12])),
    "take_float": lambda lib: lib.take(_a(lib), lib.ones(2)),
    "take_out": lambda lib: lib.take(_a(lib), _i(lib, [1, 2]), out=lib.empty(0)),
    "take_out_overlap": lambda lib: (lambda a: lib.take(a, _i(lib, [1]), out=a[0, :1]))(_a(lib)),
    "take_empty": lambda lib: lib.take(lib.ones(0), _i(lib, [0])),
    "put": lambda lib: lib.put(_a(lib), _i(lib, [0, -1]), lib.tensor([7.0, 8.0])),
    "put_accumulate": lambda lib: _a(lib).put_(_i(lib, [1, 1]), lib.tensor([1.0, 2.0]), True),
    "put_bounds": lambda lib: _a(lib).put_(_i(lib, [12]), lib.tensor([1.0])),
    "put_numel": lambda lib: _a(lib).put(_i(lib, [1]), lib.tensor([1.0, 2.0])),
    "put_dtype": lambda lib: _a(lib).put(_i(lib, [1]), lib.tensor([1.0]).double()),
    "masked_select": lambda lib: lib.masked_select(_a(lib), _a(lib) > 0),
    "masked_select_broadcast": lambda lib: _a(lib).masked_select(
        lib.tensor([True, False, True, True])
    ),
    "masked_select_float_mask": lambda lib: lib.masked_select(_a(lib), _a(lib)),
    "masked_select_mismatch": lambda lib: lib.masked_select(_a(lib), lib.ones(3).bool()),
    "masked_select_out": lambda lib: lib.masked_select(_a(lib), _a(lib) > 2, out=lib.empty(0)),
    "masked_select_out_overlap": lambda lib: (lambda a: lib.masked_select(a, a > 0, out=a))(
        _a(lib)
    ),
    "masked_scatter": lambda lib: lib.masked_scatter(_a(lib), _a(lib) > 0, -lib.ones(12)),
    "masked_scatter_": lambda lib: _a(lib).masked_scatter_(_a(lib) < 0, lib.arange(20.0)),
    "masked_scatter_broadcast": lambda lib: lib.masked_scatter(
        lib.ones(4), lib.tensor([[True], [False]]), lib.arange(8.0)
    ),
    "masked_scatter_short": lambda lib: lib.masked_scatter(_a(lib), _a(lib) > 0, lib.ones(2)),
    "masked_scatter_mask_dtype": lambda lib: lib.masked_scatter(_a(lib), _a(lib), lib.ones(12)),
    "nonzero": lambda lib: lib.nonzero(_a(lib) > 0),
    "nonzero_method": lambda lib: (_a(lib) > 2).nonzero(),
    "nonzero_tuple": lambda lib: lib.nonzero(_a(lib) > 2, as_tuple=True),
    "nonzero_tuple_method": lambda lib: _a(lib).nonzero(as_tuple=True),
    "nonzero_0d": lambda lib: lib.nonzero(lib.tensor(3)),
    "nonzero_0d_tuple": lambda lib: lib.nonzero(lib.tensor(3), as_tuple=True),
    "nonzero_empty": lambda lib: lib.nonzero(lib.zeros(2, 3)),
    "nonzero_out": lambda lib: lib.nonzero(_a(lib), out=lib.empty(0, dtype=lib.long)),
    "nonzero_out_dtype": lambda lib: lib.nonzero(_a(lib), out=lib.empty(0)),
    "nonzero_tuple_out": lambda lib: lib.nonzero(_a(lib), out=lib.empty(0).long(), as_tuple=True),
    "argwhere": lambda lib: lib.argwhere(_a(lib) < 0),
    "argwhere_method": lambda lib: _a(lib).argwhere(),
    "where_one_argument": lambda lib: lib.where(_a(lib) > 1),
}


@pytest.mark.parametrize("name", sorted(FORWARD))
def test_forward_against_torch(name):
    same_outcome(FORWARD[name])


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
def test_scatter_reduce_against_torch(reduce, include_self, dtype):
    def program(lib):
        x = lib.tensor(A).to(getattr(lib, dtype))
        src = (lib.arange(8.0).reshape(2, 4) - 3).to(getattr(lib, dtype))
        index = lib.tensor([[0, 2, 2, 1], [2, 2, 0, 1]])
        return lib.scatter_reduce(x, 0, index, src, reduce, include_self=include_self)

    same_outcome(program)
    same_outcome(lambda lib: program(lib).clone())


GRADS = {
    "index_add": (lambda lib, a, s: lib.index_add(a, 0, lib.tensor(IDX), s, alpha=2.0), [A, A]),
    "index_copy": (lambda lib, a, s: a.index_copy(1, lib.tensor([3, 0]), s[:, :2]), [A, A]),
    "index_fill": (lambda lib, a: lib.index_fill(a, 1, lib.tensor([0, 2]), 1.0), [A]),
    "scatter_add": (
        lambda lib, a, s: lib.scatter_add(a, 0, lib.tensor([[0, 1], [0, 2]]), s[:2, :2]),
        [A, A],
    ),
    "take": (lambda lib, a: lib.take(a, lib.tensor([[0, 0], [5, -1]])), [A]),
    "put": (lambda lib, a, s: lib.put(a, lib.tensor([1, 3]), s[0, :2]), [A, A]),
    "put_accumulate": (
        lambda lib, a, s: a.put(lib.tensor([1, 1]), s[0, :2], accumulate=True),
        [A, A],
    ),
    "masked_select": (lambda lib, a: lib.masked_select(a, a > 0), [A]),
    "masked_select_broadcast": (
        lambda lib, v: lib.masked_select(v, lib.tensor([[True], [False]]).expand(2, 4)),
        [A[0]],
    ),
    "masked_scatter": (
        lambda lib, a, s: lib.masked_scatter(a, a > 0, s.flatten()),
        [A, A * 2],
    ),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients_against_torch(name):
    fn, arrays = GRADS[name]
    grads_agree(fn, arrays)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_gradients_against_torch(reduce, include_self):
    self_values = np.array([[1.0, 0.0, 2.0], [3.0, 3.0, -1.0]])
    src_values = np.array([[0.0, 2.0, 2.0], [3.0, 0.5, -1.0], [4.0, 1.0, 0.0]])

    def program(lib, x, src):
        index = lib.tensor([[0, 1, 0], [1, 1, 0], [0, 0, 1]])
        return lib.scatter_reduce(x, 0, index, src, reduce, include_self=include_self)

    grads_agree(program, [self_values, src_values])


def test_mode_sees_torch_operators():
    def program(lib):
        x = lib.ones(3, 4)
        lib.index_fill(x, 0, lib.tensor([1]), 2.0)
        lib.put(x, lib.tensor([1]), lib.ones(1))
        lib.masked_scatter(x, x > 0, lib.ones(12))
        lib.argwhere(x)
        lib.nonzero(x, as_tuple=True)

    assert ops_seen(program, ember) == ops_seen(program, torch)


@settings(max_examples=40, deadline=None)
@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    data=st.data(),
)
def test_index_add_and_copy_over_shapes(shape, data):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    size = shape[dim]
    index = data.draw(st.lists(st.integers(0, size - 1), min_size=0, max_size=5))
    source_shape = list(shape)
    source_shape[dim] = len(index)
    base = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    source = np.ones(source_shape)
    same_outcome(
        lambda lib: lib.index_add(
            lib.tensor(base), dim, lib.tensor(index, dtype=lib.long), lib.tensor(source)
        )
    )
    same_outcome(
        lambda lib: lib.index_fill(lib.tensor(base), dim, lib.tensor(index, dtype=lib.long), -1)
    )


@settings(max_examples=40, deadline=None)
@given(
    shape=st.lists(st.integers(0, 4), min_size=0, max_size=3),
    dtype=st.sampled_from(["float32", "int64", "bool", "uint8"]),
    seed=st.integers(0, 1000),
)
def test_nonzero_and_masked_select_over_shapes(shape, dtype, seed):
    values = np.random.default_rng(seed).integers(0, 2, size=shape)
    same_outcome(lambda lib: lib.nonzero(lib.tensor(values).to(getattr(lib, dtype))))
    same_outcome(lambda lib: lib.argwhere(lib.tensor(values).to(getattr(lib, dtype))))
    same_outcome(
        lambda lib: lib.masked_select(
            lib.tensor(values).to(getattr(lib, dtype)), lib.tensor(values) > 0
        )
    )


UNIQUE = {
    "unique": lambda lib: lib.unique(lib.tensor([3, 1, 2, 1, 5, 3])),
    "unique_flags": lambda lib: lib.unique(
        lib.tensor([[3, 1], [2, 1]]), sorted=False, return_inverse=True, return_counts=True
    ),
    "unique_inverse": lambda lib: lib.tensor([2.0, 1.0, 2.0]).unique(return_inverse=True),
    "unique_counts": lambda lib: lib.unique(lib.tensor([True, False, True]), return_counts=True),
    "unique_nan": lambda lib: lib.unique(
        lib.tensor([2.0, float("nan"), 1.0, float("nan")]), return_counts=True
    ),
    "unique_dim": lambda lib: lib.unique(
        lib.tensor([[1, 2], [1, 2], [0, 5]]), dim=0, return_inverse=True, return_counts=True
    ),
    "unique_dim1": lambda lib: lib.tensor([[1, 1, 0], [2, 2, 3]]).unique(dim=1),
    "unique_dim_range": lambda lib: lib.unique(lib.ones(2, 2), dim=2),
    "unique_empty_dim": lambda lib: lib.unique(
        lib.ones(0, 2), dim=0, return_counts=True, return_inverse=True
    ),
    "unique_complex": lambda lib: lib.unique(lib.ones(2, dtype=lib.complex64)),
    "_unique2": lambda lib: lib._unique2(lib.tensor([2, 1, 2])),
    "_unique": lambda lib: lib._unique(lib.tensor([2, 1, 2]), return_inverse=True),
    "unique_consecutive": lambda lib: lib.unique_consecutive(
        lib.tensor([1, 1, 2, 2, 3, 1, 1]), return_inverse=True, return_counts=True
    ),
    "unique_consecutive_method": lambda lib: lib.tensor([1, 1, 2]).unique_consecutive(),
    "unique_consecutive_dim": lambda lib: lib.unique_consecutive(
        lib.tensor([[1, 1, 2], [1, 1, 2]]), dim=1, return_counts=True
    ),
}


@pytest.mark.parametrize("name", sorted(UNIQUE))
def test_unique_against_torch(name):
    same_outcome(UNIQUE[name])


def test_unique_grad_fn_and_backward_error():
    results = []
    for lib in (ember, torch):
        x = lib.tensor([2.0, 1.0, 2.0], requires_grad=True)
        out = lib.unique(x)
        with pytest.raises(NotImplementedError) as raised:
            out.sum().backward()
        results.append((type(out.grad_fn).__name__, str(raised.value)))
    assert results[0] == results[1]


@settings(max_examples=40, deadline=None)
@given(
    shape=st.lists(st.integers(0, 4), min_size=1, max_size=3),
    seed=st.integers(0, 1000),
    flags=st.tuples(st.booleans(), st.booleans()),
    dtype=st.sampled_from(["int64", "float32", "bool", "int8"]),
)
def test_unique_over_shapes(shape, seed, flags, dtype):
    values = np.random.default_rng(seed).integers(0, 3, size=shape)
    inverse, counts = flags

    def program(lib, **kwargs):
        x = lib.tensor(values).to(getattr(lib, dtype))
        return lib.unique(x, return_inverse=inverse, return_counts=counts, **kwargs)

    same_outcome(program)
    same_outcome(lambda lib: program(lib, dim=len(shape) - 1))
    same_outcome(
        lambda lib: lib.unique_consecutive(
            lib.tensor(values).to(getattr(lib, dtype)),
            return_inverse=inverse,
            return_counts=counts,
        )
    )


BUCKETS = {
    "bincount": lambda lib: lib.bincount(lib.tensor([1, 3, 3, 0])),
    "bincount_weights": lambda lib: lib.bincount(
        lib.tensor([1, 3, 3, 0]), lib.tensor([1.0, 2.0, 3.0, 4.0]), 6
    ),
    "bincount_int_weights": lambda lib: lib.tensor([1, 3]).bincount(lib.tensor([1, 2])),
    "bincount_float": lambda lib: lib.bincount(lib.tensor([1.0])),
    "bincount_negative": lambda lib: lib.bincount(lib.tensor([-1])),
    "bincount_minlength": lambda lib: lib.bincount(lib.tensor([1]), minlength=-1),
    "bincount_weights_length": lambda lib: lib.bincount(lib.tensor([1, 2]), lib.ones(3)),
    "bincount_empty": lambda lib: lib.bincount(lib.zeros(0, dtype=lib.long), minlength=3),
    "bincount_2d": lambda lib: lib.bincount(lib.zeros(2, 2, dtype=lib.long)),
    "histc": lambda lib: lib.histc(lib.tensor([1.0, 2.0, 1.0, 5.0]), 4),
    "histc_range": lambda lib: lib.tensor([1.0, 2.0, 1.0, 5.0]).histc(4, 0, 3),
    "histc_same": lambda lib: lib.histc(lib.tensor([2.0, 2.0]), 3),
    "histc_long": lambda lib: lib.histc(lib.tensor([1, 2]), 4),
    "histc_bins": lambda lib: lib.histc(lib.tensor([1.0]), -1),
    "histc_min_max": lambda lib: lib.histc(lib.tensor([1.0]), 2, 3, 1),
    "histc_nan": lambda lib: lib.histc(lib.tensor([float("nan")]), 3),
    "histc_out": lambda lib: lib.histc(lib.tensor([1.0, 3.0]), 2, out=lib.empty(0)),
    "searchsorted": lambda lib: lib.searchsorted(lib.tensor([1, 3, 5, 7]), lib.tensor([3, 6, 9])),
    "searchsorted_right_int32": lambda lib: lib.searchsorted(
        lib.tensor([1, 3, 5, 7]), lib.tensor([3, 6, 9]), right=True, out_int32=True
    ),
    "searchsorted_scalar": lambda lib: lib.searchsorted(lib.tensor([1, 3, 5, 7]), 5, side="right"),
    "searchsorted_2d": lambda lib: lib.searchsorted(
        lib.tensor([[1, 3], [2, 4]]), lib.tensor([[2], [3]])
    ),
    "searchsorted_promote": lambda lib: lib.searchsorted(
        lib.tensor([1, 3, 5]), lib.tensor([2.5, 3.0])
    ),
    "searchsorted_sorter": lambda lib: lib.searchsorted(
        lib.tensor([5, 1, 3]), lib.tensor([3]), sorter=lib.tensor([1, 2, 0])
    ),
    "searchsorted_opposites": lambda lib: lib.searchsorted(
        lib.tensor([1, 3]), lib.tensor([3]), side="left", right=True
    ),
    "searchsorted_bad_side": lambda lib: lib.searchsorted(
        lib.tensor([1, 3]), lib.tensor([3]), side="middle"
    ),
    "searchsorted_dims": lambda lib: lib.searchsorted(lib.tensor([[1, 3, 5]]), lib.tensor([3])),
    "searchsorted_out": lambda lib: lib.searchsorted(
        lib.tensor([1, 3]), lib.tensor([2, 4]), out=lib.empty(0, dtype=lib.long)
    ),
    "searchsorted_out_dtype": lambda lib: lib.searchsorted(
        lib.tensor([1, 3]), lib.tensor([2, 4]), out=lib.empty(0)
    ),
    "bucketize": lambda lib: lib.bucketize(lib.tensor([3, 6, 9]), lib.tensor([1, 3, 5, 7])),
    "bucketize_scalar": lambda lib: lib.bucketize(3, lib.tensor([1, 3, 5, 7]), right=True),
    "bucketize_2d": lambda lib: lib.bucketize(lib.tensor([3]), lib.tensor([[1, 3]])),
    "bucketize_out": lambda lib: lib.bucketize(
        lib.tensor([3.5]), lib.tensor([1.0, 4.0]), out_int32=True, out=lib.empty(0).int()
    ),
}


@pytest.mark.parametrize("name", sorted(BUCKETS))
def test_bucketing_against_torch(name):
    same_outcome(BUCKETS[name])


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    bins=st.integers(1, 40),
    dtype=st.sampled_from(["float32", "float64", "float16", "bfloat16"]),
    bounds=st.sampled_from([(0, 0), (-10, 0), (-3.5, 7.25)]),
)
def test_histc_over_inputs(seed, bins, dtype, bounds):
    values = np.random.default_rng(seed).uniform(-11, 8, size=30)
    same_outcome(lambda lib: lib.histc(lib.tensor(values).to(getattr(lib, dtype)), bins, *bounds))
