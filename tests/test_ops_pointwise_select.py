"""where (every overload) and masked_fill against PyTorch 2.13.

Broadcasting, zero-size, 0-dim and non-contiguous operands of every real
dtype: values, dtypes, shapes and strides of the functional, in-place and
out= forms, the same call on meta tensors, and the error texts.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from oracle import torch
from pointwise_support import ALL, aten, broadcast_shapes, empty_pair, layouts, pair, run_both
from pointwise_support import values as random_values

SCALARS = st.sampled_from([2, -1, 0, 2.5, True, False])


@settings(max_examples=40, deadline=None)
@given(
    shapes=broadcast_shapes(),
    dtype_a=st.sampled_from(ALL),
    dtype_b=st.sampled_from(ALL),
    layout_c=layouts,
    layout_a=layouts,
    out_dtype=st.sampled_from(ALL),
    seed=st.integers(0, 2**32 - 1),
)
def test_where_self(shapes, dtype_a, dtype_b, layout_c, layout_a, out_dtype, seed):
    rng = np.random.default_rng(seed)
    shape_c, shape_a = shapes
    full = np.broadcast_shapes(shape_c, shape_a)
    assume(0 not in full or (shape_c == shape_a and 1 not in full))
    condition = pair(random_values(rng, shape_c, "bool"), layout_c)
    a = pair(random_values(rng, shape_a, dtype_a), layout_a)
    b = pair(random_values(rng, shape_a[1:], dtype_b))
    e_op, t_op = aten("where", "self")
    run_both(
        lambda: e_op(condition[0], a[0], b[0]),
        lambda: t_op(condition[1], a[1], b[1]),
        lambda: e_op(condition[2], a[2], b[2]),
    )
    e_out_op, t_out_op = aten("where", "self_out")
    full = tuple(np.broadcast_shapes(shape_c, shape_a))
    e_out, t_out, _ = empty_pair(full, out_dtype)
    run_both(
        lambda: e_out_op(condition[0], a[0], b[0], out=e_out),
        lambda: t_out_op(condition[1], a[1], b[1], out=t_out),
    )


@pytest.mark.parametrize("overload", ["ScalarSelf", "ScalarOther", "Scalar"])
@settings(max_examples=30, deadline=None)
@given(
    shape=st.lists(st.integers(0, 3), max_size=3).map(tuple),
    dtype=st.sampled_from(ALL),
    first=SCALARS,
    second=SCALARS,
    seed=st.integers(0, 2**32 - 1),
)
def test_where_scalar_overloads(overload, shape, dtype, first, second, seed):
    rng = np.random.default_rng(seed)
    assume(not (0 in shape and 1 in shape))
    condition = pair(random_values(rng, shape, "bool"))
    tensor = pair(random_values(rng, shape, dtype))
    e_op, t_op = aten("where", overload)
    if overload == "ScalarSelf":
        args = [(first, first, first), tensor]
    elif overload == "ScalarOther":
        args = [tensor, (second, second, second)]
    else:
        args = [(first, first, first), (second, second, second)]
    run_both(
        lambda: e_op(condition[0], *(a[0] for a in args)),
        lambda: t_op(condition[1], *(a[1] for a in args)),
        lambda: e_op(condition[2], *(a[2] for a in args)),
    )


@pytest.mark.parametrize(
    "array", [np.array([True, False, True]), np.array([[0, 2], [3, 0]]), np.array(True)]
)
def test_where_condition_only(array):
    e, t, _ = pair(array)
    e_op, t_op = aten("where", "default")
    run_both(lambda: e_op(e), lambda: t_op(t))


def test_where_errors():
    e_op, t_op = aten("where", "self")
    condition = pair(np.array([1.0, 0.0], dtype=np.float32))
    a = pair(np.array([1, 2]))
    run_both(lambda: e_op(condition[0], a[0], a[0]), lambda: t_op(condition[1], a[1], a[1]))
    e_out_op, t_out_op = aten("where", "self_out")
    mask = pair(np.array([True, False]))
    e_out, t_out, _ = empty_pair((2,), "float32")
    run_both(
        lambda: e_out_op(mask[0], a[0], a[0], out=e_out),
        lambda: t_out_op(mask[1], a[1], a[1], out=t_out),
    )
    wide = pair(np.ones((2, 3), dtype=np.float32))
    tall = pair(np.ones((3, 1), dtype=np.float32))
    run_both(
        lambda: e_op(wide[0] > 0, wide[0], tall[0]), lambda: t_op(wide[1] > 0, wide[1], tall[1])
    )


# -- masked_fill --------------------------------------------------------------------------


@pytest.mark.parametrize("value_kind", ["scalar", "tensor"])
@settings(max_examples=40, deadline=None)
@given(
    shapes=broadcast_shapes(),
    dtype=st.sampled_from(ALL),
    value_dtype=st.sampled_from(ALL),
    layout=layouts,
    scalar=SCALARS,
    seed=st.integers(0, 2**32 - 1),
)
def test_masked_fill(value_kind, shapes, dtype, value_dtype, layout, scalar, seed):
    rng = np.random.default_rng(seed)
    shape_self, shape_mask = shapes
    full = np.broadcast_shapes(shape_self, shape_mask)
    assume(0 not in full or (shape_self == shape_mask and 1 not in full))
    array = random_values(rng, shape_self, dtype)
    mask = pair(random_values(rng, shape_mask, "bool"))
    if value_kind == "scalar":
        value, overload = (scalar, scalar, scalar), "Scalar"
    else:
        value, overload = pair(random_values(rng, (), value_dtype, specials=False)), "Tensor"
    e, t, m = pair(array, layout)
    e_op, t_op = aten("masked_fill", overload)
    run_both(
        lambda: e_op(e, mask[0], value[0]),
        lambda: t_op(t, mask[1], value[1]),
        lambda: e_op(m, mask[2], value[2]),
    )
    e_inplace, t_inplace = aten("masked_fill_", overload)
    e_self, t_self, _ = pair(array, layout)
    run_both(
        lambda: e_inplace(e_self, mask[0], value[0]),
        lambda: t_inplace(t_self, mask[1], value[1]),
    )


@pytest.mark.parametrize("mask_dtype", ["int64", "float32", "uint8"])
def test_masked_fill_mask_dtype_error(mask_dtype):
    e_op, t_op = aten("masked_fill_", "Scalar")
    e, t, _ = pair(np.zeros(3, dtype=np.float32))
    mask = pair(np.ones(3, dtype=mask_dtype))
    run_both(lambda: e_op(e, mask[0], 1.0), lambda: t_op(t, mask[1], 1.0))


def test_masked_fill_value_errors():
    e_op, t_op = aten("masked_fill_", "Scalar")
    e, t, _ = pair(np.zeros(2, dtype=np.uint8))
    mask = pair(np.ones(2, dtype=bool))
    run_both(lambda: e_op(e, mask[0], 300), lambda: t_op(t, mask[1], 300))
    e_tensor_op, t_tensor_op = aten("masked_fill_", "Tensor")
    value = pair(np.ones(1, dtype=np.float32))
    run_both(lambda: e_tensor_op(e, mask[0], value[0]), lambda: t_tensor_op(t, mask[1], value[1]))


def test_where_condition_only_on_meta():
    e_op, t_op = aten("where", "default")
    condition = torch.ones(2, dtype=torch.bool, device="meta")
    e_condition = pair(np.ones(2, dtype=bool))[2]
    run_both(lambda: e_op(e_condition), lambda: t_op(condition))
