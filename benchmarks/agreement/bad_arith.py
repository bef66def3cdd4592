"""Bad input to arithmetic and comparison ops: wrong types, shapes, alpha, out=, in-place casts."""

from __future__ import annotations

from .harness import Case

BINARY = ["add", "sub", "mul", "div", "remainder", "pow", "maximum", "minimum", "floor_divide",
          "eq", "lt", "logical_and"]  # fmt: skip
INPLACE = ["add_", "sub_", "mul_", "div_", "remainder_", "pow_", "floor_divide_", "eq_", "lt_",
           "ge_", "logical_and_"]  # fmt: skip

# Each bad call of a binary function op, written with OP in place of the name.
BINARY_BAD = [
    "torch.OP(torch.ones(2), 'a')",
    "torch.OP('a', torch.ones(2))",
    "torch.OP(torch.ones(2), None)",
    "torch.OP(None, torch.ones(2))",
    "torch.OP(torch.ones(2), [1.0, 2.0])",
    "torch.OP(torch.ones(2), (1, 2))",
    "torch.OP(torch.ones(2), object())",
    "torch.OP(torch.ones(2, 3), torch.ones(4))",
    "torch.OP(torch.ones(2, 3), torch.ones(3, 2))",
    "torch.OP(torch.ones(0), torch.ones(2))",
    "torch.OP(torch.ones(2), torch.ones(2), torch.ones(2))",
    "torch.OP()",
    "torch.OP(torch.ones(2))",
    "torch.OP(torch.ones(2), 1, foo=1)",
    "torch.OP(input=torch.ones(2), other=torch.ones(2), other2=1)",
    "torch.OP(torch.ones(2), torch.ones(2), out=torch.ones(2, dtype=torch.int64))",
    "torch.OP(torch.ones(2), torch.ones(2), out='x')",
    "torch.OP(torch.ones(2), torch.ones(2), out=(torch.ones(2),))",
    "torch.OP(torch.ones(2), torch.ones(2, device='meta'))",
    "torch.OP(torch.ones(2, device='meta'), torch.ones(2))",
    "torch.OP(torch.ones(2), torch.ones(2), out=torch.ones(2, device='meta'))",
    "torch.OP(torch.ones(2), torch.ones(2), out=torch.ones(2).expand(2, 2)[0])",
    "torch.OP(torch.ones(2), 2**64)",
    "torch.OP(torch.ones(2, dtype=torch.int64), 2**63)",
    "torch.OP(torch.ones(2), torch.ones(2), dtype=torch.float64)",
]

METHOD_BAD = [
    "torch.ones(2).OP('a')",
    "torch.ones(2).OP(None)",
    "torch.ones(2).OP()",
    "torch.ones(2).OP(torch.ones(3))",
    "torch.ones(2).OP(torch.ones(2), torch.ones(2))",
    "torch.ones(2).OP(other=1, bad=2)",
    "torch.ones(2).OP([1])",
]

INPLACE_BAD = [
    "x = torch.ones(2, dtype=torch.int64); x.OP(1.5); x",
    "x = torch.ones(2, dtype=torch.int64); x.OP(torch.ones(2)); x",
    "x = torch.ones(2, dtype=torch.bool); x.OP(2); x",
    "x = torch.ones(3); x.OP(torch.ones(2, 3)); x",
    "x = torch.ones(1); x.OP(torch.ones(4)); x",
    "x = torch.ones(2); x.OP('a'); x",
    "x = torch.ones(2); x.OP(torch.ones(2, dtype=torch.complex64)); x",
    "x = torch.ones(2, dtype=torch.float16); x.OP(torch.ones(2, dtype=torch.float64)); x",
    "x = torch.ones(2, device='meta'); x.OP(torch.ones(2)); x",
]

OPERATOR_BAD = [
    "torch.ones(2) + 'a'",
    "'a' + torch.ones(2)",
    "torch.ones(2) + None",
    "torch.ones(2) * [1, 2]",
    "torch.ones(2) - {}",
    "torch.ones(2, 3) + torch.ones(2)",
    "torch.ones(2, 3) @ torch.ones(2, 3)",
    "torch.ones(2) @ 3",
    "torch.ones(()) @ torch.ones(())",
    "torch.ones(2, dtype=torch.bool) - torch.ones(2, dtype=torch.bool)",
    "-torch.ones(2, dtype=torch.bool)",
    "torch.ones(2, dtype=torch.bool).neg()",
    "torch.tensor([1, 2]) // torch.tensor([0, 1])",
    "torch.tensor([1, 2]) % torch.tensor([0, 1])",
    "torch.tensor([1, 2]) // 0",
    "torch.tensor([1, 2]) % 0",
    "torch.remainder(torch.tensor([3]), torch.tensor([0]))",
    "torch.floor_divide(torch.tensor([3]), 0)",
    "torch.tensor([2, 3]) ** -1",
    "torch.pow(torch.tensor([2]), -2)",
    "torch.tensor([2]).pow_(-1)",
    "torch.tensor([2]) ** torch.tensor([-1])",
    "x = torch.ones(2); x += 'a'",
    "x = torch.ones(2, dtype=torch.int64); x /= 2; x",
    "x = torch.ones(2, dtype=torch.int64); x *= 1.5; x",
    "x = torch.ones(2); x @= torch.ones(2, 2); x",
    "torch.ones(2) < 'a'",
    "torch.ones(2) == torch.ones(3)",
    "torch.ones(2) & torch.ones(2)",
    "torch.ones(2) | torch.ones(2)",
    "~torch.ones(2)",
    "torch.ones(2) ^ torch.ones(2)",
    "torch.ones(2) << 1",
    "abs(torch.ones(2, dtype=torch.bool))",
    "divmod(torch.ones(2), 2)",
    "round(torch.ones(2))",
]

