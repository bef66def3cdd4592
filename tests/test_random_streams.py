"""A seed gives PyTorch's random values: rand, randn, randint, dropout and the generator's state.

Differential against PyTorch 2.13 (Note [Random values are PyTorch's] in
ember/aten/native/distributions.py). Where PyTorch computes with vectorised float
functions (randn of 16 or more elements) the values agree to 1e-6 (float) or 1e-15
(double); every
other path agrees bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from oracle import torch

import ember

SIZES = (1, 3, 15, 16, 17, 31, 33, 264, 1001)
SEEDS = (0, 1, 123456789, 2**40 + 7, -5)
FLOATS = ("float32", "float64", "float16", "bfloat16", "complex64", "complex128")


def _bits(t):
    """The elements as a float32 / float64 NumPy array (complex as pairs, half widened)."""
    if str(t.dtype).endswith("float16"):  # float16 and bfloat16
        t = t.float()
    array = t.numpy()
    if np.iscomplexobj(array):
        array = array.view(array.real.dtype)
    return array


def _draw(lib, op, seed, n, dtype_name, **kwargs):
    lib.manual_seed(seed)
    return _bits(getattr(lib, op)(n, dtype=getattr(lib, dtype_name), **kwargs))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("seed", SEEDS)
def test_rand_is_torch_bit_for_bit(seed, dtype):
    for n in SIZES:
        np.testing.assert_array_equal(
            _draw(ember, "rand", seed, n, dtype), _draw(torch, "rand", seed, n, dtype)
        )


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("seed", SEEDS)
def test_randn_is_torch(seed, dtype):
    same = total = 0
    for n in SIZES:
        ours, theirs = _draw(ember, "randn", seed, n, dtype), _draw(torch, "randn", seed, n, dtype)
        if ours.size < 16 or dtype in ("float16", "bfloat16"):  # double Box-Muller, or rounded
            np.testing.assert_array_equal(ours, theirs)
        else:  # PyTorch's vectorised log/sin/cos are within an ulp or two of libm's
            tol = 1e-6 if ours.dtype == np.float32 else 1e-15
            np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)
            same, total = same + int((ours == theirs).sum()), total + ours.size
    if total:
        assert same / total > (0.8 if dtype in ("float32", "complex64") else 0.99)


def test_randn_caches_the_second_normal_sample_across_calls():
    """normal_distribution<double> keeps the sine sample in the generator: an odd-sized draw
    leaves one behind for the next call, and manual_seed drops it."""
    for lib in (torch, ember):
        lib.manual_seed(3)
    for n in (1, 2, 5, 1, 20, 3):  # the fill path (20) neither uses nor drops the cache
        ours, theirs = ember.randn(n).numpy(), torch.randn(n).numpy()
        np.testing.assert_allclose(
            ours, theirs, rtol=0 if n < 16 else 1e-6, atol=0 if n < 16 else 1e-6
        )
    torch.randn(1), ember.randn(1)  # leaves a cached sample behind
    torch.manual_seed(3), ember.manual_seed(3)
    np.testing.assert_array_equal(ember.randn(3).numpy(), torch.randn(3).numpy())


@pytest.mark.parametrize("seed", SEEDS)
def test_randint_is_torch_bit_for_bit(seed):
    for low, high, dtype in ((0, 10, "int64"), (-5, 2**40, "int64"), (0, 7, "int16"),
                             (-3, 3, "float32"), (0, 2, "uint8"), (2**31, 2**33, "float64")):  # fmt: skip
        for n in (1, 17, 300):
            torch.manual_seed(seed), ember.manual_seed(seed)
            ours = ember.randint(low, high, (n,), dtype=getattr(ember, dtype))
            theirs = torch.randint(low, high, (n,), dtype=getattr(torch, dtype))
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_generator_objects_draw_torch_streams():
    ours, theirs = ember.Generator().manual_seed(5), torch.Generator().manual_seed(5)
    for _ in range(3):
        np.testing.assert_array_equal(
            ember.rand(7, generator=ours).numpy(), torch.rand(7, generator=theirs).numpy()
        )
        np.testing.assert_array_equal(
            ember.randn(5, generator=ours).numpy(), torch.randn(5, generator=theirs).numpy()
        )
        a = ember.randint(0, 100, (9,), generator=ours).numpy()
        np.testing.assert_array_equal(a, torch.randint(0, 100, (9,), generator=theirs).numpy())
    assert ours.initial_seed() == theirs.initial_seed() == 5


def test_rng_state_bytes_are_torch_layout():
    """get_rng_state is CPUGeneratorImplState byte for byte: fresh, after draws, with a
    cached normal sample; and each library restores the other's state."""
    for lib in (torch, ember):
        lib.manual_seed(2**40 + 9)
    np.testing.assert_array_equal(ember.get_rng_state().numpy(), torch.get_rng_state().numpy())
    for draw in (
        lambda lib: lib.rand(700),
        lambda lib: lib.randn(3),
        lambda lib: lib.randint(0, 5, (2,)),
    ):
        draw(torch), draw(ember)
        np.testing.assert_array_equal(ember.get_rng_state().numpy(), torch.get_rng_state().numpy())
    state = torch.get_rng_state()
    expected = torch.randn(3).numpy(), torch.rand(40).numpy()
    ember.set_rng_state(ember.tensor(state.numpy()))
    np.testing.assert_array_equal(ember.randn(3).numpy(), expected[0])
    np.testing.assert_array_equal(ember.rand(40).numpy(), expected[1])
    saved = ember.get_rng_state()
    after = ember.randn(5).numpy()
    torch.set_rng_state(torch.tensor(saved.numpy()))
    np.testing.assert_array_equal(torch.randn(5).numpy(), after)


