"""The torch.* names that are neither operators nor tensors: type info, global state,
legacy tensor types, removed functions.

Layer: _namespace (the top of the library, below only tools/codegen; the package root
re-exports it). Mirrors the parts of torch/__init__.py, torch/csrc/Module.cpp,
torch/csrc/TypeInfo.cpp and torch/csrc/tensor/python_tensor.cpp that give torch's
top-level namespace its non-operator names.
"""
