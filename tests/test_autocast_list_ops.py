"""Operators of PyTorch's CPU autocast list that ember lacked: _addmm_activation,
_convolution (and .deprecated), conv_tbc (and conv_tbc_backward), against PyTorch 2.13:
values, gradients, grad_fn names, errors, the dtypes autocast gives them; and the
AutocastCPU table: every operator of PyTorch's list that ember defines has the kernel."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember
from ember.amp import autocast_kernels


def _run(lib, fn, arrays, grad=True):
    ts = [lib.tensor(a, dtype=lib.float64, requires_grad=grad) for a in arrays]
    y = fn(lib, *ts)
    grads = None
    if grad and "NotImplemented" not in y.grad_fn.name():
        y.sum().backward()
        grads = [t.grad.numpy() for t in ts]
    return y, grads


def _compare(fn, arrays):
    (ty, tg), (ey, eg) = (_run(lib, fn, arrays) for lib in (torch, ember))
    assert ey.grad_fn.name() == ty.grad_fn.name()
    assert tuple(ey.shape) == tuple(ty.shape)
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert (eg is None) == (tg is None)
    for a, b in zip(tg or [], eg or [], strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    m=st.integers(1, 4),
    k=st.integers(1, 4),
    n=st.integers(1, 4),
    gelu=st.booleans(),
    vector_bias=st.booleans(),
    beta=st.sampled_from([1, 0.5, 0]),
    alpha=st.sampled_from([1, 2.0]),
)
def test_addmm_activation(seed, m, k, n, gelu, vector_bias, beta, alpha):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) for s in [(n,) if vector_bias else (m, n), (m, k), (k, n)]]
    _compare(
        lambda L, a, x, y: L._addmm_activation(a, x, y, beta=beta, alpha=alpha, use_gelu=gelu),
        arrays,
    )
    _compare(lambda L, a, x, y: a._addmm_activation(x, y, use_gelu=gelu), arrays)


@pytest.mark.parametrize("deprecated", [False, True])
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("bias", [False, True])
def test_underscore_convolution(deprecated, transposed, bias):
    rng = np.random.default_rng(3)
    w_shape = (2, 3, 2, 2) if transposed else (3, 2, 2, 2)
    arrays = [rng.standard_normal(s) for s in [(2, 2, 5, 5), w_shape] + ([(3,)] if bias else [])]
    output_padding = [1, 0] if transposed else [0, 0]

    def fn(L, x, w, b=None):
        flags = (False, False, True) if deprecated else (False, False, True, True)
        return L._convolution(
            x, w, b, [2, 1], [1, 0], [1, 1], transposed, output_padding, 1, *flags
        )

    _compare(fn, arrays)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    time=st.integers(1, 6),
    batch=st.integers(1, 3),
    planes=st.integers(1, 3),
    out_planes=st.integers(1, 3),
    kw=st.integers(1, 4),
    pad=st.integers(0, 3),
)
def test_conv_tbc(seed, time, batch, planes, out_planes, kw, pad):
    if time - kw + 1 + 2 * pad <= 0:
        return
    rng = np.random.default_rng(seed)
    shapes = [(time, batch, planes), (kw, planes, out_planes), (out_planes,)]
    arrays = [rng.standard_normal(s) for s in shapes]
    _compare(lambda L, x, w, b: L.conv_tbc(x, w, b, pad), arrays)
    go = rng.standard_normal((time - kw + 1 + 2 * pad, batch, out_planes))

    def backward(L):
        ts = [L.tensor(a, dtype=L.float64) for a in [go] + arrays]
        return [t.numpy() for t in L.ops.aten.conv_tbc_backward(*ts, pad)]

    for a, b in zip(backward(torch), backward(ember), strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", range(5))
def test_conv_tbc_errors(case):
    def message(lib):
        args = [
            (lib.rand(2, 3), lib.rand(2, 3, 4), lib.rand(4)),
            (lib.rand(2, 2, 3), lib.rand(3, 4), lib.rand(4)),
            (lib.rand(2, 2, 3), lib.rand(2, 3, 4), lib.rand(4, 1)),
            (lib.rand(2, 2, 3), lib.rand(2, 2, 4), lib.rand(4)),
            (lib.rand(2, 2, 3), lib.rand(2, 3, 4), lib.rand(5)),
        ][case]
        with pytest.raises(RuntimeError) as info:
            lib.conv_tbc(*args)
        return str(info.value)

    assert message(ember) == message(torch)


def test_conv_tbc_on_meta():
    x = ember.rand(5, 2, 3, device="meta")
    y = ember.conv_tbc(x, ember.rand(3, 3, 4, device="meta"), ember.rand(4, device="meta"), 1)
    assert tuple(y.shape) == (5, 2, 4) and y.device.type == "meta"


@pytest.mark.parametrize("autocast_dtype", ["bfloat16", "float16"])
def test_dtypes_under_autocast(autocast_dtype):
    rng = np.random.default_rng(0)

    def dtypes_of(lib):
        f = [lib.tensor(rng.standard_normal(s), dtype=lib.float32) for s in
             [(2, 3), (2, 4), (4, 3), (5, 2, 3), (3, 3, 4), (4,), (1, 2, 4, 4), (3, 2, 2, 2)]]  # fmt: skip
        a, m1, m2, x, w, b, image, kernel = f
        with lib.autocast("cpu", dtype=getattr(lib, autocast_dtype)):
            results = [
                lib._addmm_activation(a, m1, m2),
                lib.conv_tbc(x, w, b, 1),
                lib._convolution(image, kernel, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1,
                                 False, False, True, True),
                lib._convolution(image, kernel, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1,
                                 False, False, True),
            ]  # fmt: skip
        return [str(r.dtype).split(".")[-1] for r in results]

    assert dtypes_of(ember) == dtypes_of(torch)


def _autocast_kernels(C, names):
    found = set()
    for name in names:
        table = C._dispatch_dump_table(name)
        for line in table.splitlines():
            if line.startswith("AutocastCPU: ") and not line.startswith("AutocastCPU: fallthrough"):
                found.add(name.removeprefix("aten::"))
    return found


def test_autocast_cpu_kernels_cover_pytorchs_list_where_defined():
    theirs = _autocast_kernels(torch._C, torch._C._dispatch_get_all_op_names())
    defined = {
        name.removeprefix("aten::")
        for name in ember._C._dispatch_get_all_op_names()
        if name.removeprefix("aten::") in theirs
    }
    mine = _autocast_kernels(ember._C, ["aten::" + n for n in defined])
    assert mine == defined
    assert set(autocast_kernels.POLICIES) == theirs
    for name in ("_addmm_activation", "_convolution.deprecated", "conv_tbc"):
        assert name in mine
