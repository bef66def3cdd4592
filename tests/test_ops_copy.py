"""Copies and conversions against PyTorch 2.13: copy_, clone, contiguous, _to_copy, Tensor.to
and its overloads, float() / int() / ..., cpu(), type(), item().

Inputs are built from the same NumPy arrays (often permuted or strided) in both
libraries; results are compared on sizes, strides, dtype, device, values,
whether `self` is returned, and the error type and text.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ops_support import same_outcome
from oracle import torch

import ember
from ember._tensor_ctors import from_numpy, install

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
install(ember.Tensor)

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
          "float32", "float64", "complex64", "complex128"]  # fmt: skip


def memory_format(lib, name):
    return getattr(lib, name, None) or getattr(ember._tensor_ctors, name)


def dt(lib, name):
    return getattr(lib, name)


def make(lib, array, dtype=None, device="cpu"):
    """A tensor over ``array``'s values and geometry (shared memory on cpu)."""
    t = from_numpy(array) if lib is ember else torch.from_numpy(array)
    if dtype is not None:
        t = t.to(dt(lib, dtype))
    return t.to(device) if device != "cpu" else t


@st.composite
def layouts(draw, max_dims=4):
    """A permuted and maybe strided NumPy view over arange values."""
    shape = draw(st.lists(st.integers(0, 4), min_size=0, max_size=max_dims))
    perm = draw(st.permutations(range(len(shape))))
    step = draw(st.sampled_from([1, 2]))
    base = np.arange(int(np.prod(shape)) * step, dtype=np.float64)
    array = (
        base.reshape([*shape[:-1], shape[-1] * step] if shape else [])
        if shape
        else base[:1].reshape(())
    )
    if shape and step > 1:
        array = array[..., ::step]
    return array.transpose(list(perm)) if shape else array


# -- copy_ --------------------------------------------------------------------------------


def _safe_values(src: str, dst: str) -> np.ndarray:
    """Values whose conversion src -> dst is defined in C++ (no out-of-range float->int)."""
    values = np.array([0, 1, 2, 3, 5, 100], dtype=np.float64)
    if src not in ("bool", "uint8") and dst not in ("bool", "uint8"):
        values = np.concatenate([values, -values])
    if src.startswith(("float", "bfloat", "complex")):
        values = values + 0.5
    return values.astype(np.complex128 if src.startswith("complex") else np.float64)


@SETTINGS
@given(src=st.sampled_from(DTYPES), dst=st.sampled_from(DTYPES))
def test_copy_converts_dtypes(src, dst):
    values = _safe_values(src, dst)

    def fn(lib):
        source = make(lib, values.copy(), src)
        target = lib.zeros(len(values), dtype=dt(lib, dst))
        return target.copy_(source)

    same_outcome(fn)


@SETTINGS
@given(array=layouts(), device=st.sampled_from(["cpu", "meta"]))
def test_copy_into_strided_and_broadcast(array, device):
    def into_permuted(lib):
        target = make(lib, np.zeros_like(array), device=device)
        return target.copy_(make(lib, np.asarray(array.copy(order="C") + 1)))

    def broadcast(lib):
        target = make(lib, np.zeros((2, *array.shape[1:])), device=device)
        return target.copy_(make(lib, array[:1].copy() if array.ndim else array.copy()))

    same_outcome(into_permuted)
    same_outcome(broadcast)


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib: lib.zeros(2).copy_(lib.zeros(3, 2)),
        lambda lib: lib.zeros(2).copy_(lib.zeros(3)),
        lambda lib: lib.zeros(2).copy_(lib.zeros(2, device="meta")),
        lambda lib: lib.zeros(2, device="meta").copy_(lib.zeros(3)),
        lambda lib: lib.zeros(2, device="meta").copy_(lib.zeros(3, 2)),
        lambda lib: lib.zeros(1).expand(3).copy_(lib.zeros(3)),
        lambda lib: lib.zeros(3).copy_(lib.ones(3, dtype=lib.complex64)),
        lambda lib: lib.zeros(0).copy_(lib.zeros(3)),
    ],
)
def test_copy_errors(fn):
    same_outcome(fn)


