"""gelu as oneDNN computes it: PyTorch's CPU path for a contiguous float32 tensor.

Layer: aten (CPU backend). In: a float32 NumPy array (or bfloat16, widened).
Out: gelu(x) in float32, bit for bit what oneDNN's eltwise_gelu_erf returns on
this host. Mirrors
gelu_erf_compute_vector_fwd and gelu_erf_minimax_approx_compute_vector_fwd of
oneDNN's cpu/x64/injectors/jit_uni_eltwise_injector.cpp (and its
exp_compute_vector_fwd), which ATen's gelu_out_cpu calls through ideep when
use_mkldnn(self) holds: float32, contiguous, more than one element.

Note [gelu follows the host's oneDNN ISA]
-----------------------------------------
oneDNN picks its code by the instructions the CPU has (mayiuse), not by
ATen's ATEN_CPU_CAPABILITY, and the two codes compute different numbers:

* avx512_core (AVX512 F, BW, VL and DQ): erf(x / sqrt 2) is a piecewise
  minimax polynomial of |x| (24 pieces chosen from the exponent bits and two
  mantissa bits), evaluated with fused multiply-adds.
* avx2: erf by Abramowitz and Stegun 7.1.26 with oneDNN's own exp, fused
  multiply-adds throughout; sse41 and avx: the same with separate roundings.

PyTorch's printed values differ between the two (by up to ~1e-6 near the
tails), so ember does what the host's oneDNN does: `host_isa()` reads the CPU
flags once (and ONEDNN_MAX_CPU_ISA / DNNL_MAX_CPU_ISA, which cap oneDNN's
choice), and `gelu_onednn` runs that ISA's formula. Every float32 operation
is emulated exactly: a fused a * b + c is computed in float64 and rounded to
odd before the final rounding to float32, which makes the double rounding
exact. Where the host is no x86-64 CPU, or its flags cannot be read, the
avx2 code is assumed.

A contiguous bfloat16 tensor goes to oneDNN as well where oneDNN runs
avx512_core (mkldnn_bf16_device_check): the float32 formula on the widened
values, rounded to bfloat16, and, where the CPU converts natively
(AVX512-BF16's vcvtneps2bf16), with denormal results flushed to zero. Other
inputs (strided, one element, other dtypes) take ATen's own kernel in
PyTorch; ember computes those with an accurate erf (ufunc.gelu). A float16
tensor on a host with AVX512-FP16, which PyTorch also hands to oneDNN, is
not emulated: ember's accurate value differs from it as from ATen's.
"""

from __future__ import annotations

import os
import platform

import numpy as np

from ember._c10 import dtypes

__all__ = ["gelu_onednn", "gelu_onednn_bfloat16", "host_isa", "use_onednn", "ISAS"]

ISAS = ("sse41", "avx", "avx2", "avx512_core")
_F32 = np.float32


def _f32(bits: int) -> np.float32:
    return np.uint32(bits).view(_F32)


_TIE_BITS = np.int64((1 << 29) - 1)  # the float64 mantissa bits below a float32's last
_TIE = np.int64(1 << 28)  # ... which a float32 tie (halfway between two floats) has set so
_F32_NORMAL = 2.0**-126


def _fused(a, b, c):
    """a * b + c rounded once to float32 (vfmadd). The product is exact in float64 and the
    sum is rounded there; rounding that to float32 rounds twice, which can differ from
    once only where the float64 sum lies on a float32 tie (or in the float32 subnormal
    range, whose ties sit elsewhere). Those few are rounded to odd first (nudged one
    float64 step toward the exact sum, found by TwoSum), which makes the second rounding
    the correct one."""
    p = np.multiply(a, b, dtype=np.float64)
    s = np.add(p, c, dtype=np.float64)
    suspect = ((s.view(np.int64) & _TIE_BITS) == _TIE) | (np.abs(s) < _F32_NORMAL)
    if suspect.any():
        ps = p[suspect]
        cs = np.broadcast_to(np.asarray(c, np.float64), s.shape)[suspect]
        ss = s[suspect]
        back = ss - ps
        error = (ps - (ss - back)) + (cs - back)  # ss + error == ps + cs exactly
        bits = ss.view(np.int64)
        even = (error != 0) & ((bits & 1) == 0) & (ss != 0) & np.isfinite(ss)
        # one float64 step away from zero where the exact sum is larger in magnitude
        step = np.where((error > 0) == (ss > 0), 1, -1)
        s[suspect] = np.where(even, bits + step, bits).view(np.float64)
    return s.astype(_F32)


