"""Valid but unusual indexing and index assignment, and the index ops (gather, scatter,
index_select, masked_fill, index_put with duplicates)."""

from __future__ import annotations

from .harness import Case

X = "torch.arange(24.).reshape(2, 3, 4)"

KEYS = [
    "-1", "-2", "1, -1", "..., -1", "None", "None, ..., None", "..., None, 1", ":, None, 1",
    "True", "False", "torch.tensor(True)", "torch.tensor(1)", "torch.tensor([-1, 0])",
    "torch.tensor([[0, 1], [1, 0]])", "[0, 1, 0]", "[]", "torch.tensor([], dtype=torch.int64)",
    ":, [0, 2]", "[0, 1], [1, 2]", "[0, 1], :, [1, 3]", ":, [[0], [2]], [1, 3]", "..., [0, -1]",
    "1:, ::2, 1::2", "5:10", "-10:", "1:0", ":, 2:1", "None, [0, 1], None",
    "torch.tensor([True, False])", "torch.tensor([[True, False, True], [False, False, True]])",
    "torch.tensor([[True, False, True], [False, False, True]]), 1:",
    ":, torch.tensor([True, False, True])", "0, torch.tensor([True, False, True]), 0",
    "torch.zeros(2, 3, 4, dtype=torch.bool)", "torch.tensor([0, 1], dtype=torch.int32)",
    "torch.tensor([1], dtype=torch.int16)",
    "(0, 1)", "[[0, 1]]", "[True, False]", "slice(None), 1", "torch.tensor(0), torch.tensor(1)",
]  # fmt: skip

SETS = [
    ("0", "5.0"), ("-1", "torch.tensor([1.0, 2.0, 3.0, 4.0])"), ("...", "0.0"),
    (":, 0", "torch.tensor([7.0, 8.0, 9.0, 10.0])"), ("torch.tensor([1, 1])", "1.0"),
    ("torch.tensor([[True, False, True], [False, False, True]])", "-1.0"),
    ("torch.tensor([[True, False, True], [False, False, True]])", "torch.tensor([1.0, 2.0, 3.0, 4.0])"),
    ("None", "3.0"), ("True", "3.0"), ("False", "3.0"), ("[0, 1], [1, 2]", "torch.tensor([[1.0], [2.0]])"),
    (":, :, ::2", "torch.tensor(-2.0)"), ("1:, 1:", "torch.tensor([5, 6, 7, 8])"),
    ("0", "torch.tensor(2, dtype=torch.int64)"), ("0", "True"), ("[]", "1.0"),
    ("..., [0, -1]", "torch.tensor([1.0, 2.0])"), ("0, 0", "torch.tensor([1.5, 2.5, 3.5, 4.5], dtype=torch.float64)"),
    ("torch.tensor(1)", "0.5"), ("torch.tensor([0]), torch.tensor([0, 1]), torch.tensor([2])", "9.0"),
]  # fmt: skip

