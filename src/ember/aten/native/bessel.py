"""The Bessel functions J0, J1, Y0, Y1 and the Airy function Ai as PyTorch computes them.

Layer: aten/native (formulas for the structured special_* kernels). In: NumPy arrays in
the kernel's floating dtype. Out: the function's values. Mirrors bessel_j0_forward,
bessel_j1_forward, bessel_y0_forward, bessel_y1_forward and airy_ai_forward of
ATen/native/Math.h: Cephes' rational approximations, evaluated with Horner's rule over
PyTorch's coefficient tables (its denominators carry no implicit leading one, so its
values differ from Cephes' and SciPy's by up to ~1e-6 near x = 5, and ember gives
PyTorch's).
"""

from __future__ import annotations

import numpy as np

__all__ = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "airy_ai"]

_QUARTER_PI = 0.785398163397448309615660845819875721
_THREE_QUARTER_PI = 2.356194490192344928846982537459627163
_SQRT_2_OVER_PI = 0.797884560802865355879892119868763737
_TWO_OVER_PI = 0.636619772367581343075535053490057448

_J0_PP = (7.96936729297347051624e-04, 8.28352392107440799803e-02, 1.23953371646414299388e00,
          5.44725003058768775090e00, 8.74716500199817011941e00, 5.30324038235394892183e00,
          9.99999999999999997821e-01)  # fmt: skip
_J0_PQ = (9.24408810558863637013e-04, 8.56288474354474431428e-02, 1.25352743901058953537e00,
          5.47097740330417105182e00, 8.76190883237069594232e00, 5.30605288235394617618e00,
          1.00000000000000000218e00)  # fmt: skip
_J0_QP = (-1.13663838898469149931e-02, -1.28252718670509318512e00, -1.95539544257735972385e01,
          -9.32060152123768231369e01, -1.77681167980488050595e02, -1.47077505154951170175e02,
          -5.14105326766599330220e01, -6.05014350600728481186e00)  # fmt: skip
_J0_QQ = (6.43178256118178023184e01, 8.56430025976980587198e02, 3.88240183605401609683e03,
          7.24046774195652478189e03, 5.93072701187316984827e03, 2.06209331660327847417e03,
          2.42005740240291393179e02)  # fmt: skip
_J0_RP = (-4.79443220978201773821e09, 1.95617491946556577543e12, -2.49248344360967716204e14,
          9.70862251047306323952e15)  # fmt: skip
_J0_RQ = (4.99563147152651017219e02, 1.73785401676374683123e05, 4.84409658339962045305e07,
          1.11855537045356834862e10, 2.11277520115489217587e12, 3.10518229857422583814e14,
          3.18121955943204943306e16, 1.71086294081043136091e18)  # fmt: skip
_Y0_YP = (1.55924367855235737965e04, -1.46639295903971606143e07, 5.43526477051876500413e09,
          -9.82136065717911466409e11, 8.75906394395366999549e13, -3.46628303384729719441e15,
          4.42733268572569800351e16, -1.84950800436986690637e16)  # fmt: skip
_Y0_YQ = (1.04128353664259848412e03, 6.26107330137134956842e05, 2.68919633393814121987e08,
          8.64002487103935000337e10, 2.02979612750105546709e13, 3.17157752842975028269e15,
          2.50596256172653059228e17)  # fmt: skip
_J1_PP = (7.62125616208173112003e-04, 7.31397056940917570436e-02, 1.12719608129684925192e00,
          5.11207951146807644818e00, 8.42404590141772420927e00, 5.21451598682361504063e00,
          1.00000000000000000254e00)  # fmt: skip
_J1_PQ = (5.71323128072548699714e-04, 6.88455908754495404082e-02, 1.10514232634061696926e00,
          5.07386386128601488557e00, 8.39985554327604159757e00, 5.20982848682361821619e00,
          9.99999999999999997461e-01)  # fmt: skip
_J1_QP = (5.10862594750176621635e-02, 4.98213872951233449420e00, 7.58238284132545283818e01,
          3.66779609360150777800e02, 7.10856304998926107277e02, 5.97489612400613639965e02,
          2.11688757100572135698e02, 2.52070205858023719784e01)  # fmt: skip
_J1_QQ = (7.42373277035675149943e01, 1.05644886038262816351e03, 4.98641058337653607651e03,
          9.56231892404756170795e03, 7.99704160447350683650e03, 2.82619278517639096600e03,
          3.36093607810698293419e02)  # fmt: skip
_J1_RP = (-8.99971225705559398224e08, 4.52228297998194034323e11, -7.27494245221818276015e13,
          3.68295732863852883286e15)  # fmt: skip
