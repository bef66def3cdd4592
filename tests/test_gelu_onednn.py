"""gelu(approximate='none') against PyTorch 2.13 on every path PyTorch takes.

A contiguous float32 tensor of more than one element is oneDNN's, whose
numbers depend on the instructions the host has (Note [gelu follows the
host's oneDNN ISA] in src/ember/aten/ufunc_onednn.py): ember must agree bit
for bit, on this host and under ONEDNN_MAX_CPU_ISA caps (run in fresh
processes, since oneDNN reads the cap once). The formulas of the ISAs the
host cannot run are checked against values PyTorch printed on an AVX512 host
under each cap, so every check holds whichever CPU runs the suite. The other
layouts take ATen's kernel, which ember approximates within stated bounds.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from oracle import torch
from pointwise_support import aten, pair

import ember
from ember.aten import ufunc_onednn
from ember.aten.ufunc_onednn import ISAS, gelu_onednn, use_onednn

# ember emulates oneDNN's x86-64 codes; elsewhere (aarch64: ACL) PyTorch's numbers differ
x86_only = pytest.mark.skipif(
    platform.machine().lower() not in ("x86_64", "amd64"),
    reason="ember emulates oneDNN's x86-64 gelu codes only",
)


def _inputs() -> np.ndarray:
    """Specials, both sides of the saturation bound, and every piece of the minimax table."""
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-38, -1e-38, 5.54, -5.54,
                5.55, -5.55]  # fmt: skip
    grid = [s * m * 2.0**k for k in range(-14, 3) for m in (1.0, 1.5) for s in (1, -1)]
    return np.array(specials + grid, dtype=np.float32)


# torch.nn.functional.gelu(torch.from_numpy(_inputs())) as float32 bits, printed by PyTorch
# 2.13 on an AVX512 host with ONEDNN_MAX_CPU_ISA=AVX512_CORE, AVX2 and AVX (SSE41 prints
# what AVX does).
GOLDEN = {
    "avx512_core": "0000000080000000ffc000007fc000007fc000000000000080000000003671f7803671f740b147aeb43147ae40b1999a8000000038000199b7fffccf38400398b83ffc6838800331b87ff99e38c0072fb8bff8d239000662b8fff33c39400e5cb93ff1a439800cc4b97fe67739c01cb9b9bfe3463a001988b9ffccef3a403974ba3fc68d3a803311ba7f99df3ac072e6babf8d1a3b006621baff33be3b40e5cabb3f1a363b80cc42bb7e677d3bc1cb93bbbe346e3c019880bbfccf003c439714bc3c68ec3c8330e7bc799e333cc72da7bcb8d2593d066101bcf33dfe3d4e5746bd31a8ba3d8cbba5bd6688b63ddc8e72bda3718e3e1944d1bdcd765d3e782113be07deed3eb103afbe1df8a23f147cd0be2e0cc03f57625ebe2276863fb32c4abdcd3b5a3ffa2d0cbd3a5e80403fbda4bb84b7c0407ffdeeb904a00040c0000080000000",
    "avx2": "00000000000000007f800000ffc000007fc000000000000000000000003671f7803671f740b147aeb43147ae40b1999a000000003800019ab7fffccc38400397b83ffc6938800330b87ff99f38c0072fb8bff8d139000660b8fff34039400e5fb93ff1a139800cc5b97fe67739c01cbab9bfe3463a001989b9ffccee3a403971ba3fc68f3a803311ba7f99dd3ac072e6babf8d1a3b006620baff33c13b40e5ccbb3f1a343b80cc43bb7e677b3bc1cb92bbbe346e3c019882bbfccefd3c439716bc3c68ea3c8330e8bc799e2f3cc72da7bcb8d2593d066103bcf33dfb3d4e574abd31a8b63d8cbba5bd6688b63ddc8e72bda3718e3e1944d0bdcd765f3e782110be07def03eb103aebe1df8a33f147cd1be2e0cbd3f57625ebe2276883fb32c4abdcd3b5a3ffa2d0ebd3a5e50403fbda6bb84b4c0407ffdecb904e00040c0000000000000",
    "avx": "00000000000000007f800000ffc000007fc000000000000000000000003671f7803671f740b147aeb480000040b1999a000000003800019ab7fffccb38400397b83ffc6938800330b87ff99f38c00730b8bff8d039000660b8fff34039400e60b93ff1a039800cc4b97fe67739c01cb8b9bfe3483a00198ab9ffcced3a403970ba3fc6903a803310ba7f99df3ac072e4babf8d1c3b00661fbaff33c23b40e5cdbb3f1a333b80cc42bb7e677d3bc1cb92bbbe346e3c019881bbfccefe3c439716bc3c68ea3c8330e8bc799e2f3cc72da8bcb8d2583d066102bcf33dfc3d4e574bbd31a8b53d8cbba5bd6688b63ddc8e72bda3718e3e1944d0bdcd765f3e782110be07def03eb103aebe1df8a33f147cd1be2e0cbd3f57625ebe2276863fb32c4abdcd3b583ffa2d0ebd3a5e50403fbda6bb84b500407ffdecb904e00040c0000000000000",
    "sse41": "00000000000000007f800000ffc000007fc000000000000000000000003671f7803671f740b147aeb480000040b1999a000000003800019ab7fffccb38400397b83ffc6938800330b87ff99f38c00730b8bff8d039000660b8fff34039400e60b93ff1a039800cc4b97fe67739c01cb8b9bfe3483a00198ab9ffcced3a403970ba3fc6903a803310ba7f99df3ac072e4babf8d1c3b00661fbaff33c23b40e5cdbb3f1a333b80cc42bb7e677d3bc1cb92bbbe346e3c019881bbfccefe3c439716bc3c68ea3c8330e8bc799e2f3cc72da8bcb8d2583d066102bcf33dfc3d4e574bbd31a8b53d8cbba5bd6688b63ddc8e72bda3718e3e1944d0bdcd765f3e782110be07def03eb103aebe1df8a33f147cd1be2e0cbd3f57625ebe2276863fb32c4abdcd3b583ffa2d0ebd3a5e50403fbda6bb84b500407ffdecb904e00040c0000000000000",
}


def _bits(values) -> np.ndarray:
    return np.asarray(values, np.float32).view(np.uint32)


@pytest.mark.parametrize("isa", ISAS)
def test_each_isa_formula_prints_what_pytorch_printed(isa):
    text = GOLDEN[isa]
    expected = np.array([int(text[i : i + 8], 16) for i in range(0, len(text), 8)], np.uint32)
    got = _bits(gelu_onednn(_inputs(), isa))
    nan = np.isnan(expected.view(np.float32))
    assert np.isnan(got.view(np.float32)[nan]).all()
    np.testing.assert_array_equal(got[~nan], expected[~nan])


def _sweep() -> np.ndarray:
    rng = np.random.default_rng(11)
    parts = [np.linspace(-8, 8, 4001, dtype=np.float32), _inputs()]
    for scale in (1e-40, 1e-6, 0.3, 1.0, 3.0, 6.0, 1e20):
        parts.append((rng.standard_normal(2000) * scale).astype(np.float32))
    parts.append(np.arange(0, 2**32, 104729, dtype=np.uint64).astype(np.uint32).view(np.float32))
    return np.concatenate(parts)


def _same_bits(got, expected) -> None:
    got, expected = np.asarray(got, np.float32), np.asarray(expected, np.float32)
    nan = np.isnan(expected)
    assert np.isnan(got[nan]).all()
    np.testing.assert_array_equal(_bits(got[~nan]), _bits(expected[~nan]))


@x86_only
def test_contiguous_float32_is_the_hosts_onednn_bit_for_bit():
    x = _sweep()
    e_op, t_op = aten("gelu", "default")
    e, t, _ = pair(x)
    _same_bits(e_op(e).ndarray(), t_op(t).numpy())


_CHILD = textwrap.dedent(
    """
    import sys, numpy as np, torch, ember
    from ember.aten.ufunc_onednn import use_onednn
    x = np.frombuffer(sys.stdin.buffer.read(), dtype=np.float32).copy()
    for lib in (torch, ember):
        for dtype in (lib.float32, lib.bfloat16):
            y = lib.nn.functional.gelu(lib.from_numpy(x).to(dtype)).float()
            sys.stdout.buffer.write(np.asarray(y.numpy(), np.float32).tobytes())
    bfloat16_to_onednn = use_onednn(ember.ones(2, dtype=ember.bfloat16))
    sys.stdout.buffer.write(np.full(x.size, bfloat16_to_onednn, np.float32).tobytes())
    """
)


@x86_only
@pytest.mark.parametrize("cap", ["AVX512_CORE", "AVX2", "SSE41"])  # the host's own: in process
def test_under_an_isa_cap_ember_follows_pytorch(cap):
    """PyTorch and ember in a fresh process with ONEDNN_MAX_CPU_ISA=cap: the same bits for
    contiguous float32, and for bfloat16 where oneDNN takes it (on a host below the cap,
    both run the host's code)."""
    x = _sweep()
    env = dict(os.environ, ONEDNN_MAX_CPU_ISA=cap, PYTHONPATH=os.pathsep.join(sys.path))
    child = subprocess.run(
        [sys.executable, "-c", _CHILD], input=x.tobytes(), capture_output=True, env=env, check=True
    )
    t32, t16, e32, e16, onednn = np.frombuffer(child.stdout, dtype=np.float32).reshape(5, -1)
    _same_bits(e32, t32)
    if onednn[0]:
        _same_bits(e16, t16)
    else:  # ATen's kernel (see test_other_layouts_within_the_stated_bounds), then bfloat16
        np.testing.assert_allclose(e16, t16, rtol=8e-3, atol=1e-38)


@x86_only
def test_bfloat16_contiguous_on_this_host():
    """Every bfloat16 value: oneDNN's where it takes bfloat16 (bit for bit), else ATen's."""
    x = np.arange(2**16, dtype=np.uint32).astype(np.uint16).view(np.int16)
    t = torch.nn.functional.gelu(torch.from_numpy(x.copy()).view(torch.bfloat16)).float().numpy()
    e = ember.nn.functional.gelu(ember.from_numpy(x.copy()).view(ember.bfloat16)).float().numpy()
    if use_onednn(ember.ones(2, dtype=ember.bfloat16)):
        _same_bits(e, t)
    else:  # ATen's vectorised erf, then the rounding to bfloat16: one bfloat16 step apart
        np.testing.assert_allclose(e, t, rtol=8e-3, atol=1e-38)


def test_the_isa_cap_is_read_as_onednn_reads_it(monkeypatch):
    for value, expected in [("AVX2", ("avx2", False)), ("avx2_vnni", ("avx2", False)),
                            ("SSE41", ("sse41", False)), ("AVX", ("avx", False)),
                            ("AVX512_CORE", ("avx512_core", False)),
                            ("AVX512_CORE_VNNI", ("avx512_core", False)),
                            ("AVX512_CORE_BF16", ("avx512_core", True)),
                            ("AVX512_CORE_AMX", ("avx512_core", True)),
                            ("AVX10_1_512", ("avx512_core", True)), ("ALL", None), ("", None)]:  # fmt: skip
        monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", value)
        assert ufunc_onednn._isa_cap() == expected
    monkeypatch.delenv("ONEDNN_MAX_CPU_ISA")
    monkeypatch.setenv("DNNL_MAX_CPU_ISA", "AVX")
    assert ufunc_onednn._isa_cap() == ("avx", False)


# ATen's GeluKernel for the other layouts: std::erf in the scalar loop (a strided inner dim:
# ember's erf is as accurate, so at most one float32 rounding apart), and a vectorised
# Abramowitz-Stegun erf (A&S 7.1.26: |error| <= 1.5e-7 in erf, so <= 0.5 * |x| * 1.5e-7 in
# gelu, below 6e-7 where it is not negligible) over densely laid out, non-contiguous inputs.
@pytest.mark.parametrize(
    ("layout", "rtol", "atol"),
    [("strided", 2.4e-7, 1.2e-7), ("transposed", 0.0, 1e-6)],
)
def test_other_layouts_within_the_stated_bounds(layout, rtol, atol):
    x = np.linspace(-8, 8, 4000, dtype=np.float32).reshape(40, 100)
    e_op, t_op = aten("gelu", "default")
    e, t, _ = pair(x, layout)
    got, expected = e_op(e).ndarray(), t_op(t).numpy()
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))


def test_one_element_and_float64_are_the_accurate_value():
    """One float32 element: std::erf; float64: Sleef's erf, within 1 ulp of erf, which
    0.5 * x * (1 + erf) turns into <= 0.5 * 8 * 2.2e-16 absolute: ember's is accurate."""
    e_op, t_op = aten("gelu", "default")
    cases = ((np.array([-5.3], np.float32), 1.2e-7, 0.0), (np.linspace(-8, 8, 801), 4.5e-16, 9e-16))
    for array, rtol, atol in cases:
        e, t, _ = pair(array)
        np.testing.assert_allclose(e_op(e).ndarray(), t_op(t).numpy(), rtol=rtol, atol=atol)
