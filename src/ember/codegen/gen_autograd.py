"""Write the autograd layer: backward node classes and the Autograd kernels.

Layer: codegen. In: AutogradOps (codegen/autograd_model.py). Out: the source of
autograd/_generated/nodes.py (one Node class per derivatives.yaml entry) and
autograd/_generated/autograd_kernels.py (one kernel per operator, registered
at the Autograd alias). Mirrors torchgen/packaged/autograd/gen_autograd_functions.py
(Functions.h/.cpp) and gen_variable_type.py (VariableType.cpp).
See Note [Formulas in derivatives.yaml] and Note [Generated autograd kernels].
"""

from __future__ import annotations

import ast

from . import gen_forward_ad
from .autograd_model import METADATA_SUFFIXES, AutogradOp, helper_names, is_tensor_type
from .gen_python import HEADER

_HEADER = HEADER.replace("aten/native_functions.yaml", "autograd/derivatives.yaml")

# The ops without a formula whose NotImplemented node PyTorch's codegen writes itself rather
# than the boxed autogradNotImplementedFallback (gen_variable_type.py: those listed in
# RESET_GRAD_ACCUMULATOR or DONT_ENFORCE_SAME_TENSOR_IMPL_OR_STORAGE, of the ops ember has):
# that node is named by the C++ name (``set_``), the fallback's by ``aten::`` and the name.
# tests/test_set_.py checks the list against torchgen's.
CODEGEN_NOT_IMPLEMENTED = frozenset({"set_"})

_METADATA_EXPR = {
    "_sizes": "{v}._sizes",
    "_strides": "{v}._strides",
    "_dtype": "{v}.dtype",
    "_device": "{v}.device",
    "_numel": "{v}.numel()",
    "_dim": "len({v}._sizes)",
    "_storage_offset": "{v}._storage_offset",
    "_sym_sizes_opt": "None if {v} is None else {v}._sizes",
}


def _outputs(op: AutogradOp) -> list[str]:
    return [r.name or f"result{i}" for i, r in enumerate(op.f.func.returns)]


def _plan_saves(op: AutogradOp):
    """(inputs saved before the call, outputs saved after): (attribute, expression) pairs."""
    f, d = op.f, op.derivative
    used = d.names_used()
    args = {a.name: a for a in f.func.arguments}
    before, after = [], []
    outputs = _outputs(op)
    for name in sorted(used):
        if name in args:
            arg = args[name]
            tensor, is_list = arg.type.is_tensor_like() if is_tensor_type(arg) else (False, False)
            if not tensor:
                before.append((name, name))
            elif is_list:
                before.append((name, f"[SavedVariable(t) for t in {name}]"))
            elif op.f.is_inplace and name == "self":
                before.append((name, "SavedVariable(self.clone())"))
            else:
                before.append((name, f"SavedVariable({name})"))
            continue
        if name == "result" or name in outputs:
            if len(outputs) == 1 or name not in outputs:  # `result`: the only output
                source = "self" if f.is_inplace else "result"
            else:
                source = f"result[{outputs.index(name)}]"
            after.append((name, f"SavedVariable({source}, True)"))
            continue
        for suffix in METADATA_SUFFIXES:
            arg_name = name[: -len(suffix)]
            if name.endswith(suffix) and arg_name in args:
                template = _METADATA_EXPR[suffix]
                if args[arg_name].type.is_tensor_like()[1]:
                    expr = "[" + template.format(v="t") + f" for t in {arg_name}]"
                else:
                    expr = template.format(v=arg_name)
                before.append((name, expr))
                break
    return before, after


def _save_guard(op: AutogradOp, name: str) -> str | None:
    """Save `name` only when a gradient whose formula reads it will be computed (as
    PyTorch's `if (grad_fn->should_compute_output(i))`); None: always needed."""
    inputs = op.differentiable_inputs
    if any(a.type.is_tensor_like()[1] for a in inputs):
        return None
    users = []
    for index, arg in enumerate(inputs):
        tree = ast.parse(op.derivative.formulas[arg.name], mode="eval")
        if name in {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}:
            users.append(index)
    if len(users) == len(inputs):
        return None
    return " or ".join(f"node.should_compute_output({i})" for i in users)


