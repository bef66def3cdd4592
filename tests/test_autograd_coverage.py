"""Every operator of native_functions.yaml through autograd, against torch.

For each overload (functional, in-place, out=) a sample call from tests/op_samples.py
runs under both libraries with float64 leaves that require grad; the outcomes must
agree: the error (type and message), or each output's geometry, dtype, values,
requires_grad, grad_fn (class and name()) and its next_functions, and then the
gradients of the leaves (or the error backward raises, as a NotImplemented node's).
An operator added to the yaml without a sample fails `test_every_operator_has_a_sample`.
Also: derivatives.yaml lists what PyTorch's derivatives.yaml lists for each operator.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
import yaml
from op_samples import NO_VALUES, SAMPLES, Maker
from oracle import torch

import ember
from ember.codegen.autograd_model import load_derivatives
from ember.codegen.model import load_native_functions

FUNCTIONS = load_native_functions()


def _signature(f) -> tuple:
    return tuple((a.name, str(a.type)) for a in f.func.arguments if not a.is_out)


def functional_of(f, functions):
    """The functional overload whose arguments an in-place or out= overload shares."""
    base = f.base_name[:-1] if f.is_inplace else f.base_name
    for g in functions:
        if (
            g.base_name == base
            and not (g.is_out or g.is_inplace)
            and _signature(g) == _signature(f)
        ):
            return g
    return None


def _samples_of(f):
    if f.name in SAMPLES:
        return SAMPLES[f.name]
    if f.is_inplace or f.is_out:
        functional = functional_of(f, FUNCTIONS)
        if functional is not None:
            return SAMPLES.get(functional.name, [])
    return []


def _variants(f) -> list[str]:
    if f.name in SAMPLES or not (f.is_inplace or f.is_out):
        return ["call"]
    if f.is_inplace:
        return ["on a non-leaf", "on a leaf"]
    return ["inputs require grad", "out requires grad", "no_grad"]


CASES = [
    pytest.param(f.name, index, variant, id=f"{f.name}-{index}-{variant}")
    for f in FUNCTIONS
    for index in range(len(_samples_of(f)))
    for variant in _variants(f)
]


def test_every_operator_has_a_sample():
    missing = [f.name for f in FUNCTIONS if not _samples_of(f)]
    assert missing == [], f"add a sample to tests/op_samples.py for {missing}"


def _op(lib, name: str):
    base, _, overload = name.partition(".")
    return getattr(getattr(lib.ops.aten, base), overload or "default")


def _flat(value) -> list:
    if isinstance(value, (list, tuple)):
        return [item for part in value for item in _flat(part)]
    return [value]


def _node(node):
    if node is None:
        return None
    return type(node).__name__, node.name()


def _describe(value):
    """What the comparison looks at, for one output."""
    if not isinstance(value, (ember.Tensor, torch.Tensor)):
        return ("value", value)
    grad_fn = value.grad_fn
    children = None
    if grad_fn is not None:
        children = [(_node(child), nr) for child, nr in grad_fn.next_functions]
    dtype = str(value.dtype).replace("torch.", "").replace("ember.", "")
    return (tuple(value.shape), dtype, value.requires_grad, _node(grad_fn), children)


def _values(value):
    if not isinstance(value, (ember.Tensor, torch.Tensor)):
        return None
    if value._is_zerotensor():  # sgn_backward's ZeroTensor, in both libraries
        return np.zeros(tuple(value.shape))
    complex_values = value.dtype.is_complex
    return np.array(value.detach().tolist(), dtype=np.complex128 if complex_values else np.float64)


def _error(error: Exception):
    return ("error", type(error).__name__, str(error).replace("ember", "torch"))


def _out_tensors(lib, f, results):
    """Fresh out= tensors shaped as the functional overload's results (from torch)."""
    names = [a.name for a in f.func.arguments if a.is_out]
    tensors = [lib.empty(tuple(r.shape), dtype=getattr(lib, str(r.dtype)[6:])) for r in results]
    return dict(zip(names, tensors))


def _functional_results(f, sample):
    """The results of the functional overload of out= overload `f`, in torch, no grad."""
    functional = functional_of(f, FUNCTIONS)
    args, kwargs = sample(Maker(torch))
    try:
        with torch.no_grad():
            return _flat(_op(torch, functional.name)(*args, **kwargs))
    except RuntimeError:  # a refused sample: the out= overload must refuse it too
        return [torch.empty(2, 3, dtype=torch.float64) for a in f.func.arguments if a.is_out]


