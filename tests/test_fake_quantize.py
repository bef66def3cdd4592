"""torch.fake_quantize_per_tensor_affine against PyTorch 2.13, bit for bit in float32,
float64, float16 and bfloat16: values (ties to even), the mask-gated gradient
(FakeQuantizePerTensorAffineCachemaskBackward0), the argument errors, and the float32
autocast computes it in."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    scale=st.sampled_from([0.1, 0.05, 0.3, 1 / 3, 2.0]),
    zero_point=st.integers(-8, 7),
    magnitude=st.sampled_from([0.1, 1.0, 10.0]),
)
def test_values_and_gradient(dtype, seed, scale, zero_point, magnitude):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(40) * magnitude
    a = np.concatenate([a, np.round(a * 10) / 10 + 0.05])  # halfway points: ties to even
    out = []
    for lib in (torch, ember):
        x = lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True)
        y = lib.fake_quantize_per_tensor_affine(x, scale, zero_point, -8, 7)
        y.sum().backward()
        out.append((y, x.grad))
    (ty, tg), (ey, eg) = out
    assert ey.grad_fn.name() == ty.grad_fn.name()
    assert str(ey.dtype).split(".")[-1] == str(ty.dtype).split(".")[-1]
    np.testing.assert_array_equal(ey.detach().float().numpy(), ty.detach().float().numpy())
    np.testing.assert_array_equal(eg.float().numpy(), tg.float().numpy())


@pytest.mark.parametrize(
    "args",
    [(0.1, 3, 5, 4), (0.1, 300, 0, 127), (0.1, -1, 0, 127)],
)
def test_argument_errors(args):
    def message(lib):
        with pytest.raises(RuntimeError) as info:
            lib.fake_quantize_per_tensor_affine(lib.rand(3), *args)
        return str(info.value)

    assert message(ember) == message(torch)


def test_integer_input_refused():
    def message(lib):
        with pytest.raises(NotImplementedError) as info:
            lib.fake_quantize_per_tensor_affine(lib.arange(3), 0.1, 0, 0, 127)
        return str(info.value)

    assert message(ember) == message(torch)


@pytest.mark.parametrize("case", ["dtype", "size"])
def test_backward_operator_errors(case):
    def message(lib):
        mask = lib.ones(3) if case == "dtype" else lib.ones(2, dtype=lib.bool)
        with pytest.raises(RuntimeError) as info:
            lib.ops.aten.fake_quantize_per_tensor_affine_cachemask_backward(lib.ones(3), mask)
        return str(info.value)

    assert message(ember) == message(torch)


def test_autocast_computes_it_in_float32():
    def result_dtype(lib):
        x = lib.rand(4, dtype=lib.bfloat16)
        with lib.autocast("cpu", dtype=lib.bfloat16):
            return str(lib.fake_quantize_per_tensor_affine(x, 0.1, 0, 0, 127).dtype)

    assert result_dtype(ember).split(".")[-1] == result_dtype(torch).split(".")[-1]
