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


# -- the in-place kernels: uniform_, normal_, random_, bernoulli_ -----------------------------

INPLACE_CASES = {
    "uniform_ f32": lambda lib: lib.empty(500).uniform_(-2.5, 7.25),
    "uniform_ f64": lambda lib: lib.empty(500, dtype=lib.float64).uniform_(-2.5, 7.25),
    "uniform_ bf16": lambda lib: lib.empty(500, dtype=lib.bfloat16).uniform_(-2.5, 7.25),
    "uniform_ f16": lambda lib: lib.empty(500, dtype=lib.float16).uniform_(-2.5, 7.25),
    "uniform_ complex": lambda lib: lib.empty(9, dtype=lib.complex64).uniform_(1, 3),
    "uniform_ transposed": lambda lib: lib.empty(5, 7).t().uniform_(1, 2),
    "uniform_ kaiming bound": lambda lib: lib.empty(64, 33).uniform_(-(33**-0.5), 33**-0.5),
    "normal_ f32": lambda lib: lib.empty(50).normal_(1.5, 0.3),
    "normal_ f64": lambda lib: lib.empty(50, dtype=lib.float64).normal_(1.5, 0.3),
    "normal_ small": lambda lib: lib.empty(5).normal_(1.5, 0.3),
    "normal_ transposed": lambda lib: lib.empty(20, 3).t().normal_(-1, 2),
    "normal_ bf16": lambda lib: lib.empty(40, dtype=lib.bfloat16).normal_(1.5, 0.3),
    "normal_ complex": lambda lib: lib.empty(20, dtype=lib.complex64).normal_(1.5, 2.0),
    "normal_ inf std": lambda lib: lib.empty(3).normal_(0, float("inf")),
    "random_ i32 to None": lambda lib: lib.empty(4, dtype=lib.int32).random_(3, None),
    "random_ 2**28": lambda lib: lib.empty(9, dtype=lib.int64).random_(0, 2**28),
    "random_ below 2**28": lambda lib: lib.empty(9, dtype=lib.int64).random_(0, 2**28 - 1),
    "random_ to": lambda lib: lib.empty(9, dtype=lib.int16).random_(1000),
    "bernoulli_ float p": lambda lib: lib.empty(30).bernoulli_(0.3),
    "bernoulli_ bool": lambda lib: lib.empty(30, dtype=lib.bool).bernoulli_(0.6),
    "bernoulli_ f32 p": lambda lib: lib.empty(5).bernoulli_(lib.tensor([0.1, 0.5, 0.9, 0.3, 0.7])),
    "bernoulli_ f64 p": lambda lib: lib.empty(5).bernoulli_(
        lib.tensor([0.1, 0.5, 0.9, 0.3, 0.7], dtype=lib.float64)
    ),
    "bernoulli_ broadcast p": lambda lib: lib.empty(3, 4).bernoulli_(
        lib.tensor([0.2, 0.4, 0.6, 0.8])
    ),
    "bernoulli": lambda lib: lib.bernoulli(lib.full((2, 3), 0.4)),
    "bernoulli p": lambda lib: lib.bernoulli(lib.zeros(7), 0.4),
    "bernoulli out": lambda lib: lib.bernoulli(lib.full((2, 3), 0.4), out=lib.empty(0)),
    "rand_like transposed": lambda lib: lib.rand_like(lib.empty(3, 4).t()),
    "randn_like transposed": lambda lib: lib.randn_like(lib.empty(5, 8).t()),
    "randint_like transposed": lambda lib: lib.randint_like(lib.empty(3, 4).t(), 10),
    "randperm": lambda lib: lib.randperm(50),
    "randperm float": lambda lib: lib.randperm(9, dtype=lib.float32),
}
for _name in (
    "float32",
    "float64",
    "float16",
    "bfloat16",
    "int64",
    "int32",
    "int16",
    "int8",
    "uint8",
    "bool",
):
    INPLACE_CASES[f"random_() {_name}"] = lambda lib, n=_name: lib.empty(
        12, dtype=getattr(lib, n)
    ).random_()
    INPLACE_CASES[f"random_(3, None) {_name}"] = lambda lib, n=_name: lib.empty(
        12, dtype=getattr(lib, n)
    ).random_(0 if n == "bool" else 3, None)


FLOAT_FILL = {"normal_ f32", "normal_ complex"}


@pytest.mark.parametrize("case", sorted(INPLACE_CASES))
def test_inplace_random_kernels_are_torch(case):
    """Values bit for bit, and the generator left where PyTorch leaves it (the next draw)."""
    results = []
    for lib in (torch, ember):
        lib.manual_seed(7)
        out = INPLACE_CASES[case](lib)
        results.append((_bits(out), lib.rand(3).numpy(), str(out.dtype).split(".")[-1]))
    (theirs, their_next, their_dtype), (ours, our_next, our_dtype) = results
    assert our_dtype == their_dtype
    if case in FLOAT_FILL:  # PyTorch's vectorised float log/sin/cos: within 1e-6
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)
    else:
        np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(our_next, their_next)


