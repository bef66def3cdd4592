"""Bad input to cat and stack: empty lists, mismatched shapes, dims, dtypes, non-tensors, out=."""

from __future__ import annotations

from .harness import Case

LISTS = [
    "[]",
    "()",
    "[torch.ones(2, 3), torch.ones(3, 3, 3)]",
    "[torch.ones(2, 3), torch.ones(2, 4)]",
    "[torch.ones(2, 3), torch.ones(3, 2)]",
    "[torch.ones(()), torch.ones(())]",
    "[torch.ones(2), torch.ones(())]",
    "[torch.ones(2), 'a']",
    "[torch.ones(2), None]",
    "[torch.ones(2), 1.0]",
    "[torch.ones(2), [1.0, 2.0]]",
    "torch.ones(2, 3)",
    "'ab'",
    "None",
    "[torch.ones(2), torch.ones(2, device='meta')]",
    "(t for t in [torch.ones(2), torch.ones(2)])",
    "{torch.ones(2)}",
    "[torch.ones(2, 3), torch.ones(2, 3).t()]",
]

DIMS = [
    "",
    ", 0",
    ", 1",
    ", 2",
    ", -3",
    ", 5",
    ", 'a'",
    ", 1.5",
    ", dim=None",
    ", axis=0",
    ", 0, 1",
]

SPECIFIC = [
    "torch.cat([torch.ones(2), torch.ones(2)], out=torch.ones(4, dtype=torch.int64))",
    "torch.cat([torch.ones(2), torch.ones(2)], out='x')",
    "torch.cat([torch.ones(2), torch.ones(2)], 0, torch.ones(4))",
    "torch.cat([torch.ones(2, dtype=torch.complex64), torch.ones(2)], out=torch.ones(4))",
    "torch.cat([torch.ones(2, dtype=torch.bool), torch.ones(2)], out=torch.ones(4, dtype=torch.bool))",
    "torch.cat([torch.ones(0), torch.ones(2, 3)], 1)",
    "torch.cat([torch.ones(0, 3), torch.ones(2, 4)])",
    "torch.cat([torch.ones(2, 3)], dim=2)",
    "torch.cat(tensors=[torch.ones(2)], bogus=0)",
    "torch.cat(torch.ones(2), torch.ones(2))",
    "torch.cat()",
    "torch.stack([torch.ones(2), torch.ones(3)])",
    "torch.stack([torch.ones(2), torch.ones(2, 1)])",
    "torch.stack([torch.ones(2)], 2)",
    "torch.stack([torch.ones(2)], -3)",
    "torch.stack([torch.ones(2), torch.ones(2)], out=torch.ones(2, 2, dtype=torch.int64))",
    "torch.stack(torch.ones(2), torch.ones(2))",
    "torch.stack([torch.ones(()), torch.ones(1)])",
    "torch.stack()",
    "torch.stack([torch.ones(2), torch.ones(2, dtype=torch.float64)], out=torch.ones(2, 2))",
]


def cases() -> list[Case]:
    out = []
    for fn in ("cat", "stack"):
        for items in LISTS:
            for dim in DIMS:
                if dim and items in ("[]", "()", "'ab'", "None") and dim != ", 0":
                    continue
                out.append(Case(f"join.{fn}", f"torch.{fn}({items}{dim})"))
    out += [Case("join.specific", text) for text in SPECIFIC]
    return out
