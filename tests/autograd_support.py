"""Helpers for the autograd differential tests: run one program in ember and torch, compare.

A case is a function `fn(lib, *inputs)` written once for both libraries
(`lib` is ember or torch). `compare_case` builds the same float64 leaves in
both, runs forward, and compares values, grad_fn names, the graph's
structure, first gradients and (where torch has them) second gradients.
"""

from __future__ import annotations

import gc
import importlib
import warnings

import numpy as np
from oracle import torch

import ember


def op_recorder(lib, describe=None):
    """A dispatch mode of `lib` that records each operator it sees in `.ops`: ``str(func)``,
    or ``(str(func), describe(args))`` when `describe` is given."""
    base = importlib.import_module(f"{lib.__name__}.utils._python_dispatch").TorchDispatchMode

    class Recorder(base):
        def __init__(self):
            super().__init__()
            self.ops = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.ops.append(str(func) if describe is None else (str(func), describe(args)))
            return func(*args, **(kwargs or {}))

    return Recorder()


def arg_shapes(args) -> list:
    """Each argument's shape, or the argument itself when it is not a tensor."""
    return [tuple(a.shape) if hasattr(a, "shape") else a for a in args]


def cyclic_garbage(program, repeat: int = 3) -> int:
    """How many objects only the cyclic GC frees after `program()` ran `repeat` times (with the
    collector off, so reference counting alone has had its chance)."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat):
            program()
        return gc.collect()
    finally:
        if enabled:
            gc.enable()


def leaves(lib, arrays, *, noncontiguous: bool = False):
    """Leaves that require grad; 2-d ones optionally transposed in memory."""
    result = []
    for array in arrays:
        if noncontiguous and array.ndim == 2:
            leaf = lib.tensor(np.ascontiguousarray(array.T)).t().detach()
        else:
            leaf = lib.tensor(array)
        result.append(leaf.requires_grad_() if array.dtype.kind == "f" else leaf)
    return result


def as_numpy(tensor):
    if getattr(tensor, "_is_zerotensor", lambda: False)():
        return np.zeros(tuple(tensor.shape))
    return np.array(tensor.detach().tolist(), dtype=np.float64)


def flat_outputs(result) -> list:
    if isinstance(result, (list, tuple)):
        items = []
        for item in result:
            items.extend(flat_outputs(item))
        return items
    return [result]


def graph_signature(tensors, inputs) -> str:
    """Names and edges of the graph behind `tensors`; leaves as their input index."""
    ids: dict[int, str] = {}
    leaf_index = {}
    for i, t in enumerate(inputs):
        if t.grad_fn is None and t.requires_grad:
            leaf_index[id(t)] = i
    lines: list[str] = []

    def visit(node) -> str:
        if node is None:
            return "None"
        key = id(node)
        if key in ids:
            return ids[key]
        name = type(node).__name__ if type(node).__name__ != "CppFunction" else node.name()
        if name == "AccumulateGrad":
            label = f"Leaf{leaf_index.get(id(node.variable), '?')}"
            ids[key] = label
            return label
        label = f"{name}#{len(ids)}"
        ids[key] = label
        children = [f"{visit(child)}:{nr}" for child, nr in node.next_functions]
        lines.append(f"{label} -> ({', '.join(children)})")
        return label

    roots = [visit(t.grad_fn) for t in tensors]
    return " | ".join(roots) + "\n" + "\n".join(lines)


def _close(a, b, rtol=1e-6, atol=1e-8) -> None:
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)


def compare_case(
    fn, arrays, *, noncontiguous=False, second_order=True, structure=True, seed=0
) -> None:
    e_in = leaves(ember, arrays, noncontiguous=noncontiguous)
    t_in = leaves(torch, arrays, noncontiguous=noncontiguous)
    e_out = [o for o in flat_outputs(fn(ember, *e_in)) if o.requires_grad]
    t_out = [o for o in flat_outputs(fn(torch, *t_in)) if o.requires_grad]
    assert len(e_out) == len(t_out)
    for e, t in zip(e_out, t_out):
        assert tuple(e.shape) == tuple(t.shape)
        _close(as_numpy(e), as_numpy(t))
    if structure:
        assert graph_signature(e_out, e_in) == graph_signature(t_out, t_in)
    if not t_out:
        return
    rng = np.random.default_rng(seed)
    seeds = [rng.standard_normal(tuple(t.shape)) for t in t_out]
    diff_e = [x for x in e_in if x.requires_grad]
    diff_t = [x for x in t_in if x.requires_grad]
    e_grads = ember.autograd.grad(
        e_out, diff_e, [ember.tensor(s).to(o.dtype) for s, o in zip(seeds, e_out)],
        create_graph=second_order, allow_unused=True,
    )  # fmt: skip
    t_grads = torch.autograd.grad(
        t_out, diff_t, [torch.tensor(s).to(o.dtype) for s, o in zip(seeds, t_out)],
        create_graph=second_order, allow_unused=True,
    )  # fmt: skip
    for e, t in zip(e_grads, t_grads):
        assert (e is None) == (t is None)
        if t is not None:
            assert e.dtype.name == str(t.dtype).removeprefix("torch.")
            _close(as_numpy(e), as_numpy(t), rtol=1e-5, atol=1e-7)
    if not second_order:
        return
    pairs = [(e, t) for e, t in zip(e_grads, t_grads) if t is not None and t.requires_grad]
    if not pairs:
        return
    weights = [rng.standard_normal(tuple(t.shape)) for _, t in pairs]
    e_total = sum((e * ember.tensor(w)).sum() for (e, _), w in zip(pairs, weights))
    t_total = sum((t * torch.tensor(w)).sum() for (_, t), w in zip(pairs, weights))
    if e_total.requires_grad:
        e_second = ember.autograd.grad(e_total, diff_e, allow_unused=True)
    else:  # every first gradient is constant: the second derivative is zero
        e_second = [None] * len(diff_e)
    t_second = torch.autograd.grad(t_total, diff_t, allow_unused=True)
    for e, t in zip(e_second, t_second):
        if t is None:
            continue  # torch may leave a zero second derivative undefined
        got = np.zeros(tuple(t.shape)) if e is None else as_numpy(e)
        _close(got, as_numpy(t), rtol=1e-5, atol=1e-7)


def plain(value):
    """A result as plain data: tensors by values, dtype, shape, strides, requires_grad and
    grad_fn name; containers by kind and items; dtypes by name."""
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (ember.Tensor, torch.Tensor)):
        grad_fn = None if value.grad_fn is None else value.grad_fn.name()
        data = None if value.device.type == "meta" else value.detach().tolist()
        return ("tensor", data, str(value.dtype).split(".")[-1], tuple(value.shape),
                value.stride(), value.requires_grad, grad_fn)  # fmt: skip
    if isinstance(value, (ember.dtype, torch.dtype)):
        return str(value).split(".")[-1]
    return value


def outcome(program, lib):
    """What `program(lib)` gives: its result as plain data, or its exception's type and
    message (ember's name read as torch's)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return plain(program(lib))
    except Exception as error:  # noqa: BLE001 (compared with torch's)
        return type(error).__name__, str(error).replace("ember", "torch")


def same_outcome(program):
    """Assert `program` gives the same outcome under ember and torch; return torch's."""
    ours, theirs = outcome(program, ember), outcome(program, torch)
    assert ours == theirs
    return theirs