def test_bad_rng_states_are_refused_as_torch_does():
    good = torch.get_rng_state()
    invalid = good.clone()
    invalid[8:12] = 0  # left = 0
    before = ember.get_rng_state().numpy()
    for state in (torch.zeros(10, dtype=torch.uint8), good[:5048].clone(), invalid):
        with pytest.raises(RuntimeError) as theirs:
            torch.set_rng_state(state)
        with pytest.raises(RuntimeError) as ours:
            ember.set_rng_state(ember.tensor(state.numpy()))
        assert str(ours.value) == str(theirs.value)
    np.testing.assert_array_equal(ember.get_rng_state().numpy(), before)  # nothing changed
    torch.set_rng_state(good)


def _portable_bernoulli(seed: int, n: int, p: float) -> np.ndarray:
    """PyTorch's portable CPU Bernoulli from first principles: mt19937 words seeded by
    init_genrand, two per 53-bit double uniform (the first the high half), u < p."""
    bits = np.random.MT19937()
    bits._legacy_seeding(seed & 0xFFFF_FFFF)
    words = bits.random_raw(2 * n)
    wide = (words[0::2] << np.uint64(32)) | words[1::2]
    return (wide & np.uint64(2**53 - 1)).astype(np.float64) * 2.0**-53 < p


@pytest.mark.parametrize("shape,transpose", [((4, 6), False), ((5, 7), True), ((1000,), False)])
@pytest.mark.parametrize("p", [0.3, 0.5, 0.9])
def test_dropout_masks_are_torch(shape, transpose, p):
    """F.dropout draws empty_like(x).bernoulli_(1 - p) in memory order. PyTorch's x86
    build sends Bernoulli through MKL on Intel CPUs; where this machine's PyTorch does
    that, ember is held to the portable kernel it runs elsewhere."""
    x = np.arange(1, 1 + int(np.prod(shape)), dtype=np.float32).reshape(shape)
    ours_x, torch_x = ember.tensor(x), torch.tensor(x)
    if transpose:
        ours_x, torch_x = ours_x.t(), torch_x.t()
    torch.manual_seed(11), ember.manual_seed(11)
    ours = ember.nn.functional.dropout(ours_x, p).numpy()
    theirs = torch.nn.functional.dropout(torch_x, p).numpy()
    keep = _portable_bernoulli(11, x.size, 1 - p).reshape(shape)
    portable = x * keep.astype(np.float32) * (np.float32(1) / np.float32(1 - p))
    portable = portable.T if transpose else portable
    torch_is_portable = np.array_equal(theirs != 0, portable != 0)
    np.testing.assert_array_equal(ours, theirs if torch_is_portable else portable)
