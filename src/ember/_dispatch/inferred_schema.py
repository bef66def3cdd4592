"""A typed kernel's inferred schema checked against the operator's def.

Layer: _dispatch. Mirrors findSchemaDifferences (ATen/core/op_registration/infer_schema.cpp)
and OperatorEntry::checkSchema (ATen/core/dispatch/OperatorEntry.cpp). In: the def's
FunctionSchema and a KernelFunction carrying ``inferred_schema`` (today only the typed
test kernels of torch._C._dispatch_library have one; Python kernels are boxed and
unchecked, as in PyTorch). Out: None, or RuntimeError with PyTorch's text, raised before
anything is registered.
"""

from __future__ import annotations


def schema_difference(expected, inferred) -> str | None:
    """Why two schemas differ in arity or types, as findSchemaDifferences words it."""
    for what, ours, theirs in (
        ("arguments", expected.arguments, inferred.arguments),
        ("returns", expected.returns, inferred.returns),
    ):
        if len(ours) != len(theirs):
            return f"The number of {what} is different. {len(ours)} vs {len(theirs)}."
    for what, ours, theirs in (
        ("argument", expected.arguments, inferred.arguments),
        ("return", expected.returns, inferred.returns),
    ):
        for i, (left, right) in enumerate(zip(ours, theirs), start=1):
            if left.type.schema_str() != right.type.schema_str():
                return (
                    f"Type mismatch in {what} {i}: {left.type.schema_str()} vs "
                    f"{right.type.schema_str()}."
                )
    return None


def check_kernel_schema(name: str, schema, schema_debug: str, kernel) -> None:
    """RuntimeError when ``kernel`` has an inferred schema that ``schema`` contradicts."""
    inferred = kernel.inferred_schema
    if inferred is None or schema is None:
        return
    reason = schema_difference(schema, inferred)
    if reason is not None:
        raise RuntimeError(
            "Inferred operator schema for a C++ kernel function doesn't match the expected "
            f"function schema.\n  operator: {name}\n  expected schema: {schema}\n"
            f"    {schema_debug}\n  inferred schema: {inferred}\n    {kernel.debug}\n"
            f"  reason: {reason}"
        )
