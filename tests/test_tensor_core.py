"""Device, Storage, TensorImpl and the Tensor face against PyTorch 2.13 (TensorImpl.h, §3.5, §7.2, §8.1)."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

from ember._c10 import dtypes
from ember._c10.device import CPU, META, device
from ember._c10.dispatch_key_set import DispatchKeySet
from ember._c10.tensor_impl import contiguous_strides, is_contiguous_strides, make_view
from ember._size import Size
from ember._tensor import Tensor, empty_tensor, tensor_from_numpy, wrap_array


def keys(tensor) -> str:
    return str(DispatchKeySet.from_raw(tensor._key_bits))


def raises_like(ours, theirs):
    """Both calls raise the same exception type with the same message."""
    with pytest.raises(Exception) as ours_error:
        ours()
    with pytest.raises(Exception) as torch_error:
        theirs()
    assert type(ours_error.value) is type(torch_error.value)
    assert str(ours_error.value).replace("ember", "torch") == str(torch_error.value)


# -- device ----------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["cpu", "meta", "cpu:0", "meta:1"])
def test_device_prints_as_torch(spec):
    ours, theirs = device(spec), torch.device(spec)
    assert repr(ours) == repr(theirs)
    assert str(ours) == str(theirs)
    assert (ours.type, ours.index) == (theirs.type, theirs.index)


def test_device_forms_and_equality():
    assert device("cpu", 0) == device("cpu:0") != device("cpu")
    assert device("cpu") is CPU and device(META) is META
    assert device("cpu") != "cpu"  # as torch: a device never equals a string
    assert hash(device("cpu:0")) == hash(device("cpu", 0))
    assert pickle.loads(pickle.dumps(device("meta"))) == META


@pytest.mark.parametrize(
    "spec", ["foo", "cpu:00", "cpu:x", "", "cuda:01", " cpu", "cpu:", "CPU", "float32"]
)
def test_bad_device_strings_fail_as_torch(spec):
    raises_like(lambda: device(spec), lambda: torch.device(spec))


def test_bad_device_index_fails_as_torch():
    raises_like(lambda: device("cpu", -1), lambda: torch.device("cpu", -1))
    raises_like(lambda: device("cpu:0", 1), lambda: torch.device("cpu:0", 1))


@pytest.mark.parametrize("spec", ["cuda", "cuda:0", "mps", "xla", "lazy:3", "privateuseone"])
def test_devices_without_a_backend_are_devices_as_in_a_cpu_build(spec):
    """See Note [Devices ember has no backend for]: the object exists, using it fails
    (tests/test_binding_overloads.py compares those failures with torch's)."""
    ours, theirs = device(spec), torch.device(spec)
    assert (repr(ours), str(ours)) == (repr(theirs), str(theirs))
    assert ours == device(*spec.split(":")[:1], *map(int, spec.split(":")[1:]))


# -- Size ------------------------------------------------------------------------


def test_size_behaves_as_torch_size():
    ours, theirs = Size([2, 3]), torch.Size([2, 3])
    for make in (lambda s: s, lambda s: s[1:], lambda s: s + (4,), lambda s: (4,) + s):
        assert repr(make(ours)).replace("ember", "torch") == repr(make(theirs))
    assert ours.numel() == 6 and Size().numel() == 1
    assert ours == (2, 3) and hash(ours) == hash((2, 3))
    assert type(ours[0]) is int
    raises_like(lambda: Size([2.5]), lambda: torch.Size([2.5]))


# -- geometry: empty, wrap, views ---------------------------------------------------


@given(sizes=st.lists(st.integers(0, 4), max_size=4))
def test_contiguous_strides_match_torch(sizes):
    theirs = torch.empty(sizes)
    ours = empty_tensor(sizes, dtypes.float32)
    assert ours.stride() == theirs.stride() == contiguous_strides(tuple(sizes))
    assert ours.is_contiguous() and ours.numel() == theirs.numel()


@st.composite
def strided_geometry(draw):
    ndim = draw(st.integers(0, 4))
    sizes = tuple(draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    strides = tuple(draw(st.lists(st.integers(0, 13), min_size=ndim, max_size=ndim)))
    offset = draw(st.integers(0, 5))
    return sizes, strides, offset


@given(geometry=strided_geometry())
@settings(max_examples=300, deadline=None)
def test_make_view_matches_torch_as_strided(geometry):
    sizes, strides, offset = geometry
    span = offset + 1 + sum((s - 1) * t for s, t in zip(sizes, strides) if s > 0)
    data = np.arange(max(span, 1), dtype=np.float32)
    base, theirs_base = tensor_from_numpy(data), torch.from_numpy(data.copy())
    ours = make_view(base, sizes, strides, offset)
    theirs = theirs_base.as_strided(sizes, strides, offset)
    assert ours.shape == theirs.shape and ours.stride() == theirs.stride()
    assert ours.storage_offset() == theirs.storage_offset()
    assert ours.is_contiguous() == theirs.is_contiguous()
    assert ours.numel() == theirs.numel() and ours.dim() == theirs.dim()
    assert ours.tolist() == theirs.tolist()
    if ours.numel():
        assert ours.data_ptr() - base.data_ptr() == theirs.data_ptr() - theirs_base.data_ptr()
    else:
        assert ours.data_ptr() == theirs.data_ptr() == 0
    assert ours._version_counter is base._version_counter


def test_writes_through_a_view_reach_the_base_and_share_the_version():
    base = tensor_from_numpy(np.zeros(6, np.float32))
    view = make_view(base, (2, 2), (3, 1), 1)
    view.ndarray()[1, 0] = 7
    assert base.tolist() == [0, 0, 0, 0, 7, 0]
    view.version_counter().bump()
    assert base._version == view._version == 1


def test_wrap_takes_dense_arrays_without_copy():
    fresh = np.ones((3, 4), np.float64)
    wrapped = wrap_array(fresh)
    assert wrapped.ndarray() is fresh and wrapped.stride() == (4, 1)
    fortran = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    wrapped = wrap_array(fortran)
    assert wrapped.stride() == torch.from_numpy(fortran).stride() == (1, 3)
    assert wrapped.data_ptr() == fortran.ctypes.data
    assert not wrapped.is_contiguous()
    gappy = np.arange(10.0)[::2]  # not dense: copied to contiguous memory
    wrapped = wrap_array(gappy.copy()[::1])
    assert wrapped.tolist() == gappy.tolist()
    scalar = wrap_array(np.float32(2.5))
    assert scalar.shape == () and scalar.dtype is dtypes.float32 and scalar.item() == 2.5


def test_wrap_of_a_non_dense_array_copies():
    sparse = np.arange(10.0)[::2]
    wrapped = wrap_array(sparse)
    assert wrapped.stride() == (1,) and wrapped.tolist() == sparse.tolist()


def test_empty_with_strides_and_meta():
    strided = empty_tensor((2, 3), dtypes.float32, strides=(1, 2))
    theirs = torch.empty_strided((2, 3), (1, 2))
    assert strided.stride() == theirs.stride()
    assert strided.storage().nbytes == theirs.untyped_storage().nbytes()
    assert strided.ndarray().strides == (4, 8)
    meta = empty_tensor((2, 3), dtypes.int64, "meta")
    assert meta.device is META and meta.storage().data is None
    assert meta.storage().nbytes == 48 and meta.data_ptr() == 0
    with pytest.raises(RuntimeError, match="no storage data"):
        meta.ndarray()


def test_zero_size_views_work():
    empty = empty_tensor((0, 3), dtypes.float32)
    assert empty.ndarray().shape == (0, 3) and empty.is_contiguous()
    view = make_view(empty, (3, 0), (1, 3), 0)
    assert view.ndarray().shape == (3, 0)


def test_set_sizes_strides_drops_the_cached_view():
    tensor = tensor_from_numpy(np.arange(6.0))
    tensor._set_sizes_strides((2, 3), (3, 1), 0)
    assert tensor.ndarray().shape == (2, 3) and tensor.tolist() == [[0, 1, 2], [3, 4, 5]]


# -- key sets --------------------------------------------------------------------


def test_key_sets_match_torch():
    assert keys(empty_tensor((2,))) == str(torch._C._dispatch_keys(torch.empty(2)))
    meta, torch_meta = empty_tensor((2,), device="meta"), torch.empty(2, device="meta")
    assert keys(meta) == str(torch._C._dispatch_keys(torch_meta))
    with torch.inference_mode():
        theirs_cpu = torch._C._dispatch_keys(torch.empty(2))
        theirs_meta = torch._C._dispatch_keys(torch.empty(2, device="meta"))
    assert keys(empty_tensor((2,), inference=True)) == str(theirs_cpu)
    assert keys(empty_tensor((2,), device="meta", inference=True)) == str(theirs_meta)


class Dispatching(Tensor):
    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        return NotImplemented


class Plain(Tensor):
    pass


def test_wrapper_subclass_key_sets_match_torch():
    class TorchDispatching(torch.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    ours = Tensor._make_wrapper_subclass(Dispatching, (2, 3), dtype=dtypes.float32)
    theirs = torch.Tensor._make_wrapper_subclass(TorchDispatching, (2, 3), dtype=torch.float32)
    assert keys(ours) == str(torch._C._dispatch_keys(theirs))
    assert ours.shape == (2, 3) and ours.stride() == (3, 1) and ours._python_dispatch
    assert type(ours) is Dispatching and ours.storage().data is None


def test_make_subclass_and_as_subclass():
    base = tensor_from_numpy(np.arange(3.0))
    plain = base.as_subclass(Plain)
    assert type(plain) is Plain and keys(plain) == keys(base)
    assert plain.data_ptr() == base.data_ptr() and plain._version_counter is base._version_counter
    made = Tensor._make_subclass(Dispatching, base, True)
    assert made.requires_grad and "Python" in keys(made) and "PythonTLSSnapshot" in keys(made)
    plain.some_attribute = 1  # subclasses and tensors take new attributes


# -- the Tensor face -----------------------------------------------------------------


def pair(values, dtype=None, requires_grad=False):
    array = np.array(values, dtype=dtype)
    ours = tensor_from_numpy(array, requires_grad=requires_grad)
    theirs = torch.tensor(array, requires_grad=requires_grad)
    return ours, theirs


def test_metadata_matches_torch():
    ours, theirs = pair([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    assert repr(ours.shape).replace("ember", "torch") == repr(theirs.shape)
    assert ours.size() == theirs.size() and ours.size(-1) == theirs.size(-1)
    assert ours.stride() == theirs.stride() and ours.stride(0) == theirs.stride(0)
    assert (ours.ndim, ours.dim(), ours.numel(), ours.element_size(), ours.nbytes) == (
        theirs.ndim, theirs.dim(), theirs.numel(), theirs.element_size(), theirs.nbytes,
    )  # fmt: skip
    assert ours.is_floating_point() and not ours.is_complex() and not ours.is_inference()
    assert ours.storage_offset() == 0 and ours._version == 0
    raises_like(lambda: ours.size(2), lambda: theirs.size(2))
    raises_like(lambda: ours.stride(-3), lambda: theirs.stride(-3))
    scalar, torch_scalar = pair(1.0, np.float32)
    for dim in (0, -1, 1):
        raises_like(lambda: scalar.size(dim), lambda: torch_scalar.size(dim))  # noqa: B023
        raises_like(lambda: scalar.stride(dim), lambda: torch_scalar.stride(dim))  # noqa: B023


@pytest.mark.parametrize(
    "values, dtype",
    [(2.5, np.float32), (3, np.int64), (True, np.bool_), (1 + 2j, np.complex64), (7, np.uint8)],
)
def test_item_and_tolist_match_torch(values, dtype):
    ours, theirs = pair(values, dtype)
    assert ours.item() == theirs.item() and type(ours.item()) is type(theirs.item())
    ours, theirs = pair([[values, values]], dtype)
    assert ours.tolist() == theirs.tolist()


def test_bfloat16_values():
    theirs = torch.tensor([1.5, -2.25], dtype=torch.bfloat16)
    ours = tensor_from_numpy(theirs.float().numpy(), dtype=dtypes.bfloat16)
    assert ours.tolist() == theirs.tolist() and ours.element_size() == 2
    raises_like(lambda: ours.numpy(), lambda: theirs.numpy())


def test_numpy_shares_memory_and_refuses_grad():
    ours, theirs = pair([1.0, 2.0], np.float32)
    array = ours.numpy()
    array[0] = 9
    assert ours.tolist() == [9.0, 2.0] and np.asarray(ours).tolist() == [9.0, 2.0]
    ours, theirs = pair([1.0], np.float32, requires_grad=True)
    raises_like(lambda: ours.numpy(), lambda: theirs.numpy())
    raises_like(lambda: np.asarray(ours), lambda: np.asarray(theirs))
    assert ours.numpy(force=True).tolist() == [1.0]


def test_meta_tensors_refuse_data_as_torch():
    ours, theirs = empty_tensor((2,), device="meta"), torch.empty(2, device="meta")
    raises_like(lambda: ours.numpy(), lambda: theirs.numpy())
    raises_like(lambda: ours.item(), lambda: theirs.item())
    raises_like(lambda: ours.tolist(), lambda: theirs.tolist())
    one, torch_one = empty_tensor((), device="meta"), torch.empty((), device="meta")
    raises_like(lambda: one.item(), lambda: torch_one.item())


PROTOCOL_CASES = [
    ([1.0, 2.0], np.float32),
    ([], np.float32),
    (2.5, np.float32),
    ([3], np.int64),
    (-2.7, np.float64),
    (1j, np.complex64),
    (2 + 0j, np.complex128),
    (0, np.int32),
]


@pytest.mark.parametrize("values, dtype", PROTOCOL_CASES)
@pytest.mark.parametrize("protocol", [float, int, bool, complex, len, lambda t: t.__index__()])
def test_python_protocols_match_torch(values, dtype, protocol):
    ours, theirs = pair(values, dtype)
    try:
        expected = protocol(theirs)
    except Exception:
        raises_like(lambda: protocol(ours), lambda: protocol(theirs))
        return
    assert protocol(ours) == expected and type(protocol(ours)) is type(expected)


def test_iteration_of_a_zero_dim_tensor_fails_as_torch():
    ours, theirs = pair(1.0, np.float32)
    raises_like(lambda: iter(ours), lambda: iter(theirs))


def test_data_ptr_follows_the_offset():
    base = tensor_from_numpy(np.arange(4, dtype=np.int32))
    view = make_view(base, (2,), (1,), 2)
    assert view.data_ptr() - base.data_ptr() == 8
    assert base.data_ptr() == base.ndarray().ctypes.data


def test_inference_tensors_have_no_version():
    ours = empty_tensor((2,), inference=True)
    with torch.inference_mode():
        theirs = torch.empty(2)
    assert ours.is_inference() and theirs.is_inference()
    raises_like(lambda: ours._version, lambda: theirs._version)
    view = make_view(ours, (1,), (1,), 0)
    assert view.is_inference() and view._version_counter is None


def test_requires_grad_flag():
    ours, theirs = pair([1.0], np.float32)
    ours.requires_grad = True
    assert ours.requires_grad and ours.is_leaf and ours.grad is None and ours.grad_fn is None


def test_contiguity_ignores_size_one_dims():
    assert is_contiguous_strides((2, 1, 3), (3, 99, 1))
    assert not is_contiguous_strides((2, 3), (1, 2))
    assert is_contiguous_strides((0, 3), (7, 7))


def test_tensors_made_in_inference_mode_are_inference_tensors():
    from ember._c10.grad_mode import autograd_state

    base = empty_tensor((2,))
    autograd_state.inference_mode = True
    try:
        fresh, wrapped = empty_tensor((2,)), wrap_array(np.zeros(2))
        meta = empty_tensor((2,), device="meta")
        view = make_view(base, (1,), (1,), 0)
        wrapper = Tensor._make_wrapper_subclass(Dispatching, (2,))
    finally:
        autograd_state.inference_mode = False
    torch_base = torch.empty(2)
    with torch.inference_mode():
        theirs = str(torch._C._dispatch_keys(torch.empty(2)))
        theirs_meta = str(torch._C._dispatch_keys(torch.empty(2, device="meta")))
        theirs_view = torch_base[:1]
    assert fresh.is_inference() and wrapped.is_inference() and meta.is_inference()
    assert keys(fresh) == keys(wrapped) == theirs and keys(meta) == theirs_meta
    assert not view.is_inference() and view._version_counter is base._version_counter
    assert not theirs_view.is_inference() and keys(view) == str(
        torch._C._dispatch_keys(theirs_view)
    )
    assert wrapper.is_inference() and "Python" in keys(wrapper) and "Autograd" not in keys(wrapper)


def test_format_of_a_zero_dim_tensor_uses_the_value():
    ours, theirs = pair(2.5, np.float32)
    assert f"{ours:.2f}" == f"{theirs:.2f}" == "2.50"


@given(
    shape=st.lists(st.integers(0, 4), min_size=1, max_size=4),
    data=st.data(),
)
@settings(max_examples=200, deadline=None)
def test_wrap_keeps_dense_layouts_and_copies_the_rest(shape, data):
    fresh = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    order = data.draw(st.permutations(range(len(shape))))
    array = fresh.transpose(order)
    if data.draw(st.booleans()):  # a step or a reversal makes it non-dense
        step = data.draw(st.sampled_from([2, -1]))
        array = array[::step]
    expected = array.tolist()
    wrapped = wrap_array(array)
    assert wrapped.tolist() == expected and wrapped.shape == array.shape
    if np.shares_memory(wrapped.ndarray(), array) and array.size > 1:  # taken without a copy
        for size, stride, byte_stride in zip(array.shape, wrapped.stride(), array.strides):
            assert size == 1 or stride * 4 == byte_stride
    elif array.size > 1:
        assert wrapped.is_contiguous()
    assert wrapped.ndarray().tolist() == expected


@given(
    sizes=st.lists(st.integers(0, 4), min_size=1, max_size=4).map(tuple),
    data=st.data(),
)
@settings(max_examples=200, deadline=None)
def test_empty_with_permuted_strides_matches_torch(sizes, data):
    order = data.draw(st.permutations(range(len(sizes))))
    theirs = torch.empty([sizes[d] for d in order]).permute(*np.argsort(order).tolist())
    ours = empty_tensor(theirs.shape, dtypes.float32, strides=theirs.stride())
    assert ours.shape == theirs.shape and ours.stride() == theirs.stride()
    assert ours.is_contiguous() == theirs.is_contiguous()
    assert ours.storage().nbytes == theirs.untyped_storage().nbytes()
    values = np.arange(ours.numel(), dtype=np.float32).reshape(ours.shape)
    ours.ndarray()[...] = values
    theirs.copy_(torch.from_numpy(values))
    memory = make_view(ours, (ours.numel(),), (1,), 0)  # the storage in address order
    assert memory.tolist() == theirs.as_strided((theirs.numel(),), (1,), 0).tolist()
    assert make_view(ours, ours._sizes, ours._strides, 0).tolist() == values.tolist()


def test_zero_size_view_past_the_end_of_storage():
    base = empty_tensor((2,), dtypes.float32)
    theirs = torch.empty(2).as_strided((0, 3), (3, 1), 5)
    ours = make_view(base, (0, 3), (3, 1), 5)
    assert ours.ndarray().shape == (0, 3) and ours.tolist() == theirs.tolist() == []


@settings(max_examples=80, deadline=None)
@given(
    shape=st.lists(st.integers(1, 4), min_size=0, max_size=3),
    kind=st.sampled_from(["same", "reshape", "transpose", "prefix", "offset"]),
    transposed_base=st.booleans(),
)
def test_a_view_shares_the_numpy_array_it_would_rebuild(shape, kind, transposed_base):
    """make_view hands common geometries the base's NumPy view (or its reshape / .T);
    it must equal the array rebuilt from the storage, and write through to the base."""
    import math

    import ember

    base = ember.arange(math.prod(shape), dtype=ember.float32).reshape(shape)
    if transposed_base and len(shape) == 2:
        base = base.t()
    sizes, strides, offset = base._sizes, base._strides, base._storage_offset
    if kind == "reshape":
        sizes = (math.prod(shape),)
        strides = contiguous_strides(sizes)
    elif kind == "transpose" and len(sizes) == 2:
        sizes, strides = sizes[::-1], strides[::-1]
    elif kind == "prefix":
        sizes, strides = (1,), (1,)
    elif kind == "offset" and math.prod(shape) > 1:
        sizes, strides, offset = (1,), (1,), offset + 1
    view = make_view(base, sizes, strides, offset)
    rebuilt = make_view(base, sizes, strides, offset)
    rebuilt._array = None  # ndarray() builds it from the storage
    expected = rebuilt.ndarray()
    got = view.ndarray()
    assert got.shape == expected.shape and np.array_equal(got, expected)
    assert np.shares_memory(got, base.storage().data) or got.size == 0
    if got.size:
        first = (0,) * got.ndim
        got[first] = -7.0  # through the shared array, into the storage
        assert rebuilt.ndarray()[first] == -7.0
