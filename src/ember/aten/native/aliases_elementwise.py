"""The alias operators of the elementwise family: arccos is acos, absolute is abs, ...

Layer: aten/native. In: the full schema-ordered arguments. Out: what the aliased operator
returns. Mirrors the CompositeImplicitAutograd aliases of ATen/native/UnaryOps.cpp and
BinaryOps.cpp (`arccos(self)` is `at::acos(self)`): they decompose before autograd, so a
dispatch mode sees the aliased operator and the grad_fn is its node.
"""

from __future__ import annotations

from ember.aten.native import at

__all__: list[str] = []

_TARGETS = {"arccos": "acos", "arcsin": "asin", "arctan": "atan", "arcsinh": "asinh",
            "arccosh": "acosh", "arctanh": "atanh", "absolute": "abs", "negative": "neg"}  # fmt: skip


def _alias(name: str, target: str):
    def kernel(*args):
        return getattr(at, target)(*args)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


for _alias_name, _target in _TARGETS.items():
    for _suffix in ("", "_", "_out"):
        _name = _alias_name + _suffix
        globals()[_name] = _alias(_name, _target + _suffix)
        __all__.append(_name)
