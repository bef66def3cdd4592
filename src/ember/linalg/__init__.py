"""ember.linalg: the torch.linalg functions ember has.

Layer: torch face. Mirrors torch/linalg/__init__.py, whose functions are the
bindings of the `python_module: linalg` operators (torch._C._linalg):
`vector_norm` is aten::linalg_vector_norm, `lstsq` aten::linalg_lstsq.
"""

from ember.aten._generated.python_linalg_functions import linalg_lstsq as lstsq
from ember.aten._generated.python_linalg_functions import linalg_vector_norm as vector_norm

__all__ = ["lstsq", "vector_norm"]
