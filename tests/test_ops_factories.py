"""Factory operators against PyTorch 2.13: empty / zeros / ones / full, *_like, new_*, ranges,
eye, random factories, fill_, and ember.tensor / as_tensor / from_numpy.

Each case builds the same thing in both libraries and compares sizes, strides,
dtype, device and values (random factories: everything but the values), and
for the main error cases the exception type and text.
"""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ops_support import _values, outcome, same, same_outcome
from oracle import torch

import ember
from ember import random as ember_random
from ember._tensor_ctors import as_tensor, from_numpy, install, tensor
from ember.aten.native import at

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
install(ember.Tensor)

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
          "float32", "float64", "complex64", "complex128"]  # fmt: skip


def dt(lib, name):
    return getattr(lib, name)


def memory_format(lib, name):
    """torch.<name> / ember's memory_format object (ember/__init__ may not export it yet)."""
    return getattr(lib, name, None) or getattr(ember._tensor_ctors, name)


shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4)


# -- empty / zeros / ones / full ------------------------------------------------------


@SETTINGS
@given(
    shape=shapes, dtype=st.sampled_from([None, *DTYPES]), device=st.sampled_from(["cpu", "meta"])
)
def test_filled_factories(shape, dtype, device):
    def kw(lib):
        return {"device": device} | ({} if dtype is None else {"dtype": dt(lib, dtype)})

    same_outcome(lambda lib: lib.zeros(shape, **kw(lib)))
    same_outcome(lambda lib: lib.ones(*shape, **kw(lib)))
    same_outcome(lambda lib: lib.full(shape, 3, **kw(lib)))
    same_outcome(lambda lib: lib.empty(shape, **kw(lib)), values=False)


@pytest.mark.parametrize("fill", [True, 7, -2, 2.5, 1 + 2j, float("inf")])
def test_full_infers_dtype_from_the_fill_value(fill):
    same_outcome(lambda lib: lib.full((2, 3), fill))
    same_outcome(lambda lib: lib.full((2,), fill, dtype=lib.float64))


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib: lib.empty(-1, 2),
        lambda lib: lib.zeros(2, -3),
        lambda lib: lib.full((2,), 300, dtype=lib.uint8),
        lambda lib: lib.full((2,), 1e300, dtype=lib.float32),
        lambda lib: lib.full((2,), 1j, dtype=lib.float32),
        lambda lib: lib.full((2,), 2**40, dtype=lib.int32),
        lambda lib: lib.full((2,), 1e6, dtype=lib.float16),
        lambda lib: lib.full((2,), -1, dtype=lib.uint8),
        lambda lib: lib.full((2,), 2.7, dtype=lib.int64),
        lambda lib: lib.full((2,), float("nan"), dtype=lib.int64),
        lambda lib: lib.zeros(2).fill_(lib.zeros(2)),
        lambda lib: lib.zeros(3).fill_(lib.zeros((), dtype=lib.int64) + 4),
        lambda lib: lib.empty_strided((2, 3), (1,)),
        lambda lib: lib.empty_strided((2, 3), (1, 2)).stride(),
        lambda lib: lib.empty_strided((2, 3), (-1, 1)),
        lambda lib: lib.zeros(2, -1, device="meta"),
        lambda lib: lib.zeros(3, dtype=lib.int16).zero_(),
    ],
)
def test_factory_errors_and_fills(fn):
    same_outcome(fn)


def _permuted(lib, shape, perm, step=1, dtype="float32"):
    """A permuted, maybe strided (non-contiguous) tensor in both libraries over the same values."""
    base = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape).transpose(perm)
    base = base[..., ::step]
    if lib is ember:
        return from_numpy(base)
    return torch.from_numpy(base)


@st.composite
def permuted_inputs(draw):
    shape = draw(st.lists(st.integers(0, 4), min_size=1, max_size=4))
    perm = draw(st.permutations(range(len(shape))))
    step = draw(st.sampled_from([1, 2]))
    return shape, list(perm), step


