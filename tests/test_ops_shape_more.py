"""Shape and contraction operators against PyTorch 2.13: atleast_*d, the *stack family,
broadcast_to / broadcast_tensors, meshgrid, cartesian_prod, moveaxis, ravel, fliplr /
flipud, rot90, repeat, tile, repeat_interleave, argsort, msort, take_along_dim, diag,
diagflat, diag_embed, trace, block_diag, vdot, einsum, tensordot, inner, kron, the split
family. Values, dtypes, shapes, strides (views), errors (type and message), float64
gradients and grad_fn names, and the operators a dispatch mode sees."""

import numpy as np
import pytest
from diff_support import grads_agree, ops_seen
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_support import same_outcome
from oracle import torch

import ember

A = np.arange(12.0).reshape(3, 4) - 5.5
V = np.array([1.5, -2.0, 0.5])


def _a(lib, dtype=None):
    return lib.tensor(A, dtype=dtype or lib.float32)


def _v(lib):
    return lib.tensor(V)


FORWARD = {
    "atleast_1d": lambda lib: lib.atleast_1d(lib.tensor(2.0)),
    "atleast_1d_many": lambda lib: lib.atleast_1d(lib.tensor(2.0), _v(lib)),
    "atleast_2d": lambda lib: lib.atleast_2d(_v(lib)),
    "atleast_2d_list": lambda lib: lib.atleast_2d([lib.tensor(1), _a(lib)]),
    "atleast_3d_0d": lambda lib: lib.atleast_3d(lib.tensor(2.0)),
    "atleast_3d_1d": lambda lib: lib.atleast_3d(_v(lib)),
    "atleast_3d_2d": lambda lib: lib.atleast_3d(_a(lib)),
    "hstack_1d": lambda lib: lib.hstack([_v(lib), _v(lib)]),
    "hstack_2d": lambda lib: lib.hstack((_a(lib), _a(lib))),
    "hstack_empty": lambda lib: lib.hstack([]),
    "hstack_out": lambda lib: lib.hstack([_v(lib), _v(lib)], out=lib.empty(0)),
    "vstack": lambda lib: lib.vstack([_a(lib), _a(lib)[:1]]),
    "vstack_1d": lambda lib: lib.vstack([lib.ones(4), _a(lib)]),
    "vstack_promote": lambda lib: lib.vstack([lib.ones(4, dtype=lib.int64), _a(lib)]),
    "dstack": lambda lib: lib.dstack([_a(lib), _a(lib)]),
    "column_stack": lambda lib: lib.column_stack([_v(lib), lib.ones(3, 2)]),
    "column_stack_empty": lambda lib: lib.column_stack([]),
    "broadcast_to": lambda lib: lib.broadcast_to(_v(lib), (2, 3)),
    "broadcast_to_method": lambda lib: _v(lib).broadcast_to((4, 1, 3)),
    "broadcast_to_bad": lambda lib: lib.broadcast_to(_v(lib), (2, 4)),
    "broadcast_tensors": lambda lib: lib.broadcast_tensors(_a(lib), lib.ones(4), lib.tensor(1.0)),
    "broadcast_tensors_bad": lambda lib: lib.broadcast_tensors(lib.ones(2), lib.ones(3)),
    "meshgrid_ij": lambda lib: lib.meshgrid(_v(lib), lib.ones(2), indexing="ij"),
    "meshgrid_xy": lambda lib: lib.meshgrid(_v(lib), lib.ones(2), lib.ones(4), indexing="xy"),
    "meshgrid_list": lambda lib: lib.meshgrid([_v(lib), lib.tensor(2.0)], indexing="xy"),
    "meshgrid_bad_indexing": lambda lib: lib.meshgrid(_v(lib), indexing="ab"),
    "meshgrid_dtypes": lambda lib: lib.meshgrid(_v(lib), lib.ones(2).long(), indexing="ij"),
    "meshgrid_empty": lambda lib: lib.meshgrid([], indexing="ij"),
    "cartesian_prod": lambda lib: lib.cartesian_prod(_v(lib), lib.ones(2)),
    "cartesian_prod_one": lambda lib: lib.cartesian_prod(_v(lib)),
    "cartesian_prod_2d": lambda lib: lib.cartesian_prod(_a(lib)),
    "moveaxis": lambda lib: lib.moveaxis(lib.ones(2, 3, 4), 0, -1),
    "moveaxis_lists": lambda lib: lib.ones(2, 3, 4).moveaxis([0, 1], [2, 0]),
    "ravel_view": lambda lib: lib.ravel(_a(lib)),
    "ravel_copy": lambda lib: _a(lib).t().ravel(),
    "fliplr": lambda lib: lib.fliplr(_a(lib)),
    "fliplr_1d": lambda lib: lib.fliplr(_v(lib)),
    "flipud": lambda lib: _a(lib).flipud(),
    "flipud_0d": lambda lib: lib.flipud(lib.tensor(1.0)),
    "rot90": lambda lib: lib.rot90(_a(lib)),
    "rot90_k2": lambda lib: lib.rot90(_a(lib), 2),
    "rot90_k_neg": lambda lib: lib.rot90(_a(lib), -1, [1, 0]),
    "rot90_k4": lambda lib: lib.rot90(_a(lib).t(), 4),
    "rot90_bad_dims": lambda lib: lib.rot90(_a(lib), 1, [0]),
    "rot90_same_dims": lambda lib: lib.rot90(_a(lib), 1, [0, -2]),
    "rot90_1d": lambda lib: lib.rot90(_v(lib)),
    "repeat": lambda lib: _a(lib).repeat(2, 1, 3),
    "repeat_zero": lambda lib: _a(lib).repeat(0, 2),
    "repeat_short": lambda lib: _a(lib).repeat(2),
    "repeat_negative": lambda lib: _a(lib).repeat(-1, 2),
    "tile": lambda lib: lib.tile(_a(lib), (2,)),
    "tile_more": lambda lib: _v(lib).tile(2, 1, 2),
    "repeat_interleave_int": lambda lib: lib.repeat_interleave(_a(lib), 2),
    "repeat_interleave_dim": lambda lib: _a(lib).repeat_interleave(3, dim=1),
    "repeat_interleave_neg": lambda lib: lib.repeat_interleave(_a(lib), -1),
    "repeat_interleave_size": lambda lib: lib.repeat_interleave(_a(lib), 2, 0, output_size=3),
    "repeat_interleave_tensor": lambda lib: lib.repeat_interleave(
        _a(lib), lib.tensor([1, 0, 2]), dim=0
    ),
    "repeat_interleave_scalar_tensor": lambda lib: lib.repeat_interleave(_v(lib), lib.tensor(2)),
    "repeat_interleave_bad_len": lambda lib: lib.repeat_interleave(_a(lib), lib.tensor([1, 2])),
    "repeat_interleave_2d_repeats": lambda lib: lib.repeat_interleave(
        _v(lib), lib.ones(1, 1).long()
    ),
    "repeat_interleave_counts": lambda lib: lib.repeat_interleave(lib.tensor([2, 0, 3])),
    "repeat_interleave_int32": lambda lib: lib.repeat_interleave(lib.tensor([2, 1]).int()),
    "repeat_interleave_float": lambda lib: lib.repeat_interleave(lib.tensor([2.0])),
    "repeat_interleave_negative": lambda lib: lib.repeat_interleave(lib.tensor([1, -2])),
    "repeat_interleave_empty": lambda lib: lib.repeat_interleave(lib.tensor([], dtype=lib.int32)),
    "argsort": lambda lib: lib.argsort(_a(lib), dim=0, descending=True),
    "argsort_stable": lambda lib: lib.tensor([2, 1, 2, 1, 0]).argsort(stable=True),
    "argsort_stable_out": lambda lib: lib.argsort(
        lib.tensor([3, 1, 2]), stable=True, out=lib.empty(0, dtype=lib.long)
    ),
    "msort": lambda lib: lib.msort(_a(lib).t()),
    "msort_out": lambda lib: lib.msort(_a(lib), out=lib.empty(0)),
    "take_along_dim": lambda lib: lib.take_along_dim(_a(lib), lib.tensor([[0], [3], [1]]), 1),
    "take_along_dim_wrap": lambda lib: lib.take_along_dim(_a(lib), lib.tensor([[-1], [5]]), 1),
    "take_along_dim_flat": lambda lib: lib.take_along_dim(_a(lib), lib.tensor([11, 0])),
    "take_along_dim_broadcast": lambda lib: _a(lib).take_along_dim(lib.tensor([[0, 2]]), dim=0),
    "take_along_dim_float": lambda lib: lib.take_along_dim(_a(lib), lib.ones(3, 1), 1),
    "take_along_dim_ndim": lambda lib: lib.take_along_dim(_a(lib), lib.tensor([0]), 1),
    "take_along_dim_out": lambda lib: lib.take_along_dim(
        _a(lib), lib.tensor([[0], [1], [2]]), 1, out=lib.empty(0)
    ),
    "diag_1d": lambda lib: lib.diag(_v(lib), 1),
    "diag_2d": lambda lib: lib.diag(_a(lib), -1),
    "diag_method": lambda lib: _a(lib).diag(2),
    "diag_3d": lambda lib: lib.diag(lib.ones(2, 2, 2)),
    "diagflat": lambda lib: lib.diagflat(_a(lib)[:2, :2], -1),
    "diag_embed": lambda lib: lib.diag_embed(_a(lib), 1, 0, 2),
    "diag_embed_same": lambda lib: lib.diag_embed(_a(lib), 0, 1, -2),
    "diag_embed_0d": lambda lib: lib.diag_embed(lib.tensor(1.0)),
    "trace": lambda lib: lib.trace(_a(lib)),
    "trace_int": lambda lib: _a(lib, lib.int32).trace(),
    "trace_bool": lambda lib: lib.trace(_a(lib) > 0),
    "trace_1d": lambda lib: lib.trace(_v(lib)),
    "block_diag": lambda lib: lib.block_diag(_a(lib), _v(lib), lib.tensor(2)),
    "block_diag_promote": lambda lib: lib.block_diag(_a(lib, lib.int64), lib.ones(1, 2)),
    "block_diag_none": lambda lib: lib.block_diag(),
    "block_diag_3d": lambda lib: lib.block_diag(lib.ones(2, 2, 2)),
    "vdot": lambda lib: lib.vdot(_v(lib), _v(lib)),
    "vdot_complex": lambda lib: lib.vdot(lib.tensor([1 + 2j, 3 - 1j]), lib.tensor([2 - 1j, 1j])),
    "vdot_2d": lambda lib: lib.vdot(_a(lib), _a(lib)),
    "vdot_dtypes": lambda lib: _v(lib).vdot(_v(lib).double()),
    "einsum_matmul": lambda lib: lib.einsum("ij,kj->ik", _a(lib), _a(lib)),
    "einsum_trace": lambda lib: lib.einsum("ii", _a(lib)[:, :3]),
    "einsum_implicit": lambda lib: lib.einsum("ij,j", _a(lib), lib.ones(4)),
    "einsum_ellipsis": lambda lib: lib.einsum("...j,j->...", lib.ones(2, 3, 4), lib.ones(4)),
    "einsum_outer": lambda lib: lib.einsum("i,j->ij", _v(lib), lib.ones(2)),
    "einsum_three": lambda lib: lib.einsum("ij,jk,kl->il", _a(lib), _a(lib).t(), _a(lib)),
    "einsum_list": lambda lib: lib.einsum("i,i", [_v(lib), _v(lib)]),
    "einsum_sublist": lambda lib: lib.einsum(_a(lib), [0, 1], _a(lib), [2, 1], [0, 2]),
    "einsum_bad_label": lambda lib: lib.einsum("i1", _a(lib)),
    "einsum_bad_dims": lambda lib: lib.einsum("ijk", _a(lib)),
    "einsum_missing_output": lambda lib: lib.einsum("ij->k", _a(lib)),
    "einsum_repeated_output": lambda lib: lib.einsum("ij->ii", _a(lib)),
    "einsum_sizes": lambda lib: lib.einsum("ij,ij->i", _a(lib), lib.ones(2, 4)),
    "einsum_few": lambda lib: lib.einsum("i,j", _v(lib)),
    "einsum_many": lambda lib: lib.einsum("i", _v(lib), _v(lib)),
    "einsum_no_operands": lambda lib: lib.einsum("i"),
    "tensordot_int": lambda lib: lib.tensordot(lib.ones(2, 3, 4), lib.ones(3, 4, 5), 2),
    "tensordot_lists": lambda lib: lib.tensordot(_a(lib), _a(lib), ([1], [1])),
    "tensordot_broadcast": lambda lib: lib.tensordot(lib.ones(2, 1), lib.ones(3, 2), ([1], [0])),
    "tensordot_negative": lambda lib: lib.tensordot(_a(lib), _a(lib), -1),
    "tensordot_dtypes": lambda lib: lib.tensordot(_a(lib), _a(lib).double(), 1),
    "tensordot_mismatch": lambda lib: lib.tensordot(_a(lib), _a(lib), ([1], [0])),
    "tensordot_out": lambda lib: lib.tensordot(_a(lib), _a(lib), ([0], [0]), out=lib.empty(0)),
    "inner": lambda lib: lib.inner(_a(lib), lib.ones(2, 4)),
    "inner_scalar": lambda lib: lib.inner(_a(lib), lib.tensor(2.0)),
    "inner_mismatch": lambda lib: _a(lib).inner(_v(lib)),
    "kron": lambda lib: lib.kron(_a(lib), lib.ones(2, 1, 2)),
    "kron_out": lambda lib: lib.kron(_v(lib), _v(lib), out=lib.empty(0)),
    "tensor_split_sections": lambda lib: lib.tensor_split(_a(lib), 3, 1),
    "tensor_split_indices": lambda lib: _a(lib).tensor_split([1, 5], dim=1),
    "tensor_split_tensor": lambda lib: lib.tensor_split(_a(lib), lib.tensor([1, 2])),
    "tensor_split_tensor_0d": lambda lib: lib.tensor_split(_a(lib), lib.tensor(2), 1),
    "tensor_split_zero": lambda lib: lib.tensor_split(_a(lib), 0),
    "tensor_split_0d": lambda lib: lib.tensor_split(lib.tensor(1.0), 2),
    "tensor_split_float": lambda lib: lib.tensor_split(_a(lib), lib.tensor([1.0])),
    "tensor_split_2d": lambda lib: lib.tensor_split(_a(lib), lib.ones(1, 1).long()),
    "hsplit": lambda lib: lib.hsplit(_a(lib), 2),
    "hsplit_1d": lambda lib: lib.hsplit(_v(lib), [1]),
    "hsplit_indivisible": lambda lib: lib.hsplit(_a(lib), 3),
    "hsplit_0d": lambda lib: lib.hsplit(lib.tensor(1.0), 1),
    "vsplit": lambda lib: _a(lib).vsplit(3),
    "vsplit_1d": lambda lib: lib.vsplit(_v(lib), 1),
    "dsplit": lambda lib: lib.dsplit(lib.ones(2, 2, 4), [1, 3]),
    "dsplit_2d": lambda lib: lib.dsplit(_a(lib), 1),
    "unsafe_chunk": lambda lib: lib.unsafe_chunk(_a(lib), 2, 1),
    "unsafe_chunk_zero": lambda lib: _a(lib).unsafe_chunk(0),
    "unsafe_split": lambda lib: lib.unsafe_split(_a(lib), 3, 1),
    "unsafe_split_with_sizes": lambda lib: _a(lib).unsafe_split_with_sizes([1, 3], 1),
}


