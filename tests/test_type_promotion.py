"""dtypes, promote_types and result_type against PyTorch 2.13 (ScalarType.h, TypeProperties.cpp)."""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import torch

from ember._c10 import dtypes
from ember._c10.dtypes import (
    ALL_DTYPES,
    STORABLE_DTYPES,
    binary_result_dtype,
    promote_types,
    result_type,
)
from ember._tensor import empty_tensor

warnings.filterwarnings("ignore", message="ComplexHalf support is experimental")


def to_torch(dt):
    return getattr(torch, dt.name)


@pytest.fixture(params=[dtypes.float32, dtypes.float64], ids=["default-f32", "default-f64"])
def default_dtype(request):
    """Run a test under each default dtype, restoring float32 after."""
    torch.set_default_dtype(to_torch(request.param))  # first: without torch, this skips
    dtypes.set_default_dtype(request.param)
    yield request.param
    dtypes.set_default_dtype(dtypes.float32)
    torch.set_default_dtype(torch.float32)


# -- dtype objects ---------------------------------------------------------------


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=lambda d: d.name)
def test_dtype_attributes_match_torch(dt):
    theirs = to_torch(dt)
    assert repr(dt).replace("ember", "torch") == repr(theirs)
    assert str(dt).replace("ember", "torch") == str(theirs)
    assert dt.itemsize == theirs.itemsize
    assert dt.is_floating_point == theirs.is_floating_point
    assert dt.is_complex == theirs.is_complex
    assert dt.is_signed == theirs.is_signed
    assert repr(dt.to_real()).replace("ember", "torch") == repr(theirs.to_real())
    if dt.is_floating_point or dt.is_complex:
        assert repr(dt.to_complex()).replace("ember", "torch") == repr(theirs.to_complex())
    else:
        with pytest.raises(RuntimeError) as ours_error:
            dt.to_complex()
        with pytest.raises(RuntimeError) as torch_error:
            theirs.to_complex()
        assert str(ours_error.value) == str(torch_error.value)


def test_scalar_type_numbers_are_c10s():
    expected = {
        "uint8": 0, "int8": 1, "int16": 2, "int32": 3, "int64": 4, "float16": 5, "float32": 6,
        "float64": 7, "complex32": 8, "complex64": 9, "complex128": 10, "bool": 11, "bfloat16": 15,
    }  # fmt: skip
    assert {d.name: d.scalar_type for d in ALL_DTYPES} == expected


def test_aliases_are_the_same_objects_as_in_torch():
    for alias in ("float", "double", "half", "short", "int", "long", "chalf", "cfloat", "cdouble"):
        assert getattr(dtypes, alias).name == str(getattr(torch, alias)).split(".")[1]


def test_numpy_dtypes_round_trip():
    for dt in STORABLE_DTYPES:
        assert dtypes.from_numpy_dtype(dt.np_dtype) is dt
    assert dtypes.bfloat16.np_dtype.name == "bfloat16"
    with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.uint16"):
        dtypes.from_numpy_dtype(np.uint16)


def test_dtypes_pickle_to_themselves():
    import pickle

    for dt in ALL_DTYPES:
        assert pickle.loads(pickle.dumps(dt)) is dt


def test_set_default_dtype_accepts_only_floats():
    with pytest.raises(TypeError, match="only floating-point types are supported as the default"):
        dtypes.set_default_dtype(dtypes.int32)
    assert dtypes.get_default_dtype() is dtypes.float32
    assert dtypes.get_default_complex_dtype() is dtypes.complex64


# -- promote_types -----------------------------------------------------------------


def test_promote_types_every_pair():
    for a in ALL_DTYPES:
        for b in ALL_DTYPES:
            ours = promote_types(a, b)
            assert ours.name == str(torch.promote_types(to_torch(a), to_torch(b))).split(".")[1], (
                a,
                b,
            )


# -- result_type ---------------------------------------------------------------------

# An operand: ("tensor", dtype, ndim) or ("scalar", python value).
SCALARS = st.sampled_from([True, False, 0, 3, -7, 2**40, 0.5, -2.0, 1e300, 1j, 2 + 0j])
OPERANDS = st.one_of(
    st.tuples(st.just("tensor"), st.sampled_from(STORABLE_DTYPES), st.sampled_from([0, 1, 2])),
    st.tuples(st.just("scalar"), SCALARS),
)


def build(operand):
    if operand[0] == "scalar":
        return operand[1], operand[1]
    _, dt, ndim = operand
    shape = (2,) * ndim
    return empty_tensor(shape, dt), torch.empty(shape, dtype=to_torch(dt))


@given(a=OPERANDS, b=OPERANDS)
@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_result_type_of_two_operands_matches_torch(a, b, default_dtype):
    if a[0] == "scalar" and b[0] == "scalar":
        return  # torch.result_type needs a tensor
    (ours_a, theirs_a), (ours_b, theirs_b) = build(a), build(b)
    expected = str(torch.result_type(theirs_a, theirs_b)).split(".")[1]
    assert result_type(ours_a, ours_b).name == expected
    assert binary_result_dtype(ours_a, ours_b).name == expected
    assert binary_result_dtype(ours_a, ours_b).name == expected  # cached path


@given(operands=st.lists(OPERANDS, min_size=1, max_size=5))
@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_result_type_of_many_operands_matches_torch(operands, default_dtype):
    pairs = [build(operand) for operand in operands]
    prims = torch._prims_common
    _, expected = prims.elementwise_dtypes(
        *(theirs for _, theirs in pairs),
        type_promotion_kind=prims.ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT,
    )
    assert result_type(*(ours for ours, _ in pairs)).name == str(expected).split(".")[1]


def test_binary_cache_follows_the_default_dtype():
    ints = empty_tensor((3,), dtypes.int64)
    assert binary_result_dtype(ints, 2.5) is dtypes.float32
    dtypes.set_default_dtype(dtypes.float64)
    try:
        assert binary_result_dtype(ints, 2.5) is dtypes.float64
        assert binary_result_dtype(ints, 1j) is dtypes.complex128
    finally:
        dtypes.set_default_dtype(dtypes.float32)
    assert binary_result_dtype(ints, 2.5) is dtypes.float32


def test_tensor_lists_count_as_their_tensors():
    floats = empty_tensor((3,), dtypes.float16)
    doubles = empty_tensor((), dtypes.float64)
    assert result_type([floats, doubles], 1) is dtypes.float16


def test_is_tensor_is_duck_typed():
    class Fake:
        _key_bits = 0
        dtype = dtypes.int8
        _sizes = (2,)

    assert dtypes.is_tensor(Fake())
    assert not dtypes.is_tensor(np.zeros(2))
    assert result_type(Fake(), 1.5) is dtypes.float32
    with pytest.raises(TypeError, match="unsupported operand"):
        result_type(empty_tensor((1,)), "x")