ALPHA_BAD = [
    "torch.add(torch.ones(2), torch.ones(2), alpha='a')",
    "torch.add(torch.ones(2), torch.ones(2), alpha=None)",
    "torch.add(torch.ones(2), torch.ones(2), alpha=torch.ones(2))",
    "torch.add(torch.ones(2), torch.ones(2), alpha=torch.tensor(2.0))",
    "torch.add(torch.ones(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64), alpha=1.5)",
    "torch.add(torch.ones(2, dtype=torch.int64), 1, alpha=0.5)",
    "torch.sub(torch.ones(2, dtype=torch.int32), torch.ones(2, dtype=torch.int32), alpha=2.5)",
    "torch.add(torch.ones(2, dtype=torch.bool), torch.ones(2, dtype=torch.bool), alpha=2)",
    "torch.add(torch.ones(2, dtype=torch.bool), torch.ones(2, dtype=torch.bool), alpha=1.5)",
    "torch.add(torch.ones(2), torch.ones(2), alpha=1j)",
    "torch.add(torch.ones(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64), alpha=2**63)",
    "torch.add(torch.ones(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64), alpha=-(2**63) - 1)",
    "torch.add(torch.ones(2), torch.ones(2), alpha=2**70)",
    "torch.add(torch.ones(2), torch.ones(2), 2)",
    "torch.add(torch.ones(2), torch.ones(2), 2, 3)",
    "torch.ones(2).add_(torch.ones(2), alpha='x')",
    "torch.ones(2, dtype=torch.int64).add_(1, alpha=1.5)",
    "torch.ones(2).sub(torch.ones(2), alpha=[1])",
    "torch.mul(torch.ones(2), torch.ones(2), alpha=2)",
    "torch.div(torch.ones(2), torch.ones(2), rounding_mode='round')",
    "torch.div(torch.ones(2), torch.ones(2), rounding_mode=1)",
    "torch.div(torch.tensor([1]), torch.tensor([0]), rounding_mode='floor')",
    "torch.div(torch.tensor([1]), torch.tensor([0]), rounding_mode='trunc')",
    "torch.ones(2).div_(torch.ones(2), rounding_mode='x')",
    "torch.tensor([4]).div_(2)",
    "torch.tensor([4]).div_(torch.tensor([3]), rounding_mode=None)",
]

MATMUL_BAD = [
    "torch.mm(torch.ones(2, 3), torch.ones(2, 3))",
    "torch.mm(torch.ones(3), torch.ones(3, 2))",
    "torch.mm(torch.ones(2, 3), torch.ones(3))",
    "torch.mm(torch.ones(2, 3), torch.ones(3, 2, dtype=torch.float64))",
    "torch.mm(torch.ones(2, 3, dtype=torch.int64), torch.ones(3, 2))",
    "torch.mm(torch.ones(2, 3), 'a')",
    "torch.mm(torch.ones(2, 3), torch.ones(3, 2), out=torch.ones(2, 2, dtype=torch.int64))",
    "torch.mm(torch.ones(1, 2, 3), torch.ones(3, 2))",
    "torch.bmm(torch.ones(2, 3), torch.ones(3, 2))",
    "torch.bmm(torch.ones(2, 2, 3), torch.ones(3, 3, 2))",
    "torch.bmm(torch.ones(2, 2, 3), torch.ones(2, 4, 2))",
    "torch.dot(torch.ones(2), torch.ones(3))",
    "torch.dot(torch.ones(2, 2), torch.ones(2, 2))",
    "torch.dot(torch.ones(2), torch.ones(2, dtype=torch.float64))",
    "torch.dot(torch.ones(()), torch.ones(()))",
    "torch.matmul(torch.ones(()), torch.ones(2))",
    "torch.matmul(torch.ones(2, 3), torch.ones(2))",
    "torch.matmul(torch.ones(2, 2, 3), torch.ones(4, 3, 2))",
    "torch.matmul(torch.ones(2), 'a')",
    "torch.outer(torch.ones(2, 2), torch.ones(2))",
    "torch.outer(torch.ones(2), 3)",
    "torch.addmm(torch.ones(2, 2), torch.ones(2, 3), torch.ones(2, 2))",
    "torch.addmm(torch.ones(3, 3), torch.ones(2, 3), torch.ones(3, 2))",
    "torch.addmm(torch.ones(2, 2), torch.ones(2, 3), torch.ones(3, 2), beta='a')",
    "torch.addmm(torch.ones(2, 2, dtype=torch.int64), torch.ones(2, 3, dtype=torch.int64), torch.ones(3, 2, dtype=torch.int64), alpha=0.5)",
    "torch.ones(2, 2).addmm_(torch.ones(2, 3), torch.ones(2, 2))",
    "torch.ones(1, 2).addmm_(torch.ones(2, 3), torch.ones(3, 2))",
]