_J1_RQ = (6.20836478118054335476e02, 2.56987256757748830383e05, 8.35146791431949253037e07,
          2.21511595479792499675e10, 4.74914122079991414898e12, 7.84369607876235854894e14,
          8.95222336184627338078e16, 5.32278620332680085395e18)  # fmt: skip
_Y1_YP = (1.26320474790178026440e09, -6.47355876379160291031e11, 1.14509511541823727583e14,
          -8.12770255501325109621e15, 2.02439475713594898196e17, -7.78877196265950026825e17)  # fmt: skip
_Y1_YQ = (5.94301592346128195359e02, 2.35564092943068577943e05, 7.34811944459721705660e07,
          1.87601316108706159478e10, 3.88231277496238566008e12, 6.20557727146953693363e14,
          6.87141087355300489866e16, 3.97270608116560655612e18)  # fmt: skip


def _horner(z, coefficients):
    """sum c[i] z**(n-i), in the table's dtype: PyTorch's loops start from 0."""
    result = np.zeros_like(z)
    for c in coefficients:
        result = result * z + z.dtype.type(c)
    return result


def _asymptotic(x, pp, pq, qp, qq, phase, z, *, sine: bool):
    """The x > 5 branch: (P cos(x - phase) - 5/x Q sin(x - phase)) sqrt(2/pi) / sqrt(x)
    for J, (P sin + 5/x Q cos) for Y."""
    t = x.dtype.type
    p = _horner(z, pp) / _horner(z, pq)
    q = _horner(z, qp) / _horner(z, qq)
    shifted = x - t(phase)
    if sine:
        value = p * np.sin(shifted) + t(5.0) / x * q * np.cos(shifted)
    else:
        value = p * np.cos(shifted) - t(5.0) / x * q * np.sin(shifted)
    return value * t(_SQRT_2_OVER_PI) / np.sqrt(x)


def bessel_j0(x):
    t = x.dtype.type
    x = np.abs(x)
    square = x * x
    small = (square - t(5.78318596294678452118e00)) * (square - t(3.04712623436620863991e01))
    small = small * _horner(square, _J0_RP) / _horner(square, _J0_RQ)
    small = np.where(x < t(0.00001), t(1.0) - square / t(4.0), small)
    large = _asymptotic(
        x, _J0_PP, _J0_PQ, _J0_QP, _J0_QQ, _QUARTER_PI, t(25.0) / square, sine=False
    )
    return np.where(x <= t(5.0), small, large)


def _j1_positive(x):
    t = x.dtype.type
    square = x * x
    small = _horner(square, _J1_RP) / _horner(square, _J1_RQ) * x
    small = (
        small * (square - t(1.46819706421238932572e01)) * (square - t(4.92184563216946036703e01))
    )
    five = t(5.0) / x
    large = _asymptotic(x, _J1_PP, _J1_PQ, _J1_QP, _J1_QQ, _THREE_QUARTER_PI, five * five,
                        sine=False)  # fmt: skip
    return np.where(x <= t(5.0), small, large)


def bessel_j1(x):
    return np.where(x < 0, -_j1_positive(-x), _j1_positive(x))


def bessel_y0(x):
    t = x.dtype.type
    square = x * x
    small = _horner(square, _Y0_YP) / _horner(square, _Y0_YQ)
    small = small + t(_TWO_OVER_PI) * np.log(x) * bessel_j0(x)
    small = np.where(x == 0, -np.inf, np.where(x < 0, np.nan, small)).astype(x.dtype)
    large = _asymptotic(x, _J0_PP, _J0_PQ, _J0_QP, _J0_QQ, _QUARTER_PI, t(25.0) / square, sine=True)
    return np.where(x <= t(5.0), small, large)


def bessel_y1(x):
    t = x.dtype.type
    square = x * x
    small = x * (_horner(square, _Y1_YP) / _horner(square, _Y1_YQ))
    small = small + t(_TWO_OVER_PI) * (_j1_positive(x) * np.log(x) - t(1.0) / x)
    small = np.where(x == 0, -np.inf, np.where(x < 0, np.nan, small)).astype(x.dtype)
    five = t(5.0) / x
    large = _asymptotic(x, _J1_PP, _J1_PQ, _J1_QP, _J1_QQ, _THREE_QUARTER_PI, five * five,
                        sine=True)  # fmt: skip
    return np.where(x <= t(5.0), small, large)


_AI_AN = (3.46538101525629032477e-01, 1.20075952739645805542e01, 7.62796053615234516538e01,
          1.68089224934630576269e02, 1.59756391350164413639e02, 7.05360906840444183113e01,
          1.40264691163389668864e01, 9.99999999999999995305e-01)  # fmt: skip
