"""The dropout family's composites: dropout(_), feature_dropout(_), alpha_dropout(_),
feature_alpha_dropout(_).

Layer: aten (CompositeImplicitAutograd). In: a tensor, the drop probability p, train.
Out: the input times Bernoulli(1 - p) noise (one draw per element, or per channel for
the feature variants, whose noise has size 1 past dim 1), scaled by 1 / (1 - p); the
alpha variants keep SELU's mean and variance with PyTorch's a and b. Built from the
operators PyTorch's _dropout_impl calls (empty_like / new_empty, bernoulli_.float,
div_, mul, add), so a mode sees PyTorch's list and the numbers follow the same stream.
Mirrors ATen/native/Dropout.cpp.
"""

from __future__ import annotations

import math

from ember.aten.native import at

__all__ = [
    "dropout",
    "dropout_",
    "feature_dropout",
    "feature_dropout_",
    "alpha_dropout",
    "alpha_dropout_",
    "feature_alpha_dropout",
    "feature_alpha_dropout_",
]

_ALPHA = 1.7580993408473766  # SELU's -alpha * scale


def _feature_noise(input):  # noqa: A002 (PyTorch's name)
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    sizes = [input.size(0), input.size(1)] + [1] * (input.dim() - 2)
    return at.new_empty(input, sizes, None, None, None, None)


def _multiply(input, noise, inplace: bool):  # noqa: A002
    return at.mul__Tensor(input, noise) if inplace else at.mul_Tensor(input, noise)


def _dropout_impl(input, p, train, feature: bool, alpha: bool, inplace: bool):  # noqa: A002
    if not (0 <= p <= 1):
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        return _multiply(input, at.zeros([], input.dtype, None, input.device, None), inplace)
    if feature:
        noise = _feature_noise(input)
    else:
        noise = at.empty_like(input, None, None, None, None, None)
    at.bernoulli__float(noise, 1 - p, None)
    if not alpha:
        at.div__Scalar(noise, 1 - p)
        return _multiply(input, noise, inplace)
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    b = at.add_Scalar(noise, -1, 1)
    at.mul__Scalar(b, _ALPHA * a)
    at.add__Scalar(b, _ALPHA * a * p, 1)
    at.mul__Scalar(noise, a)
    return at.add__Tensor(_multiply(input, noise, inplace), b, 1)


def dropout(input, p, train):  # noqa: A002
    return _dropout_impl(input, p, train, False, False, False)


def dropout_(self, p, train):
    return _dropout_impl(self, p, train, False, False, True)


def feature_dropout(input, p, train):  # noqa: A002
    return _dropout_impl(input, p, train, True, False, False)


def feature_dropout_(self, p, train):
    return _dropout_impl(self, p, train, True, False, True)


def alpha_dropout(input, p, train):  # noqa: A002
    return _dropout_impl(input, p, train, False, True, False)


def alpha_dropout_(self, p, train):
    return _dropout_impl(self, p, train, False, True, True)


def feature_alpha_dropout(input, p, train):  # noqa: A002
    return _dropout_impl(input, p, train, True, True, False)


def feature_alpha_dropout_(self, p, train):
    return _dropout_impl(self, p, train, True, True, True)