@pytest.mark.parametrize("name", sorted(FORWARD))
def test_forward_against_torch(name):
    same_outcome(FORWARD[name])


GRADS = {
    "repeat": (lambda lib, a: a.repeat(2, 1, 3), [A]),
    "repeat_zero": (lambda lib, a: a.repeat(0, 1), [A]),
    "tile": (lambda lib, a: lib.tile(a, (2, 2)), [A]),
    "repeat_interleave": (lambda lib, a: lib.repeat_interleave(a, 2, dim=1), [A]),
    "repeat_interleave_tensor": (
        lambda lib, a: a.repeat_interleave(lib.tensor([2, 0, 1]), dim=0),
        [A],
    ),
    "rot90": (lambda lib, a: lib.rot90(a, 3), [A]),
    "hstack": (lambda lib, a, v: lib.hstack([a.flatten(), v]), [A, V]),
    "column_stack": (lambda lib, a, v: lib.column_stack([v, a]), [A, V]),
    "meshgrid": (lambda lib, v: lib.meshgrid(v, v * 2, indexing="xy"), [V]),
    "cartesian_prod": (lambda lib, v: lib.cartesian_prod(v, v), [V]),
    "take_along_dim": (
        lambda lib, a: lib.take_along_dim(a, lib.tensor([[1], [1], [-1]]), 1),
        [A],
    ),
    "diag": (lambda lib, a: lib.diag(a, 1), [A]),
    "diag_1d": (lambda lib, v: lib.diag(v, -1), [V]),
    "diag_embed": (lambda lib, a: lib.diag_embed(a, -1, 0, 2), [A]),
    "trace": (lambda lib, a: lib.trace(a), [A]),
    "trace_tall": (lambda lib, a: lib.trace(a.t()), [A]),
    "block_diag": (lambda lib, a, v: lib.block_diag(a, v, v[0]), [A, V]),
    "vdot": (lambda lib, v, w: lib.vdot(v, w), [V, V[::-1].copy()]),
    "einsum_matmul": (lambda lib, a: lib.einsum("ij,kj->ik", a, a), [A]),
    "einsum_diag": (lambda lib, a: lib.einsum("ii->i", a[:, :3]), [A]),
    "einsum_three": (lambda lib, a, v: lib.einsum("ij,i,j", a, v, a[0]), [A, V]),
    "tensordot": (lambda lib, a: lib.tensordot(a, a, ([0], [0])), [A]),
    "inner": (lambda lib, a, v: lib.inner(v, a.t()), [A, V]),
    "kron": (lambda lib, a, v: lib.kron(a, v), [A, V]),
    "tensor_split": (lambda lib, a: lib.tensor_split(a, 3, 1), [A]),
    "unsafe_split": (lambda lib, a: lib.unsafe_split(a, 2, 1), [A]),
    "unsafe_chunk": (lambda lib, a: lib.unsafe_chunk(a, 2, 0), [A]),
    "msort": (lambda lib, a: lib.msort(a), [A[::-1].copy()]),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients_against_torch(name):
    fn, arrays = GRADS[name]
    grads_agree(fn, arrays)


MODE_PROGRAMS = {
    "einsum": lambda lib: lib.einsum("ij,kj->ik", lib.ones(3, 4), lib.ones(2, 4)),
    "einsum_diagonal": lambda lib: lib.einsum("ii", lib.ones(3, 3)),
    "einsum_sum": lambda lib: lib.einsum("ijk,j->ik", lib.ones(2, 3, 4), lib.ones(3)),
    "repeat_interleave": lambda lib: lib.repeat_interleave(lib.ones(3, 4), 2),
    "repeat_interleave_tensor": lambda lib: lib.repeat_interleave(
        lib.ones(3, 4), lib.ones(3).long(), dim=0
    ),
    "take_along_dim": lambda lib: lib.take_along_dim(lib.ones(3, 4), lib.zeros(3, 1).long(), 1),
    "tensordot": lambda lib: lib.tensordot(lib.ones(3, 4), lib.ones(3, 4), ([1], [1])),
    "kron": lambda lib: lib.kron(lib.ones(3, 4), lib.ones(3, 4)),
    "cartesian_prod": lambda lib: lib.cartesian_prod(lib.ones(3), lib.ones(2)),
    "diagflat": lambda lib: lib.diagflat(lib.ones(3)),
    "diag": lambda lib: lib.diag(lib.ones(3, 3)),
    "ravel": lambda lib: lib.ones(3, 4).t().ravel(),
    "column_stack": lambda lib: lib.column_stack([lib.ones(3), lib.ones(3)]),
    "unsafe_chunk": lambda lib: lib.unsafe_chunk(lib.ones(4), 2),
    "argsort": lambda lib: lib.argsort(lib.ones(4)),
    "tile": lambda lib: lib.tile(lib.ones(3), (2,)),
}


@pytest.mark.parametrize("name", sorted(MODE_PROGRAMS))
def test_mode_sees_torch_operators(name):
    program = MODE_PROGRAMS[name]
    assert ops_seen(program, ember) == ops_seen(program, torch)


def test_meshgrid_without_indexing_warns_as_torch():
    import warnings

    for lib in (torch, ember):
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            lib.meshgrid(lib.ones(2), lib.ones(3))
    grids = [lib.meshgrid(lib.ones(2), lib.arange(3.0)) for lib in (ember, torch)]
    for e, t in zip(*grids):
        np.testing.assert_array_equal(e.numpy(), t.numpy())
        assert tuple(e.stride()) == tuple(t.stride())


def test_unravel_index_against_torch():
    same_outcome(lambda lib: lib.unravel_index(lib.tensor([4, 1, 11]), (3, 4)))
    same_outcome(lambda lib: lib.unravel_index(lib.tensor(5), 7))
    errors = []
    for lib in (ember, torch):
        with pytest.raises(TypeError) as raised:
            lib.unravel_index(lib.tensor([1.0]), (3, 4))
        errors.append(str(raised.value).replace("torch.", "ember."))
    assert errors[0] == errors[1]
    same_outcome(lambda lib: lib.unravel_index(lib.tensor([1]), (3, -4)))


@settings(max_examples=40, deadline=None)
@given(
    shape=st.lists(st.integers(0, 4), min_size=1, max_size=3),
    reps=st.lists(st.integers(0, 3), min_size=0, max_size=4),
)
def test_tile_and_repeat_over_shapes(shape, reps):
    data = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    same_outcome(lambda lib: lib.tile(lib.tensor(data), reps))
    same_outcome(lambda lib: lib.tensor(data).repeat(*reps) if reps else lib.tensor(data))


@settings(max_examples=40, deadline=None)
@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    repeats=st.integers(0, 3),
    dim=st.integers(-3, 2) | st.none(),
)
def test_repeat_interleave_over_shapes(shape, repeats, dim):
    data = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    same_outcome(lambda lib: lib.repeat_interleave(lib.tensor(data), repeats, dim=dim))


