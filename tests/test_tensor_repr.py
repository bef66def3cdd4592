"""repr(tensor) against PyTorch 2.13's torch/_tensor_str.py, character for character."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import torch

import ember
from ember import _tensor_str
from ember._c10 import dtypes
from ember._c10.dtypes import STORABLE_DTYPES
from ember._c10.tensor_impl import make_view
from ember._tensor import Tensor, empty_tensor, tensor_from_numpy

warnings.filterwarnings("ignore", message="The given NumPy array is not writable")


def to_torch(dt):
    return getattr(torch, dt.name)


def same_repr(ours, theirs):
    assert repr(ours).replace("ember", "torch") == repr(theirs)


def pair_from_values(values: np.ndarray, dt):
    """The same values as an ember tensor and a torch tensor of dtype ``dt``."""
    theirs = torch.from_numpy(np.ascontiguousarray(values)).to(to_torch(dt))
    if dt in (dtypes.bfloat16, dtypes.float16):
        exact = theirs.float().numpy()  # the rounded values, exactly representable in dt
    else:
        exact = theirs.numpy()
    return tensor_from_numpy(exact, dtype=dt), theirs


# -- value strategies ------------------------------------------------------------------

SPECIAL = [0.0, -0.0, math.nan, math.inf, -math.inf, 1e-5, 1e-4, 1e8, 1.5e8, 0.1, 1000.0, 1e-300]
FLOATS = st.one_of(
    st.integers(-1000, 1000).map(float),
    st.floats(-1e12, 1e12, allow_nan=False),
    st.floats(-1e-3, 1e-3, allow_nan=False),
    st.sampled_from(SPECIAL),
)


@st.composite
def values_of(draw, dt, shape):
    count = int(np.prod(shape))
    if count > 64:  # large tensors: a seeded generator, hypothesis picks the character
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        scale = draw(st.sampled_from([1.0, 1e-6, 1e9, 0.0]))
        integral = draw(st.booleans())
        data = rng.standard_normal(count) * (scale or 1.0) * 100
        if integral or not (dt.is_floating_point or dt.is_complex):
            data = np.round(data) % 100 if dt is not dtypes.bool else data > 0
        if dt.is_complex:
            data = data + 1j * np.roll(data, 1)
        return np.asarray(data).reshape(shape)
    if dt is dtypes.bool:
        return np.array(draw(st.lists(st.booleans(), min_size=count, max_size=count))).reshape(
            shape
        )
    if not (dt.is_floating_point or dt.is_complex):
        info = np.iinfo(dt.np_dtype)
        ints = st.integers(int(info.min), int(info.max)) | st.integers(-3, 10).filter(
            lambda v: info.min <= v <= info.max
        )
        return np.array(
            draw(st.lists(ints, min_size=count, max_size=count)), dtype=dt.np_dtype
        ).reshape(shape)
    real = np.array(draw(st.lists(FLOATS, min_size=count, max_size=count)), dtype=np.float64)
    if dt.is_complex:
        imag = np.array(draw(st.lists(FLOATS, min_size=count, max_size=count)), dtype=np.float64)
        return (real + 1j * imag).reshape(shape)
    return real.reshape(shape)


SHAPES = st.one_of(
    st.lists(st.integers(0, 5), max_size=4).map(tuple),
    st.sampled_from([(1001,), (40, 30), (3, 400), (11, 10, 10), (2, 1100), (7, 200)]),
)


@st.composite
def tensor_pairs(draw):
    dt = draw(st.sampled_from(STORABLE_DTYPES))
    shape = draw(SHAPES)
    ours, theirs = pair_from_values(draw(values_of(dt, shape)), dt)
    if len(shape) >= 2 and draw(st.booleans()):  # a non-contiguous (permuted) view
        order = draw(st.permutations(range(len(shape))))
        ours = make_view(
            ours,
            tuple(ours._sizes[d] for d in order),
            tuple(ours._strides[d] for d in order),
            0,
        )
        theirs = theirs.permute(*order)
    if (dt.is_floating_point or dt.is_complex) and draw(st.booleans()):
        ours._requires_grad = True
        theirs.requires_grad_(True)
    return ours, theirs


@given(pair=tensor_pairs())
@settings(max_examples=500, deadline=None)
def test_repr_matches_torch(pair):
    same_repr(*pair)


@given(pair=tensor_pairs(), default=st.sampled_from([dtypes.float32, dtypes.float64]))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_repr_under_either_default_dtype(pair, default):
    dtypes.set_default_dtype(default)
    torch.set_default_dtype(to_torch(default))
    try:
        same_repr(*pair)
    finally:
        dtypes.set_default_dtype(dtypes.float32)
        torch.set_default_dtype(torch.float32)


OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "precision": st.integers(0, 8),
        "threshold": st.integers(1, 2000),
        "edgeitems": st.integers(0, 4),
        "linewidth": st.integers(20, 200),
        "sci_mode": st.sampled_from([None, True, False]),
    },
)


@given(pair=tensor_pairs(), options=OPTIONS)
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_repr_under_print_options(pair, options):
    saved = torch._tensor_str.get_printoptions()
    try:
        _tensor_str.set_printoptions(**options)
        torch.set_printoptions(**options)
        same_repr(*pair)
    finally:
        _tensor_str.set_printoptions(profile="default")
        torch.set_printoptions(**saved)


@given(
    dt=st.sampled_from(STORABLE_DTYPES),
    shape=st.lists(st.integers(0, 4), max_size=3).map(tuple),
    requires_grad=st.booleans(),
)
def test_meta_repr_matches_torch(dt, shape, requires_grad):
    requires_grad = requires_grad and (dt.is_floating_point or dt.is_complex)
    ours = empty_tensor(shape, dt, "meta")
    ours._requires_grad = requires_grad
    theirs = torch.empty(shape, dtype=to_torch(dt), device="meta", requires_grad=requires_grad)
    same_repr(ours, theirs)


# -- fixed cases that document the format ------------------------------------------------


@pytest.mark.parametrize(
    "values, np_dtype, expected",
    [
        ([1.0, 2.0], np.float32, "tensor([1., 2.])"),
        ([[1, 2], [3, 4]], np.int64, "tensor([[1, 2],\n        [3, 4]])"),
        ([1, 2], np.int32, "tensor([1, 2], dtype=ember.int32)"),
        ([], np.float32, "tensor([])"),
        (np.zeros((0, 3)), np.float32, "tensor([], size=(0, 3))"),
        ([], np.int64, "tensor([], dtype=ember.int64)"),
        (3.5, np.float32, "tensor(3.5000)"),
        ([1e-5, 1.0], np.float32, "tensor([1.0000e-05, 1.0000e+00])"),
        ([True, False], np.bool_, "tensor([ True, False])"),
        ([1 + 2j], np.complex64, "tensor([1.+2.j])"),
    ],
)
def test_documented_examples(values, np_dtype, expected):
    ours = tensor_from_numpy(np.array(values, dtype=np_dtype))
    assert repr(ours) == expected
    theirs = torch.from_numpy(np.array(values, dtype=np_dtype))
    assert repr(theirs) == expected.replace("ember", "torch")


def test_grad_fn_suffix_reads_the_slot():
    class AddBackward0:
        pass

    ours = tensor_from_numpy(np.array([1.0, 2.0], np.float32))
    ours._requires_grad = True
    ours._grad_fn = AddBackward0()
    assert repr(ours) == "tensor([1., 2.], grad_fn=<AddBackward0>)"


def test_subclass_prefix_and_storage_less_wrapper():
    class Sub(Tensor):
        pass

    class Wrapper(Tensor):  # _make_wrapper_subclass requires __torch_dispatch__, as in PyTorch
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    base = tensor_from_numpy(np.array([1.0], np.float32))
    assert repr(base.as_subclass(Sub)) == "Sub([1.])"
    wrapper = Tensor._make_wrapper_subclass(Wrapper, (2,), dtype=dtypes.int32)
    assert repr(wrapper) == "Wrapper(..., size=(2,), dtype=ember.int32)"


def test_tensor_contents_override():
    ours = tensor_from_numpy(np.array([1.0, 2.0], np.float32))
    assert ours.__repr__(tensor_contents="[x]") == "tensor([x])"


def _contents_wrapper(lib):
    """A wrapper subclass that prints its inner tensor as its contents (as LoggingTensor)."""

    class Shown(lib.Tensor):
        @staticmethod
        def __new__(cls, elem, requires_grad=False):
            r = lib.Tensor._make_wrapper_subclass(
                cls, elem.size(), dtype=elem.dtype, device=elem.device, requires_grad=requires_grad
            )
            r.elem = elem
            return r

        def __repr__(self):
            return super().__repr__(tensor_contents=f"{self.elem}")

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    return Shown


@given(
    dt=st.sampled_from(STORABLE_DTYPES),
    shape=st.lists(st.integers(0, 3), max_size=3).map(tuple),
    device=st.sampled_from(["cpu", "meta"]),
    requires_grad=st.booleans(),
)
@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
def test_wrapper_with_tensor_contents_prints_as_torch(dt, shape, device, requires_grad):
    # _tensor_str's suffixes for a storage-less wrapper that gives its contents are those
    # of any tensor of its device (no size= for a non-empty cpu one): test_format's rule
    requires_grad = requires_grad and (dt.is_floating_point or dt.is_complex)
    ours = _contents_wrapper(ember)(ember.zeros(shape, dtype=dt, device=device), requires_grad)
    theirs = _contents_wrapper(torch)(
        torch.zeros(shape, dtype=to_torch(dt), device=device), requires_grad
    )
    same_repr(ours, theirs)
    assert str(ours) == repr(ours) == f"{ours}"