def _separate(a, b, c):
    """a * b + c with the product rounded first (vmulps, vaddps: sse41 and avx)."""
    return (np.asarray(a, _F32) * np.asarray(b, _F32)).astype(_F32) + np.asarray(c, _F32)


# -- the avx512_core code: a minimax polynomial per piece ----------------------------------

# Degree 0 to 5 coefficients of the 25 polynomials (index 0 is never chosen, 23 is erf = 1,
# 24 passes NaN through), as oneDNN's table gelu_erf_minimax_polynomial writes them.
_MINIMAX = np.array(
    [
        [0xA6F2CB94, 0x32827792, 0x3381CC0C, 0x34523D4A, 0x351AC44D, 0x35F36D88, 0x36EE8229,
         0x37B8A3BB, 0x3867A213, 0x3940033B, 0x3A2A5A1D, 0x3AE35863, 0x3B7828F2, 0x3C08B14B,
         0x3C515ED3, 0xBB503236, 0xBD8D8E5E, 0xBE8ABCD9, 0xBF0C19A2, 0xBECCB328, 0x3E176CED,
         0x3F470D99, 0x3F7ABB28, 0x3F800000, 0x00000000],
        [0x3F4C422A, 0x3F4C421F, 0x3F4C4207, 0x3F4C41CB, 0x3F4C413B, 0x3F4C3FAD, 0x3F4C3A2F,
         0x3F4C2D40, 0x3F4C146A, 0x3F4BC341, 0x3F4AD08C, 0x3F48F8CF, 0x3F45FAC7, 0x3F404E07,
         0x3F3B980F, 0x3F48DFF3, 0x3F78B21B, 0x3FBB0704, 0x40019C32, 0x3FE536D6, 0x3F81331E,
         0x3E6C8684, 0x3C98F936, 0x00000000, 0x3F800000],
        [0xB62173F4, 0x3735E4CF, 0x37F2FF89, 0x388C23BE, 0x3917535C, 0x39AB2AB0, 0x3A60FADB,
         0x3AF9B960, 0x3B6E5491, 0x3C0A4EC5, 0x3CA5AA8C, 0x3D2138D9, 0x3D8737D4, 0x3DDFB660,
         0x3E0F27AB, 0x3D94004B, 0xBE0EFDEB, 0xBF1D96C3, 0xBF89DB58, 0xBF6D9897, 0xBEF69FB8,
         0xBDC4F8A8, 0xBBDE6422, 0x00000000, 0x00000000],
        [0xBE081A19, 0xBE084570, 0xBE08639B, 0xBE089837, 0xBE08F409, 0xBE09AB95, 0xBE0B66D0,
         0xBE0E400A, 0xBE124DF8, 0xBE1BDE02, 0xBE2F19C9, 0xBE4931BF, 0xBE685FBC, 0xBE89C95F,
         0xBE96CBCA, 0xBE8044AA, 0xBE0550F2, 0x3DCFD6A1, 0x3E94C826, 0x3E79345F, 0x3DECEC91,
         0x3CA46568, 0x3AA1E00A, 0x00000000, 0x00000000],
        [0xBA3D61DB, 0x39F097A3, 0x3A5845DC, 0x3AB1FA35, 0x3B0CEFB8, 0x3B653AB6, 0x3BCAE527,
         0x3C221712, 0x3C6C5840, 0x3CC0A703, 0x3D1DCC19, 0x3D63656D, 0x3D955907, 0x3DBF9910,
         0x3DD53F69, 0x3DB7DCEF, 0x3D639EBE, 0xBA6EDE48, 0xBD22BE69, 0xBD041CF1, 0xBC64F5AB,
         0xBB097A32, 0xB8EBF380, 0x00000000, 0x00000000],
        [0x3CB7D80C, 0x3C9B6050, 0x3C978D11, 0x3C92E850, 0x3C8D058B, 0x3C848454, 0x3C6CD623,
         0x3C4C824B, 0x3C2A7935, 0x3BE0B390, 0x3B0651AC, 0xBB232F53, 0xBBD42FA0, 0xBC2C5366,
         0xBC492C9E, 0xBC2A7AA6, 0xBBD55D04, 0xBA823A76, 0x3B102AA8, 0x3AE25A7E, 0x3A31F792,
         0x38B84375, 0x3689BB5A, 0x00000000, 0x00000000],
    ],
    dtype=np.uint32,
).view(_F32)  # fmt: skip
_IDX_BIAS = np.uint32(0xC21FFFFF).view(np.int32)
_RBOUND = _f32(0x40B15CEE)


