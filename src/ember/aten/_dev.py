"""A development aid while kernel families are being written: EMBER_DEV_ALLOW_MISSING_KERNELS=1.

Layer: aten. With the variable set, a kernel, meta function or ufunc formula
that the generated files name but nobody has written yet resolves to a
function raising NotImplementedError, so the rest of ember can be imported
and tested. Without it (always in tests and CI) a missing name is an
AttributeError at import: tests/test_codegen.py checks that none is missing.
"""

from __future__ import annotations

import os

ALLOW_MISSING = os.environ.get("EMBER_DEV_ALLOW_MISSING_KERNELS") == "1"


def missing(module: str, name: str):
    if not ALLOW_MISSING or name.startswith("__"):
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    def not_written(*args, **kwargs):
        raise NotImplementedError(f"{module}.{name} is not written yet")

    not_written.__name__ = name
    return not_written