@SETTINGS
@given(case=permuted_inputs(), fmt=st.sampled_from([None, "contiguous_format", "preserve_format"]))
def test_like_factories_preserve_layout(case, fmt):
    shape, perm, step = case

    def source(lib):
        return _permuted(lib, shape, perm, step)

    def kw(lib):
        return {} if fmt is None else {"memory_format": memory_format(lib, fmt)}

    same_outcome(lambda lib: lib.empty_like(source(lib), **kw(lib)), values=False)
    same_outcome(lambda lib: lib.zeros_like(source(lib), **kw(lib)))
    same_outcome(lambda lib: lib.ones_like(source(lib), dtype=lib.int32, **kw(lib)))
    same_outcome(lambda lib: lib.full_like(source(lib), 2.5, **kw(lib)))
    same_outcome(lambda lib: lib.rand_like(source(lib), **kw(lib)), values=False)
    same_outcome(lambda lib: lib.randn_like(source(lib), device="meta", **kw(lib)))


def test_channels_last_empty():
    same_outcome(
        lambda lib: lib.empty(2, 3, 4, 5, memory_format=memory_format(lib, "channels_last")),
        values=False,
    )
    same_outcome(lambda lib: lib.empty(2, 3, memory_format=memory_format(lib, "channels_last")))


def test_new_factories_take_self_dtype_and_device():
    for device in ("cpu", "meta"):

        def base(lib, device=device):
            return lib.zeros(2, dtype=lib.float64, device=device)

        same_outcome(lambda lib: base(lib).new_zeros(2, 3))
        same_outcome(lambda lib: base(lib).new_ones((3,), dtype=lib.int16))
        same_outcome(lambda lib: base(lib).new_full((2,), 4))
        same_outcome(lambda lib: base(lib).new_empty((2, 1)), values=False)
        same_outcome(lambda lib: base(lib).new_tensor([1, 2]))


# -- ranges -----------------------------------------------------------------------------

numbers = st.one_of(st.integers(-20, 20), st.floats(-20, 20).map(lambda x: round(x, 2)))


@SETTINGS
@given(
    start=numbers,
    end=numbers,
    step=numbers,
    dtype=st.sampled_from([None, "int32", "int64", "float16", "float32", "float64"]),
)
def test_arange(start, end, step, dtype):
    def kw(lib):
        return {} if dtype is None else {"dtype": dt(lib, dtype)}

    same_outcome(lambda lib: lib.arange(start, end, step, **kw(lib)))
    same_outcome(lambda lib: lib.arange(end, **kw(lib)))
    same_outcome(lambda lib: lib.arange(start, end, device="meta"))


@pytest.mark.parametrize(
    "args",
    [(0, 1, 0), (5, 0), (0, float("inf")), (0, 1e20, 1e-10), (0.5, 2.5, 0.5), (True, 3),
     (-1.5, 2.7, 0.3), (0, 1, 0.1), (0, 100, 0.7), (0, 1, 0.3, "int64")],
)  # fmt: skip
def test_arange_edges(args):
    *args, dtype = args if isinstance(args[-1], str) else (*args, None)
    same_outcome(lambda lib: lib.arange(*args, dtype=dtype and dt(lib, dtype)))
    same_outcome(lambda lib: lib.arange(5, dtype=lib.bool))


def test_arange_out_resizes_and_warns():
    e_out, t_out = ember.zeros(2), torch.zeros(2)
    with pytest.warns(UserWarning, match="does not match the computed number of elements 5"):
        at.arange_start_out(0, 5, 1, e_out)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.ops.aten.arange.start_out(0, 5, 1, out=t_out)
    same(e_out, t_out)


@SETTINGS
@given(
    start=numbers,
    end=numbers,
    steps=st.integers(0, 9),
    dtype=st.sampled_from(["int64", "float32", "float64"]),
)
def test_linspace(start, end, steps, dtype):
    e = ember.linspace(start, end, steps, dtype=dt(ember, dtype))
    t = torch.linspace(start, end, steps, dtype=dt(torch, dtype))
    same(e, t)  # exactly: see Note [Vectorized range values]


def test_linspace_defaults_and_errors():
    same_outcome(lambda lib: lib.linspace(0, 10, 5))
    same_outcome(lambda lib: lib.linspace(0, 1j, 3))
    same_outcome(lambda lib: lib.linspace(0, 1, -1))
    same_outcome(lambda lib: lib.linspace(0, 1, 4, device="meta"))