def test_copy_same_tensor_and_partial_overlap():
    for lib in (ember, torch):
        x = lib.arange(6.0)
        assert x.copy_(x) is x
    base_e, base_t = ember.arange(6.0), torch.arange(6.0)
    same_outcome(lambda lib: (base_e if lib is ember else base_t).copy_(
        (base_e if lib is ember else base_t).flip([0])))  # fmt: skip
    with pytest.warns(UserWarning, match="Casting complex values to real discards"):
        ember.zeros(2).copy_(ember.ones(2, dtype=ember.complex64))


# -- clone / contiguous / _to_copy --------------------------------------------------------


@SETTINGS
@given(array=layouts(), fmt=st.sampled_from([None, "contiguous_format", "preserve_format"]))
def test_clone_keeps_or_sets_layout(array, fmt):
    def kw(lib):
        return {} if fmt is None else {"memory_format": memory_format(lib, fmt)}

    same_outcome(lambda lib: make(lib, array).clone(**kw(lib)))
    same_outcome(lambda lib: make(lib, array, device="meta").clone(**kw(lib)))
    same_outcome(lambda lib: make(lib, array).to(lib.float32, **kw(lib)))
    same_outcome(lambda lib: make(lib, array).contiguous())


def test_clone_channels_last_and_contiguous_rules():
    array = np.arange(120.0).reshape(2, 3, 4, 5)
    same_outcome(
        lambda lib: make(lib, array).clone(memory_format=memory_format(lib, "channels_last"))
    )
    same_outcome(
        lambda lib: make(lib, array).contiguous(memory_format=memory_format(lib, "channels_last"))
    )
    same_outcome(lambda lib: make(lib, array.transpose(0, 2, 3, 1)).contiguous(
        memory_format=memory_format(lib, "preserve_format")))  # fmt: skip
    for lib in (ember, torch):
        x = make(lib, array)
        assert x.contiguous() is x
        assert x.contiguous(memory_format=memory_format(lib, "preserve_format")) is x
        assert x.clone() is not x


# -- to / conversions ------------------------------------------------------------------------


def test_to_returns_self_when_nothing_changes():
    for lib in (ember, torch):
        x = lib.ones(2, 3)
        assert x.to(lib.float32) is x
        assert x.to("cpu") is x
        assert x.to("cpu:0") is not x
        assert x.to(device="cpu:0", dtype=lib.float32) is not x
        assert x.to(x) is x
        assert x.to() is x
        assert x.to("cpu", lib.float32) is x
        assert x.to(dtype=lib.float32, copy=True) is not x
        assert x.to(x, copy=True) is not x
        assert x.cpu() is x
        assert x.float() is x
        assert x.type(lib.float32) is x


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib: lib.ones(2, 3).to(lib.int64),
        lambda lib: lib.ones(2, 3).to("meta"),
        lambda lib: lib.ones(2, 3).to("meta", dtype=lib.float16),
        lambda lib: lib.ones(2, 3).to(device="meta", dtype=lib.float16, non_blocking=True),
        lambda lib: lib.ones(2, 3).to(lib.zeros(1, dtype=lib.int8, device="meta")),
        lambda lib: lib.ones(2, 3, device="meta").to("cpu"),
        lambda lib: lib.ones(2, 3).to(memory_format=memory_format(lib, "contiguous_format")),
        lambda lib: lib.ones(2, 3).t().to(memory_format=memory_format(lib, "contiguous_format")),
        lambda lib: lib.ones(2, 3).to(1.5),
        lambda lib: lib.ones(2, 3).to(True),
        lambda lib: lib.ones(2, 3).to("cuda:x"),
        lambda lib: lib.ones(2, 3).t().cpu(),
        lambda lib: lib.arange(6.0).reshape(2, 3).t().double(),
    ],
)
def test_to_overloads(fn):
    same_outcome(fn)