CLAMP_WHERE_BAD = [
    "torch.clamp(torch.ones(2))",
    "torch.clamp(torch.ones(2), 'a')",
    "torch.clamp(torch.ones(2), min=torch.ones(3))",
    "torch.clamp(torch.ones(2), min=1, max=torch.ones(2))",
    "torch.clamp(torch.ones(2, dtype=torch.bool), 0, 1)",
    "torch.clamp(torch.ones(2), min=1j)",
    "torch.ones(2, dtype=torch.int64).clamp_(0.5, 1.5)",
    "torch.ones(2).clamp_(min=torch.ones(2, 2))",
    "torch.where(torch.ones(2), torch.ones(2), torch.zeros(2))",
    "torch.where(torch.ones(2, dtype=torch.bool), torch.ones(3), torch.zeros(2))",
    "torch.where(torch.ones(2, dtype=torch.bool), 'a', 1)",
    "torch.where(torch.ones(2, dtype=torch.bool), torch.ones(2))",
    "torch.where(torch.ones(2, dtype=torch.bool), torch.ones(2), torch.zeros(2), torch.ones(2))",
    "torch.where(1, torch.ones(2), torch.zeros(2))",
    "torch.ones(2).where(torch.ones(2, dtype=torch.bool))",
    "torch.where(torch.ones(2, dtype=torch.bool), torch.ones(2), torch.zeros(2), out=torch.ones(2, dtype=torch.int64))",
]

UNARY_BAD = [
    ("exp", "torch.OP('a')"),
    ("exp", "torch.OP(torch.ones(2), 1)"),
    ("exp", "torch.OP(torch.ones(2), out=torch.ones(2, dtype=torch.int64))"),
    ("exp", "torch.OP(torch.ones(2, dtype=torch.int64), out=torch.ones(2, dtype=torch.int64))"),
    ("exp", "torch.ones(2, dtype=torch.int64).OP_()"),
    ("exp", "torch.ones(2, dtype=torch.bool).OP_()"),
    ("log", "torch.OP(None)"),
    ("log", "torch.ones(2, dtype=torch.int32).OP_()"),
    ("sqrt", "torch.ones(2, dtype=torch.int8).OP_()"),
    ("sin", "torch.OP(torch.ones(2), out=torch.ones(2, dtype=torch.bool))"),
    ("cos", "torch.OP([1.0])"),
    ("tanh", "torch.ones(2, dtype=torch.int64).OP_()"),
    ("sigmoid", "torch.ones(2, dtype=torch.int64).OP_()"),
    ("rsqrt", "torch.ones(2, dtype=torch.int64).OP_()"),
    ("log1p", "torch.OP(1.0)"),
    ("neg", "torch.OP(torch.ones(2, dtype=torch.bool))"),
    ("neg", "torch.OP(torch.ones(2), out=torch.ones(3, 3)[:, 0])"),
    ("abs", "torch.OP('x')"),
    ("abs", "torch.ones(2, dtype=torch.bool).OP_()"),
    ("relu", "torch.OP(torch.ones(2, dtype=torch.bool))"),
    ("relu", "torch.OP(torch.ones(2, dtype=torch.complex64))"),
    ("sign", "torch.OP(torch.ones(2, dtype=torch.complex64))"),
    ("isnan", "torch.OP('a')"),
    ("logical_not", "torch.OP(torch.ones(2), out=torch.ones(3))"),
    ("sigmoid", "torch.OP(torch.ones(2), torch.ones(2))"),
    ("exp", "torch.OP(input=torch.ones(2), x=1)"),
]


def cases() -> list[Case]:
    out = []
    for op in BINARY:
        out += [Case("arith.binary", text.replace("OP", op)) for text in BINARY_BAD]
        out += [Case("arith.method", text.replace("OP", op)) for text in METHOD_BAD]
    for op in INPLACE:
        out += [Case("arith.inplace", text.replace("OP", op)) for text in INPLACE_BAD]
    out += [Case("arith.operator", text) for text in OPERATOR_BAD]
    out += [Case("arith.alpha", text) for text in ALPHA_BAD]
    out += [Case("arith.matmul", text) for text in MATMUL_BAD]
    out += [Case("arith.clamp_where", text) for text in CLAMP_WHERE_BAD]
    out += [Case("arith.unary", text.replace("OP", op)) for op, text in UNARY_BAD]
    return out
