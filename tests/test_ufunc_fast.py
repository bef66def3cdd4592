"""The arithmetic fast paths (Note [Arithmetic fast paths]): which calls take them, and that
they give exactly what the general path (meta function, allocation, ufunc formula) gives."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember
from ember.aten import meta as M
from ember.aten import ufunc as U
from ember.aten import ufunc_fast as UF
from ember.aten.binding import scalar_to_tensor


def _general(name, self, other, *extra):
    meta = getattr(M, f"{name}_Tensor")(self, other, *extra)
    out = meta.allocate()
    getattr(U, name)(meta, self, other, *extra, out)
    return out


def _tensor(values, dtype):
    return ember.tensor(values, dtype=dtype)


TAKEN = [
    ("add", "float32", lambda d: _tensor([1.5, -2.0, 3e38], d), (1,)),
    ("sub", "float64", lambda d: _tensor([[1.0, 2.0], [3.0, 4.0]], d), (1,)),
    ("mul", "int32", lambda d: _tensor([2**30, 3, -7], d), ()),
    ("mul", "int64", lambda d: _tensor([5, 6], d), ()),
    ("div", "float32", lambda d: _tensor([1.0, 0.0, -1.0], d), ()),
]


@pytest.mark.parametrize("name, dtype, make, extra", TAKEN)
@pytest.mark.parametrize("other_kind", ["tensor", "bias", "int", "float", "bool"])
def test_fast_path_matches_the_general_path(name, dtype, make, extra, other_kind):
    dtype = getattr(ember, dtype)
    self = make(dtype)
    if other_kind == "tensor":
        other = self.flip(0).contiguous()
    elif other_kind == "bias":
        other = self[0].contiguous() if self.dim() > 1 else self.flip(0).contiguous()
    else:
        other = scalar_to_tensor({"int": 3, "float": 0.1, "bool": True}[other_kind])
    fast = getattr(UF, name)(self, other, *extra)
    keeps = (
        other_kind == "tensor"
        or (other_kind != "float" or dtype.is_floating_point)
        and not (name == "sub" and other_kind == "bool")
    )
    if not keeps:
        assert fast is None  # the number would change the dtype (or sub refuses bools)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # overflow and 1/0 stay quiet, as in PyTorch
        fast = getattr(UF, name)(self, other, *extra)
        reference = _general(name, self, other, *extra)
    assert fast.dtype is reference.dtype and fast.stride() == reference.stride()
    array = fast.ndarray()  # _wrap_fresh trusts it to be C-contiguous, of the tensor's dtype
    assert array.flags.c_contiguous and array.dtype == fast.dtype.np_dtype
    np.testing.assert_array_equal(fast.numpy(), reference.numpy())
    target = self.clone()
    assert getattr(UF, name)(target, other, *extra, into=target) is target
    np.testing.assert_array_equal(target.numpy(), reference.numpy())


def test_the_general_path_handles_everything_else():
    a = ember.ones(2, 3)
    assert UF.add(a, ember.ones(2, 1), 1) is None  # broadcasting other than a bias
    assert UF.add(ember.ones(3), a, 1) is None  # the bias on the left
    assert UF.add(a, ember.ones(6)[::2], 1) is None  # a strided bias
    assert UF.add(a, a, True) is None  # a bool alpha (other alphas: test_fused_add_fast_path)
    assert UF.add(a.t(), a.t(), 1) is None  # non-contiguous
    assert UF.add(a, ember.ones(2, 3, dtype=ember.float64), 1) is None  # promotion
    assert UF.mul(ember.ones(2, dtype=ember.float16), ember.ones(2, dtype=ember.float16)) is None
    assert UF.div(ember.ones(2, dtype=ember.int64), ember.ones(2, dtype=ember.int64)) is None
    assert UF.div(a, a, "floor") is None  # a rounding mode
    assert UF.mul(scalar_to_tensor(2.0), ember.ones(2)) is None  # the number on the left
    meta = ember.empty(2, 3, device="meta")
    assert UF.add(meta, meta, 1) is None


def test_operators_through_the_fast_path_keep_versions_and_autograd():
    x = ember.ones(3, requires_grad=True)
    y = x * 2.0 + x
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0]
    b = ember.zeros(3)
    b.add_(ember.ones(3))
    b.mul_(4)
    assert b._version == 2 and b.tolist() == [4.0, 4.0, 4.0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided", "empty"])
def test_mm_fast_path_matches_the_general_path(dtype, layout):
    rng = np.random.default_rng(0)
    shapes = {"empty": ((2, 0), (0, 3))}.get(layout, ((3, 4), (4, 5)))
    a = ember.tensor(rng.standard_normal(shapes[0]), dtype=getattr(ember, dtype))
    b = ember.tensor(rng.standard_normal(shapes[1]), dtype=getattr(ember, dtype))
    if layout == "transposed":
        a, b = a.t().contiguous().t(), b.t().contiguous().t()
    if layout == "strided":
        a = ember.tensor(rng.standard_normal((3, 8)), dtype=a.dtype)[:, ::2]
    fast = UF.mm(a, b)
    meta = M.mm(a, b)
    reference = meta.allocate()
    ember.aten.native.mm_out(meta, a, b, reference)
    assert fast.stride() == reference.stride() and fast.dtype is reference.dtype
    assert fast.ndarray().flags.c_contiguous and fast.ndarray().dtype == fast.dtype.np_dtype
    np.testing.assert_array_equal(fast.numpy(), reference.numpy())


def test_mm_general_path_keeps_its_errors():
    assert UF.mm(ember.ones(2, 3), ember.ones(2, 3)) is None  # the meta function words it
    assert UF.mm(ember.ones(2, 3), ember.ones(3, 2, dtype=ember.float64)) is None
    assert UF.mm(ember.ones(2, 3, dtype=ember.int64), ember.ones(3, 2, dtype=ember.int64)) is None
    assert UF.mm(ember.ones(3), ember.ones(3, 2)) is None


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("dims, keepdim", [([0], True), ([1], False), ([-1, 0], False),
                                           ([0, 2], True), ([2, 1, 0], False), ([], False),
                                           (None, True)])  # fmt: skip
def test_sum_fast_path_matches_the_general_path(dtype, dims, keepdim):
    rng = np.random.default_rng(1)
    a = ember.tensor(rng.standard_normal((4, 3, 5)), dtype=getattr(ember, dtype))
    fast = UF.sum_dim(a, dims, keepdim, None)
    meta = M.sum_dim_IntList(a, dims, keepdim, None)
    reference = meta.allocate()
    ember.aten.native.sum_IntList_out(meta, a, dims, keepdim, None, reference)
    assert fast.shape == reference.shape and fast.stride() == reference.stride()
    assert fast.dtype is reference.dtype
    assert fast.ndarray().flags.c_contiguous and fast.ndarray().dtype == fast.dtype.np_dtype
    np.testing.assert_array_equal(fast.numpy(), reference.numpy())


def test_sum_general_path_keeps_its_errors_and_options():
    a = ember.ones(2, 3)
    assert UF.sum_dim(a, [0, 0], False, None) is None  # "appears multiple times"
    assert UF.sum_dim(a, [2], False, None) is None  # out of range
    assert UF.sum_dim(ember.tensor(2.0), [], False, None) is None  # a 0-dim tensor
    assert UF.sum_dim(a, [0], False, ember.float64) is None  # a dtype
    assert UF.sum_dim(a.t(), [0], False, None) is None  # non-contiguous
    assert UF.sum_dim(ember.ones(2, 3, dtype=ember.int64), [0], False, None) is None
