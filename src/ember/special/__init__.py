"""ember.special: the torch.special functions.

Layer: torch face (beside linalg). Mirrors torch/special/__init__.py, whose functions are
the bindings of the `python_module: special` operators (torch._C._special): `expit` is
aten::special_expit, `gammaln` aten::special_gammaln. Each binding generated from
native_functions.yaml is exported here under its name without the `special_` prefix.
"""

from ember.aten._generated import python_special_functions as _bindings

__all__ = sorted(name.removeprefix("special_") for name in _bindings.__all__)

for _name in __all__:
    globals()[_name] = getattr(_bindings, "special_" + _name)
del _name