_AI_AD = (5.67594532638770212846e-01, 1.47562562584847203173e01, 8.45138970141474626562e01,
          1.77318088145400459522e02, 1.64234692871529701831e02, 7.14778400825575695274e01,
          1.40959135607834029598e01, 1.00000000000000000470e00)  # fmt: skip
_AI_AFN = (-1.31696323418331795333e-01, -6.26456544431912369773e-01, -6.93158036036933542233e-01,
           -2.79779981545119124951e-01, -4.91900132609500318020e-02, -4.06265923594885404393e-03,
           -1.59276496239262096340e-04, -2.77649108155232920844e-06, -1.67787698489114633780e-08)  # fmt: skip
_AI_AFD = (1.33560420706553243746e01, 3.26825032795224613948e01, 2.67367040941499554804e01,
           9.18707402907259625840e00, 1.47529146771666414581e00, 1.15687173795188044134e-01,
           4.40291641615211203805e-03, 7.54720348287414296618e-05, 4.51850092970580378464e-07)  # fmt: skip
_AI_AGN = (1.97339932091685679179e-02, 3.91103029615688277255e-01, 1.06579897599595591108e00,
           9.39169229816650230044e-01, 3.51465656105547619242e-01, 6.33888919628925490927e-02,
           5.85804113048388458567e-03, 2.82851600836737019778e-04, 6.98793669997260967291e-06,
           8.11789239554389293311e-08, 3.41551784765923618484e-10)  # fmt: skip
_AI_AGD = (9.30892908077441974853e00, 1.98352928718312140417e01, 1.55646628932864612953e01,
           5.47686069422975497931e00, 9.54293611618961883998e-01, 8.64580826352392193095e-02,
           4.12656523824222607191e-03, 1.01259085116509135510e-04, 1.17166733214413521882e-06,
           4.91834570062930015649e-09)  # fmt: skip


def _airy_series(x):
    """The Maclaurin series c1 f - c2 g, summed until the last term of f is below epsilon."""
    t = x.dtype.type
    eps = np.finfo(x.dtype).eps
    f = np.ones_like(x)
    g = x.copy()
    m = np.ones_like(x)
    n = x.copy()
    k = np.ones_like(x)
    z = x * x * x
    active = np.ones(x.shape, dtype=bool)
    while active.any():
        m = np.where(active, m * z, m)
        k = np.where(active, k + 1, k)
        m = np.where(active, m / k, m)
        n = np.where(active, n * z, n)
        k = np.where(active, k + 1, k)
        n = np.where(active, n / k, n)
        m = np.where(active, m / k, m)
        f = np.where(active, f + m, f)
        k = np.where(active, k + 1, k)
        n = np.where(active, n / k, n)
        g = np.where(active, g + n, g)
        active = active & (np.abs(m / f) > eps)
    return t(0.355028053887817239260) * f - t(0.258819403792806798405) * g


def airy_ai(x):
    t = x.dtype.type
    x = np.asarray(x)
    result = np.full(x.shape, np.nan, dtype=x.dtype)
    finite = ~np.isinf(x) & ~np.isnan(x)
    result = np.where(finite & (x > t(103.892)), t(0.0), result)
    negative = finite & (x < t(-2.09))
    if negative.any():
        v = x[negative]
        z = t(1.0) / (t(-2.0) * v * np.sqrt(-v) / t(3.0))
        zz = z * z
        ratio_f = zz * _horner(zz, _AI_AFN) / _horner(zz, _AI_AFD)
        ratio_g = z * _horner(zz, _AI_AGN) / _horner(zz, _AI_AGD)
        angle = t(-2.0) * v * np.sqrt(-v) / t(3.0) + t(0.25) * t(np.pi)
        value = t(5.64189583547756286948e-01) / np.sqrt(np.sqrt(-v))
        result[negative] = value * (np.sin(angle) * (t(1.0) + ratio_f) - np.cos(angle) * ratio_g)
    large = finite & (x >= t(2.09)) & (x <= t(103.892))
    if large.any():
        v = x[large]
        zeta = t(2.0) * v * np.sqrt(v) / t(3.0)
        ratio = _horner(t(1.0) / zeta, _AI_AN) / _horner(t(1.0) / zeta, _AI_AD)
        ai = t(5.64189583547756286948e-01) * ratio / (t(2.0) * np.sqrt(np.sqrt(v)) * np.exp(zeta))
        result[large] = ai  # for 2.09 <= x <= 8.3203353 PyTorch still returns this value
    middle = finite & (x >= t(-2.09)) & (x < t(2.09))
    if middle.any():
        result[middle] = _airy_series(x[middle])
    return result