@settings(max_examples=40, deadline=None)
@given(
    sections=st.integers(-1, 5),
    size=st.integers(0, 6),
    dtype=st.sampled_from(["float32", "int64", "bool"]),
)
def test_tensor_split_and_stacks_over_sizes(sections, size, dtype):
    def program(lib):
        x = lib.arange(size * 2).reshape(2, size).to(getattr(lib, dtype))
        return lib.tensor_split(x, sections, 1) if sections else lib.hstack([x, x])

    same_outcome(program)


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 4),
    m=st.integers(1, 4),
    k=st.integers(1, 4),
    equation=st.sampled_from(["ij,jk->ik", "ij,jk", "ij,kj->jik", "ij,ij->", "ij,jk->kj"]),
)
def test_einsum_over_shapes(n, m, k, equation):
    rng = np.random.default_rng(n * 100 + m * 10 + k)
    left = rng.standard_normal((n, m))
    right = rng.standard_normal((m, k) if "jk" in equation.split("->")[0] else (k, m))
    if equation.startswith("ij,ij"):
        right = rng.standard_normal((n, m))
    results = [lib.einsum(equation, lib.tensor(left), lib.tensor(right)) for lib in (ember, torch)]
    np.testing.assert_allclose(results[0].numpy(), results[1].numpy(), rtol=1e-12, atol=1e-12)
    assert tuple(results[0].stride()) == tuple(results[1].stride())


