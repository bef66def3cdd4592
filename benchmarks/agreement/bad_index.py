"""Bad indexing and index assignment, and the index ops: gather, scatter, index_select, masked_fill."""

from __future__ import annotations

from .harness import Case

X = "torch.arange(6.).reshape(2, 3)"

GETITEM_BAD = [
    "5", "-5", "0, 5", "0, 0, 0", "'a'", "1.5", "None, 5", "..., ...", "..., 5",
    "torch.tensor([5])", "torch.tensor([-5])", "torch.tensor([1.0])", "torch.tensor([True, False, True])",
    "torch.tensor([[True, False, True]])", "torch.tensor([True])", "[0, 5]", "[0, 'a']",
    "[[0, 1], [0, 1, 1]]", "torch.tensor([0]), torch.tensor([0, 1, 2])", "{0}", "{'a': 1}",
    "object()", "[None]", "torch.tensor(5)", "0:1:0", "::-1", "0:1:-2", "torch.tensor([0.5, 1.0])",
    "torch.ones(2, 3, dtype=torch.int8)", "torch.tensor([], dtype=torch.float32)",
    "torch.tensor([True, False]), torch.tensor([True, False])", "2**63", "1, ..., None, 1, 1",
"[True, False, True]", "slice(0, 'a')",
]  # fmt: skip

SETITEM_BAD = [
    ("0", "torch.ones(5)"), ("0", "'a'"), ("0", "None"), ("0", "[1, 2]"), ("5", "1.0"),
    ("torch.tensor([0, 1])", "torch.ones(3, 3)"), ("torch.tensor([True, False, True])", "1.0"),
    ("torch.tensor([[True, False]])", "0.0"), ("..., 0", "torch.ones(3)"), ("0, 0", "torch.ones(2)"),
    (":, 0", "torch.ones(3)"), ("0", "torch.ones(3, dtype=torch.complex64)"), ("0", "1j"),
    ("'x'", "1"), ("1.5", "1"), ("torch.tensor([2, 0])", "torch.ones(2, 2)"),
    ("torch.tensor([5])", "0.0"), ("0", "torch.ones(2, 3)[:, 0]"), ("0", "object()"),
    ("torch.tensor([0, 0])", "torch.ones(3, 3, 3)"), ("0, 0, 0", "1.0"), ("None, 5", "1.0"),
]  # fmt: skip

INT_SETITEM = [
    ("0", "1.5"), ("0", "torch.ones(3)"), ("0", "float('nan')"), ("0", "2**63"), ("0", "1e20"),
    ("0", "True"), ("0", "torch.tensor([1.5, 2.5, 3.5])"),
]  # fmt: skip