def _unpack(op: AutogradOp, name: str) -> str:
    f = op.f
    args = {a.name: a for a in f.func.arguments}
    if name in args and is_tensor_type(args[name]):
        if args[name].type.is_tensor_like()[1]:
            return f"[s.unpack(node) for s in node._raw_saved_{name}]"
        return f"_unpack(node._raw_saved_{name}, node)"
    if name == "result" or name in _outputs(op):
        return f"_unpack(node._raw_saved_{name}, node)"
    return f"node._saved_{name}"


def _attribute(name: str, expr: str) -> str:
    """Where a node keeps a saved value: a SavedVariable (or a list of them) under
    ``_raw_saved_<name>``, shown unpacked as ``_saved_<name>``; anything else under
    ``_saved_<name>`` itself (as PyTorch's generated python_functions.cpp shows them)."""
    return f"_raw_saved_{name}" if "SavedVariable(" in expr else f"_saved_{name}"


def _group_lines(group: tuple[str, ...], names: list[str], formula: str) -> list[str]:
    """See Note [Formulas for several inputs]."""
    indices = [names.index(name) for name in group]
    needs = ", ".join(f"node._next_edges[{i}][0] is not None" for i in indices)
    targets = ", ".join(f"grad_{i}" for i in indices)
    lines = [f"        grad_input_mask = [{needs}]"]
    lines.append("        if any(grad_input_mask):")
    lines.append(f"            {targets}, = {formula}")
    for k, i in enumerate(indices):
        lines.append(f"            if not grad_input_mask[{k}]:")
        lines.append(f"                grad_{i} = None")
    lines.append("        else:")
    lines.append(f"            {targets} = {', '.join('None' for _ in indices)}")
    return lines


def node_class(op: AutogradOp) -> list[str]:
    d = op.derivative
    before, after = _plan_saves(op)
    saved = [name for name, _ in before + after]
    lines = ["", "", f"class {d.node}(GeneratedNode):"]
    lines.append(f'    """Backward of aten::{d.op}."""')
    lines.append("")
    # what release_variables frees: the saved tensors, not the sizes or numbers beside them
    variables = [f"_raw_saved_{name}" for name, expr in before + after if "SavedVariable(" in expr]
    lines.append(f"    _saved_variables = {tuple(variables)!r}")
    for name, expr in before + after:
        attribute = _attribute(name, expr)
        lines.append(f"    {attribute} = None")
        if attribute.startswith("_raw_"):
            lines.append(f"    _saved_{name} = SavedTensor({attribute!r})")
    lines.append("")
    if d.node == "CopyBackwards":  # a hand-written node in PyTorch: its C++ name
        lines.append("    def name(node):")
        lines.append('        return "torch::autograd::CopyBackwards"')
        lines.append("")
    lines.append("    def apply(node, grads):")
    used = d.names_used()
    inputs = op.differentiable_inputs
    if "grad" in used:
        lines.append("        grad = grads[0]")
        lines.append("        if grad is None:")
        lines.append("            return (None,) * len(node._next_edges)")
    for name in saved:
        lines.append(f"        {name} = {_unpack(op, name)}")
    if not any(arg.type.is_tensor_like()[1] for arg in inputs):
        # PyTorch's generated apply computes the inputs' gradients in the order of their
        # sorted names (`mat2` before `self`, `other` before `self`): a dispatch mode or
        # trace sees the operators in that order
        order = sorted(range(len(inputs)), key=lambda i: inputs[i].name)
        position = {arg.name: i for i, arg in enumerate(inputs)}
        joint = {name: group for group in d.joint for name in group[0]}
        done: set[str] = set()
        for i in order:
            if inputs[i].name in done:
                continue
            if inputs[i].name in joint:
                group = joint[inputs[i].name]
                done.update(group[0])
                lines += _joint_formula(group, position)
                continue
            lines.append(f"        if node._next_edges[{i}][0] is not None:")
            lines.append(f"            grad_{i} = {d.formulas[inputs[i].name]}")
            lines.append("        else:")
            lines.append(f"            grad_{i} = None")
        lines.append(f"        return [{', '.join(f'grad_{i}' for i in range(len(inputs)))}]")
        return lines
    lines.append("        out = []")
    for arg in inputs:
        formula = d.formulas[arg.name]
        if arg.type.is_tensor_like()[1]:
            lines.append(f"        n, start = node._n_{arg.name}, len(out)")
            lines.append("        if node.any_output_needed(start, n):")
            lines.append(f"            out.extend({formula})")
            lines.append("        else:")
            lines.append("            out.extend([None] * n)")
        else:
            lines.append("        if node.should_compute_output(len(out)):")
            lines.append(f"            out.append({formula})")
            lines.append("        else:")
            lines.append("            out.append(None)")
    lines.append("        return out")
    return lines


