"""Bad input to reductions, scans, softmax, sort and topk: dims, dtypes, empty inputs, out=."""

from __future__ import annotations

from .harness import Case

REDUCTIONS = ["sum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "std",
              "var", "logsumexp", "all", "any", "norm", "cumsum", "softmax", "log_softmax"]  # fmt: skip

# Bad dims and keywords, applied to a 2x3 float tensor through the function form.
DIM_BAD = [
    "dim=5",
    "dim=-5",
    "dim='a'",
    "dim=1.5",
    "dim=(0, 0)",
    "dim=(0, 5)",
    "dim=[0, 'a']",
    "dim=torch.tensor(0)",
    "keepdim='yes'",
    "0, 'yes'",
    "dim=0, bogus=1",
    "dim=None, keepdim=True, extra=1",
    "0, True, True, True",
    "dtype='float32'",
    "dim=0, out=torch.ones(7, dtype=torch.bool)",
]

EMPTY_BAD = [
    "torch.OP(torch.ones(0))",
    "torch.OP(torch.ones(0, 3), 0)",
    "torch.OP(torch.ones(0, 3), dim=1)",
    "torch.OP(torch.ones(2, 0), dim=1, keepdim=True)",
]

SPECIFIC = [
    "torch.mean(torch.ones(2, dtype=torch.int64))",
    "torch.mean(torch.ones(2), dtype=torch.int64)",
    "torch.mean(torch.ones(2, dtype=torch.bool))",
    "torch.ones(2, dtype=torch.int32).mean(0)",
    "torch.std(torch.ones(2, dtype=torch.int64))",
    "torch.var(torch.ones(2, dtype=torch.int64), 0)",
    "torch.std(torch.ones(3), correction='a')",
    "torch.var(torch.ones(3), unbiased=1.5)",
    "torch.std(torch.ones(3), 0, True, True, True)",
    "torch.logsumexp(torch.ones(2))",
    "torch.logsumexp(torch.ones(2, dtype=torch.int64), 0)",
    "torch.softmax(torch.ones(2))",
    "torch.softmax(torch.ones(2, dtype=torch.int64), 0)",
    "torch.log_softmax(torch.ones(2, dtype=torch.int64), 0)",
    "torch.softmax(torch.ones(2), 0, dtype=torch.int64)",
    "torch.log_softmax(torch.ones(2), 0, torch.float64, 1)",
    "torch.cumsum(torch.ones(2))",
    "torch.cumsum(torch.ones(2), 0, dtype='int')",
    "torch.ones(2, dtype=torch.int64).cumsum_(0, dtype=torch.float32)",
    "torch.cumsum(torch.ones(2), 0, out=torch.ones(2, dtype=torch.int64))",
    "torch.sum(torch.ones(2), dtype=torch.bool)",
    "torch.sum(torch.ones(2), 0, out=torch.ones(3, dtype=torch.int64))",
    "torch.sum(torch.ones(2, 3), (0,), True, torch.float32, 1)",
    "torch.sum('a')",
    "torch.sum(torch.ones(2), [])",
    "torch.prod(torch.ones(2, 3), (0, 1))",
    "torch.prod(torch.ones(2), 0, dtype=torch.bool)",
    "torch.amax(torch.ones(2, dtype=torch.complex64))",
    "torch.max(torch.ones(2, dtype=torch.complex64))",
    "torch.max(torch.ones(2), torch.ones(3))",
    "torch.max(torch.ones(2), 0, torch.ones(2))",
    "torch.max(torch.ones(2), 'a')",
    "torch.min(torch.ones(2), dim=0, keepdim=True, out=5)",
    "torch.argmax(torch.ones(2), keepdim='x')",
    "torch.argmax(torch.ones(2, dtype=torch.complex64))",
    "torch.argmax(torch.ones(2, 2), dim=(0, 1))",
    "torch.all(torch.ones(2), dim=(0, 0))",
    "torch.any(torch.ones(2, dtype=torch.complex64), dim=5)",
    "torch.norm(torch.ones(2), p='fro', dim=5)",
    "torch.norm(torch.ones(2), p='nuc')",
    "torch.norm(torch.ones(2), p='bogus')",
    "torch.norm(torch.ones(2, dtype=torch.int64))",
    "torch.norm(torch.ones(2), dtype=torch.int64)",
    "torch.sort(torch.ones(2), 5)",
    "torch.sort(torch.ones(2), descending='x')",
    "torch.sort(torch.ones(2), stable=None)",
    "torch.sort(torch.ones(2, dtype=torch.complex64))",
    "torch.topk(torch.ones(3), 4)",
    "torch.topk(torch.ones(3), -1)",
    "torch.topk(torch.ones(3), 1, 5)",
    "torch.topk(torch.ones(3), 1.5)",
    "torch.topk(torch.ones(3), 'a')",
    "torch.topk(torch.ones(()), 2)",
    "torch.topk(torch.ones(3, dtype=torch.complex64), 1)",
    "torch.topk(torch.ones(3), k=1, largest='x')",
    "torch.max(torch.ones(0, 3))",
    "torch.min(torch.ones(0))",
    "torch.max(torch.ones(0, 3), 1)",
    "torch.argmax(torch.ones(0))",
    "torch.ones(2).sum(dim=0, keepdim=False, dtype=torch.float32, foo=1)",
    "torch.ones(2).max(1)",
    "torch.ones(2).mean(axis=5)",
    "torch.ones(2).sum(axis='x')",
    "torch.ones(2).std(unbiased=False, correction=1)",
]


def cases() -> list[Case]:
    out = []
    for op in REDUCTIONS:
        for args in DIM_BAD:
            out.append(Case(f"reduce.{op}", f"torch.{op}(torch.arange(6.).reshape(2, 3), {args})"))
        out += [Case(f"reduce.{op}.empty", text.replace("OP", op)) for text in EMPTY_BAD]
    out += [Case("reduce.specific", text) for text in SPECIFIC]
    return out
