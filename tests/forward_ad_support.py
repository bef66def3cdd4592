"""Run one function under forward AD in ember and in torch and compare primal and tangent.

Layer: tests. `compare_jvp(fn, inputs, tangents)` makes each input dual (NumPy arrays,
None for an input that gets no tangent), runs `fn(lib, *duals)` under a dual level and
compares what unpack_dual gives for each output: values (torch's tolerances), dtype,
shape, whether a tangent exists, and the tangent's values and dtype.
"""

from __future__ import annotations

import numpy as np
from oracle import torch

import ember


def _run(lib, fn, inputs, tangents):
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        duals = []
        for value, tangent in zip(inputs, tangents):
            if not isinstance(value, np.ndarray):
                duals.append(value)
                continue
            tensor = lib.from_numpy(value.copy())
            if tangent is not None:
                tensor = fw.make_dual(tensor, lib.from_numpy(tangent.copy()))
            duals.append(tensor)
        out = fn(lib, *duals)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        result = []
        for item in outs:
            primal, tangent = fw.unpack_dual(item)
            result.append((primal, tangent))
        return result


def _array(tensor):
    return tensor.detach().numpy() if tensor is not None else None


def _dtype(tensor) -> str:
    return str(tensor.dtype).rsplit(".", 1)[-1]


def compare_jvp(fn, inputs, tangents, rtol=1e-5, atol=1e-6):
    got = _run(ember, fn, inputs, tangents)
    want = _run(torch, fn, inputs, tangents)
    assert len(got) == len(want)
    if not any(t is not None for _, t in want):
        assert all(t is None for _, t in got)
        assert any(gp.dtype.is_floating_point for gp, _ in got) is False, "no tangent at all"
    for (gp, gt), (wp, wt) in zip(got, want):
        assert _dtype(gp) == _dtype(wp)
        assert tuple(gp.shape) == tuple(wp.shape)
        np.testing.assert_allclose(_array(gp), _array(wp), rtol=rtol, atol=atol, equal_nan=True)
        assert (gt is None) == (wt is None), (gt, wt)
        if wt is None:
            continue
        assert _dtype(gt) == _dtype(wt)
        assert tuple(gt.shape) == tuple(wt.shape)
        np.testing.assert_allclose(_array(gt), _array(wt), rtol=rtol, atol=atol, equal_nan=True)
    return got, want