MISC = {
    "tril_indices": lambda lib: lib.tril_indices(3, 4, 1),
    "triu_indices": lambda lib: lib.triu_indices(4, 3, -1, dtype=lib.int32),
    "tril_indices_negative": lambda lib: lib.tril_indices(-1, 3),
    "tril_indices_float": lambda lib: lib.tril_indices(3, 3, dtype=lib.float32),
    "combinations": lambda lib: lib.combinations(_v(lib)),
    "combinations_r3": lambda lib: lib.combinations(lib.arange(4.0), 3, with_replacement=True),
    "combinations_r0": lambda lib: lib.combinations(_v(lib), 0),
    "combinations_2d": lambda lib: lib.combinations(_a(lib)),
    "combinations_negative": lambda lib: lib.combinations(_v(lib), -1),
    "diff": lambda lib: lib.diff(_a(lib)),
    "diff_n2_dim0": lambda lib: _a(lib).diff(2, 0),
    "diff_big_n": lambda lib: lib.diff(_v(lib), 5),
    "diff_n0": lambda lib: lib.diff(_v(lib), 0),
    "diff_bool": lambda lib: lib.diff(_a(lib) > 0),
    "diff_ends": lambda lib: lib.diff(_a(lib), prepend=lib.ones(3, 1), append=lib.zeros(3, 2)),
    "diff_bad_prepend": lambda lib: lib.diff(_a(lib), prepend=lib.ones(2)),
    "diff_bad_shape": lambda lib: lib.diff(_a(lib), append=lib.ones(3, 2), dim=0),
    "diff_negative": lambda lib: lib.diff(_a(lib), -1),
    "diff_0d": lambda lib: lib.diff(lib.tensor(1.0)),
    "diff_out": lambda lib: lib.diff(_a(lib), out=lib.empty(0)),
    "slice_scatter": lambda lib: lib.slice_scatter(_a(lib), lib.zeros(3, 2), 1, 0, 4, 2),
    "slice_scatter_bad": lambda lib: lib.slice_scatter(_a(lib), lib.zeros(3, 3), 1, 0, 4, 2),
    "select_scatter": lambda lib: _a(lib).select_scatter(lib.zeros(4), 0, 1),
    "select_scatter_bad": lambda lib: lib.select_scatter(_a(lib), lib.zeros(3), 0, 1),
    "diagonal_scatter": lambda lib: lib.diagonal_scatter(_a(lib), lib.zeros(3), 1),
    "diagonal_scatter_bad": lambda lib: lib.diagonal_scatter(_a(lib), lib.zeros(2), 1),
    "dist": lambda lib: lib.dist(_a(lib), lib.ones(4), 3),
    "dist_inf": lambda lib: _a(lib).dist(lib.zeros(3, 4), float("inf")),
}