def _joint_formula(group, position: dict) -> list[str]:
    """One formula for several inputs (`input, weight, bias:` in derivatives.yaml): called once
    when any of them needs a gradient, told which by `grad_input_mask`."""
    names, formula = group
    needed = [f"node._next_edges[{position[name]}][0] is not None" for name in names]
    targets = ", ".join(f"grad_{position[name]}" for name in names)
    return [
        f"        grad_input_mask = [{', '.join(needed)}]",
        "        if any(grad_input_mask):",
        f"            {targets}, = {formula}",
        "        else:",
        f"            {' = '.join(f'grad_{position[name]}' for name in names)} = None",
    ]


def write_nodes(ops: list[AutogradOp], helpers: list[str]) -> str:
    doc = "Backward nodes, one per derivatives.yaml entry (mirrors torch/csrc/autograd/generated/Functions.cpp)."  # noqa: E501
    lines = [_HEADER + f'"""{doc}"""', "", "# ruff: noqa", ""]
    lines.append("from ember.autograd.formulas import (")
    lines += [f"    {name}," for name in helpers]
    lines.append(")")
    lines.append(
        "from ember.autograd.variable_type import GeneratedNode, SavedTensor, "
        "unpack_saved as _unpack"
    )
    seen = set()
    for op in ops:
        if op.kind != "record" or op.derivative.node in seen:
            continue
        seen.add(op.derivative.node)
        lines += node_class(op)
    return "\n".join(lines) + "\n"


def _requires_expr(inputs) -> str:
    parts = []
    for arg in inputs:
        optional = arg.type.kind == "optional"
        if arg.type.is_tensor_like()[1]:
            parts.append(f"any_requires_grad({arg.name})")
        elif optional:
            parts.append(f"({arg.name} is not None and {arg.name}._requires_grad)")
        else:
            parts.append(f"{arg.name}._requires_grad")
    return " or ".join(parts) if parts else "False"


def _edges_expr(inputs) -> str:
    parts = []
    for arg in inputs:
        if arg.type.is_tensor_like()[1]:
            parts.append(f"*[gradient_edge(t) for t in {arg.name}]")
        else:
            parts.append(f"gradient_edge({arg.name})")
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def _history(op: AutogradOp) -> str:
    f = op.f
    if f.is_inplace:
        return "rebase_history(self, node)"
    returns = f.func.returns
    if len(returns) == 1:  # one Tensor, or one Tensor[] (split, unbind)
        return "set_history(result, node)"
    flags = op.differentiable_outputs
    chosen = [f"result[{i}]" for i, flag in enumerate(flags) if flag]
    return f"set_history(({', '.join(chosen)},), node)"


