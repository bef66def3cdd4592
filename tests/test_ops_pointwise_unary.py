"""Unary pointwise operators and the Scalar overloads against PyTorch 2.13.

Each case runs the functional, in-place and out= overload (where the
operator has them) on zero-size, 0-dim and non-contiguous inputs of every
real dtype, with NaN, infinities and signed zeros among the values, and the
functional overload again on meta tensors. See tests/pointwise_support.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pointwise_support import ALL, RESIZE_WORKS, aten, empty_pair, layouts, pair, run_both, shapes
from pointwise_support import values as random_values

# (name, functional overload, in-place overload, out overload, keyword arguments)
UNARY = [
    ("neg", "default", "default", "out", {}),
    ("sign", "default", "default", "out", {}),
    ("abs", "default", "default", "out", {}),
    ("exp", "default", "default", "out", {}),
    ("log", "default", "default", "out", {}),
    ("log1p", "default", "default", "out", {}),
    ("sqrt", "default", "default", "out", {}),
    ("rsqrt", "default", "default", "out", {}),
    ("sin", "default", "default", "out", {}),
    ("cos", "default", "default", "out", {}),
    ("acos", "default", "default", "out", {}),
    ("asin", "default", "default", "out", {}),
    ("atan", "default", "default", "out", {}),
    ("tan", "default", "default", "out", {}),
    ("sinh", "default", "default", "out", {}),
    ("cosh", "default", "default", "out", {}),
    ("expm1", "default", "default", "out", {}),
    ("log2", "default", "default", "out", {}),
    ("log10", "default", "default", "out", {}),
    ("tanh", "default", "default", "out", {}),
    ("sigmoid", "default", "default", "out", {}),
    ("gelu", "default", "default", "out", {}),
    ("gelu", "default", "default", "out", {"approximate": "tanh"}),
    ("relu", "default", "default", None, {}),
    ("isnan", "default", None, None, {}),
    ("logical_not", "default", "default", "out", {}),
    ("clamp", "default", "default", "out", {"min": -1, "max": 2}),
    ("clamp", "default", "default", "out", {"min": 0.5}),
    ("clamp", "default", "default", "out", {"max": -0.5}),
]


def _ids(case):
    name, overload, _, _, kwargs = case
    return "-".join([name, overload, *(f"{k}={v}" for k, v in kwargs.items())])


def _check_all_forms(case, array, layout, out_dtype, out_empty, *args):
    """Functional (and meta), in-place and out= forms of ``case`` on ``array``."""
    name, overload, inplace, out_overload, kwargs = case
    e_op, t_op = aten(name, overload)
    e, t, m = pair(array, layout)
    e_args = [a[0] if isinstance(a, tuple) else a for a in args]
    t_args = [a[1] if isinstance(a, tuple) else a for a in args]
    m_args = [a[2] if isinstance(a, tuple) else a for a in args]
    functional = run_both(
        lambda: e_op(e, *e_args, **kwargs),
        lambda: t_op(t, *t_args, **kwargs),
        lambda: e_op(m, *m_args, **kwargs),
    )
    computed = getattr(functional, "dtype", None)
    if inplace is not None:
        e_inplace, t_inplace = aten(name + "_", inplace)
        e_self, t_self, _ = pair(array, layout)
        if (
            run_both(
                lambda: e_inplace(e_self, *e_args, **kwargs),
                lambda: t_inplace(t_self, *t_args, **kwargs),
            )
            is not None
        ):
            fresh = pair(array, layout)[0]
            assert e_inplace(fresh, *e_args, **kwargs) is fresh
    if out_overload is not None:
        e_out_op, t_out_op = aten(name, out_overload)
        out_shape = (0,) if out_empty and RESIZE_WORKS else t.shape
        e_out, t_out, _ = empty_pair(tuple(out_shape), out_dtype)
        run_both(
            lambda: e_out_op(e, *e_args, **kwargs, out=e_out),
            lambda: t_out_op(t, *t_args, **kwargs, out=t_out),
            tol_dtype=computed,
        )


@pytest.mark.parametrize("case", UNARY, ids=[_ids(c) for c in UNARY])
@settings(max_examples=30, deadline=None)
@given(
    shape=shapes(),
    dtype=st.sampled_from(ALL),
    layout=layouts,
    out_dtype=st.sampled_from(ALL),
    out_empty=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_unary(case, shape, dtype, layout, out_dtype, out_empty, seed):
    rng = np.random.default_rng(seed)
    array = random_values(rng, shape, dtype)
    _check_all_forms(case, array, layout, out_dtype, out_empty)


# -- Scalar overloads: the number takes part in promotion as a wrapped number ---------------

SCALARS = st.sampled_from([2, -1, 0, 3, 2.5, -0.5, True, False])

# (name, functional overload, in-place overload, out overload, keyword arguments)
TENSOR_SCALAR = [
    ("add", "Scalar", "Scalar", None, {}),
    ("add", "Scalar", "Scalar", None, {"alpha": 2}),
    ("sub", "Scalar", "Scalar", None, {}),
    ("mul", "Scalar", "Scalar", None, {}),
    ("div", "Scalar", "Scalar", None, {}),
    ("div", "Scalar_mode", "Scalar_mode", None, {"rounding_mode": "floor"}),
    ("div", "Scalar_mode", "Scalar_mode", None, {"rounding_mode": "trunc"}),
    ("remainder", "Scalar", "Scalar", None, {}),
    ("pow", "Tensor_Scalar", "Scalar", "Tensor_Scalar_out", {}),
    ("eq", "Scalar", "Scalar", "Scalar_out", {}),
    ("ne", "Scalar", "Scalar", "Scalar_out", {}),
    ("lt", "Scalar", "Scalar", "Scalar_out", {}),
    ("le", "Scalar", "Scalar", "Scalar_out", {}),
    ("gt", "Scalar", "Scalar", "Scalar_out", {}),
    ("ge", "Scalar", "Scalar", "Scalar_out", {}),
    ("clamp", "default", "default", "out", {}),
]


@pytest.mark.parametrize("case", TENSOR_SCALAR, ids=[_ids(c) for c in TENSOR_SCALAR])
@settings(max_examples=30, deadline=None)
@given(
    shape=shapes(),
    dtype=st.sampled_from(ALL),
    layout=layouts,
    scalar=SCALARS,
    out_dtype=st.sampled_from(ALL),
    out_empty=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_tensor_scalar(case, shape, dtype, layout, scalar, out_dtype, out_empty, seed):
    rng = np.random.default_rng(seed)
    array = random_values(rng, shape, dtype)
    _check_all_forms(case, array, layout, out_dtype, out_empty, scalar)


@pytest.mark.parametrize("name, overload, out_overload", [
    ("pow", "Scalar", "Scalar_out"),
    ("remainder", "Scalar_Tensor", None),
])  # fmt: skip
@settings(max_examples=30, deadline=None)
@given(
    shape=shapes(),
    dtype=st.sampled_from(ALL),
    layout=layouts,
    scalar=SCALARS,
    out_dtype=st.sampled_from(ALL),
    seed=st.integers(0, 2**32 - 1),
)
def test_scalar_tensor(name, overload, out_overload, shape, dtype, layout, scalar, out_dtype, seed):
    rng = np.random.default_rng(seed)
    array = random_values(rng, shape, dtype, nonzero=name == "remainder")
    if name == "pow" and array.dtype.kind in "iu":
        array = np.clip(array, 0, 3)
    e_op, t_op = aten(name, overload)
    e, t, m = pair(array, layout)
    functional = run_both(lambda: e_op(scalar, e), lambda: t_op(scalar, t), lambda: e_op(scalar, m))
    if out_overload is not None:
        e_out_op, t_out_op = aten(name, out_overload)
        e_out, t_out, _ = empty_pair(tuple(t.shape), out_dtype)
        run_both(
            lambda: e_out_op(scalar, e, out=e_out),
            lambda: t_out_op(scalar, t, out=t_out),
            tol_dtype=getattr(functional, "dtype", None),
        )


@pytest.mark.parametrize("bounds", ["min", "max", "both"])
@settings(max_examples=30, deadline=None)
@given(
    shape=shapes(),
    dtype=st.sampled_from(ALL),
    bound_dtype=st.sampled_from(ALL),
    layout=layouts,
    out_dtype=st.sampled_from(ALL),
    seed=st.integers(0, 2**32 - 1),
)
def test_clamp_tensor(bounds, shape, dtype, bound_dtype, layout, out_dtype, seed):
    rng = np.random.default_rng(seed)
    array = random_values(rng, shape, dtype)
    low = pair(random_values(rng, shape[1:], bound_dtype, specials=False))
    high = pair(random_values(rng, (), bound_dtype, specials=False))
    args = {"min": (low, None), "max": (None, high), "both": (low, high)}[bounds]
    case = ("clamp", "Tensor", "Tensor", "Tensor_out", {})
    _check_all_forms(case, array, layout, out_dtype, False, *args)


# -- errors with PyTorch's text ---------------------------------------------------------

ERRORS = [
    ("neg", "default", "bool", (), {}),
    ("sign", "default", "complex64", (), {}),
    ("abs", "default", "bool", (), {}),
    ("abs_", "default", "complex64", (), {}),
    ("relu", "default", "bool", (), {}),
    ("relu", "default", "complex64", (), {}),
    ("gelu", "default", "int64", (), {}),
    ("gelu", "default", "float32", (), {"approximate": "sigmoid"}),
    ("clamp", "default", "float32", (), {}),
    ("clamp", "default", "complex64", (0,), {}),
    ("clamp", "default", "bool", (False,), {}),
    ("clamp", "default", "bool", (None, True), {}),
    ("clamp", "default", "bool", (False, True), {}),
    ("clamp", "default", "uint8", (300,), {}),
    ("clamp", "default", "int8", (-1000,), {}),
    ("clamp", "default", "float16", (1e6,), {}),
    ("clamp_", "default", "int64", (0.5,), {}),
    ("clamp_", "default", "uint8", (0.5,), {}),
    ("clamp_", "default", "bool", (2,), {}),
    ("clamp", "Tensor", "float32", (None, None), {}),
    ("pow", "Tensor_Scalar", "int64", (-1,), {}),
    ("pow", "Tensor_Scalar", "bool", (-2,), {}),
    ("pow_", "Scalar", "int32", (2.5,), {}),
    ("sin_", "default", "int64", (), {}),
    ("lt", "Scalar", "complex64", (1,), {}),
    ("sub", "Scalar", "bool", (1,), {}),
    ("add", "Scalar", "int64", (1,), {"alpha": 0.5}),
    ("remainder", "Scalar", "complex64", (2,), {}),
    ("remainder", "Scalar", "int64", (0,), {}),
]


@pytest.mark.parametrize("name, overload, dtype, args, kwargs", ERRORS)
def test_unary_errors(name, overload, dtype, args, kwargs):
    e_op, t_op = aten(name, overload)
    e, t, _ = pair(np.ones(3, dtype=dtype))
    with pytest.raises(Exception) as t_info:
        t_op(t, *args, **kwargs)
    with pytest.raises(type(t_info.value)) as e_info:
        e_op(e, *args, **kwargs)
    assert str(e_info.value) == str(t_info.value)


@pytest.mark.parametrize("name, out_dtype", [
    ("neg", "float32"), ("abs", "float64"), ("sign", "int32"), ("sin", "int64"),
    ("clamp", "float64"),
])  # fmt: skip
def test_out_dtype_errors(name, out_dtype):
    """Same-dtype operators (neg, abs, sign, clamp) reject any other out dtype."""
    e_op, t_op = aten(name, "out")
    e, t, _ = pair(np.arange(3, dtype=np.float32))
    e_out, t_out, _ = empty_pair((3,), out_dtype)
    args = (0, 1) if name == "clamp" else ()
    run_both(lambda: e_op(e, *args, out=e_out), lambda: t_op(t, *args, out=t_out))


def test_sign_and_relu_special_values():
    array = np.array([np.nan, -0.0, 0.0, -np.inf, 2.0], dtype=np.float32)
    for name in ("sign", "relu"):
        e_op, t_op = aten(name, "default")
        e, t, _ = pair(array)
        got, expected = e_op(e).ndarray(), t_op(t).numpy()
        np.testing.assert_array_equal(got, expected)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))
