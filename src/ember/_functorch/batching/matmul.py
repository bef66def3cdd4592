"""Batching rules of the matrix products: matmul, mm, mv, bmm, dot, addmm.

Layer: _functorch. Mirrors BatchRulesLinearAlgebra.cpp. Each is one ``matmul`` of the
physical tensors: a 1-d operand becomes a matrix (and loses that dim after), the batched
ones keep their batch dim first, padded so that it lines up with the other operand's
broadcast dims.
"""

from __future__ import annotations

from ...aten.native import at
from .helpers import AFTER_BATCHED, front, level, pad_front, record_at, register, wrap


def physical_matmul(a, a_sizes, a_batched, b, b_sizes, b_batched):
    """logical ``a @ b`` on physical operands (batched ones batch dim first); the result has
    its batch dim first."""
    ra, rb = len(a_sizes), len(b_sizes)
    if not b_batched and rb == 2:  # (B, ..., k) @ (k, m): one matmul as it stands
        return at.matmul(a, b)
    if ra == 1:
        a = at.unsqueeze(a, -2)
        a_sizes = (1, *a_sizes)
    if rb == 1:
        b = at.unsqueeze(b, -1)
        b_sizes = (*b_sizes, 1)
    rank = max(len(a_sizes), len(b_sizes))
    if a_batched:
        a = pad_front(a, a_sizes, rank)
    if b_batched:
        b = pad_front(b, b_sizes, rank)
    result = at.matmul(a, b)
    if ra == 1 and rb == 1:
        return at.squeeze_dims(result, [-2, -1])
    if ra == 1:
        return at.squeeze_dim(result, -2)
    if rb == 1:
        return at.squeeze_dim(result, -1)
    return result


def _operands(args, lvl):
    out = []
    for arg in args:
        record = record_at(arg, lvl)
        out.append((front(record), True) if record is not None else (arg, False))
    return out


def matmul_rule(op, bits, a, b):
    lvl = level()
    (pa, ba), (pb, bb) = _operands((a, b), lvl)
    if not (ba or bb):
        return op.redispatch(bits & AFTER_BATCHED, a, b)
    return wrap(physical_matmul(pa, a._sizes, ba, pb, b._sizes, bb), lvl)


for _name in ("matmul", "mm", "mv", "bmm", "dot"):
    register("aten::" + _name, matmul_rule)


def addmm_rule(op, bits, self, mat1, mat2, beta, alpha):
    """beta * self + alpha * (mat1 @ mat2), from the physical product."""
    lvl = level()
    (ps, bs), (p1, b1), (p2, b2) = _operands((self, mat1, mat2), lvl)
    if not (bs or b1 or b2):
        return op.redispatch(bits & AFTER_BATCHED, self, mat1, mat2, beta, alpha)
    product = physical_matmul(p1, mat1._sizes, b1, p2, mat2._sizes, b2)
    if not (b1 or b2):
        product = at.expand(at.unsqueeze(product, 0), (ps._sizes[0], *product._sizes), False)
    if alpha != 1:
        product = at.mul_Scalar(product, alpha)
    if beta == 0:
        return wrap(product, lvl)
    bias = pad_front(ps, self._sizes, 2) if bs else ps
    return wrap(at.add_Tensor(product, bias, beta), lvl)


register("aten::addmm", addmm_rule)