@pytest.mark.parametrize("args", [(3,), (0,), (2, 4), (4, 2), (-1,), (2, -1)])
def test_eye(args):
    same_outcome(lambda lib: lib.eye(*args))
    same_outcome(lambda lib: lib.eye(*args, dtype=lib.int64, device="meta"))


# -- random factories ----------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "complex64"])
def test_rand_and_randn_shapes_and_ranges(dtype):
    same_outcome(lambda lib: lib.rand(3, 4, dtype=dt(lib, dtype)), values=False)
    same_outcome(lambda lib: lib.randn(2, 0, dtype=dt(lib, dtype), device="meta"))
    values = _values(ember.rand(1000, dtype=dt(ember, dtype)))
    assert (values.real >= 0).all() and (values.real < 1).all()


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib: lib.rand(2, dtype=lib.int64),
        lambda lib: lib.randn(2, dtype=lib.bool),
        lambda lib: lib.randint(5, 5, (2,)),
        lambda lib: lib.randint(0, 300, (2,), dtype=lib.uint8),
        lambda lib: lib.randint(-1, 3, (2,), dtype=lib.uint8),
        lambda lib: lib.randint(-(2**40), 3, (2,), dtype=lib.int16),
        lambda lib: lib.randint(-3, 0, (2,), dtype=lib.bool),
        lambda lib: lib.randint(3, (2,), dtype=lib.complex64),
        lambda lib: lib.randint(0, 70000, (2,), dtype=lib.float16),
    ],
)
def test_random_errors(fn):
    same_outcome(fn)


def test_randint_dtypes_and_bounds():
    same_outcome(lambda lib: lib.randint(10, (3, 2)), values=False)
    same_outcome(lambda lib: lib.randint(-5, 5, (4,), dtype=lib.float32), values=False)
    values = ember.randint(-5, 5, (1000,)).numpy()
    assert values.min() >= -5 and values.max() < 5


def test_manual_seed_reproduces_values():
    generator = ember_random.manual_seed(1234)
    assert generator.initial_seed() == 1234
    first = (ember.rand(5).numpy(), ember.randn(3).numpy(), ember.randint(9, (4,)).numpy())
    ember_random.manual_seed(1234)
    second = (ember.rand(5).numpy(), ember.randn(3).numpy(), ember.randint(9, (4,)).numpy())
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    assert ember_random.initial_seed() == 1234
    fresh = ember_random.seed()
    assert ember_random.initial_seed() == fresh


# -- ember.tensor / as_tensor / from_numpy -------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        [[1, 2], [3, 4]], [1, 2.5], True, [True, 1], 3.5, 1 + 2j, [1 + 2j, 1], [], [[], []],
        (1, 2), range(3), np.float64(1.0), [np.int32(1)], np.arange(6).reshape(2, 3),
        np.ones((2, 2), dtype=np.float16), [[1, 2], [3]], [[1, 2], 3], ["a"], [1, None],
        2**63, {1: 2}, [np.array([1, 2]), np.array([3, 4])],
    ],
)  # fmt: skip
def test_tensor_infers_dtype_and_shape(data):
    def make(lib):
        return tensor(data) if lib is ember else torch.tensor(data)

    same_outcome(make)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "float16", "bool", "complex64"])
@pytest.mark.parametrize("data", [[300], [-1], [1.7, -2.2], [1e40]])
def test_tensor_with_dtype(dtype, data):
    def make(lib):
        fn = tensor if lib is ember else torch.tensor
        return fn(data, dtype=dt(lib, dtype))

    same_outcome(make)


def test_tensor_from_tensor_warns_and_copies():
    source = tensor([1.0, 2.0])
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        copy = tensor(source, dtype=ember.float64)
    assert copy.dtype is ember.float64
    copy[0] = 5 if hasattr(ember.Tensor, "__setitem__") else 0
    assert source.tolist() == [1.0, 2.0]
    on_meta = tensor([[1, 2]], device="meta")
    assert on_meta.device.type == "meta" and tuple(on_meta.shape) == (1, 2)
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        tensor([1], requires_grad=True)
    assert tensor([1.0], requires_grad=True).requires_grad


