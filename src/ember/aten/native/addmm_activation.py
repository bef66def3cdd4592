"""_addmm_activation: addmm followed by relu or gelu, the fused epilogue of PyTorch's
linear + activation (the CPU kernel runs the two in sequence).

Layer: aten/native. In: the schema's arguments. Out: a fresh tensor. Below autograd the
two steps are plain operator calls; above it the operator has no derivative formula in
PyTorch (its grad_fn is torch::autograd::NotImplemented). Mirrors
ATen/native/LinearAlgebra.cpp's addmm_activation_out_cpu.
"""

from __future__ import annotations

from ember.aten.native import at

__all__ = ["_addmm_activation"]


def _addmm_activation(self, mat1, mat2, beta, alpha, use_gelu):
    result = at.addmm(self, mat1, mat2, beta, alpha)
    if use_gelu:
        return at.gelu_(result, "none")
    return at.relu_(result)
