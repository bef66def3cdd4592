"""FlopCounterMode: count the floating-point operations run inside a context, per operator.

Layer: utils (a __torch_dispatch__ mode; imports _python_dispatch, _ops, _tensor). In: the
operators that reach the Python key while the counter is active. Out: counts keyed by
scope ("Global") and operator packet, and PyTorch's table (printed on exit when
`display`). Mirrors torch/utils/flop_counter.py: its formulas for the matrix products
ember has (mm, addmm, bmm), `register_flop_formula` and `custom_mapping`, and the table,
drawn by the `tabulate` package exactly as PyTorch draws it (so where `tabulate` is not
installed, displaying fails with the same ModuleNotFoundError). ember has no nn.Module
and so no module hierarchy: every count belongs to "Global" only. It has no convolution
or attention operators either, so no formulas for them.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from functools import wraps

from ember._ops import OpOverloadPacket, ops
from ember._tensor import Tensor
from ember.utils._python_dispatch import TorchDispatchMode

__all__ = ["FlopCounterMode", "register_flop_formula"]

aten = ops.aten
flop_registry: dict = {}


def _map_shapes(value):
    """tree_map(get_shape, value) over tuples, lists and dicts: each tensor -> its shape."""
    if isinstance(value, Tensor):
        return value.shape
    if isinstance(value, (tuple, list)):
        mapped = [_map_shapes(v) for v in value]
        if hasattr(value, "_make"):  # a namedtuple (torch.return_types)
            return type(value)._make(mapped)
        return type(value)(mapped)
    if isinstance(value, dict):
        return {k: _map_shapes(v) for k, v in value.items()}
    return value


def get_shape(i):
    return i.shape if isinstance(i, Tensor) else i


def shape_wrapper(f):
    """A formula over shapes, called with the operator's arguments and its result."""

    @wraps(f)
    def nf(*args, out_val=None, **kwargs):
        args, kwargs, out_shape = _map_shapes((args, kwargs, out_val))
        return f(*args, out_shape=out_shape, **kwargs)

    return nf


def _each(targets):
    if isinstance(targets, (list, tuple)):
        for target in targets:
            yield from _each(target)
    elif isinstance(targets, dict):
        for target in targets.values():
            yield from _each(target)
    else:
        yield targets


def register_flop_formula(targets, get_raw=False):
    """Decorator: count `targets` (operator packets, e.g. ops.mylib.foo) with the formula."""

    def register_fun(flop_formula):
        if not get_raw:
            flop_formula = shape_wrapper(flop_formula)
        for target in _each(targets):
            if not isinstance(target, OpOverloadPacket):
                raise ValueError(
                    "register_flop_formula(targets): expected each target to be "
                    "OpOverloadPacket (i.e. torch.ops.mylib.foo), JitFunction, "
                    f"or HigherOrderOperator, got {target} which is of type {type(target)}"
                )
            if target in flop_registry:
                raise RuntimeError(f"duplicate registrations for {target}")
            flop_registry[target] = flop_formula
        return flop_formula

    return register_fun


@register_flop_formula(aten.mm)
def mm_flop(a_shape, b_shape, *args, out_shape=None, **kwargs) -> int:
    """2 * m * k * n: one multiply and one add per term of each output element."""
    m, k = a_shape
    k2, n = b_shape
    if k != k2:
        raise AssertionError(f"matmul: inner dimensions must match (k == k2), got {k} and {k2}")
    return m * n * 2 * k


@register_flop_formula(aten.addmm)
def addmm_flop(self_shape, a_shape, b_shape, out_shape=None, **kwargs) -> int:
    """As mm: the added bias is not counted."""
    return mm_flop(a_shape, b_shape)


@register_flop_formula(aten.bmm)
def bmm_flop(a_shape, b_shape, out_shape=None, **kwargs) -> int:
    b, m, k = a_shape
    b2, k2, n = b_shape
    if b != b2:
        raise AssertionError(f"bmm: batch dimensions must match (b == b2), got {b} and {b2}")
    if k != k2:
        raise AssertionError(f"bmm: inner dimensions must match (k == k2), got {k} and {k2}")
    return b * m * n * 2 * k


# -- the table ------------------------------------------------------------------------

