"""The agreement corpora: programs run under PyTorch and under ember, outcomes compared.

Two corpora, each a list of `harness.Case` built by the modules below:

* bad input (`bad_*.py`): malformed or misused calls of the public API, where
  the interest is the error (its type, its message) and that no wrong result
  comes back where PyTorch refuses;
* edge cases (`edge_*.py`): valid but unusual calls (0-dim, empty, odd strides,
  dtypes, promotion corners, NaN/inf, autograd), compared by value, dtype,
  shape, strides, requires_grad and grad_fn name.

The cases are written from the API's documented behaviour, not from either
library's output; benchmarks/agreement.py runs them and prints the figures.
Entry points are those ember offers (both libraries are asked the same
question); a name ember lacks shows up as "missing API", counted apart.
"""

from __future__ import annotations

import importlib

from .harness import Case

BAD_MODULES = (
    "bad_arith",
    "bad_views",
    "bad_reduce",
    "bad_index",
    "bad_join",
    "bad_factory",
    "bad_convert",
    "bad_autograd",
    "bad_library",
    "bad_overlap",
    "bad_zero_dim",
    "bad_misc",
)
EDGE_MODULES = (
    "edge_pointwise",
    "edge_reduce",
    "edge_views",
    "edge_index",
    "edge_autograd",
    "edge_misc",
)


def load(corpus: str) -> list[Case]:
    """Every case of one corpus ("bad" or "edge"), in a fixed order."""
    names = BAD_MODULES if corpus == "bad" else EDGE_MODULES
    cases: list[Case] = []
    for name in names:
        module = importlib.import_module(f"{__name__}.{name}")
        cases.extend(module.cases())
    return cases