@pytest.mark.parametrize("name", sorted(MISC))
def test_misc_forward_against_torch(name):
    same_outcome(MISC[name])


MISC_GRADS = {
    "combinations": (lambda lib, v: lib.combinations(v, 2), [V]),
    "diff": (lambda lib, a: lib.diff(a, 2, prepend=a[:, :1]), [A]),
    "slice_scatter": (lambda lib, a, s: lib.slice_scatter(a, s[:, :2], 1, 1, 4, 2), [A, A]),
    "select_scatter": (lambda lib, a, s: lib.select_scatter(a, s[0], 0, 2), [A, A]),
    "diagonal_scatter": (lambda lib, a, v: lib.diagonal_scatter(a, v, 1), [A, V]),
    "dist": (lambda lib, a, b: lib.dist(a, b, 3), [A, A[::-1].copy()]),
}


@pytest.mark.parametrize("name", sorted(MISC_GRADS))
def test_misc_gradients_against_torch(name):
    fn, arrays = MISC_GRADS[name]
    grads_agree(fn, arrays)


B1 = np.arange(24.0).reshape(2, 3, 4) % 5 - 2
B2 = np.arange(40.0).reshape(2, 4, 5) % 7 - 3
S = np.arange(15.0).reshape(3, 5) % 4

BLAS = {
    "addr": lambda lib: lib.addr(lib.tensor(S), lib.tensor([1.0, 2.0, 3.0]), lib.ones(5)),
    "addr_scalars": lambda lib: lib.tensor(S).addr(
        lib.tensor([1.0, 2.0, 3.0]), lib.ones(5), beta=0.5, alpha=2
    ),
    "addr_beta0_nan": lambda lib: lib.addr(
        lib.full((3, 5), float("nan")), lib.ones(3), lib.ones(5), beta=0
    ),
    "addr_broadcast": lambda lib: lib.addr(lib.tensor(1.0), lib.ones(3), lib.ones(5)),
    "addr_promote": lambda lib: lib.addr(lib.tensor(S).long(), lib.ones(3), lib.ones(5)),
    "addr_int_beta": lambda lib: lib.addr(
        lib.tensor(S).long(), lib.ones(3).long(), lib.ones(5).long(), beta=1.5
    ),
    "addr_bool": lambda lib: lib.addr(
        lib.tensor(S).bool(), lib.ones(3).bool(), lib.zeros(5).bool(), beta=2
    ),
    "addr_2d_vec": lambda lib: lib.addr(lib.tensor(S), lib.ones(3, 1), lib.ones(5)),
    "addr_mismatch": lambda lib: lib.addr(lib.ones(3, 4), lib.ones(3), lib.ones(5)),
    "addr_": lambda lib: lib.tensor(S).addr_(lib.ones(3), lib.ones(5), alpha=3),
    "addr_out": lambda lib: lib.addr(
        lib.tensor(S), lib.ones(3), lib.ones(5), out=lib.empty(0).double()
    ),
    "baddbmm": lambda lib: lib.baddbmm(lib.tensor(S), lib.tensor(B1), lib.tensor(B2)),
    "baddbmm_scalars": lambda lib: lib.tensor(S).baddbmm(
        lib.tensor(B1), lib.tensor(B2), beta=2, alpha=0.5
    ),
    "baddbmm_2d": lambda lib: lib.baddbmm(lib.tensor(S), lib.tensor(B1)[0], lib.tensor(B2)),
    "baddbmm_batch2_2d": lambda lib: lib.baddbmm(lib.tensor(S), lib.tensor(B1), lib.tensor(B2)[0]),
    "baddbmm_sizes": lambda lib: lib.baddbmm(lib.tensor(S), lib.tensor(B1), lib.ones(3, 4, 5)),
    "baddbmm_dtypes": lambda lib: lib.baddbmm(
        lib.tensor(S).float(), lib.tensor(B1), lib.tensor(B2)
    ),
    "baddbmm_batch_dtype": lambda lib: lib.baddbmm(
        lib.tensor(S), lib.tensor(B1), lib.tensor(B2).float()
    ),
    "baddbmm_": lambda lib: lib.zeros(2, 3, 5).double().baddbmm_(lib.tensor(B1), lib.tensor(B2)),
    "baddbmm_out": lambda lib: lib.baddbmm(
        lib.tensor(S), lib.tensor(B1), lib.tensor(B2), out=lib.empty(0).double()
    ),
    "addbmm": lambda lib: lib.addbmm(lib.tensor(S), lib.tensor(B1), lib.tensor(B2)),
    "addbmm_scalars": lambda lib: lib.tensor(S).addbmm(
        lib.tensor(B1), lib.tensor(B2), beta=0, alpha=2
    ),
    "addbmm_bad_self": lambda lib: lib.addbmm(lib.ones(2).double(), lib.tensor(B1), lib.tensor(B2)),
    "addbmm_2d": lambda lib: lib.addbmm(lib.tensor(S), lib.tensor(B1)[0], lib.tensor(B2)),
    "addbmm_": lambda lib: lib.tensor(S).addbmm_(lib.tensor(B1), lib.tensor(B2)),
}


@pytest.mark.parametrize("name", sorted(BLAS))
def test_blas_forward_against_torch(name):
    same_outcome(BLAS[name])


BLAS_GRADS = {
    "addr": (lambda lib, s, v, w: lib.addr(s, v, w, beta=2, alpha=0.5), [S, V, np.ones(5)]),
    "baddbmm": (lambda lib, s, b1, b2: lib.baddbmm(s, b1, b2, alpha=3), [S, B1, B2]),
    "addbmm": (lambda lib, s, b1, b2: lib.addbmm(s, b1, b2, beta=0.5), [S, B1, B2]),
}


@pytest.mark.parametrize("name", sorted(BLAS_GRADS))
def test_blas_gradients_against_torch(name):
    fn, arrays = BLAS_GRADS[name]
    grads_agree(fn, arrays)
