"""torch.library.register_vmap: a custom op's batching rule, given the whole batch.

Layer: _library (above _functorch). Mirrors register_vmap of torch/_library/custom_ops.py
and torch/library.py (fact A11): the rule ``func(info, in_dims, *args)`` gets the unwrapped
arguments, their batch dims (None for an unbatched one) and ``info`` (batch_size,
randomness); it returns ``(outputs, out_dims)``. It is installed as the op's
FuncTorchBatched ``[kernel]``, undone with the library that registered it.
"""

from __future__ import annotations

from collections.abc import Callable

from ember._functorch import dynamic_layer
from ember._functorch.autograd_function import VmapInfo
from ember._functorch.batched_tensor import make_batched
from ember._functorch.batching.helpers import AFTER_BATCHED, record_at

from .api import _library, library_for_registration, register_raw_kernel, resolve_op


def _batched_outputs(outputs, out_dims, level: int):
    if isinstance(outputs, tuple):
        dims = out_dims if isinstance(out_dims, tuple) else (out_dims,) * len(outputs)
        return tuple(_batched_outputs(o, d, level) for o, d in zip(outputs, dims))
    if out_dims is None or not hasattr(outputs, "_key_bits"):
        return outputs
    return make_batched(outputs, out_dims % max(outputs.dim(), 1), level)


def make_vmap_kernel(func: Callable):
    """The boxed FuncTorchBatched kernel that runs ``func`` on this level's unwrapped args."""

    def custom_vmap_kernel(op, bits, *args):
        layer = dynamic_layer.top()
        level = layer.lvl
        records = [record_at(arg, level) for arg in args]
        if all(record is None for record in records):
            return op.redispatch(bits & AFTER_BATCHED, *args)
        unwrapped = [arg if r is None else r.value for arg, r in zip(args, records)]
        in_dims = tuple(None if r is None else r.bdim for r in records)
        info = VmapInfo(layer.batch_size, layer.randomness)
        outputs, out_dims = func(info, in_dims, *unwrapped)
        return _batched_outputs(outputs, out_dims, level)

    return custom_vmap_kernel


def register_vmap(op, func=None, /, *, lib=None):
    """Register ``func`` as ``op``'s vmap rule (a decorator without ``func``)."""
    op = resolve_op(op, "register_vmap")
    qualname = op if isinstance(op, str) else op._qualname

    def register(func):
        namespace, _ = _library()._parse_namespace(qualname)
        use_lib = op._lib if not isinstance(op, str) else library_for_registration(namespace, lib)
        register_raw_kernel(use_lib, qualname, "FuncTorchBatched", make_vmap_kernel(func),
                            keyset_arg="boxed_raw")  # fmt: skip
        return func

    if func is None:
        return register
    return register(func)
