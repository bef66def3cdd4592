"""The Conjugate and Negative keys: the fallback that resolves a lazy math bit, and what
falls through it.

Layer: aten. In: calls whose key set holds Conjugate or Negative (`x.conj()` of a complex
tensor, `x._neg_view()`, `x.conj().imag`, and their views). Out: PyTorch's
MathOpFallback (MathBitsFallback.h, ConjugateFallback.cpp, NegateFallback.cpp): a view
op goes on below the key (its result keeps the bit); any other op gets each argument
with the bit replaced by `clone(arg)` (clone resolves it) and goes on below; an in-place
or out= op writes into the clone, which is then copied back into the argument (copy_
stores the bit's inverse). The operators PyTorch lets fall through the keys (views,
constructors, copy_, clone, mm, dot ...) read such tensors themselves (Note [Math bits]).
"""

from __future__ import annotations

from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import full_after_bits
from ember._c10.tensor_impl import CONJ_BITS, NEG_BITS
from ember._dispatch.builtin_fallbacks import override
from ember._dispatch.dispatcher import caller_debug, dispatcher
from ember._dispatch.kernel import make_fallthrough
from ember._tensor import Tensor
from ember.aten.native import at

__all__ = ["register"]

# Both keys' fallthroughs: TORCH_VIEW_FNS, TENSOR_UTILITIES_AND_CONSTRUCTORS and the
# operators whose kernels read the bit themselves (ConjugateFallback.cpp, NegateFallback.cpp).
_COMMON = (
    "_conj _has_same_storage_numel _new_zeros_with_same_feature_meta _unsafe_view alias "
    "as_strided as_strided_ chunk clone conj copy_ detach detach_ diagonal dsplit.array "
    "dsplit.int empty.memory_format empty.out empty_like empty_strided expand expand_as "
    "full_like hsplit.array hsplit.int imag is_complex is_floating_point "
    "linalg_solve_triangular linalg_solve_triangular.out linalg_svd linalg_svd.U movedim.int "
    "movedim.intlist narrow permute real repeat_interleave.Tensor repeat_interleave.self_Tensor "
    "repeat_interleave.self_int requires_grad_ reshape resize_ resolve_conj resolve_neg "
    "select.int set_ set_.source_Storage_storage_offset set_.source_Tensor size.int "
    "split.Tensor split_with_sizes squeeze squeeze_ stride.int swapaxes swapdims t t_ "
    "transpose.int transpose_ unbind.int unflatten.int unfold unsqueeze unsqueeze_ view "
    "view_as view_as_real vsplit.array vsplit.int"
).split()
FALLTHROUGHS = {
    DispatchKey.Conjugate: _COMMON
    + (
        "_conj_physical addmm addmm.out addmm_ baddbmm baddbmm.out baddbmm_ bmm bmm.out "
        "conj_physical conj_physical_ dot dot.out mm mm.out vdot vdot.out"
    ).split(),
    DispatchKey.Negative: [*_COMMON, "neg_"],
}
# Fallthroughs in PyTorch whose ember kernels read storage as it is: they go through the
# fallback instead (PyTorch's values; a mode sees the fallback's clones before them).
RESOLVED_BY_THE_FALLBACK = frozenset(
    "baddbmm baddbmm.out baddbmm_ vdot vdot.out linalg_solve_triangular "
    "linalg_solve_triangular.out linalg_svd linalg_svd.U".split()
)
_NAMES = {
    DispatchKey.Conjugate: ("Conjugate", CONJ_BITS),
    DispatchKey.Negative: ("Negation", NEG_BITS),
}


def _fallback(key):
    op_name, bit = _NAMES[key]
    below = full_after_bits(key)

    def math_op_fallback(op, keyset, *args):
        """MathOpFallback::fallback_impl."""
        arguments = op.schema.arguments
        writes = {a.alias_info.is_write for a in arguments if a.alias_info is not None}
        if len(writes) > 1:
            raise RuntimeError(
                f"Unsupported operator for {op_name} fallback: {op.schema.name}{op_name} "
                "fallback doesn't work for operators with a mix mutable and non-mutable inputs "
                "that alias with outputs, this must be implemented manually.  If you got this "
                "error on a core op, please report a bug to PyTorch."
            )
        if writes == {False}:  # a view: its result keeps the bit
            return op.redispatch(keyset & below, *args)
        resolved = list(args)
        mutable = None  # (the argument, its clone)
        for i, (argument, value) in enumerate(zip(arguments, args, strict=False)):
            writes_here = argument.alias_info is not None
            if isinstance(value, Tensor):
                if not value._key_bits & bit:
                    continue
                clone = at.clone(value, None)
                if writes_here:
                    if mutable is not None:
                        raise RuntimeError(
                            f"{op_name} fallback does not support operators with more than one "
                            f"mutable tensors with {op_name}bit set to true."
                        )
                    mutable = (value, clone)
                resolved[i] = clone
            elif isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
                items = list(value)
                for j, item in enumerate(items):
                    if isinstance(item, Tensor) and item._key_bits & bit:
                        if writes_here:
                            raise RuntimeError(
                                f" fallback doesn't currently support mutable TensorLists with "
                                f"{op_name} inputs. Please materialize all the {op_name} input "
                                f"tensor(s) in the mutable TensorList inputs before calling "
                                f"{op.schema.name}"
                            )
                        items[j] = at.clone(item, None)
                resolved[i] = items
        result = op.redispatch(keyset & below, *resolved)
        if mutable is None:
            return result
        original, _clone = mutable
        returned = result[0] if isinstance(result, tuple) else result
        if list(original._sizes) != list(returned._sizes):
            at.resize_(original, list(returned._sizes), None)  # resize_output, for out=
        at.copy_(original, returned, False)
        return original if not isinstance(result, tuple) else (original, *result[1:])

    math_op_fallback.__name__ = f"{op_name.lower()}_fallback"
    return math_op_fallback


def register() -> None:
    """The two fallbacks and their fallthroughs (aten/load.py calls it once the aten
    operators are defined)."""
    debug = caller_debug(0)
    for key, names in FALLTHROUGHS.items():
        override(key, _fallback(key), keyset_arg="boxed_raw")
        for name in names:
            if name in RESOLVED_BY_THE_FALLBACK:
                continue
            overload, _, overload_name = name.partition(".")
            if dispatcher.find_schema("aten::" + overload, overload_name) is not None:
                dispatcher.register_impl("aten::" + name, key, make_fallthrough(debug), debug)
