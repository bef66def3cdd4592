"""ember._functionalization: functionalization as the Functionalize dispatch key.

Layer: _functionalization (above autograd, below the faces: its kernels call operators
through the dispatcher and its wrapper is an ember.Tensor; ember._functorch's
Functionalize interpreter and torch.func.functionalize sit above it). In: tensors wrapped
by ``to_functional`` and the calls that reach the key. Out: the wrapper and its state
(wrapper.py), the view inverses (inverses.py), the Functionalize kernels and fallback
(kernels.py), and the torch-level functions (api.py: torch._to_functional_tensor,
_from_functional_tensor, _sync, _is_functional_tensor, _enable_functionalization...).
Mirrors aten/src/ATen/FunctionalTensorWrapper.cpp, FunctionalStorageImpl.cpp,
FunctionalInverses.cpp, FunctionalizeFallbackKernel.cpp and the generated
RegisterFunctionalization_*.cpp.
"""

from ember import _tensor_str

from . import kernels  # noqa: F401  (registers the Functionalize kernels and fallback)
from .api import *  # noqa: F403
from .api import __all__ as __all__
from .api import functional_parts

_tensor_str.functional_parts = functional_parts  # a wrapper's repr (Note in _tensor_str)