def _run(lib, f, sample, variant: str):
    """(outcome of the call, the outputs, the leaves) under `lib`."""
    maker = Maker(lib)
    args, kwargs = sample(maker)
    args = list(args)
    if variant == "on a non-leaf":
        args[0] = args[0] * 1
    elif variant in ("inputs require grad", "out requires grad", "no_grad"):
        if variant == "out requires grad":
            args = [a.detach() if isinstance(a, lib.Tensor) else a for a in args]
        kwargs = dict(kwargs, **_out_tensors(lib, f, _functional_results(f, sample)))
        if variant == "out requires grad":
            for name in [a.name for a in f.func.arguments if a.is_out]:
                if kwargs[name].dtype.is_floating_point:
                    kwargs[name].requires_grad_()
                    maker.leaves.append(kwargs[name])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if variant == "no_grad":
                with lib.no_grad():
                    result = _op(lib, f.name)(*args, **kwargs)
            else:
                result = _op(lib, f.name)(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 (compared with torch's)
        return _error(error), [], maker.leaves
    outputs = _flat(result)
    return ("ok", [_describe(o) for o in outputs]), outputs, maker.leaves


def _gradients(lib, outputs, leaves):
    wanted = [o for o in outputs if isinstance(o, lib.Tensor) and o.requires_grad]
    inputs = [leaf for leaf in leaves if leaf.requires_grad]
    if not wanted or not inputs:
        return None
    rng = np.random.default_rng(1)
    seeds = [lib.tensor(rng.standard_normal(tuple(o.shape))).to(o.dtype) for o in wanted]
    try:
        grads = lib.autograd.grad(wanted, inputs, seeds, allow_unused=True)
    except Exception as error:  # noqa: BLE001 (compared with torch's)
        return _error(error)
    return [None if g is None else _values(g) for g in grads]


def _close(e, t) -> None:
    assert (e is None) == (t is None)
    if t is not None:
        np.testing.assert_allclose(e, t, rtol=1e-6, atol=1e-9, equal_nan=True)


@pytest.mark.parametrize(("name", "index", "variant"), CASES)
def test_operator_through_autograd_matches_torch(name, index, variant):
    f = next(g for g in FUNCTIONS if g.name == name)
    sample = _samples_of(f)[index]
    e_outcome, e_outputs, e_leaves = _run(ember, f, sample, variant)
    t_outcome, t_outputs, t_leaves = _run(torch, f, sample, variant)
    assert e_outcome == t_outcome
    if e_outcome[0] == "error":
        return
    if f.name not in NO_VALUES:
        for e, t in zip(e_outputs, t_outputs):
            if isinstance(t, torch.Tensor):
                _close(_values(e), _values(t))
            else:
                assert e == t
    e_grads = _gradients(ember, e_outputs, e_leaves)
    t_grads = _gradients(torch, t_outputs, t_leaves)
    if t_grads is None or isinstance(t_grads, tuple):
        assert e_grads == t_grads
        return
    assert not isinstance(e_grads, tuple), e_grads
    for e, t in zip(e_grads, t_grads):
        _close(e, t)


# -- derivatives.yaml against PyTorch's -------------------------------------------------

TORCH_DERIVATIVES = (
    Path(torch.__file__).parent.parent / "torchgen/packaged/autograd/derivatives.yaml"
)

# Where ember's entry lists an argument PyTorch's leaves unlisted, and why that changes
# nothing: integer or boolean index tensors can never require grad, so PyTorch's
# check_no_requires_grad on them never fires; ember skips the check on the hot path.
UNLISTED_IN_TORCH = {("index.Tensor", "indices"), ("index_put", "indices")}
# Written by hand in torch (VariableTypeManual.cpp), from derivatives.yaml in ember.
MANUAL_IN_TORCH = {"copy_"}
# View-copy operators: torch's generator derives their entry from the view's
# (DiagonalBackward0_copy from diagonal's); ember's derivatives.yaml spells it out. Their
# nodes are named `<view's node>_copy` (checked against torch's grad_fn by the sweep).
VIEW_COPY_IN_TORCH = {
    name for name, d in load_derivatives().items() if d.node and d.node.endswith("_copy")
} | {"view_copy.dtype"}


def _torch_entries() -> dict:
    entries = {}
    for entry in yaml.safe_load(TORCH_DERIVATIVES.read_text()):
        schema = entry["name"]
        name = schema.split("(")[0]
        inputs = schema[schema.index("(") + 1 : schema.rindex(") ->")]
        arg_names = {part.split("=")[0].split()[-1] for part in inputs.split(",") if part.strip()}
        formulas, non_differentiable = set(), set()
        for key, value in entry.items():
            if key in ("name", "dispatch", "output_differentiability", "result"):
                continue
            for arg in (k.strip() for k in key.split(",")):
                if arg not in arg_names:
                    continue  # a forward-mode formula for an output
                (non_differentiable if value == "non_differentiable" else formulas).add(arg)
        for formulas_of_key in (entry.get("dispatch") or {}).values():
            formulas |= {k for k in formulas_of_key if k in arg_names}
        entries[name] = (formulas, non_differentiable, entry.get("output_differentiability"))
    return entries


def test_derivatives_yaml_lists_what_torch_lists():
    theirs = _torch_entries()
    mismatches = []
    for name, ours in load_derivatives().items():
        if ours.manual or name in MANUAL_IN_TORCH or name in VIEW_COPY_IN_TORCH:
            continue
        if name not in theirs:
            mismatches.append((name, "no entry in torch"))
            continue
        formulas, non_differentiable, outputs = theirs[name]
        our_nondiff = set(ours.non_differentiable) - {
            arg for op, arg in UNLISTED_IN_TORCH if op == name
        }
        if set(ours.formulas) != formulas or our_nondiff != non_differentiable:
            mismatches.append((name, sorted(ours.formulas), sorted(formulas)))
        conditions = not all(isinstance(flag, bool) for flag in outputs or [])
        if (
            outputs is not None
            and not conditions
            and tuple(outputs) != ours.output_differentiability
        ):
            mismatches.append((name, "output_differentiability", outputs))
    assert mismatches == []


def test_operators_without_entry_have_none_in_torch_either():
    """An operator ember leaves without entry is NotImplemented or non-differentiable;
    torch must agree that there is no formula for it."""
    theirs = _torch_entries()
    ours = load_derivatives()
    found = []
    for f in FUNCTIONS:
        if f.is_composite_implicit or f.is_inplace or f.is_out or f.name in ours:
            continue
        if f.name in theirs and theirs[f.name][0]:
            found.append(f.name)
    assert found == []
