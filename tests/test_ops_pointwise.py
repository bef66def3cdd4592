"""Binary pointwise operators against PyTorch 2.13: values, dtypes, shapes, strides, errors.

Every case runs the functional, in-place and out= overload on broadcasting,
zero-size, 0-dim and non-contiguous operands of every real dtype pair, and
the functional overload again on meta tensors. See tests/pointwise_support.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from oracle import torch
from pointwise_support import (
    ALL,
    RESIZE_WORKS,
    aten,
    broadcast_shapes,
    empty_pair,
    layouts,
    pair,
    run_both,
    values,
)

from ember._c10.tensor_impl import make_view

# (name, functional overload, in-place overload, out overload, keyword arguments)
BINARY = [
    ("add", "Tensor", "Tensor", "out", {}),
    ("add", "Tensor", "Tensor", "out", {"alpha": 2}),
    ("sub", "Tensor", "Tensor", "out", {}),
    ("mul", "Tensor", "Tensor", "out", {}),
    ("div", "Tensor", "Tensor", "out", {}),
    ("div", "Tensor_mode", "Tensor_mode", "out_mode", {"rounding_mode": "trunc"}),
    ("div", "Tensor_mode", "Tensor_mode", "out_mode", {"rounding_mode": "floor"}),
    ("div", "Tensor_mode", "Tensor_mode", "out_mode", {"rounding_mode": None}),
    ("remainder", "Tensor", "Tensor", "Tensor_out", {}),
    ("floor_divide", "default", "Tensor", "out", {}),
    ("pow", "Tensor_Tensor", "Tensor", "Tensor_Tensor_out", {}),
    ("maximum", "default", None, "out", {}),
    ("minimum", "default", None, "out", {}),
    ("max", "other", None, "out", {}),
    ("min", "other", None, "out", {}),
    ("eq", "Tensor", "Tensor", "Tensor_out", {}),
    ("ne", "Tensor", "Tensor", "Tensor_out", {}),
    ("lt", "Tensor", "Tensor", "Tensor_out", {}),
    ("le", "Tensor", "Tensor", "Tensor_out", {}),
    ("gt", "Tensor", "Tensor", "Tensor_out", {}),
    ("ge", "Tensor", "Tensor", "Tensor_out", {}),
    ("logical_and", "default", "default", "out", {}),
    ("logical_or", "default", "default", "out", {}),
]

DIVIDES = {"div", "remainder", "floor_divide"}


def _ids(case):
    name, overload, _, _, kwargs = case
    return "-".join([name, overload, *(f"{k}={v}" for k, v in kwargs.items())])


def _inplace_name(name: str) -> str:
    return name + "_"


@pytest.mark.parametrize("case", BINARY, ids=[_ids(c) for c in BINARY])
@settings(max_examples=30, deadline=None)
@given(
    shapes=broadcast_shapes(),
    dtype_a=st.sampled_from(ALL),
    dtype_b=st.sampled_from(ALL),
    layout_a=layouts,
    layout_b=layouts,
    out_dtype=st.sampled_from(ALL),
    seed=st.integers(0, 2**32 - 1),
)
def test_binary(case, shapes, dtype_a, dtype_b, layout_a, layout_b, out_dtype, seed):
    name, overload, inplace, out_overload, kwargs = case
    rng = np.random.default_rng(seed)
    shape_a, shape_b = shapes
    # Zero-size results of broadcasting: TensorIterator's stride rule for them is
    # tested with tensor_iterator.py, not here.
    assume(0 not in np.broadcast_shapes(shape_a, shape_b) or shape_a == shape_b)
    nonzero = name in DIVIDES and rng.random() < 0.8  # mostly avoid integer division by zero
    a = values(rng, shape_a, dtype_a)
    b = values(rng, shape_b, dtype_b, nonzero=nonzero)
    if name == "pow":  # keep integer powers small
        b = np.clip(b, -3, 3) if b.dtype.kind in "iu" else b
    e_op, t_op = aten(name, overload)
    e_a, t_a, m_a = pair(a, layout_a)
    e_b, t_b, m_b = pair(b, layout_b)

    functional = run_both(
        lambda: e_op(e_a, e_b, **kwargs),
        lambda: t_op(t_a, t_b, **kwargs),
        lambda: e_op(m_a, m_b, **kwargs),
    )

    if inplace is not None:
        e_inplace, t_inplace = aten(_inplace_name(name), inplace)
        e_self, t_self, _ = pair(a, layout_a)
        result = run_both(
            lambda: e_inplace(e_self, e_b, **kwargs),
            lambda: t_inplace(t_self, t_b, **kwargs),
        )
        if result is not None:
            fresh = pair(a, layout_a)[0]
            assert e_inplace(fresh, e_b, **kwargs) is fresh

    e_out_op, t_out_op = aten(name, out_overload)
    full = tuple(np.broadcast_shapes(shape_a, shape_b))
    out_shape = full if (rng.random() < 0.6 or not RESIZE_WORKS) else (0,)
    e_out, t_out, _ = empty_pair(out_shape, out_dtype)
    run_both(
        lambda: e_out_op(e_a, e_b, **kwargs, out=e_out),
        lambda: t_out_op(t_a, t_b, **kwargs, out=t_out),
        tol_dtype=getattr(functional, "dtype", None),
    )


def test_inplace_returns_self():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    e, _, _ = pair(a)
    e_inplace, _ = aten("add_", "Tensor")
    assert e_inplace(e, e) is e


# -- errors with PyTorch's text ---------------------------------------------------------

ERRORS = [
    ("sub", "Tensor", ("bool", "bool"), {}),
    ("sub", "Tensor", ("bool", "int64"), {}),
    ("sub", "Tensor", ("float32", "bool"), {}),
    ("add", "Tensor", ("int64", "int64"), {"alpha": 2.5}),
    ("add", "Tensor", ("float32", "float32"), {"alpha": 1j}),
    ("add", "Tensor", ("int64", "int64"), {"alpha": True}),
    ("sub", "Tensor", ("int32", "int64"), {"alpha": 0.5}),
    ("div", "Tensor_mode", ("int64", "int64"), {"rounding_mode": "round"}),
    ("div", "Tensor_mode", ("bool", "bool"), {"rounding_mode": "trunc"}),
    ("div", "Tensor_mode", ("bool", "bool"), {"rounding_mode": "floor"}),
    ("remainder", "Tensor", ("bool", "bool"), {}),
    ("floor_divide", "default", ("bool", "bool"), {}),
    ("pow", "Tensor_Tensor", ("bool", "bool"), {}),
    ("maximum", "default", ("complex64", "float32"), {}),
    ("minimum", "default", ("float32", "complex64"), {}),
    ("lt", "Tensor", ("complex64", "complex64"), {}),
    ("ge", "Tensor", ("complex128", "float32"), {}),
]


@pytest.mark.parametrize("name, overload, dtypes_, kwargs", ERRORS)
def test_binary_errors(name, overload, dtypes_, kwargs):
    e_op, t_op = aten(name, overload)
    e_a, t_a, _ = pair(np.ones(3, dtype=dtypes_[0]))
    e_b, t_b, _ = pair(np.ones(3, dtype=dtypes_[1]))
    with pytest.raises(Exception) as t_info:
        t_op(t_a, t_b, **kwargs)
    with pytest.raises(type(t_info.value)) as e_info:
        e_op(e_a, e_b, **kwargs)
    assert str(e_info.value) == str(t_info.value)


@pytest.mark.parametrize("name", ["div", "remainder", "floor_divide"])
def test_integer_division_by_zero(name):
    overload = (
        "Tensor_mode" if name == "div" else ("default" if name == "floor_divide" else "Tensor")
    )
    kwargs = {"rounding_mode": "floor"} if name == "div" else {}
    e_op, t_op = aten(name, overload)
    e_a, t_a, m_a = pair(np.array([5, -7, 0], dtype=np.int64))
    e_b, t_b, m_b = pair(np.array([2, 0, 3], dtype=np.int64))
    with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
        t_op(t_a, t_b, **kwargs)
    with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
        e_op(e_a, e_b, **kwargs)
    assert e_op(m_a, m_b, **kwargs).shape == (3,)  # meta never looks at values


def test_broadcast_error():
    e_op, t_op = aten("add", "Tensor")
    e_a, t_a, _ = pair(np.ones((2, 3), dtype=np.float32))
    e_b, t_b, _ = pair(np.ones((4,), dtype=np.float32))
    run_both(lambda: e_op(e_a, e_b), lambda: t_op(t_a, t_b))


def test_inplace_broadcast_shape_error():
    e_op, t_op = aten("mul_", "Tensor")
    e_a, t_a, _ = pair(np.ones((3,), dtype=np.float32))
    e_b, t_b, _ = pair(np.ones((2, 3), dtype=np.float32))
    run_both(lambda: e_op(e_a, e_b), lambda: t_op(t_a, t_b))


def test_float_special_values():
    """Signed zeros and NaN where NumPy's own answer differs from PyTorch's."""
    a = np.array([-4.0, 4.0, -0.0, 1.0, -1.0, 0.0, np.nan, np.inf], dtype=np.float32)
    b = np.array([2.0, -2.0, 2.0, 0.0, 0.0, 0.0, 1.0, 2.0], dtype=np.float32)
    e_a, t_a, _ = pair(a)
    e_b, t_b, _ = pair(b)
    for name, overload, kwargs in [
        ("remainder", "Tensor", {}),
        ("div", "Tensor_mode", {"rounding_mode": "floor"}),
        ("div", "Tensor_mode", {"rounding_mode": "trunc"}),
        ("floor_divide", "default", {}),
    ]:
        e_op, t_op = aten(name, overload)
        e_result = e_op(e_a, e_b, **kwargs)
        t_result = t_op(t_a, t_b, **kwargs)
        np.testing.assert_array_equal(e_result.ndarray(), t_result.numpy())
        np.testing.assert_array_equal(np.signbit(e_result.ndarray()), np.signbit(t_result.numpy()))


@pytest.mark.parametrize(
    "name, overload, args",
    [
        ("add_", "Tensor", (1.0,)),
        ("neg_", "default", ()),
        ("clamp_", "default", (0,)),
        ("logical_not_", "default", ()),
        ("eq_", "Scalar", (1,)),
        ("floor_divide_", "Tensor", (2.0,)),
        ("abs_", "default", ()),
    ],
)
def test_inplace_on_expanded_tensor(name, overload, args):
    """TensorIterator's memory-overlap check: an expanded tensor cannot be written to."""
    e_base, t_base, _ = pair(np.zeros(1, dtype=np.float32))
    e_self = make_view(e_base, (3,), (0,), 0)
    t_self = t_base.expand(3)
    e_op, t_op = aten(name, overload)
    as_tensor = overload == "Tensor"
    e_args = [pair(np.array(a, dtype=np.float32))[0] if as_tensor else a for a in args]
    t_args = [torch.tensor(a) if as_tensor else a for a in args]
    run_both(lambda: e_op(e_self, *e_args), lambda: t_op(t_self, *t_args))


@pytest.mark.parametrize("swap", [False, True])
def test_pow_casts_operands_to_the_common_dtype_first(swap):
    """A 0-dim float32 operand of a float16 pow is rounded to half before the kernel's
    float opmath (TensorIterator's common-dtype cast), as torch does."""
    import ember

    results = []
    for lib in (ember, torch):
        a = lib.tensor(np.float32(1.7))
        b = lib.tensor(np.array([[1.3, 7.8]], np.float16))
        result = lib.pow(b, a) if swap else lib.pow(a, b)
        results.append(result.numpy())
    ours, theirs = results
    assert ours.dtype == theirs.dtype and ours.tobytes() == theirs.tobytes(), (ours, theirs)