OPS = [
    "torch.index_select(torch.arange(6.).reshape(2, 3), 1, torch.tensor([2, 0, 2]))",
    "torch.index_select(torch.arange(6.).reshape(2, 3), 0, torch.tensor([], dtype=torch.int64))",
    "torch.index_select(torch.arange(6.).reshape(2, 3), -1, torch.tensor(1))",
    "torch.index_select(torch.tensor(2.0), 0, torch.tensor([0]))",
    "torch.index_select(torch.arange(6.).reshape(2, 3).t(), 0, torch.tensor([1]))",
    "torch.index_select(torch.arange(4.), 0, torch.tensor([0, 1], dtype=torch.int32))",
    "torch.gather(torch.arange(6.).reshape(2, 3), 1, torch.tensor([[2, 0], [1, 1]]))",
    "torch.gather(torch.arange(6.).reshape(2, 3), 0, torch.tensor([[1, 0, 1]]))",
    "torch.gather(torch.arange(6.).reshape(2, 3), 1, torch.zeros(2, 0, dtype=torch.int64))",
    "torch.gather(torch.tensor(3.0), 0, torch.tensor(0))",
    "torch.gather(torch.arange(6.).reshape(2, 3), -1, torch.tensor([[0], [2]]))",
    "torch.scatter(torch.zeros(2, 3), 1, torch.tensor([[2], [0]]), 5.0)",
    "torch.scatter(torch.zeros(2, 3), 0, torch.tensor([[1, 0, 1]]), torch.ones(1, 3))",
    "torch.scatter(torch.zeros(3), 0, torch.tensor([0, 2]), torch.tensor([1.0, 2.0]))",
    "torch.scatter(torch.zeros(2, 3), 1, torch.tensor([[0, 1]]), 2.0, reduce='add')",
    "torch.scatter(torch.ones(2, 3), 1, torch.tensor([[0, 1]]), 3.0, reduce='multiply')",
    "torch.zeros(2, 3, dtype=torch.int64).scatter_(1, torch.tensor([[0]]), 7)",
    "torch.zeros(3).scatter_(0, torch.tensor([], dtype=torch.int64), 1.0)",
    "torch.masked_fill(torch.arange(4.), torch.tensor([True, False, True, False]), -1.0)",
    "torch.masked_fill(torch.arange(4.), torch.tensor(True), 0.5)",
    "torch.masked_fill(torch.arange(6.).reshape(2, 3), torch.tensor([True, False, True]), 0.0)",
    "torch.masked_fill(torch.arange(4.), torch.tensor([True, False, True, False]), torch.tensor(9.0))",
    "torch.masked_fill(torch.arange(4), torch.tensor([True, False, True, False]), 2.0)",
    "torch.masked_fill(torch.arange(4.), torch.tensor([True, False, True, False]), float('nan'))",
    "torch.masked_fill(torch.ones(0), torch.ones(0, dtype=torch.bool), 1.0)",
    "torch.arange(4.).index_put_((torch.tensor([0, 0, 1]),), torch.tensor([1.0, 2.0, 3.0]), accumulate=True)",
    "torch.arange(4.).index_put_((torch.tensor([1, 3]),), torch.tensor(0.0))",
    "torch.arange(6.).reshape(2, 3).index_put_((torch.tensor([0, 1]), torch.tensor([2, 0])), torch.tensor([-1.0, -2.0]))",
    "torch.arange(6.).reshape(2, 3).index_put_((torch.tensor([True, False]),), torch.tensor([7.0, 8.0, 9.0]))",
    "torch.index_put(torch.zeros(3), (torch.tensor([2, 2]),), torch.tensor([1.0, 1.0]), accumulate=True)",
    "torch.arange(6.).reshape(2, 3)[torch.tensor([1, 0])][:, torch.tensor([2])]",
    "x = torch.arange(6.); x[x > 2] = 0; x",
    "x = torch.arange(6.); x[x > 10] = 1; x",
    "x = torch.arange(6.); x[torch.tensor([0, 0])] += 1; x",
    "x = torch.arange(6.).reshape(2, 3).t(); x[0] = -1; x",
    "x = torch.arange(6.).reshape(2, 3); x[:, 1:][0] = 100; x",
    "x = torch.arange(6); x[1] = 2.7; x",
    "x = torch.arange(6.); x[[1, 3]] = torch.tensor([10, 20]); x",
    "x = torch.zeros(2, 2); x[0, :] = torch.tensor([[1.0, 2.0]]); x",
    "x = torch.tensor(5.0); x[...] = 3; x",
    "x = torch.tensor(5.0); x[None] = 3; x",
    "x = torch.tensor(5.0); x[()] = 4; x",
    "x = torch.tensor(5.0); x[True] = 1; x",
    "torch.tensor(5.0)[()]",
    "torch.tensor(5.0)[...]",
    "torch.tensor(5.0)[None, None]",
    "torch.tensor(5.0)[False]",
]


def cases() -> list[Case]:
    out = [Case("index.get", f"{X}[{key}]") for key in KEYS]
    out += [Case("index.set", f"x = {X}; x[{key}] = {value}; x") for key, value in SETS]
    out += [Case("index.ops", text) for text in OPS]
    return out