def _gelu_minimax(x):
    bits = x.view(np.uint32)
    magnitude_bits = bits & np.uint32(0x7FFFFFFF)
    magnitude = magnitude_bits.view(_F32)
    # int32 add (wrapping), then an arithmetic shift by 21: the exponent and two mantissa bits
    index = np.minimum(np.maximum((magnitude_bits.view(np.int32) + _IDX_BIAS) >> 21, 1), 24)
    index = np.where(_RBOUND < magnitude, 23, index)
    polynomial = _MINIMAX[5][index]
    for degree in (4, 3, 2, 1, 0):
        polynomial = _fused(polynomial, magnitude, _MINIMAX[degree][index])
    erf = (polynomial.view(np.uint32) ^ (bits & np.uint32(0x80000000))).view(_F32)
    return (x * (erf + _F32(1))) * _F32(0.5)


# -- the avx2 / avx / sse41 code: Abramowitz and Stegun with oneDNN's exp ------------------

_EXP_POLYNOMIAL = tuple(
    _f32(b) for b in (0x3F7FFFFB, 0x3EFFFEE3, 0x3E2AAD40, 0x3D2B9D0D, 0x3C07CFCE)
)
_AS_POLYNOMIAL = tuple(
    _f32(b) for b in (0x3E827906, 0xBE91A98E, 0x3FB5F0E3, 0xBFBA00E3, 0x3F87DC22)
)


def _exp(q, fma):
    """exp_compute_vector_fwd: 2 * 2^(n-1) * p(r), r = q - n ln 2, 0 below log(FLT_MIN)."""
    low, high = _f32(0xC2AEAC50), _f32(0x42B17218)
    underflow = q < low
    q = np.maximum(np.minimum(q, high), low)
    n = np.floor(q * _f32(0x3FB8AA3B) + _F32(0.5))
    r = fma(-n, _f32(0x3F317218), q)
    exponent = (np.rint(n - _F32(1)).astype(np.int32) + 127) << 23
    scale = np.where(underflow, 0, exponent).astype(np.int32).view(_F32)
    p = np.full_like(q, _EXP_POLYNOMIAL[4])
    for coefficient in (*_EXP_POLYNOMIAL[3::-1], _F32(1)):
        p = fma(p, r, coefficient)
    return (p * scale) * _F32(2)


def _gelu_abramowitz_stegun(x, fma):
    one = _F32(1)
    z = x * _f32(0x3F3504F3)  # x / sqrt 2
    t = one / fma(_f32(0x3EA7BA05), np.abs(z), one)
    minus_exp_t = -_exp(-(z * z), fma) * t
    polynomial = np.full_like(x, _AS_POLYNOMIAL[4])
    for coefficient in _AS_POLYNOMIAL[3::-1]:
        polynomial = fma(polynomial, t, coefficient)
    erf = fma(minus_exp_t, polynomial, one)
    erf = (erf.view(np.uint32) ^ (x.view(np.uint32) & np.uint32(0x80000000))).view(_F32)
    half = x * _F32(0.5)
    return fma(erf, half, half)


