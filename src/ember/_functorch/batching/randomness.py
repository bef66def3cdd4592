"""The random operators' FuncTorchVmapMode kernels: randomness='error' | 'same' | 'different'.

Layer: _functorch. Mirrors BatchRulesRandomness.cpp (fact A7). The ops are those
native_functions.yaml tags ``nondeterministic_seeded``; the CompositeImplicitAutograd ones
(dropout and its kin) get their decomposition at FuncTorchVmapMode instead, so their
random parts meet these kernels. 'error' refuses; 'same' draws one unbatched sample
(an in-place draw on a batched tensor is then broadcast into every row); 'different'
draws one (B, ...) tensor, or in place into the physical batched tensor.
"""

from __future__ import annotations

from ..._c10.dispatch_key import DispatchKey
from ..._c10.dispatch_key_set import full_after_bits
from ..._dispatch.dispatcher import dispatcher
from ..._dispatch.kernel import KernelFunction
from ...aten.native import at
from ...aten.registration import ATEN_TAGS
from .. import dynamic_layer
from .helpers import _handles, front, record_at, register, wrap

VMAP_MODE = DispatchKey.FuncTorchVmapMode
_AFTER_VMAP_MODE = full_after_bits(VMAP_MODE)

_ERROR = (
    "vmap: called random operation while in randomness error mode. Please either use the "
    "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
    "of vmap"
)
_UNBATCHED_INPLACE = (
    "vmap: Cannot ask for different inplace randomness on an unbatched tensor. This will "
    "appear like same randomness. If this is necessary for your usage, please file an issue "
    "with functorch."
)


def _layer():
    """The innermost vmap layer (FuncTorchVmapMode is only included while one processes)."""
    layer = dynamic_layer.top()
    if layer.randomness == "error":
        raise RuntimeError(_ERROR)
    return layer


def _below(op, bits, args):
    return op.redispatch(bits & _AFTER_VMAP_MODE, *args)


def inplace_random_rule(op, bits, self, *rest):
    layer = _layer()
    record = record_at(self, layer.lvl)
    if record is None:
        if layer.randomness == "different":
            raise RuntimeError(_UNBATCHED_INPLACE)
        return _below(op, bits, (self, *rest))
    physical = front(record)
    if layer.randomness == "different":
        _below(op, bits, (physical, *rest))
    else:
        sample = at.clone(at.select_int(physical, 0, 0), None)
        _below(op, bits, (sample, *rest))
        at.copy_(physical, sample, False)
    return self


def factory_rule(size_index: int):
    def random_factory_rule(op, bits, *args):
        layer = _layer()
        if layer.randomness == "same":
            return _below(op, bits, args)
        new = list(args)
        new[size_index] = (layer.batch_size, *args[size_index])
        return wrap(_below(op, bits, new), layer.lvl)

    return random_factory_rule


def like_rule(op, bits, self, *rest):
    """rand_like and kin: 'same' draws one sample's shape; 'different' a (B, ...) tensor."""
    layer = _layer()
    record = record_at(self, layer.lvl)
    if layer.randomness == "same":
        sample = at.select_int(front(record), 0, 0) if record is not None else self
        return _below(op, bits, (sample, *rest))
    if record is not None:
        physical = front(record)
    else:
        physical = at.expand(at.unsqueeze(self, 0), (layer.batch_size, *self._sizes), False)
    return wrap(_below(op, bits, (physical, *rest)), layer.lvl)


def tensor_input_rule(op, bits, *args):
    """bernoulli(p), multinomial, normal(mean, std): 'different' over the physical inputs
    (unbatched ones expanded); 'same' only when no input is batched."""
    layer = _layer()
    lvl = layer.lvl
    batched = [record_at(a, lvl) for a in args]
    if layer.randomness == "same":
        if any(r is not None for r in batched):
            raise NotImplementedError(
                f"vmap: randomness='same' for {op.name} on batched inputs is not supported by ember"
            )
        return _below(op, bits, args)
    new = []
    for arg, record in zip(args, batched):
        if record is not None:
            new.append(front(record))
        elif hasattr(arg, "_sizes"):
            new.append(at.expand(at.unsqueeze(arg, 0), (layer.batch_size, *arg._sizes), False))
        else:
            new.append(arg)
    return wrap(_below(op, bits, new), lvl)


def _classify(name, schema):
    first = schema.arguments[0] if schema.arguments else None
    if any(a.kwarg_only and a.alias_info is not None for a in schema.arguments):
        return None  # out= forms: the fallback's out= error
    if first is not None and first.alias_info is not None and first.alias_info.is_write:
        return inplace_random_rule
    names = [a.name for a in schema.arguments]
    if "size" in names:
        return factory_rule(names.index("size"))
    if name.split(".")[0].endswith("_like"):
        return like_rule
    return tensor_input_rule


def _register_all() -> None:
    cia = DispatchKey.CompositeImplicitAutograd
    for name in dispatcher.all_op_names():
        if not name.startswith("aten::") or "nondeterministic_seeded" not in ATEN_TAGS.get(
            name, ()
        ):
            continue
        handle = dispatcher.find_op(name)
        kernels = handle.entry.kernels.get(cia)
        if kernels:  # a decomposition: its random parts meet the kernels below
            kernel = kernels[0]
            decomposition = KernelFunction(
                kernel.fn, keyset_arg=kernel.keyset_arg, debug=_debug(),
                name=kernel.name,
            )  # fmt: skip
            _handles.append(dispatcher.register_impl(name, VMAP_MODE, decomposition))
            continue
        rule = _classify(name, handle.schema)
        if rule is not None:
            register(name, rule, VMAP_MODE, depth=2)


def _debug() -> str:
    return f"registered at {__file__}:{_register_all.__code__.co_firstlineno}"


_register_all()
