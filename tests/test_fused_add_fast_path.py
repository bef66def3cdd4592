"""add / sub with an alpha on the fast path (aten/ufunc_fast.py `_fused`) and the float32
FMA's same-shape branch (aten/ufunc_fma.py): each gives bit for bit what the general path
gives, and what PyTorch's kernel gives (See Note [Fused multiply-add in PyTorch's CPU
kernels])."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember
from ember.aten import meta as M
from ember.aten import ufunc as U
from ember.aten import ufunc_fast as UF
from ember.aten.ufunc_fma import fma

_SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, 1e-45, -1e-45, 1.2e-38, 3e38, -3e38,
            float("inf"), float("-inf"), float("nan")]  # fmt: skip


def _values(dtype, size):
    """Random floats, halfway-prone small integers, subnormals and specials."""
    finite = st.floats(
        allow_nan=False, allow_infinity=False, width=32 if dtype == "float32" else 64
    )
    element = st.one_of(
        finite,
        st.integers(-(2**24), 2**24).map(float),
        st.floats(-(2.0**-120), 2.0**-120, width=32),
        st.sampled_from(_SPECIAL),
    )
    return st.lists(element, min_size=size, max_size=size)


_ALPHAS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.sampled_from([-0.05, 0.9, 1e-30, -1.0, 2.0, 0.1, 1e38]),
    st.integers(-5, 5),
    st.sampled_from([2**60, -(2**40), 2**62]),
)


def _bits(array):
    return array.view(np.int32 if array.dtype == np.float32 else np.int64)


def _general(name, self, other, alpha):
    meta = getattr(M, f"{name}_Tensor")(self, other, alpha)
    out = meta.allocate()
    getattr(U, name)(meta, self, other, alpha, out)
    return out


@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    dtype=st.sampled_from(["float32", "float64"]),
    shape=st.sampled_from([(1,), (7,), (3, 4), (2, 1, 5)]),
    name=st.sampled_from(["add", "sub"]),
    alpha=_ALPHAS,
)
def test_fused_fast_path_is_the_general_path_and_pytorchs(data, dtype, shape, name, alpha):
    size = int(np.prod(shape))
    a = np.array(data.draw(_values(dtype, size)), dtype=dtype).reshape(shape)
    b = np.array(data.draw(_values(dtype, size)), dtype=dtype).reshape(shape)
    self, other = ember.tensor(a), ember.tensor(b)
    if alpha == 1 and alpha.__class__ is int:
        alpha = 3  # alpha 1 is the plain ufunc's fast path
    fast = getattr(UF, name)(self, other, alpha)
    if dtype == "float32" and abs(alpha) > 3.4e38:
        assert fast is None  # alpha.to<float>() overflows: the general path raises it
        return
    reference = _general(name, self, other, alpha)
    assert fast.dtype is reference.dtype and fast.stride() == reference.stride()
    assert fast.ndarray().flags.c_contiguous
    np.testing.assert_array_equal(_bits(fast.numpy()), _bits(reference.numpy()))
    target = self.clone()
    assert getattr(UF, name)(target, other, alpha, into=target) is target
    np.testing.assert_array_equal(_bits(target.numpy()), _bits(reference.numpy()))
    expected = getattr(torch, name)(torch.tensor(a), torch.tensor(b), alpha=alpha).numpy()
    finite = np.isfinite(expected)
    np.testing.assert_array_equal(_bits(fast.numpy())[finite], _bits(expected)[finite])
    np.testing.assert_array_equal(np.isnan(fast.numpy()), np.isnan(expected))


def test_fused_fast_path_leaves_the_rest_to_the_general_path():
    a, b = ember.ones(2, 3), ember.ones(2, 3)
    assert UF.add(a, b, True) is None  # a bool alpha: the general path's error
    assert UF.add(a, b, 1j) is None  # a complex one
    assert UF.add(a, b, 1e39) is None  # too large for float
    assert UF.add(a, b, float("nan")) is None
    assert UF.add(a, ember.ones(3), 2.0) is None  # a bias
    assert UF.add(a, b.t().contiguous().t(), 2.0) is None  # another layout
    assert UF.add(a.t(), b.t(), 2.0) is None  # non-contiguous
    assert UF.add(a, ember.ones(2, 3, dtype=ember.float64), 2.0) is None  # promotion
    assert UF.add(ember.ones(2, dtype=ember.int64), ember.ones(2, dtype=ember.int64), 2) is None
    assert UF.add(a, ember.tensor(2.0), 2.0) is None  # a 0-dim other
    view = ember.ones(4)
    assert UF.add(view[:2], view[2:], 2.0, into=view[:2]) is None  # one storage, in place
    assert UF.add(view[:2], view[2:], 2.0).tolist() == [3.0, 3.0]  # out of place: fine
    meta = ember.empty(2, 3, device="meta")
    assert UF.add(meta, meta, 2.0) is None


@pytest.mark.parametrize("alpha, message", [
    (True, "Boolean alpha only supported for Boolean results."),
    (1e39, "value cannot be converted to type float without overflow"),
])  # fmt: skip
def test_fused_add_errors_stay_pytorchs(alpha, message):
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match=message):
            lib.ones(3).add_(lib.ones(3), alpha=alpha)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), size=st.integers(1, 40), factor=_values("float32", 1))
def test_fma32_same_shape_branch_is_the_general_branch(data, size, factor):
    a = np.array(data.draw(_values("float32", size)), dtype=np.float32)
    c = np.array(data.draw(_values("float32", size)), dtype=np.float32)
    b = np.float32(factor[0])
    with np.errstate(all="ignore"):
        fast = fma(a, b, c, np.float32)  # float32 arrays of one shape and a float32 scalar
        general = fma(a, np.asarray(b), c, np.float32)  # a 0-d array: the general branch
    assert fast.dtype == general.dtype == np.float32 and fast.shape == general.shape
    np.testing.assert_array_equal(_bits(fast), _bits(general))


def test_fma32_rounds_a_halfway_sum_once():
    # (1 + 2**-23) + 2**-24 * (1 - 2**-46) lies just below the float32 halfway point: the
    # float64 sum rounds onto it, and rounding that to float32 would go up to 1 + 2**-22
    other = np.array([2.0**-12 * (1 + 2.0**-23), 1.5, -(2.0**-126)], dtype=np.float32)
    alpha = 2.0**-12 * (1 - 2.0**-23)
    self = np.array([1 + 2.0**-23, 2.0**-140, 2.0**-114], dtype=np.float32)
    result = fma(other, np.float32(alpha), self, np.float32)
    assert result[0] == np.float32(1 + 2.0**-23)
    expected = torch.add(torch.tensor(self), torch.tensor(other), alpha=alpha).numpy()
    np.testing.assert_array_equal(_bits(result), _bits(expected))
    fast = ember.tensor(self).add_(ember.tensor(other), alpha=alpha).numpy()
    np.testing.assert_array_equal(_bits(fast), _bits(expected))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_add_keeps_the_sign_of_a_zero(dtype):
    values = [-0.0, -0.0, 0.0, 1.0]
    others = [-0.0, 0.0, -0.0, -2.0]
    expected = torch.tensor(values, dtype=getattr(torch, dtype)).add(
        torch.tensor(others, dtype=getattr(torch, dtype)), alpha=0.5
    )
    result = ember.tensor(values, dtype=getattr(ember, dtype)).add(
        ember.tensor(others, dtype=getattr(ember, dtype)), alpha=0.5
    )
    assert np.signbit(result.numpy()).tolist() == np.signbit(expected.numpy()).tolist()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    ("left", "right"), [((37, 1), (5,)), ((5,), (37, 1)), ((3, 1, 4), (2, 1)), ((), (3,))]
)
def test_add_with_an_alpha_broadcasts_as_torch(left, right, dtype):
    """The FMA of add / sub with an alpha over operands that broadcast to a larger shape
    than either (a NumPy in-place sum refused them). Values at PyTorch's tolerance:
    PyTorch's scalar loop, which it takes for some broadcasts, does not fuse."""

    def run(lib):
        a = lib.arange(float(np.prod(left) or 1)).reshape(left).to(getattr(lib, dtype)) * 0.3
        b = lib.arange(float(np.prod(right) or 1)).reshape(right).to(getattr(lib, dtype)) - 1
        return [lib.add(a, b, alpha=0.7), lib.sub(b, a, alpha=1.9)]

    for ours, theirs in zip(run(ember), run(torch), strict=True):
        assert tuple(ours.shape) == tuple(theirs.shape)
        torch.testing.assert_close(torch.tensor(ours.tolist(), dtype=theirs.dtype), theirs)
