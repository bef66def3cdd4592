"""The Meta kernels of out= overloads behave as PyTorch's Python meta kernels (out_wrapper).

PyTorch's Meta kernel of many out= overloads is a Python reference under out_wrapper
(torch/_prims_common/wrappers.py). codegen/gen_registrations.py lists them
(PYTHON_META_OUT, and PYTHON_META_OUT_EXACT_DTYPE for exact_dtype=True); the lists are
derived from torch here. The calls below reach those kernels: an out= on another device
than the first argument, a meta out= of a dtype the result cannot be cast to.
"""

from __future__ import annotations

import importlib
import re

import pytest
from bad_arguments_support import check  # noqa: E402
from oracle import torch

from ember.codegen.gen_registrations import PYTHON_META_OUT, PYTHON_META_OUT_EXACT_DTYPE
from ember.codegen.model import load_native_functions


def _out_wrapper_of(fn):
    """The out_wrapper closure of a meta kernel (or None): a function `_fn` over `out_names`."""
    for _ in range(10):
        code = getattr(fn, "__code__", None)
        if code is not None and code.co_name == "_fn" and "out_names" in code.co_freevars:
            return dict(zip(code.co_freevars, fn.__closure__))
        fn = getattr(fn, "__wrapped__", None)
        if fn is None:
            return None
    return None


def _torch_python_meta_out() -> tuple[set, set]:
    importlib.import_module("torch._meta_registrations")  # registers the Python meta kernels
    global_decomposition_table = importlib.import_module("torch._decomp").global_decomposition_table

    table = {}
    for kind in ("meta", "post_autograd", "pre_autograd"):  # activate_meta's order
        for overload, fn in global_decomposition_table[kind].items():
            table.setdefault(overload, fn)
    wrapped, exact = set(), set()
    for f in load_native_functions():
        if not f.is_out:
            continue
        name, _, overload = f.name.partition(".")
        packet = getattr(torch.ops.aten, name)
        dumped = torch._C._dispatch_dump_table(f"aten::{f.name}")
        meta = re.search(r"^Meta: (.*)$", dumped, re.M)
        if meta is None or "_meta_registrations.py" not in meta.group(1):
            continue  # a C++ meta kernel
        cells = _out_wrapper_of(table.get(getattr(packet, overload or "default")))
        if cells is None:
            continue
        wrapped.add(f.name)
        if "exact_dtype" in cells and cells["exact_dtype"].cell_contents:
            exact.add(f.name)
    return wrapped, exact


def test_python_meta_out_lists_are_torchs():
    wrapped, exact = _torch_python_meta_out()
    assert set(PYTHON_META_OUT) == wrapped
    assert set(PYTHON_META_OUT_EXACT_DTYPE) == exact


CASES = [
    "torch.add(t, t, out=t.to('meta'))",
    "torch.add(t, t.to('meta'), out=t.to('meta'))",
    "torch.add(t.to('meta'), t, out=t)",
    "torch.eq(t, 1, out=t.to('meta'))",
    "torch.eq(t, t.to('meta'), out=ti.to('meta'))",
    "torch.mul(t.to('meta'), t.to('meta'), out=ti.to('meta'))",
    "torch.pow(t.to('meta'), 2, out=ti.to('meta'))",
    "torch.exp(t, out=t.to('meta'))",
    "torch.mm(t, t.t(), out=torch.empty(2, 2, device='meta'))",
    "torch.mm(t.to('meta'), t.t().to('meta'), out=torch.empty(2, 2, device='meta', dtype=torch.float64))",
    "torch.index_select(t, 0, torch.tensor([0]), out=t.to('meta'))",
    "torch.where(t > 0, t, t, out=t.to('meta'))",
    "torch.add(t.to('meta'), 1, out=torch.empty(0, device='meta'))",
    "torch.add(t.to('meta'), 1, out=torch.empty(0, device='meta', dtype=torch.float64))",
]


@pytest.mark.parametrize("source", CASES)
def test_meta_out_matches_torch(source):
    check(source)
