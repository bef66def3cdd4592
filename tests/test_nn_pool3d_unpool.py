"""F.adaptive_avg_pool3d, F.adaptive_max_pool3d (indices), F.max_unpool1d/2d/3d and their
modules against PyTorch 2.13: values, indices, float64 gradients (and second derivatives),
grad_fn names, the operators a dispatch mode sees forward and backward, the errors of
AdaptiveAveragePooling3d.cpp / AdaptiveMaxPooling3d.cpp / MaxUnpooling.cpp and of
torch/nn/functional.py, and the modules' reprs."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from nn_normact_support import compare_autograd, same_error, same_values
from oracle import torch

import ember


def F(lib):  # noqa: N802
    return lib.nn.functional


spatial = st.lists(st.integers(1, 5), min_size=3, max_size=3)
outputs = st.lists(st.one_of(st.integers(1, 4), st.none()), min_size=3, max_size=3)
seeds = st.integers(0, 2**16)


@settings(max_examples=12, deadline=None)
@given(size=spatial, out=outputs, seed=seeds, batched=st.booleans())
def test_adaptive_avg_pool3d(size, out, seed, batched):
    shape = ([2] if batched else []) + [2] + size
    x = np.random.default_rng(seed).standard_normal(shape)
    compare_autograd(lambda L, x: F(L).adaptive_avg_pool3d(x, out), [x])
    compare_autograd(lambda L, x: F(L).adaptive_avg_pool3d(x, 1), [x])


@settings(max_examples=12, deadline=None)
@given(size=spatial, out=outputs, seed=seeds, batched=st.booleans())
def test_adaptive_max_pool3d(size, out, seed, batched):
    shape = ([2] if batched else []) + [2] + size
    x = np.random.default_rng(seed).integers(-3, 4, shape) / 2.0  # ties: the first max
    # the double backward's zeros for self: ember's zeros_like, PyTorch's TypeAndSize::zeros
    compare_autograd(lambda L, x: F(L).adaptive_max_pool3d(x, out), [x], double=True, ops="first")
    e = F(ember).adaptive_max_pool3d(ember.tensor(x), out, return_indices=True)[1]
    t = F(torch).adaptive_max_pool3d(torch.tensor(x), out, return_indices=True)[1]
    assert str(e.dtype) == "ember.int64"
    np.testing.assert_array_equal(e.numpy(), t.numpy())


def test_adaptive_max_pool3d_nan_wins():
    x = np.arange(16.0).reshape(1, 1, 2, 2, 4)
    x[0, 0, 0, 1, 1] = np.nan
    for lib in (ember, torch):
        values, indices = F(lib).adaptive_max_pool3d(lib.tensor(x), [1, 1, 2], True)
        assert np.isnan(values.numpy()[0, 0, 0, 0, 0]) and indices.tolist() == [[[[[5, 15]]]]]


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_adaptive_pools_dtypes(dtype):
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5))
    same_values(lambda L: F(L).adaptive_avg_pool3d(L.tensor(x, dtype=getattr(L, dtype)), 2),
                rtol=1e-2, atol=1e-2)  # fmt: skip
    same_values(lambda L: F(L).adaptive_max_pool3d(L.tensor(x, dtype=getattr(L, dtype)), 2))


def _pooled(dims, shape, kernel, stride, padding, seed):
    """Input values and torch's max-pool indices of them (the unpool's input)."""
    x = np.random.default_rng(seed).standard_normal(shape)
    pool = getattr(torch.nn.functional, f"max_pool{dims}d")
    _, indices = pool(torch.tensor(x), kernel, stride, padding, return_indices=True)
    return x, indices.numpy()


@st.composite
def unpool_cases(draw):
    dims = draw(st.sampled_from([1, 2, 3]))
    kernel = [draw(st.integers(1, 3)) for _ in range(dims)]
    stride = draw(st.one_of(st.none(), st.lists(st.integers(1, 3), min_size=dims, max_size=dims)))
    padding = [draw(st.integers(0, k // 2)) for k in kernel]
    size = [draw(st.integers(k, 6)) for k in kernel]
    batched = draw(st.booleans())
    shape = ([2] if batched else []) + [2] + size
    return dims, shape, kernel, stride, padding


@settings(max_examples=30, deadline=None)
@given(case=unpool_cases(), seed=seeds, sized=st.booleans())
def test_max_unpool(case, seed, sized):
    dims, shape, kernel, stride, padding = case
    x, indices = _pooled(dims, shape, kernel, stride, padding, seed)
    pooled = torch.nn.functional.__dict__[f"max_pool{dims}d"](
        torch.tensor(x), kernel, stride, padding
    ).numpy()
    steps = stride or kernel
    spatial = list(shape[-dims:])
    default = [(pooled.shape[-dims + d] - 1) * steps[d] + kernel[d] - 2 * padding[d]
               for d in range(dims)]  # fmt: skip
    # the original size, given where the default one is too small for the indices
    output_size = spatial if sized or default != spatial else None
    assume(all(default[d] - steps[d] < spatial[d] < default[d] + steps[d] for d in range(dims)))
    index = {lib: lib.tensor(indices) for lib in (ember, torch)}  # made outside the mode

    def unpool(L, values):
        fn = getattr(F(L), f"max_unpool{dims}d")
        return fn(values, index[L], kernel, stride, padding, output_size)

    compare_autograd(unpool, [pooled])


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_max_unpool_dtypes(dtype):
    x, indices = _pooled(2, (1, 2, 4, 4), 2, None, 0, 1)
    pooled = torch.nn.functional.max_pool2d(torch.tensor(x), 2).numpy()
    same_values(lambda L: F(L).max_unpool2d(
        L.tensor(pooled, dtype=getattr(L, dtype)), L.tensor(indices), 2))  # fmt: skip


def test_adaptive_avg_pool3d_half_sums_in_half():
    x = np.random.default_rng(4).standard_normal((1, 2, 5, 3, 4))
    e, t = same_values(lambda L: F(L).adaptive_avg_pool3d(L.tensor(x, dtype=L.float16), (2, 3, 3)),
                       rtol=0, atol=0)  # fmt: skip


def test_max_unpool_layouts_and_empty_batch():
    x, indices = _pooled(2, (2, 3, 4, 4), 2, None, 0, 7)
    pooled = torch.nn.functional.max_pool2d(torch.tensor(x), 2).numpy()

    def channels_last(L):
        values = L.tensor(pooled).contiguous(memory_format=L.channels_last)
        index = L.tensor(indices).contiguous(memory_format=L.channels_last)
        return F(L).max_unpool2d(values, index, 2)

    e, t = same_values(channels_last)
    assert e.stride() == t.stride()
    e, t = same_values(
        lambda L: F(L).max_unpool2d(L.ones(0, 2, 2, 2), L.zeros(0, 2, 2, 2).long(), 2)
    )
    e, t = same_values(
        lambda L: F(L).max_unpool3d(L.ones(0, 1, 1, 1, 2), L.zeros(0, 1, 1, 1, 2).long(), 2)
    )


def test_max_unpool_repeated_index_keeps_the_last():
    for lib in (ember, torch):
        out = F(lib).max_unpool1d(lib.tensor([[[1.0, 2.0, 3.0]]]), lib.tensor([[[1, 1, 4]]]), 2)
        assert out.tolist() == [[[0.0, 2.0, 0.0, 0.0, 3.0, 0.0]]]


ERRORS = [
    lambda L: F(L).adaptive_avg_pool3d(L.ones(2, 3, 4), (2, 2, 2)),
    lambda L: F(L).adaptive_avg_pool3d(L.ones(2, 3, 4), 2),
    lambda L: F(L).adaptive_avg_pool3d(L.ones(2, 3, 4, 5).long(), 2),
    lambda L: F(L).adaptive_avg_pool3d(L.ones(2, 3, 0, 5), 2),
    lambda L: F(L).adaptive_avg_pool3d(L.ones(2, 3, 4, 5), (2, -2, 2)),
    lambda L: L._C._nn.adaptive_avg_pool3d(L.ones(2, 3, 4, 5), [2, 2]),
    lambda L: F(L).adaptive_max_pool3d(L.ones(2, 3, 4), 2),
    lambda L: F(L).adaptive_max_pool3d(L.ones(2, 3, 4, 5).long(), 2),
    lambda L: F(L).adaptive_max_pool3d(L.ones(2, 3, 0, 5), 2),
    lambda L: F(L).adaptive_max_pool3d(L.ones(2, 3, 4, 5), (2, -2, 2)),
    lambda L: L._C._nn.adaptive_max_pool3d(L.ones(2, 3, 4, 5), [2, 2]),
    lambda L: F(L).max_unpool2d(L.ones(1, 2, 2, 2), L.zeros(1, 2, 2, 1).long(), 2),
    lambda L: F(L).max_unpool2d(L.ones(1, 2, 2, 2), L.zeros(1, 2, 2, 2).int(), 2),
    lambda L: F(L).max_unpool2d(L.ones(2, 2), L.zeros(2, 2).long(), 2),
    lambda L: F(L).max_unpool2d(L.ones(1, 2, 2, 2), L.zeros(1, 2, 2, 2).long() + 16, 2),
    lambda L: F(L).max_unpool2d(L.ones(1, 0, 2, 2), L.zeros(1, 0, 2, 2).long(), 2),
    lambda L: F(L).max_unpool2d(
        L.ones(1, 2, 2, 2), L.zeros(1, 2, 2, 2).long(), 2, output_size=(9, 9)
    ),  # fmt: skip
    lambda L: F(L).max_unpool2d(
        L.ones(1, 2, 2, 2), L.zeros(1, 2, 2, 2).long(), 2, output_size=(4,)
    ),  # fmt: skip
    lambda L: F(L).max_unpool1d(L.ones(1, 2, 1), L.zeros(1, 2, 1).long(), 1, padding=1),
    lambda L: F(L).max_unpool3d(L.ones(1, 1, 1, 2, 2, 2), L.zeros(1, 1, 1, 2, 2, 2).long(), 2),
    lambda L: F(L).max_unpool3d(L.ones(2, 2, 2), L.zeros(2, 2, 2).long(), 2),
    lambda L: F(L).max_unpool3d(L.ones(1, 1, 2, 2, 2), L.zeros(1, 1, 2, 2, 2).int(), 2),
    lambda L: F(L).max_unpool3d(L.ones(1, 1, 2, 2, 2), L.zeros(1, 1, 2, 2, 1).long(), 2),
    lambda L: F(L).max_unpool3d(L.ones(1, 1, 1, 1, 2), L.tensor([[[[[0, 99]]]]]), 2),
    lambda L: L._C._nn.max_unpool3d(
        L.ones(1, 1, 1, 1, 1), L.zeros(1, 1, 1, 1, 1).long(), [2, 2, 2], [0, 2, 2], [0, 0, 0]
    ),  # fmt: skip
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors(index):
    same_error(ERRORS[index])


MODULES = [
    lambda nn: nn.AdaptiveAvgPool3d((2, None, 3)),
    lambda nn: nn.AdaptiveAvgPool3d(1),
    lambda nn: nn.AdaptiveMaxPool3d(2, return_indices=True),
    lambda nn: nn.MaxUnpool1d(2),
    lambda nn: nn.MaxUnpool2d(3, stride=2, padding=1),
    lambda nn: nn.MaxUnpool3d((1, 2, 3), stride=(2, 2, 1)),
]


@pytest.mark.parametrize("index", range(len(MODULES)))
def test_module_reprs(index):
    e, t = MODULES[index](ember.nn), MODULES[index](torch.nn)
    assert repr(e) == repr(t)
    for name in ("output_size", "return_indices", "kernel_size", "stride", "padding"):
        assert getattr(e, name, None) == getattr(t, name, None), name


def test_modules_forward():
    x = np.random.default_rng(2).standard_normal((2, 2, 4, 4, 4))
    compare_autograd(lambda L, x: L.nn.AdaptiveAvgPool3d((2, None, 3))(x), [x])
    compare_autograd(lambda L, x: L.nn.AdaptiveMaxPool3d(3)(x), [x])
    for dims in (1, 2, 3):
        shape = (2, 2) + (4,) * dims
        values, indices = _pooled(dims, shape, 2, None, 0, dims)
        pooled = torch.nn.functional.__dict__[f"max_pool{dims}d"](torch.tensor(values), 2)
        index = {lib: lib.tensor(indices) for lib in (ember, torch)}
        module = f"MaxUnpool{dims}d"
        compare_autograd(
            lambda L, v, m=module, i=index, s=shape: getattr(L.nn, m)(2)(v, i[L], list(s)),
            [pooled.numpy()],
        )
