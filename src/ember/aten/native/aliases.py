"""The alias operators: multiply, subtract, divide and true_divide are mul, sub and div.

Layer: aten/native. In: the full schema-ordered arguments (Note [Dispatcher
calling convention]). Out: what the aliased operator returns. Mirrors the
CompositeImplicitAutograd aliases of ATen/native/BinaryOps.cpp
(`multiply(self, other)` is `at::mul(self, other)`...): they decompose before
autograd and the Python key, so a trace or a dispatch mode sees aten.mul.Tensor
for `torch.multiply(a, b)`, as in PyTorch, and the grad_fn is mul's.
"""

from __future__ import annotations

from ember.aten.native import at

__all__: list[str] = []

# alias kernel name -> the aliased operator's kernel name (the arguments are the same)
_ALIASES = {
    "multiply_Tensor": "mul_Tensor",
    "multiply__Tensor": "mul__Tensor",
    "multiply_out": "mul_out",
    "multiply_Scalar": "mul_Scalar",
    "multiply__Scalar": "mul__Scalar",
    "subtract_out": "sub_out",
    "subtract_Tensor": "sub_Tensor",
    "subtract__Tensor": "sub__Tensor",
    "subtract_Scalar": "sub_Scalar",
    "subtract__Scalar": "sub__Scalar",
    "divide_Tensor": "div_Tensor",
    "divide__Tensor": "div__Tensor",
    "divide_out": "div_out",
    "divide_Scalar": "div_Scalar",
    "divide__Scalar": "div__Scalar",
    "divide_Tensor_mode": "div_Tensor_mode",
    "divide__Tensor_mode": "div__Tensor_mode",
    "divide_out_mode": "div_out_mode",
    "divide_Scalar_mode": "div_Scalar_mode",
    "divide__Scalar_mode": "div__Scalar_mode",
    "true_divide_Tensor": "div_Tensor",
    "true_divide__Tensor": "div__Tensor",
    "true_divide_out": "div_out",
    "true_divide_Scalar": "div_Scalar",
    "true_divide__Scalar": "div__Scalar",
}


def _alias(name: str, target: str):
    def kernel(*args):
        return getattr(at, target)(*args)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


for _name, _target in _ALIASES.items():
    globals()[_name] = _alias(_name, _target)
    __all__.append(_name)
