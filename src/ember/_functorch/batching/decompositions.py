"""CompositeImplicitAutograd operators decompose under vmap (FuncTorchBatchedDecomposition).

Layer: _functorch. Mirrors BatchRulesDecompositions.cpp, which registers the composite
kernel of each CompositeImplicitAutograd op at the FuncTorchBatchedDecomposition alias:
the table shows it as FuncTorchBatched's ``[batched kernel]`` (fact A1), and the op's
parts meet their own batching rules. An op given a rule of its own (FuncTorchBatched
``[kernel]``) keeps it; this module runs after the rule modules.
"""

from __future__ import annotations

from ..._c10.dispatch_key import DispatchKey
from ..._dispatch.dispatcher import dispatcher
from ..._dispatch.kernel import KernelFunction
from .helpers import _handles

_CIA = DispatchKey.CompositeImplicitAutograd
_DECOMPOSITION = DispatchKey.FuncTorchBatchedDecomposition
_BATCHED = DispatchKey.FuncTorchBatched


def _register_all() -> None:
    for name in dispatcher.all_op_names():
        if not name.startswith("aten::"):
            continue
        kernels = dispatcher.find_op(name).entry.kernels
        if not kernels.get(_CIA) or kernels.get(_BATCHED) or kernels.get(_DECOMPOSITION):
            continue
        kernel = kernels[_CIA][0]
        debug = f"registered at {__file__}:{_register_all.__code__.co_firstlineno}"
        decomposition = KernelFunction(
            kernel.fn, keyset_arg=kernel.keyset_arg, debug=debug, name=kernel.name
        )
        _handles.append(dispatcher.register_impl(name, _DECOMPOSITION, decomposition))


_register_all()
