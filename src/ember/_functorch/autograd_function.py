"""autograd.Function under vmap: generate_vmap_rule, a vmap staticmethod, or PyTorch's error.

Layer: _functorch (installs a hook into autograd.function, below it). Mirrors the vmap part
of torch/_functorch/autograd_function.py (custom_function_call; fact A11). Other
transforms' layers let the plain apply run.
"""

from __future__ import annotations

from typing import NamedTuple

from ..autograd import function as _function
from . import dynamic_layer
from .batched_tensor import make_batched
from .batching.helpers import record_at
from .interpreter import TransformType

_DOCS = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"


class VmapInfo(NamedTuple):
    """What a vmap rule (a vmap staticmethod, a register_vmap rule) learns of its vmap."""

    batch_size: int
    randomness: str


def _own_vmap(cls):
    for klass in cls.__mro__:
        if klass is _function.Function:
            return None
        if "vmap" in klass.__dict__:
            return cls.vmap
    return None


def apply_under_transforms(cls, args, kwargs):
    layer = dynamic_layer.top()
    if layer is None:
        return NotImplemented
    if cls.setup_context is _function._BASE_SETUP_CONTEXT:
        raise RuntimeError(
            "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, "
            "jacrev, ...), it must override the setup_context staticmethod. " + _DOCS
        )
    if layer.transform is not TransformType.Vmap:
        return NotImplemented
    if getattr(cls, "generate_vmap_rule", False):
        return cls.forward(*args, **kwargs)  # the rule generated: forward on batched tensors
    rule = _own_vmap(cls)
    if rule is None:
        raise RuntimeError(
            f"You tried to vmap over {cls.__name__}, but it does not have vmap support. Please "
            "override and implement the vmap staticmethod or set generate_vmap_rule=True. " + _DOCS
        )
    records = [record_at(arg, layer.lvl) for arg in args]
    unwrapped = [arg if r is None else r.value for arg, r in zip(args, records)]
    in_dims = tuple(None if r is None else r.bdim for r in records)
    outputs, out_dims = rule(VmapInfo(layer.batch_size, layer.randomness), in_dims, *unwrapped)
    if isinstance(outputs, tuple):
        dims = out_dims if isinstance(out_dims, tuple) else (out_dims,) * len(outputs)
        return tuple(
            o if d is None else make_batched(o, d, layer.lvl) for o, d in zip(outputs, dims)
        )
    return outputs if out_dims is None else make_batched(outputs, out_dims, layer.lvl)


_function.TRANSFORM_APPLY[:] = [apply_under_transforms]