def test_from_numpy_shares_memory():
    array = np.arange(12.0).reshape(3, 4)[:, 1::2]
    e, t = from_numpy(array), torch.from_numpy(array)
    same(e, t)
    array[0, 0] = 100
    assert e.tolist() == t.tolist()
    assert as_tensor(array).tolist() == t.tolist()
    array[1, 1] = -1
    assert as_tensor(array).tolist()[1][1] == -1
    assert as_tensor(e) is e
    assert as_tensor(array, dtype=ember.float32).dtype is ember.float32
    for bad in ([1], np.arange(3)[::-1], np.array(["a"])):
        _, e_error = outcome(
            lambda lib, bad=bad: from_numpy(bad) if lib is ember else torch.from_numpy(bad), ember
        )
        _, t_error = outcome(lambda lib, bad=bad: torch.from_numpy(bad), torch)
        assert type(e_error) is type(t_error) and str(e_error) == str(t_error)


def test_generator_argument():
    generator = ember_random.Generator().manual_seed(7)
    first = [ember.rand(4, generator=generator), ember.randn(2, 2, generator=generator)]
    first.append(ember.randint(3, 9, (5,), generator=generator, dtype=ember.int32))
    generator.manual_seed(7)
    second = [ember.rand(4, generator=generator), ember.randn(2, 2, generator=generator)]
    second.append(ember.randint(3, 9, (5,), generator=generator, dtype=ember.int32))
    for a, b in zip(first, second):
        assert a.dtype == b.dtype and a.tolist() == b.tolist()
    same_outcome(lambda lib: lib.randint(4, (2, 3), generator=None), values=False)
    same_outcome(lambda lib: lib.rand(2, generator=lib.Generator(), device="meta"))
    assert repr(generator).startswith("<ember._C.Generator object at 0x")


_LAYOUT_ARRAYS = {
    "transposed": lambda: np.arange(6, dtype=np.float32).reshape(3, 2).T,
    "sliced": lambda: np.arange(12, dtype=np.float32).reshape(4, 3)[::2],
    "permuted": lambda: np.arange(24, dtype=np.float32).reshape(2, 3, 4).transpose(2, 0, 1),
    "broadcast": lambda: np.broadcast_to(np.arange(3, dtype=np.float32), (2, 3)),
    "empty_2d": lambda: np.zeros((0, 1), np.float32),
    "empty_3d": lambda: np.zeros((2, 0, 3), np.float32),
}
_LAYOUT_TENSORS = {
    "transposed": lambda t: t.arange(6.0).reshape(3, 2).t(),
    "sliced": lambda t: t.arange(12.0).reshape(4, 3)[::2],
    "expanded": lambda t: t.arange(3.0).expand(2, 3),
    "empty_transposed": lambda t: t.empty(0, 2).t(),
    "meta_transposed": lambda t: t.ones(3, 2, device="meta").t(),
}


@pytest.mark.parametrize("dtype", [None, "int32"])
@pytest.mark.parametrize("device", [None, "meta"])
@pytest.mark.parametrize("name", sorted(_LAYOUT_ARRAYS))
def test_tensor_of_an_array_keeps_a_dense_layout(name, device, dtype):
    """torch.tensor(ndarray) copies with preserve_format: a dense layout (transposed,
    permuted, an empty array's strides) is kept, any other becomes dense."""

    def program(t):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # torch.tensor does not warn for read-only arrays
            result = t.tensor(
                _LAYOUT_ARRAYS[name](),
                dtype=None if dtype is None else getattr(t, dtype),
                device=device,
            )
        values = None if device == "meta" else result.tolist()
        return tuple(result.shape), result.stride(), str(result.dtype).split(".")[1], values

    same_outcome(program)


@pytest.mark.parametrize("name", sorted(_LAYOUT_TENSORS))
def test_tensor_of_a_tensor_keeps_a_dense_layout(name):
    def program(t):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = t.tensor(_LAYOUT_TENSORS[name](t), dtype=t.float64)
        values = None if result.device.type == "meta" else result.tolist()
        return tuple(result.shape), result.stride(), str(result.dtype).split(".")[1], values

    same_outcome(program)