def _guarded(op: AutogradOp, name: str, statement: str, indent: str) -> list[str]:
    guard = _save_guard(op, name)
    if guard is None:
        return [indent + statement]
    return [f"{indent}if {guard}:", f"{indent}    {statement}"]


def _out_checks(op: AutogradOp) -> list[str]:
    """An out= overload of a differentiable operator: no input and no differentiable out=
    tensor may require grad (SETUP_NONE_REQUIRES_GRAD)."""
    outs = [a for a, flag in zip(op.out_arguments, op.differentiable_outputs) if flag]
    checked = _requires_expr(op.differentiable_inputs + outs)
    if not op.f.func.returns:  # a Tensor[] out= returning nothing: only its outs are checked
        checked = _requires_expr(op.out_arguments)
    return [
        f"    if ts.grad_mode and ({checked}):",
        f'        raise RuntimeError(OUT_ERROR.format(name="{op.f.base_name}"))',
    ]


def _unlisted_checks(op: AutogradOp) -> list[str]:
    """check_no_requires_grad for the tensor inputs the entry leaves unlisted."""
    lines = []
    for arg in op.unlisted_inputs:
        requires = _requires_expr([arg])
        lines.append(f"    if ts.grad_mode and ({requires}):")
        lines.append(
            f'        raise RuntimeError(NOT_DIFFERENTIABLE.format(fn="{op.f.base_name}", '
            f'arg="{arg.name}"))'
        )
    return lines


def _not_implemented_setup(op: AutogradOp) -> list[str]:
    """autogradNotImplementedFallback before the call: checks on what the op writes, the
    NotImplemented node with an edge to each tensor that requires grad."""
    f = op.f
    inputs = op.differentiable_inputs
    lines = []
    for arg in inputs:
        if not arg.is_write:
            continue
        if op.out_arguments:
            lines.append(f'        check_out_mutable({arg.name}, "aten::{f.base_name}")')
        else:
            lines.append(f"        check_inplace({arg.name})")
    names = ", ".join(a.name for a in inputs)
    if f.base_name in CODEGEN_NOT_IMPLEMENTED:  # collect_next_edges: an edge per input
        lines.append(f'        node = NotImplementedNode("{f.base_name}")')
        edges = "".join(f"gradient_edge({a.name}), " for a in inputs)
        lines.append(f"        node._next_edges = ({edges.rstrip()})")
        return lines
    lines.append(f'        node = NotImplementedNode("aten::{f.base_name}")')
    lines.append(
        f"        node._next_edges = requiring_edges({names}{',' if len(inputs) == 1 else ''})"
    )
    return lines


def _not_implemented_history(op: AutogradOp) -> str:
    """Each differentiable output joins the node; one the op wrote has its history rebased."""
    returns = op.f.func.returns
    written = tuple(bool(r.alias_info is not None and r.alias_info.is_write) for r in returns)
    if len(returns) == 1:
        return f"not_implemented_history(node, (result,), {written!r})"
    return f"not_implemented_history(node, result, {written!r})"


