"""Write the forward-mode formulas: one function per operator with a `result:` entry.

Layer: codegen. In: AutogradOps (codegen/autograd_model.py) whose derivatives.yaml entry
has forward formulas. Out: the source of autograd/_generated/forward_grads.py, and the
lines the autograd kernels gain (gen_autograd.py calls `kernel_lines`). Mirrors the
forward-derivative parts of torchgen's load_derivatives.py (auto_linear,
auto_element_wise), api/autograd.py (the in-place rewrite) and gen_variable_type.py
(emit_fw_derivatives, the FW_DERIVATIVE_FORBID check).

Note [Generated forward formulas]
---------------------------------
A `result:` entry (`result<i>:` for output i of several) is a Python expression over the
schema's arguments, `<input>_t` (its tangent; zeros where it has none) and `<input>_p`
(its primal), `result` and the metadata names of Note [Formulas in derivatives.yaml]. Two
words derive it as PyTorch does: `auto_linear` calls the operator again on the tangents,
`auto_element_wise` takes the backward formula of the one input with `grad` replaced by
`<input>_t.conj()` and conjugates the whole. The function runs only when an input has a
tangent, with forward grad mode off (See Note [Forward grads]). An in-place operator's
formula sees `self` as it was before the call (a clone, taken only when the formula reads
it), `result` as it is after; its value is copied into self's tangent when self has one,
unless the formula already changed that tangent in place. An operator with a formula
for its backward but none forward, or with no entry, and every out= overload refuse a
tangent before they run, with PyTorch's NotImplementedError. The kernels pay one read of `forward_state.active`.
"""

from __future__ import annotations

import ast

from .autograd_model import METADATA_SUFFIXES, AutogradOp, helper_names, is_tensor_type
from .gen_python import HEADER

_HEADER = HEADER.replace("aten/native_functions.yaml", "autograd/derivatives.yaml")

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


class _Rename(ast.NodeTransformer):
    def __init__(self, mapping: dict) -> None:
        self.mapping = mapping

    def visit_Name(self, node: ast.Name):
        replacement = self.mapping.get(node.id)
        if replacement is None:
            return node
        return ast.copy_location(ast.parse(replacement, mode="eval").body, node)


def _forward_of(op: AutogradOp) -> list[tuple[int, str]]:
    """(output index, Python expression) for each forward formula of `op`'s entry."""
    d = op.derivative
    inputs = op.differentiable_inputs
    result = []
    for key, formula in d.forward:
        index = int(key[len("result") :]) if key != "result" else 0
        if formula == "auto_element_wise":
            if len(inputs) != 1:
                raise ValueError(f"derivatives.yaml {d.op}: auto_element_wise needs one input")
            name = inputs[0].name
            tree = ast.parse(d.formulas[name], mode="eval")
            tree = _Rename({"grad": f"{name}_t.conj()"}).visit(tree)
            formula = f"({ast.unparse(tree)}).conj()"
        elif formula == "auto_linear":
            names = {a.name for a in inputs}
            args = [f"{a.name}_t" if a.name in names else a.name for a in op.f.func.arguments]
            formula = f"at.{_kernel_of(op)}({', '.join(args)})"
        result.append((index, formula))
    return result


def _kernel_of(op: AutogradOp) -> str:
    """The kernel name auto_linear calls: the entry's own operator (`view`, `squeeze_`)."""
    return op.derivative.op.replace(".", "_")


def has_forward(op: AutogradOp) -> bool:
    return op.kind == "record" and bool(op.derivative.forward)


def _names(expression: str) -> set[str]:
    return {n.id for n in ast.walk(ast.parse(expression, mode="eval")) if isinstance(n, ast.Name)}


def _needs_original(op: AutogradOp, formulas) -> bool:
    used = set().union(*(_names(f) for _, f in formulas))
    return op.f.is_inplace and bool({"self", "self_p"} & used)


def _tangent_names(op: AutogradOp) -> list[str]:
    return [a.name for a in op.differentiable_inputs]


