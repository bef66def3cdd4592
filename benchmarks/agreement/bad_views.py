"""Bad input to view ops: impossible sizes, dims out of range, wrong argument types."""

from __future__ import annotations

from .harness import Case

# The base tensors the bad calls are applied to (X in the templates).
BASES = {
    "c": "torch.arange(6.).reshape(2, 3)",
    "t": "torch.arange(6.).reshape(2, 3).t()",
    "z": "torch.tensor(1.0)",
}

VIEW_BAD = {
    "view": [
        "-1, -1",
        "5",
        "4, 2",
        "'a'",
        "2.5",
        "None",
        "(2, 3), 1",
        "-2, 3",
        "[2, -3]",
        "2**63",
        "0",
        "torch.ones(2)",
        "dtype=torch.int64",
        "size=(6,)",
    ],
    "reshape": ["-1, -1", "5", "'a'", "2.5", "(-2,)", "[None]", "2**63", "shape=3", "(2, 3), 1"],
    "expand": [
        "2",
        "-2, 3",
        "3, 3",
        "1, 2, -1",
        "'a'",
        "2.5",
        "(2, 3), (2, 3)",
        "2**63, 3",
        "-1, -1, -1",
        "[2, 3], implicit='x'",
    ],
    "permute": ["0", "0, 0", "0, 5", "'a', 0", "1.5, 0", "(0, 1, 2)", "-3, 0", "None", "0, 1, 0"],
    "transpose": ["0, 5", "5, 0", "'a', 0", "0", "0, 1, 2", "1.5, 0", "-3, 0", "None, 0"],
    "squeeze": ["5", "-5", "'a'", "1.5", "(0, 5)", "(0, 0)", "0, 1", "dim=None, x=1"],
    "unsqueeze": ["5", "-5", "4", "'a'", "1.5", "", "(0,)", "None"],
    "narrow": [
        "0, 5, 1",
        "0, 0, -1",
        "0, 0, 5",
        "5, 0, 1",
        "0, -5, 1",
        "0, 'a', 1",
        "0, 1.5, 1",
        "0, 0",
        "0, torch.tensor(5), 1",
        "0, torch.tensor([0, 1]), 1",
    ],
    "select": ["0, 5", "0, -5", "5, 0", "'a', 0", "0, 1.5", "0", "0, None", "0, torch.tensor(1.5)"],
    "flatten": ["1, 0", "5", "0, 5", "'a'", "0.5", "start_dim=-5"],
    "unflatten": [
        "0, (4,)",
        "0, (-1, -1)",
        "5, (1, 2)",
        "0, ()",
        "0, 'a'",
        "1, (2, 2)",
        "0, (0, -1)",
    ],
    "movedim": ["0, 5", "(0, 1), (0,)", "(0, 0), (1, 0)", "'a', 0", "0, 1.5", "0"],
    "split": ["0", "-1", "'a'", "[1, 1]", "1, 5", "2.5", "[1, -1, 2]"],
    "split_with_sizes": ["[1, 1]", "[3, -1]", "[1, 2], 5", "'a'"],
    "chunk": ["0", "-1", "2, 5", "'a'", "2.5"],
    "unbind": ["5", "-5", "'a'", "1.5"],
    "t": ["0", "'a'"],
    "diagonal": ["0, 0, 0", "0, 0, 5", "0, 5, 1", "'a'", "offset=1.5"],
    "unfold": ["0, 5, 1", "0, 1, 0", "0, 1, -1", "5, 1, 1", "0, -1, 1", "0, 'a', 1", "0, 1"],
    "flip": ["5", "(0, 0)", "'a'", "1.5", ""],
    "roll": ["1, 5", "(1, 1), (0,)", "'a'", "1.5", "1, (0, 0)", ""],
    "swapaxes": ["0, 5", "'a', 0"],
    "as_strided": [
        "(2, 2), (1,)",
        "(2, 2), (-1, 1)",
        "(2, 2), (1, 1), -1",
        "(100,), (1,)",
        "(2, 2), (1, 1), 10",
        "'a', (1,)",
        "(2,), (1.5,)",
    ],
    "expand_as": ["torch.ones(3, 3)", "'a'", "torch.ones(2)"],
    "view_as": ["torch.ones(5)", "'a'", "torch.ones(3, 2).t()"],
    "tril": ["'a'", "1.5", "0, 1"],
    "triu": ["None", "2.5"],
}

MISC_BAD = [
    "torch.arange(6.).reshape(2, 3).t().view(6)",
    "torch.arange(6.).reshape(2, 3)[:, :2].view(4)",
    "torch.arange(6.).reshape(2, 3).t().view(-1)",
    "torch.ones(2, 3).expand(3, 2, 3).view(18)",
    "torch.ones(3).expand(2, 3).transpose_(0, 5)",
    "torch.ones(2, 3).t_()",
    "torch.ones(2, 3, 4).t_()",
    "torch.ones(2, 3, 4).t()",
    "torch.ones(2).unsqueeze_(3)",
    "torch.ones(2).squeeze_(3)",
    "torch.ones(2, 3).transpose_('a', 0)",
    "torch.ones(2, 2).as_strided_((5, 5), (1, 1))",
    "torch.ones(4).as_strided((2, 2), (2, 1), -1)",
    "torch.ones(4).as_strided((3,), (2,))",
    "torch.narrow(torch.ones(3), 0, 2, 2)",
    "torch.select(torch.ones(3), 0, 3)",
    "torch.select(torch.ones(3), 1, 0)",
    "torch.permute(torch.ones(2, 3), (0,))",
    "torch.permute(torch.ones(2, 3), 0, 1)",
    "torch.squeeze(torch.ones(2), 1)",
    "torch.unsqueeze(torch.ones(2))",
    "torch.flatten(torch.ones(2, 3), 2)",
    "torch.transpose(torch.ones(2), 0, 1)",
    "torch.reshape(torch.ones(6), (4, -1))",
    "torch.reshape(torch.ones(0), (-1, 0))",
    "torch.ones(0).view(-1, 0)",
    "torch.ones(0, 3).view(0, -1)",
    "torch.ones(6).view((2, 3), (3, 2))",
    "torch.movedim(torch.ones(2, 3), (0, 1), (1, 1))",
    "torch.split(torch.ones(3), [1, 1])",
    "torch.chunk(torch.ones(3), 0)",
    "torch.unbind(torch.ones(3), 1)",
    "torch.diagonal(torch.ones(3))",
    "torch.flip(torch.ones(2, 3), (0, 2))",
    "torch.flip(torch.ones(2, 3), (0, -2))",
    "torch.roll(torch.ones(3), (1, 2), (0,))",
    "torch.roll(torch.ones(3), [], [])",
    "torch.swapdims(torch.ones(2), 0, 1)",
    "torch.ones(2, 3).view(2, 3, dtype=torch.int32)",
    "torch.ones(2).expand(torch.Size([2, 2]), 2)",
    "torch.ones(2).expand(size=(2, 2), x=1)",
]


def cases() -> list[Case]:
    out = []
    for method, args_list in VIEW_BAD.items():
        for base_text in BASES.values():
            for args in args_list:
                out.append(Case(f"views.{method}", f"{base_text}.{method}({args})"))
    out += [Case("views.misc", text) for text in MISC_BAD]
    return out
