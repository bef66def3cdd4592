"""The composite operators of torch.special: aliases of torch operators (special_expit is
sigmoid, special_gammaln is lgamma, ...) and special_ndtr.

Layer: aten/native (CompositeImplicitAutograd kernels). In: the full schema-ordered
arguments. Out: what the aliased operator returns. Mirrors the special_* functions of
ATen/native/UnaryOps.cpp, SoftMax.cpp and ReduceOps.cpp: they decompose before autograd,
so the grad_fn is the aliased operator's node.
"""

from __future__ import annotations

import math

from ember.aten.native import at

__all__ = [
    "special_ndtr",
    "special_ndtr_out",
    "special_logsumexp",
    "special_softmax",
    "special_log_softmax",
]

# special kernel -> the torch operator's kernel (same arguments, in the same order)
_TARGETS = {
    "special_expm1": "expm1", "special_exp2": "exp2", "special_psi": "digamma",
    "special_digamma": "digamma", "special_gammaln": "lgamma", "special_erf": "erf",
    "special_erfc": "erfc", "special_erfinv": "erfinv", "special_i0": "i0",
    "special_logit": "logit", "special_polygamma": "polygamma", "special_expit": "sigmoid",
    "special_sinc": "sinc", "special_round": "round_decimals", "special_log1p": "log1p",
    "special_multigammaln": "mvlgamma",
}  # fmt: skip


def _alias(name: str, target: str):
    def kernel(*args):
        return getattr(at, target)(*args)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


for _special, _target in _TARGETS.items():
    globals()[_special] = _alias(_special, _target)
    globals()[_special + "_out"] = _alias(_special + "_out", _target + "_out")
    __all__ += [_special, _special + "_out"]


def special_ndtr(self):
    """(1 + erf(x / sqrt 2)) / 2."""
    return at.mul_Scalar(at.add_Scalar(at.erf(at.mul_Scalar(self, math.sqrt(0.5))), 1, 1), 0.5)


def special_ndtr_out(self, out):
    result = at.special_ndtr(self)
    if out.shape != result.shape:
        at.resize_(out, list(result.shape), None)
    return at.copy_(out, result, False)


def special_logsumexp(self, dim, keepdim=False):
    return at.logsumexp(self, dim, keepdim)


def special_softmax(self, dim, dtype=None):
    return at.softmax_int(self, dim, dtype)


def special_log_softmax(self, dim, dtype=None):
    return at.log_softmax_int(self, dim, dtype)