def gelu_onednn(x, isa: str | None = None):
    """gelu of a float32 array as oneDNN computes it on ``isa`` (default: this host's).
    See Note [gelu follows the host's oneDNN ISA]."""
    x = np.asarray(x, _F32)
    isa = host_isa() if isa is None else isa
    with np.errstate(all="ignore"):
        if isa == "avx512_core":
            return _gelu_minimax(x)
        return _gelu_abramowitz_stegun(x, _fused if isa == "avx2" else _separate)


# -- which code the host's oneDNN runs -------------------------------------------------------

_HOST: list = []  # (isa, bf16): read once, as oneDNN does


def _cpu_flags() -> set[str] | None:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("flags"):
                    return set(line.partition(":")[2].split())
    except OSError:
        pass
    return None


def _isa_cap() -> tuple[str, bool] | None:
    """ONEDNN_MAX_CPU_ISA (or DNNL_MAX_CPU_ISA) as (one of ISAS, whether it admits the
    bfloat16 instructions), or None (no cap)."""
    value = os.environ.get("ONEDNN_MAX_CPU_ISA") or os.environ.get("DNNL_MAX_CPU_ISA")
    if not value:
        return None
    value = value.strip().upper()
    if value.startswith("AVX10") or (value.startswith("AVX512") and value not in _NO_BF16):
        return "avx512_core", True
    if value in _NO_BF16:
        return "avx512_core", False
    if value.startswith("AVX2"):
        return "avx2", False
    found = {"AVX": "avx", "SSE41": "sse41"}.get(value)
    return None if found is None else (found, False)


_NO_BF16 = frozenset({"AVX512_CORE", "AVX512_CORE_VNNI"})


def _host() -> tuple[str, bool]:
    if not _HOST:
        flags = _cpu_flags() if platform.machine().lower() in ("x86_64", "amd64") else None
        if flags is None:
            isa = "avx2"
        elif {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
            isa = "avx512_core"
        elif "avx2" in flags:
            isa = "avx2"
        elif "avx" in flags:
            isa = "avx"
        else:
            isa = "sse41"
        bf16 = flags is not None and "avx512_bf16" in flags
        cap = _isa_cap()
        if cap is not None:
            if ISAS.index(cap[0]) < ISAS.index(isa):
                isa = cap[0]
            bf16 = bf16 and cap[1]
        _HOST.append((isa, bf16 and isa == "avx512_core"))
    return _HOST[0]


def host_isa() -> str:
    """The ISA whose gelu code this host's oneDNN runs."""
    return _host()[0]


def use_onednn(tensor) -> bool:
    """ATen's use_mkldnn(self) for gelu: contiguous, more than one element, and float32, or
    bfloat16 where oneDNN runs avx512_core (mkldnn_bf16_device_check)."""
    dtype = tensor.dtype
    if dtype is not dtypes.float32 and not (
        dtype is dtypes.bfloat16 and _host()[0] == "avx512_core"
    ):
        return False
    return tensor.numel() > 1 and tensor.is_contiguous()


_FLT_MIN = np.finfo(np.float32).tiny


def gelu_onednn_bfloat16(x):
    """bfloat16 gelu as oneDNN computes it: the float32 formula on the widened values, then
    (with the native vcvtneps2bf16, which flushes denormals) float32 denormals become zeros.
    Returns float32, for the caller's round-to-nearest-even into bfloat16."""
    result = gelu_onednn(np.asarray(x, _F32), "avx512_core")
    if _host()[1]:
        tiny = (np.abs(result) < _FLT_MIN) & (result != 0)
        if tiny.any():
            result = np.where(tiny, np.copysign(_F32(0), result), result)
    return result