def _is_list(arg) -> bool:
    return arg.type.is_tensor_like()[1]


def _any_tangent(op: AutogradOp) -> str:
    return ", ".join(_tangent_names(op))


def _bindings(op: AutogradOp, formulas, indent: str) -> list[str]:
    """Tangents (zeros where missing), primals and metadata the formulas read."""
    used = set().union(*(_names(f) for _, f in formulas))
    lines = []
    for arg in op.differentiable_inputs:
        name = arg.name
        if f"{name}_t" in used:
            if _is_list(arg):
                lines.append(
                    f"{indent}{name}_t = [tangent_or_zeros(t, g) for t, g in "
                    f"zip({name}, {name}_t_raw)]"
                )
            else:
                lines.append(f"{indent}{name}_t = tangent_or_zeros({name}, {name}_t_raw)")
        if f"{name}_p" in used:
            lines.append(f"{indent}{name}_p = {name}")
    returns = op.f.func.returns
    if len(returns) > 1:
        for i, r in enumerate(returns):
            name = r.name or f"result{i}"
            if name in used:
                lines.append(f"{indent}{name} = result[{i}]")
    args = {a.name for a in op.f.func.arguments}
    for name in sorted(used):
        for suffix in METADATA_SUFFIXES:
            arg_name = name[: -len(suffix)]
            if name.endswith(suffix) and arg_name in args:
                lines.append(f"{indent}{name} = " + _METADATA_EXPR[suffix].format(v=arg_name))
                break
    return lines


def _read_tangents(op: AutogradOp) -> list[str]:
    lines = []
    for arg in op.differentiable_inputs:
        if _is_list(arg):
            lines.append(f"    {arg.name}_t_raw = [fw_grad(t) for t in {arg.name}]")
        elif arg.type.kind == "optional":
            lines.append(
                f"    {arg.name}_t_raw = None if {arg.name} is None else fw_grad({arg.name})"
            )
        else:
            lines.append(f"    {arg.name}_t_raw = fw_grad({arg.name})")
    missing = []
    for arg in op.differentiable_inputs:
        if _is_list(arg):
            missing.append(f"all(g is None for g in {arg.name}_t_raw)")
        else:
            missing.append(f"{arg.name}_t_raw is None")
    lines.append(f"    if {' and '.join(missing)}:")
    return lines


def _setter(op: AutogradOp, index: int, value: str, indent: str) -> list[str]:
    returns = op.f.func.returns
    target = "result" if len(returns) == 1 else f"result[{index}]"
    if returns[index].type.is_tensor_like()[1]:  # Tensor[]: split, unbind
        return [f"{indent}set_fw_grads({target}, {value})"]
    return [f"{indent}set_differentiable({target}, {value})"]


