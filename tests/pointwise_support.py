"""Helpers of the pointwise differential tests (tests/test_ops_pointwise*.py).

Builds the same values as an ember tensor and a torch tensor, in the same
memory layout (contiguous, transposed, or strided views of a larger base),
runs one call on both and compares everything PyTorch shows: the error type
and text, or the dtype, shape, strides and values; and the same call on
meta tensors, which must give the same dtype, shape and strides.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import strategies as st
from oracle import torch

from ember._c10.tensor_impl import make_view
from ember._ops import ops
from ember._tensor import Tensor, tensor_from_numpy

INTEGRAL = ["uint8", "int8", "int16", "int32", "int64"]
FLOATING = ["float16", "bfloat16", "float32", "float64"]
ALL = ["bool", *INTEGRAL, *FLOATING]

RESIZE_WORKS = hasattr(Tensor, "_adopt_storage_of")

_TOLERANCES = {
    "float16": (2e-3, 1e-3),
    "bfloat16": (1.6e-2, 1e-2),
    "float32": (2e-5, 1e-6),
    "float64": (1e-12, 1e-14),
    "complex64": (2e-5, 1e-6),
    "complex128": (1e-12, 1e-14),
}


def np_dtype(name: str):
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def dtype_name(dtype) -> str:
    return str(dtype).rpartition(".")[2]


def values(rng, shape, name: str, *, specials: bool = True, nonzero: bool = False):
    """Random values of dtype ``name``: small integers, or floats with NaN/inf/-0.0 sprinkled."""
    if name == "bool":
        array = np.asarray(rng.random(shape) < 0.5)
        if nonzero:
            array[...] = True
        return array
    if name in INTEGRAL:
        low = 1 if name == "uint8" and nonzero else (0 if name == "uint8" else -5)
        array = np.asarray(rng.integers(low, 6, size=shape))
        if nonzero:
            array[array == 0] = 3
        return array.astype(name)
    array = np.asarray(rng.normal(0, 3, size=shape))
    if specials and array.size:
        picks = rng.random(shape)
        array[picks < 0.05] = np.nan
        array[(picks >= 0.05) & (picks < 0.08)] = np.inf
        array[(picks >= 0.08) & (picks < 0.11)] = -np.inf
        array[(picks >= 0.11) & (picks < 0.14)] = -0.0
        array[(picks >= 0.14) & (picks < 0.17)] = 0.0
    return array.astype(np_dtype(name))


def _torch_from_numpy(array):
    """A fresh contiguous torch tensor (torch.from_numpy gives empty arrays stride 0)."""
    if array.dtype == np.dtype(ml_dtypes.bfloat16):
        source = torch.from_numpy(array.astype(np.float32))
        dtype = torch.bfloat16
    else:
        source = torch.from_numpy(np.array(array))
        dtype = source.dtype
    return torch.empty(array.shape, dtype=dtype).copy_(source)


def _layout_base(array, layout: str):
    """(base array, sizes, strides) such that the view of base equals ``array``."""
    shape = array.shape
    if array.size == 0 or 1 in shape[-2:]:
        # Views of empty bases, and strides of size-1 dims, are TensorIterator corner
        # cases (tested with tensor_iterator.py): the layouts here are real ones.
        layout = "contiguous"
    if layout == "transposed" and array.ndim >= 2:
        base = np.array(np.swapaxes(array, -1, -2), order="C")
        strides = list(_contiguous(base.shape))
        strides[-1], strides[-2] = strides[-2], strides[-1]
        return base, shape, tuple(strides)
    if layout == "strided" and array.ndim >= 1:
        base = np.zeros(shape[:-1] + (2 * shape[-1],), dtype=array.dtype)
        base[..., ::2] = array
        strides = list(_contiguous(base.shape))
        strides[-1] = 2
        return base, shape, tuple(strides)
    return np.array(array, order="C"), shape, _contiguous(shape)


def _contiguous(shape) -> tuple:
    strides, running = [], 1
    for size in reversed(shape):
        strides.append(running)
        running *= max(size, 1)
    return tuple(reversed(strides))


def pair(array, layout: str = "contiguous"):
    """(ember tensor, torch tensor, ember meta tensor) holding ``array`` in ``layout``."""
    base, sizes, strides = _layout_base(array, layout)
    e_base = tensor_from_numpy(base)
    t_base = _torch_from_numpy(base)
    m_base = tensor_from_numpy(base, device="meta")
    if layout == "contiguous" or base.shape == array.shape and strides == _contiguous(sizes):
        return e_base, t_base, m_base
    e = make_view(e_base, sizes, strides, 0)
    t = torch.as_strided(t_base, sizes, strides, 0)
    m = make_view(m_base, sizes, strides, 0)
    return e, t, m


def empty_pair(shape, name: str):
    array = np.zeros(shape, dtype=np_dtype(name))
    return pair(array)


def as_numpy(tensor):
    """A tensor's values as NumPy (bfloat16 widened to float32)."""
    if isinstance(tensor, torch.Tensor):
        if tensor.dtype == torch.bfloat16:
            tensor = tensor.float()
        return tensor.detach().numpy()
    array = np.asarray(tensor.ndarray())
    if array.dtype == np.dtype(ml_dtypes.bfloat16):
        array = array.astype(np.float32)
    return array


