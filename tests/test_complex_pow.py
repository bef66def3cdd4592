"""Complex pow as PyTorch's CPU kernel computes it: std::pow of complex operands, which is
glibc's cpow, exp(y * log(x)) (not NumPy's power, which multiplies out integer exponents).

Layer: tests (aten/ufunc.py pow). Differential against torch, bit for bit, on a grid of
ordinary and special values (zeros, infinities, NaN), for tensor ** tensor, number ** tensor
and tensor ** number.
"""

from __future__ import annotations

import numpy as np
import pytest
from oracle import torch

import ember

VALUES = [0, -0.0, 1, -1, 1j, -1j, 0.5 + 0.5j, -2 + 3j, 1e-30 + 0j, 3e30 + 1j]
SPECIAL = [np.inf, -np.inf, complex(0, np.inf), complex(np.nan, 0)]
DTYPES = ["complex64", "complex128"]


def _same_bits(got, expected) -> None:
    for part in ("real", "imag"):
        a, b = getattr(got, part), getattr(expected, part)
        assert np.array_equal(np.isnan(a), np.isnan(b))
        keep = ~np.isnan(b)
        assert np.array_equal(a[keep], b[keep])
        assert np.array_equal(np.signbit(a[keep]), np.signbit(b[keep]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_tensor_to_tensor(dtype):
    values = np.array(VALUES + SPECIAL, dtype=dtype)
    base, power = (a.ravel() for a in np.meshgrid(values, values))
    expected = torch.pow(torch.tensor(base), torch.tensor(power)).numpy()
    got = ember.pow(ember.tensor(base), ember.tensor(power)).numpy()
    _same_bits(got, expected)


@pytest.mark.parametrize("number", [1j, -1j, 2.0, 0.5 + 1j, 3])
def test_number_to_tensor(number):
    exponents = np.arange(-6, 7)
    expected = torch.pow(number, torch.tensor(exponents)).numpy()
    got = ember.pow(number, ember.tensor(exponents)).numpy()
    _same_bits(got, expected)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("exponent", [2, 3, 0.5, -0.5, -1, -2, 1.5, 0.5 + 1j, 7])
def test_tensor_to_number(dtype, exponent):
    base = np.array(VALUES, dtype=dtype)
    expected = torch.pow(torch.tensor(base), exponent).numpy()
    got = ember.pow(ember.tensor(base), exponent).numpy()
    _same_bits(got, expected)