@pytest.mark.parametrize(
    "method",
    ["float", "double", "half", "bfloat16", "long", "int", "short", "char", "byte", "bool"],
)
def test_dtype_methods(method):
    values = np.array([[0.0, 1.5], [2.25, 7.0]])
    same_outcome(lambda lib: getattr(make(lib, values).t(), method)())
    same_outcome(lambda lib: getattr(make(lib, values, device="meta"), method)())


def test_type_strings_and_conversions():
    assert ember.ones(2).type() == "ember.FloatTensor"
    assert ember.ones(2, dtype=ember.int64, device="meta").type() == "ember.meta.LongTensor"
    same_outcome(lambda lib: lib.ones(2).type(lib.float64))
    same_outcome(lambda lib: lib.ones(2).type(f"{lib.__name__}.IntTensor"))


@pytest.mark.parametrize("dtype", DTYPES)
def test_item(dtype):
    same_outcome(lambda lib: lib.full((1, 1), 3, dtype=dt(lib, dtype)).item())
    same_outcome(lambda lib: lib.ones(2, dtype=dt(lib, dtype)).item())
    same_outcome(lambda lib: lib.ones((), dtype=dt(lib, dtype), device="meta").item())


class _Local:
    """A Python class: type() reads its tp_name, 'Local', and refuses it."""


TYPE_ARGUMENTS = {
    "1": lambda lib: (1,),
    "0": lambda lib: (0,),
    "1.5": lambda lib: (1.5,),
    "True": lambda lib: (True,),
    "a device": lambda lib: (lib.device("cpu"),),
    "a list": lambda lib: ([1],),
    "a tensor": lambda lib: (lib.ones(1),),
    "'lib.DoubleTensor'": lambda lib: (f"{lib.__name__}.DoubleTensor",),
    "'lib.FloatTensor'": lambda lib: (f"{lib.__name__}.FloatTensor",),
    "'lib.Tensor'": lambda lib: (f"{lib.__name__}.Tensor",),
    "'lib.meta.FloatTensor'": lambda lib: (f"{lib.__name__}.meta.FloatTensor",),
    "'lib.cuda.FloatTensor'": lambda lib: (f"{lib.__name__}.cuda.FloatTensor",),
    "'DoubleTensor'": lambda lib: ("DoubleTensor",),
    "'lib.float64'": lambda lib: (f"{lib.__name__}.float64",),
    "lib.Tensor": lambda lib: (lib.Tensor,),
    "lib.Size": lambda lib: (lib.Size,),
    "a Python class": lambda lib: (_Local,),
    "int": lambda lib: (int,),
    "dtype, non_blocking": lambda lib: (lib.float64, True),
    "dtype, 1": lambda lib: (lib.float64, 1),
    "three": lambda lib: (lib.float64, True, True),
    "None, True": lambda lib: (None, True),
}


@pytest.mark.parametrize("name", sorted(TYPE_ARGUMENTS))
def test_type_arguments(name):
    """THPVariable_type: a dtype, a type name or a tensor type; anything else refused."""

    def convert(lib):
        x = lib.ones(2)
        result = x.type(*TYPE_ARGUMENTS[name](lib))
        return result if isinstance(result, str) else (result, result is x)

    ours, theirs = None, None
    try:
        ours = convert(ember)
    except Exception as error:  # noqa: BLE001 (compared below)
        ours = (type(error).__name__, str(error))
    try:
        theirs = convert(torch)
    except Exception as error:  # noqa: BLE001
        theirs = (type(error).__name__, str(error))
    if isinstance(theirs, tuple) and isinstance(theirs[0], str):
        assert ours == (theirs[0], theirs[1].replace("torch", "ember")) or ours == theirs
    elif isinstance(theirs, str):
        assert ours == theirs.replace("torch", "ember")
    else:
        (our_tensor, our_same), (their_tensor, their_same) = ours, theirs
        assert our_same == their_same
        assert str(our_tensor.dtype).split(".")[-1] == str(their_tensor.dtype).split(".")[-1]
        np.testing.assert_array_equal(our_tensor.numpy(), their_tensor.numpy())


def test_type_of_a_meta_tensor_to_a_cpu_type():
    same_outcome(lambda lib: lib.ones(2, device="meta").type(f"{lib.__name__}.FloatTensor"))