INDEX_OPS = [
    "torch.index_select(torch.ones(2, 3), 0, torch.tensor([2]))",
    "torch.index_select(torch.ones(2, 3), 0, torch.tensor([-1]))",
    "torch.index_select(torch.ones(2, 3), 2, torch.tensor([0]))",
    "torch.index_select(torch.ones(2, 3), 0, torch.tensor([0.0]))",
    "torch.index_select(torch.ones(2, 3), 0, torch.tensor([[0]]))",
    "torch.index_select(torch.ones(2, 3), 0, [0])",
    "torch.index_select(torch.ones(2, 3), 0, torch.tensor([0], dtype=torch.int32))",
    "torch.index_select(torch.ones(2, 3), 0, torch.tensor([True]))",
    "torch.index_select(torch.ones(2, 3), 'a', torch.tensor([0]))",
    "torch.index_select(torch.ones(2, 3), 0)",
    "torch.index_select(torch.ones(2, 3), 0, torch.tensor([0]), out=torch.ones(1, 3, dtype=torch.int64))",
    "torch.gather(torch.ones(2, 3), 0, torch.tensor([[2]]))",
    "torch.gather(torch.ones(2, 3), 0, torch.tensor([0]))",
    "torch.gather(torch.ones(2, 3), 0, torch.tensor([[0.0]]))",
    "torch.gather(torch.ones(2, 3), 5, torch.tensor([[0]]))",
    "torch.gather(torch.ones(2, 3), 0, torch.zeros(3, 4, dtype=torch.int64))",
    "torch.gather(torch.ones(2, 3), 1, torch.zeros(3, 1, dtype=torch.int64))",
    "torch.gather(torch.ones(2, 3), 0, torch.tensor([[-1]]))",
    "torch.gather(torch.ones(2, 3), 0, torch.tensor([[0]], dtype=torch.int32))",
    "torch.gather(torch.ones(2, 3), 0, 'a')",
    "torch.scatter(torch.zeros(2, 3), 0, torch.tensor([[2]]), 1.0)",
    "torch.scatter(torch.zeros(2, 3), 0, torch.tensor([[0]]), torch.ones(1, 1, dtype=torch.float64))",
    "torch.scatter(torch.zeros(2, 3), 0, torch.tensor([[0.0]]), 1.0)",
    "torch.scatter(torch.zeros(2, 3), 3, torch.tensor([[0]]), 1.0)",
    "torch.scatter(torch.zeros(2, 3), 0, torch.zeros(3, 4, dtype=torch.int64), 1.0)",
    "torch.scatter(torch.zeros(2, 3), 0, torch.tensor([[0]]), 1.0, reduce='bogus')",
    "torch.scatter(torch.zeros(2, 3), 0, torch.tensor([[0]]), torch.ones(0, 0))",
    "torch.scatter(torch.zeros(2, 3), 0, torch.tensor([0]), 1.0)",
    "torch.zeros(2, 3).scatter_(0, torch.tensor([[5]]), 1.0)",
    "torch.zeros(2, 3).scatter_(0, torch.tensor([[0]]), 'a')",
    "torch.zeros(2, 3, dtype=torch.int64).scatter_(0, torch.tensor([[0]]), torch.ones(1, 1))",
    "torch.zeros(2, 3).scatter_(0, torch.tensor([[0]]))",
    "torch.masked_fill(torch.ones(2), torch.tensor([1, 0]), 0.0)",
    "torch.masked_fill(torch.ones(2), torch.tensor([True, False, True]), 0.0)",
    "torch.masked_fill(torch.ones(2), torch.tensor([True, False]), torch.ones(2))",
    "torch.masked_fill(torch.ones(2), torch.tensor([True, False]), 'a')",
    "torch.masked_fill(torch.ones(2), torch.tensor([True, False]), None)",
    "torch.masked_fill(torch.ones(2, dtype=torch.int64), torch.tensor([True, False]), 1.5)",
    "torch.masked_fill(torch.ones(2), torch.tensor([True, False]), 1j)",
    "torch.ones(2).masked_fill_(torch.tensor([[True, False], [True, True]]), 0.0)",
    "torch.ones(2).masked_fill_(torch.tensor([True, False]), torch.tensor([1.0, 2.0]))",
    "torch.ones(2).masked_fill_(torch.tensor(1.0), 0.0)",
    "torch.ones(2, 3).index_put_((torch.tensor([5]),), torch.tensor(1.0))",
    "torch.ones(2, 3).index_put_((torch.tensor([0]),), torch.ones(2))",
    "torch.ones(2, 3).index_put_((torch.tensor([0.0]),), torch.tensor(1.0))",
    "torch.ones(2, 3).index_put_([torch.tensor([0])], torch.tensor(1.0), accumulate='x')",
    "torch.ones(2, 3).index_put_((torch.tensor([0]), torch.tensor([0]), torch.tensor([0])), torch.tensor(1.0))",
    "torch.ones(2, 3).index_put_(torch.tensor([0]), torch.tensor(1.0))",
    "torch.ones(2, 3).index_put_((torch.tensor([0]),), 1.0)",
    "torch.ones(2, 3).index_put_((torch.tensor([0]),), torch.tensor(1, dtype=torch.int64))",
    "torch.ones(2, 3).index_put_((torch.tensor([True, False, True]),), torch.tensor(1.0))",
    "torch.index_put(torch.ones(2, 3), (torch.tensor([0]), torch.tensor([[0, 1, 2]])), torch.ones(2, 2))",
    "torch.ones(3).index_put_((torch.tensor([0, 1]),), torch.ones(3), accumulate=True)",
    "torch.ones(3).index_put_((None,), torch.ones(3))",
]


def cases() -> list[Case]:
    out = [Case("index.getitem", f"{X}[{key}]") for key in GETITEM_BAD]
    out += [Case("index.getitem.zero_dim", f"torch.tensor(1.0)[{key}]") for key in GETITEM_BAD[:12]]
    for key, value in SETITEM_BAD:
        out.append(Case("index.setitem", f"x = {X}; x[{key}] = {value}; x"))
    for key, value in INT_SETITEM:
        out.append(Case("index.setitem.int", f"x = torch.arange(3); x[{key}] = {value}; x"))
    out += [Case("index.ops", text) for text in INDEX_OPS]
    return out