suffixes = ["", "K", "M", "B", "T"]


def get_suffix_str(number) -> str:
    """The unit the table shows counts in: by digit count, a little past each step
    (1001M rather than 1.001B)."""
    return suffixes[max(0, min(len(suffixes) - 1, (len(str(number)) - 2) // 3))]


def convert_num_with_suffix(number, suffix) -> str:
    index = suffixes.index(suffix)
    return f"{number / 1000**index:.3f}" + suffixes[index]


def convert_to_percent_str(num, denom) -> str:
    return "0%" if denom == 0 else f"{num / denom:.2%}"


class FlopCounterMode:
    """A context manager counting the flops of the operators run inside it; on exit it
    prints the table (display=True)."""

    def __init__(self, mods=None, depth: int = 2, display: bool = True, custom_mapping=None):
        self.flop_counts = defaultdict(lambda: defaultdict(int))
        self.depth = depth
        self.display = display
        self.mode = None
        if mods is not None:
            warnings.warn(
                "mods argument is not needed anymore, you can stop passing it", stacklevel=2
            )
        custom = {
            k: v if getattr(v, "_get_raw", False) else shape_wrapper(v)
            for k, v in (custom_mapping or {}).items()
        }
        self.flop_registry = {**flop_registry, **custom}
        self._parents = {"Global"}  # (no nn.Module in ember: one scope)

    def get_total_flops(self) -> int:
        return sum(self.flop_counts["Global"].values())

    def get_flop_counts(self) -> dict:
        """{scope: {operator packet: flops}}."""
        return {k: dict(v) for k, v in self.flop_counts.items()}

    def _rows(self, scope: str, depth: int, total: int, suffix: str, subsumed: list) -> list:
        flops = sum(self.flop_counts[scope].values())
        subsumed[0] |= flops >= total
        pad = " " * depth
        rows = [
            [
                pad + scope,
                convert_num_with_suffix(flops, suffix),
                convert_to_percent_str(flops, total),
            ]
        ]
        for op, count in self.flop_counts[scope].items():
            rows.append(
                [pad + " - " + str(op), convert_num_with_suffix(count, suffix),
                 convert_to_percent_str(count, total)]
            )  # fmt: skip
        return rows

    def get_table(self, depth=None) -> str:
        if depth is None:
            depth = self.depth
        if depth is None:
            depth = 999999
        import tabulate

        tabulate.PRESERVE_WHITESPACE = True
        total = self.get_total_flops()
        suffix = get_suffix_str(total)
        subsumed = [False]
        rows = []
        for scope in sorted(self.flop_counts.keys()):
            if scope == "Global":
                continue
            scope_depth = scope.count(".") + 1
            if scope_depth <= depth:
                rows.extend(self._rows(scope, scope_depth - 1, total, suffix, subsumed))
        if "Global" in self.flop_counts and not subsumed[0]:
            for row in rows:
                row[0] = " " + row[0]
            rows = self._rows("Global", 0, total, suffix, subsumed) + rows
        if not rows:
            rows = [["Global", "0", "0%"]]
        return tabulate.tabulate(
            rows, headers=["Module", "FLOP", "% Total"], colalign=("left", "right", "right")
        )

    def __enter__(self):  # (not reentrant, as PyTorch's)
        self.flop_counts.clear()
        self.mode = _FlopCounterMode(self)
        self.mode.__enter__()
        return self

    def __exit__(self, *args):
        if self.mode is None:
            raise AssertionError("Internal error: FlopCounter.__exit__ called but mode is None")
        result = self.mode.__exit__(*args)
        self.mode = None
        if self.display:
            print(self.get_table(self.depth))
        return result

    def _count_flops(self, packet, out, args, kwargs):
        formula = self.flop_registry.get(packet)
        if formula is not None:
            count = formula(*args, **kwargs, out_val=out)
            for scope in set(self._parents):
                self.flop_counts[scope][packet] += count
        return out


class _FlopCounterMode(TorchDispatchMode):
    def __init__(self, counter: FlopCounterMode) -> None:
        super().__init__()
        self.counter = counter

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs if kwargs else {}
        out = func(*args, **kwargs)
        return self.counter._count_flops(func._overloadpacket, out, args, kwargs)
