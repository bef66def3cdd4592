"""Where NumPy cannot hold what PyTorch can, ember refuses in its own words.

PyTorch's tensors may have more than 64 dimensions; NumPy's arrays may not. ember raises a
RuntimeError naming the limit, at allocation, at a view's data access and at an operator,
rather than letting NumPy's ValueError escape.
"""

from __future__ import annotations

import pytest
from oracle import torch

import ember

MESSAGE = "ember cannot hold a tensor of 65 dimensions: NumPy's arrays have at most 64"


def test_torch_holds_65_dimensions():
    assert torch.zeros([1] * 65).dim() == 65  # what ember cannot follow


@pytest.mark.parametrize(
    "program",
    [
        lambda: ember.zeros([1] * 65),
        lambda: ember.zeros(3).reshape([1] * 64 + [3]) + 1,
        lambda: ember.zeros(3).view([1] * 64 + [3]).sum(),
        lambda: ember.zeros(3).expand([1] * 64 + [3]).clone(),
    ],
)
def test_more_than_64_dimensions_refused(program):
    with pytest.raises(RuntimeError) as caught:
        program()
    assert str(caught.value) == MESSAGE


def test_64_dimensions_work():
    x = ember.ones([1] * 63 + [2])
    assert x.dim() == 64 and float(x.sum()) == 2.0
