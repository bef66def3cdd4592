"""The TorchScript custom classes a schema may name (``__torch__.torch.classes.NS.NAME``).

Layer: _dispatch. Mirrors the class registry of torch/custom_class.h (``torch::class_<>``,
``getCustomClass``) as the schema type parser consults it. ember implements none of these
classes; it knows their names so that every schema PyTorch 2.13 registers at import
(``torch._C._jit_get_all_schemas()``) parses, prints and binds as PyTorch's does. A name
not listed stays an error, as it is in PyTorch for an unregistered class.
"""

from __future__ import annotations

# "NS.NAME" of every class PyTorch 2.13 registers when ``import torch`` finishes (CPU build).
_REGISTERED = {
    "c10d.ProcessGroup", "c10d.ReduceOp", "c10d.SymmetricMemory", "c10d.Work",
    "dist_rpc.WorkerInfo", "mkldnn.ConvOpContext", "profiler._RecordFunction",
    "quantized.Conv2dPackedParamsBase", "quantized.Conv3dPackedParamsBase",
    "quantized.EmbeddingPackedParamsBase", "quantized.LinearPackedParamsBase",
    "rnn.CellParamsBase", "sparse.LinearPackedParamsBase",
}  # fmt: skip


def is_registered(namespace: str, name: str) -> bool:
    return f"{namespace}.{name}" in _REGISTERED


def qualified_class_name(namespace: str, name: str) -> str:
    """The type's name as PyTorch prints it, in schemas and in Python."""
    return f"__torch__.torch.classes.{namespace}.{name}"


def register_custom_class(namespace: str, name: str) -> str:
    """Make ``__torch__.torch.classes.NS.NAME`` a known type name; returns that name."""
    _REGISTERED.add(f"{namespace}.{name}")
    return qualified_class_name(namespace, name)
