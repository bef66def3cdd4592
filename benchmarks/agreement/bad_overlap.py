"""Memory overlap in in-place and out= ops: partial overlap between input and written-to
tensor, internal overlap of the written-to tensor, out= that is also an input."""

from __future__ import annotations

from .harness import Case

X = "x = torch.arange(6.)\n"

PARTIAL = [
    "x[1:].add_(x[:-1])",
    "x[1:].sub_(x[:-1])",
    "x[1:].mul_(x[:-1])",
    "x[1:].div_(x[:-1] + 1)",
    "x[:-1].add_(x[1:])",
    "x[1:].copy_(x[:-1])",
    "x[1:].pow_(x[:-1])",
    "x[1:].maximum(x[:-1])",
    "x[1:].clamp_(min=x[:-1])",
    "x[1:].remainder_(x[:-1] + 1)",
    "x[1:].masked_fill_(x[:-1] > 2, 0.0)",
    "torch.exp(x[:-1], out=x[1:])",
    "torch.neg(x[:-1], out=x[1:])",
    "torch.sin(x[:-1], out=x[1:])",
    "torch.sigmoid(x[:-1], out=x[1:])",
    "torch.add(x[:-1], 1, out=x[1:])",
    "torch.add(x[:-1], x[:-1], out=x[1:])",
    "torch.mul(x[2:], 2, out=x[:-2])",
    "torch.cumsum(x[:-1], 0, out=x[1:])",
    "torch.where(x[:-1] > 2, x[:-1], 0.0, out=x[1:])",
    "torch.clamp(x[:-1], 0, 3, out=x[1:])",
    "torch.cat([x[:2], x[2:4]], out=x[1:5])",
    "torch.cat([x[:3], x[:3]], out=x)",
    "torch.stack([x[:3], x[3:]], out=x.view(2, 3))",
    "torch.index_select(x, 0, torch.tensor([0, 1, 2]), out=x[:3])",
    "torch.index_select(x[:3], 0, torch.tensor([0, 1]), out=x[1:3])",
    "torch.gather(x, 0, torch.tensor([0, 1]), out=x[1:3])",
    "y = x.view(2, 3)\ntorch.mm(y, y.t(), out=y[:, :2])",
    "y = x.view(2, 3)\ntorch.sum(y, 1, out=y[0, :2])",
    "torch.tanh(x[:-1], out=x[1:])",
    "x[1:].logical_and_(x[:-1])",
    "y = x.view(2, 3)\ny.t()[:, :2].add_(y[:, :2].t()[:2])",
    "x.view(2, 3)[:, 1:].add_(x.view(2, 3)[:, :2])",
    "x[::2].add_(x[1::2])",
    "x[::2].add_(x[:3])",
    "x[1:4].add_(x.flip(0)[:3])",
    "x.scatter_(0, torch.tensor([0, 1]), x[1:3])",
    "x.index_put_((torch.tensor([0, 1]),), x[1:3])",
    "x[:3].index_put_((torch.tensor([0, 1]),), x[1:3])",
    "x[1:].fill_(x[0])",
]

INTERNAL = [
    "torch.ones(1).expand(3).add_(1)",
    "torch.ones(1).expand(3).mul_(2)",
    "torch.ones(1).expand(3).zero_()",
    "torch.ones(1).expand(3).fill_(2.0)",
    "torch.ones(1).expand(3).copy_(torch.arange(3.))",
    "torch.ones(1).expand(3).exp_()",
    "torch.ones(1).expand(3).clamp_(0, 1)",
    "torch.ones(1).expand(3).masked_fill_(torch.tensor([True, False, True]), 0.0)",
    "torch.ones(1).expand(3, 2).scatter_(0, torch.tensor([[0, 1]]), 5.0)",
    "torch.ones(1).expand(3).index_put_((torch.tensor([0]),), torch.tensor(2.0))",
    "torch.ones(1).expand(3)[0] = 5",
    "torch.ones(1, 1).expand(2, 2).t_()",
    "y = torch.ones(4)\ntorch.add(torch.ones(4), 1, out=y[:1].expand(4))",
    "y = torch.ones(4)\ntorch.exp(torch.ones(4), out=y[:1].expand(4))",
    "y = torch.ones(4)\ntorch.cumsum(torch.ones(4), 0, out=y[:1].expand(4))",
    "y = torch.ones(4)\ntorch.cat([torch.ones(2), torch.ones(2)], out=y[:1].expand(4))",
    "y = torch.ones(4)\ntorch.mm(torch.ones(2, 2), torch.ones(2, 2), out=y[:2].expand(2, 2))",
    "torch.ones(4).as_strided((3,), (0,)).add_(1)",
    "torch.ones(4).as_strided((2, 2), (1, 1)).mul_(2)",
    "torch.ones(1).expand(3).relu_()",
    "torch.ones(1).expand(3).neg_()",
    "torch.ones(1).expand(3).cumsum_(0)",
]

OUT_IS_INPUT = [
    "b = torch.ones(3)\ntorch.add(torch.ones(2, 3), b, out=b)",
    "b = torch.ones(3)\ntorch.mul(b, torch.ones(2, 3), out=b)",
    "b = torch.ones(3)\ntorch.where(torch.ones(2, 3, dtype=torch.bool), b, 0.0, out=b)",
    "b = torch.ones(2, 2)\ntorch.mm(b, torch.ones(2, 3), out=b)",
    "b = torch.ones(3)\ntorch.cat([b, b], out=b)",
    "b = torch.ones(3)\ntorch.exp(b, out=b)",
    "b = torch.ones(3)\ntorch.add(b, b, out=b)",
    "b = torch.ones(3)\ntorch.cumsum(b, 0, out=b)",
    "b = torch.ones(3)\ntorch.index_select(b, 0, torch.tensor([0, 1]), out=b)",
    "b = torch.ones(2, 3)\ntorch.sum(b, 0, out=b)",
    "b = torch.ones(3)\ntorch.stack([b, b], out=b)",
    "b = torch.ones(3)\ntorch.clamp(b, 0, 1, out=b[:2])",
    "b = torch.ones(2, 2)\ntorch.mm(b, b, out=b)",
    "b = torch.ones(2, 2)\ntorch.mm(b, b, out=b.t())",
]

RESIZE = [
    "torch.add(torch.ones(2, 3), 1, out=torch.ones(3))",
    "torch.add(torch.ones(3), 1, out=torch.ones(0))",
    "torch.add(torch.ones(3), 1, out=torch.ones(2, 3)[:, 0])",
    "torch.add(torch.ones(3), 1, out=torch.ones(3).expand(2, 3))",
    "torch.exp(torch.ones(3), out=torch.ones(5))",
    "torch.sum(torch.ones(2, 3), 0, out=torch.ones(2))",
    "torch.mm(torch.ones(2, 2), torch.ones(2, 2), out=torch.ones(3))",
    "torch.cat([torch.ones(2), torch.ones(2)], out=torch.ones(5))",
    "torch.cat([torch.ones(2), torch.ones(2)], out=torch.ones(3, 3)[:, 0])",
    "torch.index_select(torch.ones(4), 0, torch.tensor([0]), out=torch.ones(2, 2).t())",
    "torch.cumsum(torch.ones(3), 0, out=torch.ones(3, 3)[0:3, 0])",
]


def cases() -> list[Case]:
    out = [Case("overlap.partial", X + text + "\nx") for text in PARTIAL]
    out += [Case("overlap.internal", text) for text in INTERNAL]
    out += [Case("overlap.out_is_input", text) for text in OUT_IS_INPUT]
    out += [Case("overlap.resize_out", text) for text in RESIZE]
    return out