def kernel(op: AutogradOp, kernels: frozenset = frozenset()) -> list[str]:
    f = op.f
    args = [a.name for a in f.func.arguments]
    # `_op_<kernel>` where `_<kernel>` names another kernel (logcumsumexp / _logcumsumexp)
    handle = f"_op_{f.kernel}" if f"_{f.kernel}" in kernels else f"_{f.kernel}"
    lines = ["", "", f'{handle} = handle("{f.name}")', "", ""]
    lines.append(f"def {f.kernel}(ks, {', '.join(args)}):")
    functional = not (f.is_view or f.is_inplace or f.is_out or f.func.is_mutable)
    below = "BELOW_AD_INPLACE_OR_VIEW" if functional else "BELOW_AUTOGRAD"
    call = f"{handle}.redispatch(ks & AFTER_AUTOGRAD, {', '.join(args)})"
    records = op.kind in ("record", "not_implemented")
    lines.append("    ts = per_thread.state  # Note [Thread state per OS thread]")
    if op.kind == "out":
        lines += _out_checks(op)
    lines += _unlisted_checks(op)
    if records:
        inputs = op.differentiable_inputs
        expr = f"({_requires_expr(inputs)})"
        if op.kind == "record" and op.derivative.node == "CopyBackwards":
            # VariableTypeManual's copy_: only a differentiable `self` records
            expr += " and (self.dtype.is_floating_point or self.dtype.is_complex)"
        lines.append(f"    requires = ts.grad_mode and {expr}")
        lines.append("    if requires:")
    if op.kind == "not_implemented":
        lines += _not_implemented_setup(op)
    elif records:
        if f.is_inplace:
            lines.append("        check_inplace(self)")
        lines.append(f"        node = nodes.{op.derivative.node}()")
        lines.append(f"        node._next_edges = {_edges_expr(inputs)}")
        for arg in inputs:
            if arg.type.is_tensor_like()[1]:
                lines.append(f"        node._n_{arg.name} = len({arg.name})")
    before, after = _plan_saves(op) if op.kind == "record" else ([], [])
    for name, expr in before:
        lines += _guarded(op, name, f"node.{_attribute(name, expr)} = {expr}", "        ")
    lines += gen_forward_ad.kernel_before(op)
    lines.append("    prev = ts.excluded")
    lines.append(f"    ts.excluded = prev | {below}")
    lines.append("    try:")
    lines.append(f"        result = {call}")
    lines.append("    finally:")
    lines.append("        ts.excluded = prev")
    if records:
        lines.append("    if requires:")
        if op.kind == "not_implemented":
            lines.append(f"        {_not_implemented_history(op)}")
        else:
            lines.append(f"        {_history(op)}")
        for name, expr in after:
            lines += _guarded(op, name, f"node.{_attribute(name, expr)} = {expr}", "        ")
    lines += gen_forward_ad.kernel_after(op)
    lines.append("    return result")
    return lines


def write_kernels(ops: list[AutogradOp]) -> str:
    doc = "Autograd kernels, one per operator (mirrors torch/csrc/autograd/generated/VariableType.cpp)."  # noqa: E501
    lines = [_HEADER + f'"""{doc}"""', "", "# ruff: noqa", ""]
    lines.append("from ember.aten.binding import handle")
    lines.append("from ember.aten.registration import impl")
    lines.append("from ember.autograd._generated import forward_grads as _fw")
    lines.append("from ember.autograd._generated import nodes")
    lines.append("from ember.autograd.forward_grad import (")
    lines.append("    forbid_forward,")
    lines.append("    forbid_forward_fallback,")
    lines.append("    forbid_forward_out,")
    lines.append("    forward_state as FW,")
    lines.append(")")
    lines.append("from ember.autograd.variable_type import (")
    for name in (
        "AFTER_AUTOGRAD",
        "BELOW_AD_INPLACE_OR_VIEW",
        "BELOW_AUTOGRAD",
        "NOT_DIFFERENTIABLE",
        "OUT_ERROR",
        "NotImplementedNode",
        "SavedVariable",
        "any_requires_grad",
        "check_inplace",
        "check_out_mutable",
        "gradient_edge",
        "not_implemented_history",
        "per_thread",
        "rebase_history",
        "requiring_edges",
        "set_history",
    ):
        lines.append(f"    {name},")
    lines.append(")")
    chosen = [op for op in ops if op.kind != "manual"]
    kernels = frozenset(op.f.kernel for op in chosen)
    for op in chosen:
        lines += kernel(op, kernels)
    lines += ["", ""]
    for op in chosen:
        lines.append(f'impl("{op.f.name}", "Autograd", {op.f.kernel}, keyset_arg="raw")')
    return "\n".join(lines) + "\n"


def used_helpers(ops: list[AutogradOp]) -> list[str]:
    helpers = helper_names()
    names = set()
    for op in ops:
        if op.kind == "record":
            names |= op.derivative.names_used() & helpers
    return sorted(names)