BAD_INPLACE = {
    "uniform_ from > to": lambda lib: lib.empty(3).uniform_(2, 1),
    "uniform_ span": lambda lib: lib.empty(3).uniform_(-3e38, 3e38),
    "uniform_ long": lambda lib: lib.empty(3, dtype=lib.long).uniform_(),
    "uniform_ half bound": lambda lib: lib.empty(3, dtype=lib.float16).uniform_(0, 1e5),
    "uniform_ bool": lambda lib: lib.empty(3, dtype=lib.bool).uniform_(),
    "normal_ std": lambda lib: lib.empty(3).normal_(0, -1),
    "normal_ long": lambda lib: lib.empty(3, dtype=lib.long).normal_(),
    "bernoulli_ p": lambda lib: lib.empty(3).bernoulli_(1.5),
    "bernoulli_ p values": lambda lib: lib.empty(3).bernoulli_(lib.tensor([0.5, 2.0, 0.1])),
    "bernoulli_ p shape": lambda lib: lib.empty(3).bernoulli_(lib.tensor([0.5, 0.2])),
    "bernoulli_ long p": lambda lib: lib.bernoulli(lib.tensor([1, 0])),
    "bernoulli_ complex": lambda lib: lib.empty(3, dtype=lib.complex64).bernoulli_(0.5),
    "random_ from >= to": lambda lib: lib.empty(3).random_(5, 2),
    "random_ to 0": lambda lib: lib.empty(3).random_(0),
    "random_ uint8 bound": lambda lib: lib.empty(3, dtype=lib.uint8).random_(0, 300),
    "random_ complex": lambda lib: lib.empty(3, dtype=lib.complex64).random_(),
    "random_ bool bound": lambda lib: lib.empty(3, dtype=lib.bool).random_(0, 3),
}


@pytest.mark.parametrize("case", sorted(BAD_INPLACE))
def test_bad_inplace_random_calls_raise_as_torch(case):
    """PyTorch's type and message; ember checks before drawing, so the generator and the
    tensor are untouched (PyTorch checks a tensor p as it draws)."""
    with pytest.raises(Exception) as theirs:
        BAD_INPLACE[case](torch)
    ember.manual_seed(3)
    before = ember.get_rng_state().numpy()
    with pytest.raises(Exception) as ours:
        BAD_INPLACE[case](ember)
    assert type(ours.value).__name__ == type(theirs.value).__name__
    assert str(ours.value) == str(theirs.value)
    np.testing.assert_array_equal(ember.get_rng_state().numpy(), before)


def test_inplace_random_kernels_record_torch_nodes():
    for lib in (torch, ember):
        x = lib.ones(3, requires_grad=True)
        names = [
            x.clone().uniform_().grad_fn.name(), x.clone().normal_().grad_fn.name(),
            x.clone().bernoulli_(0.5).grad_fn.name(),
            x.clone().bernoulli_(lib.full((3,), 0.5)).grad_fn.name(),
            x.clone().random_(0, 4).grad_fn.name(), x.clone().random_(4).grad_fn.name(),
            x.clone().random_().grad_fn.name(), lib.bernoulli(x).grad_fn.name(),
            type(lib.bernoulli(x, 0.3).grad_fn).__name__,
        ]  # fmt: skip
        if lib is torch:
            expected = names
    assert names == expected
    x = ember.ones(3, requires_grad=True)
    y = x.clone().uniform_()
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(3, np.float32))
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x.uniform_()


def test_linear_style_initialisation_is_torch():
    """What nn.init.kaiming_uniform_ and a bias init draw for a 64x33 Linear, seeded."""
    outs = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        bound = 1 / 33**0.5
        with lib.no_grad():
            weight = lib.empty(64, 33).uniform_(-bound, bound)
            bias = lib.empty(64).uniform_(-bound, bound)
        outs.append((weight.numpy(), bias.numpy()))
    for ours, theirs in zip(outs[1], outs[0], strict=True):
        np.testing.assert_array_equal(ours, theirs)


def test_the_default_generator_is_seeded_from_the_os_and_a_new_one_is_not():
    assert ember.Generator().initial_seed() == torch.Generator().initial_seed() == 67280421310721
    import subprocess
    import sys

    code = "import ember; print(ember.initial_seed())"
    seeds = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout for _ in range(2)}  # fmt: skip
    assert len(seeds) == 2


def test_the_types_of_a_tensors_metadata_are_named_as_torchs():
    """type(x.shape) and friends print as PyTorch's, module ember for torch."""
    ours, theirs = ember.ones(2), torch.ones(2)
    for get in (type, lambda t: type(t.shape), lambda t: type(t.dtype), lambda t: type(t.device)):
        assert repr(get(ours)).replace("ember", "torch") == repr(get(theirs))
    import pickle

    assert pickle.loads(pickle.dumps(ember.Size([2, 3]))) == ember.Size([2, 3])


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_random_bounds_a_floating_dtype_cannot_hold_move_as_torchs(dtype):
    """update_from / update_to: random_(from, to) and randint with bounds beyond the integers
    the dtype holds exactly draw from the bounds PyTorch moves them to (or refuse alike)."""
    import random
    import warnings

    chooser = random.Random(1)
    compared = 0
    for _ in range(120):
        low = chooser.choice([0, 1, -5, 2**25 + 1, 2**30 + 7, -(2**27) - 3, 2049, 4097, 300])
        low += chooser.randint(-3, 3)
        high = low + chooser.choice([1, 2, 10, 2**20, 2**26 + 5, 2**31, 3000])
        outcomes = []
        for lib in (torch, ember):
            lib.manual_seed(0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    drawn = lib.empty(5, dtype=getattr(lib, dtype)).random_(low, high)
                    other = lib.randint(low, high, (3,), dtype=getattr(lib, dtype))
                    outcomes.append((drawn.float().tolist(), other.float().tolist()))
                except RuntimeError as e:
                    outcomes.append(str(e))
        assert outcomes[1] == outcomes[0], (low, high)
        compared += isinstance(outcomes[0], tuple)
    assert compared > 30  # half refuses most of these bounds (and alike); the rest draw