def _function(op: AutogradOp) -> list[str]:
    f = op.f
    formulas = _forward_of(op)
    args = ", ".join(a.name for a in f.func.arguments)
    lines = [""]
    if not f.is_inplace:
        lines.append("")
        lines.append(f"def {f.kernel}(result, {args}):")
        returns = f.func.returns
        if len(returns) == 1 and not returns[0].type.is_tensor_like()[1]:
            lines.append("    if not (result.dtype.is_floating_point or result.dtype.is_complex):")
            lines.append("        return")
        lines += _read_tangents(op)
        lines.append("        return")
        lines.append("    state = per_thread.state")
        lines.append("    prev = state.fw_grad_mode")
        lines.append("    state.fw_grad_mode = False")
        lines.append("    try:")
        lines += _bindings(op, formulas, "        ")
        values = []
        for index, formula in formulas:
            lines.append(f"        value{index} = {formula}")
            values.append(index)
        lines.append("    finally:")
        lines.append("        state.fw_grad_mode = prev")
        for index in values:
            lines += _setter(op, index, f"value{index}", "    ")
        return lines
    # in-place: the tangents (and self, when the formula reads it) before the call
    if "self" not in _tangent_names(op):
        raise ValueError(f"derivatives.yaml {op.derivative.op}: in-place without self")
    original = _needs_original(op, formulas)
    lines.append("")
    lines.append(f"def {f.kernel}_pre({args}):")
    lines.append("    if not (self.dtype.is_floating_point or self.dtype.is_complex):")
    lines.append("        return None")
    lines += _read_tangents(op)
    lines.append("        return None")
    names = ", ".join(f"{n}_t_raw" for n in _tangent_names(op))
    if original:
        lines.append(f"    return ({names}, clone_primal(self))")
    else:
        lines.append(f"    return ({names}, None)")
    lines.append("")
    lines.append("")
    lines.append(f"def {f.kernel}(fw, {args}):")
    lines.append(f"    {names}, original_self = fw")
    lines.append("    result = self")
    if original:
        lines.append("    self = original_self")
    lines.append("    state = per_thread.state")
    lines.append("    prev = state.fw_grad_mode")
    lines.append("    state.fw_grad_mode = False")
    lines.append("    try:")
    lines += _bindings(op, formulas, "        ")
    ((_, formula),) = formulas
    lines.append(f"        value = {formula}")
    lines.append("        if self_t_raw is not None and value is not self_t_raw:")
    lines.append("            self_t_raw.copy_(value)")
    lines.append("    finally:")
    lines.append("        state.fw_grad_mode = prev")
    lines.append("    if self_t_raw is None:")
    lines.append("        set_fw_grad(result, value, None, True)")
    return lines


def write_forward_grads(ops: list[AutogradOp]) -> str:
    doc = "Forward-mode formulas, one per operator (the fw_grad parts of VariableType.cpp)."
    lines = [_HEADER + f'"""{doc}"""', "", "# ruff: noqa", ""]
    chosen = [op for op in ops if has_forward(op)]
    names = set()
    for op in chosen:
        for _, formula in _forward_of(op):
            names |= _names(formula)
    helpers = sorted(names & helper_names())
    lines.append("from ember._c10.thread_state import per_thread")
    lines.append("from ember.autograd.formulas import (")
    lines += [f"    {name}," for name in helpers]
    lines.append(")")
    lines.append("from ember.autograd.forward_grad import (")
    for name in ("clone_primal", "fw_grad", "set_differentiable", "set_fw_grad", "set_fw_grads",
                 "tangent_or_zeros"):  # fmt: skip
        lines.append(f"    {name},")
    lines.append(")")
    for op in chosen:
        lines += _function(op)
    return "\n".join(lines) + "\n"


def kernel_before(op: AutogradOp) -> list[str]:
    """Lines before the redispatch: refuse tangents an operator cannot propagate, or read
    an in-place operator's tangents (and self) while self is still what it was."""
    args = ", ".join(a.name for a in op.f.func.arguments)
    tensors = [a.name for a in op.differentiable_inputs]
    if op.kind == "not_implemented":
        tensors = [a.name for a in op.f.func.arguments if is_tensor_type(a)]
        return [
            "    if FW.active:",
            f'        forbid_forward_fallback("{op.f.base_name}", {", ".join(tensors)})',
        ]
    if op.kind == "out":
        tensors = [a.name for a in op.f.func.arguments if is_tensor_type(a)]
        return [
            "    if FW.active:",
            f'        forbid_forward_out("{op.f.base_name}_out", {", ".join(tensors)})',
        ]
    if op.kind != "record":
        return []
    if not has_forward(op):
        return [
            "    if FW.active:",
            f'        forbid_forward("{op.f.base_name}", {", ".join(tensors)})',
        ]
    if op.f.is_inplace:
        return [f"    fw = _fw.{op.f.kernel}_pre({args}) if FW.active else None"]
    return []


def kernel_after(op: AutogradOp) -> list[str]:
    if not has_forward(op):
        return []
    args = ", ".join(a.name for a in op.f.func.arguments)
    if op.f.is_inplace:
        return ["    if fw is not None:", f"        _fw.{op.f.kernel}(fw, {args})"]
    return ["    if FW.active:", f"        _fw.{op.f.kernel}(result, {args})"]