def _looser(name: str, other: str | None) -> str:
    """The looser tolerance of two dtypes (an out= tensor may hold more precision than the op)."""
    if other is None or other not in _TOLERANCES or name not in _TOLERANCES:
        return name
    return max(name, other, key=lambda n: _TOLERANCES[n][0])


def assert_same_tensor(e, t, *, values: bool = True, tol_dtype: str | None = None) -> None:
    assert dtype_name(e.dtype) == dtype_name(t.dtype), (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape), (tuple(e.shape), tuple(t.shape))
    assert tuple(e.stride()) == tuple(t.stride()), (tuple(e.stride()), tuple(t.stride()))
    if not values:
        return
    expected = as_numpy(t)
    got = as_numpy(e)
    name = _looser(dtype_name(t.dtype), tol_dtype)
    if name in _TOLERANCES:
        rtol, atol = _TOLERANCES[name]
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


def assert_same_result(e, t, *, values: bool = True, tol_dtype: str | None = None) -> None:
    if isinstance(t, (tuple, list)):
        assert len(e) == len(t)
        for e_item, t_item in zip(e, t):
            assert_same_tensor(e_item, t_item, values=values, tol_dtype=tol_dtype)
    else:
        assert_same_tensor(e, t, values=values, tol_dtype=tol_dtype)


def run_both(e_call, t_call, m_call=None, *, values: bool = True, tol_dtype=None):
    """Run the torch call, then the ember call: same error, or the same result.

    ``m_call`` runs the ember call on meta tensors when torch succeeded; it must
    give the same dtype, shape and strides. Returns torch's result (or None).
    """
    try:
        expected = t_call()
    except Exception as exc:  # noqa: BLE001 (any torch error must be matched)
        with pytest.raises(type(exc)) as info:
            e_call()
        assert str(info.value) == str(exc), (str(info.value), str(exc))
        return None
    got = e_call()
    if tol_dtype is not None and not isinstance(tol_dtype, str):
        tol_dtype = dtype_name(tol_dtype)
    assert_same_result(got, expected, values=values, tol_dtype=tol_dtype)
    if m_call is not None:
        assert_same_result(m_call(), expected, values=False)
    return expected


def aten(name: str, overload: str):
    """(ember OpOverload, torch OpOverload) of ``aten::name.overload``."""
    return getattr(getattr(ops.aten, name), overload), getattr(
        getattr(torch.ops.aten, name), overload
    )


# -- strategies --------------------------------------------------------------------------

layouts = st.sampled_from(["contiguous", "contiguous", "transposed", "strided"])


@st.composite
def broadcast_shapes(draw):
    """Two shapes that broadcast (sizes 0-4, 0-3 dims; some dims 1 or dropped)."""
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=3)))
    other = list(shape)
    for i in range(len(other)):
        if draw(st.integers(0, 3)) == 0:
            other[i] = 1
    drop = draw(st.integers(0, len(other)))
    other = tuple(other[drop:])
    if draw(st.booleans()):
        return shape, other
    return other, shape


def _without_zero_and_one(shape: tuple) -> tuple:
    """Zero-size shapes with size-1 dims have TensorIterator-specific strides; keep them apart."""
    if 0 in shape:
        return tuple(2 if size == 1 else size for size in shape)
    return shape


@st.composite
def shapes(draw):
    return _without_zero_and_one(tuple(draw(st.lists(st.integers(0, 4), max_size=3))))
