"""ember.dispatch.explain: why a call reaches the kernel it does, without running it.

Layer: top (imports _c10 and _dispatch). Follows the key-set formula of facts §3.2
(DispatchKeyExtractor.h) one term at a time, then asks the operator's entry for
the chosen slot through the same function that computed the table
(``OperatorEntry.explain_index``, Note [Computing the dispatch table]), so the
reasons given are the reasons the table has. In: an operator (OpOverload,
packet, or ``"ns::op[.overload]"``) and the arguments of a call. Out: an
``Explanation`` (data, and ``str()`` reads as a short report).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ._c10.dispatch_key import DispatchKey, key_name, to_functionality_key
from ._c10.dispatch_key_set import (
    FUNCTIONALITY_MASK,
    after_autograd_keyset,
    key_bits,
    raw_highest_priority_key,
    raw_keys,
    raw_table_index,
)
from ._c10.grad_mode import autograd_state
from ._c10.tls import local_state
from ._dispatch.dispatcher import dispatcher

_AUTOGRAD_FUNCTIONALITIES = frozenset(
    {DispatchKey.AutogradFunctionality, DispatchKey.AutogradOther, DispatchKey.AutogradNestedTensor}
)


def names(bits: int) -> list[str]:
    """The key names of raw key bits, in DispatchKeySet's printing order."""
    return [key_name(key) for key in raw_keys(bits)]


def keyset_text(bits: int) -> str:
    return "DispatchKeySet(" + ", ".join(names(bits)) + ")"


@dataclass
class SlotChoice:
    """One table slot and the precedence steps (facts §4.1) that filled it."""

    key: str
    kernel_name: str | None
    label: str | None
    registered_at: str | None
    fallthrough: bool
    steps: list[str]

    def sentence(self) -> str:
        return f"{self.key}: " + "; ".join(self.steps)


@dataclass
class Explanation:
    """The facts behind one call's kernel choice; ``str()`` renders them."""

    op: str
    schema: str
    arguments: list[dict]  # name, keys, requires_grad
    union: list[str]
    tls_included: list[str]
    added_by_included: list[str]
    tls_excluded: list[str]
    removed_by_excluded: list[str]
    mask_dropped: list[dict]  # key, reason
    dispatch_keys: list[str]
    key: str
    slot: SlotChoice
    grad_mode: bool
    inference_mode: bool
    autograd_note: str | None = None
    below_autograd_keys: list[str] = field(default_factory=list)
    below_autograd: SlotChoice | None = None

    def to_dict(self) -> dict:
        from dataclasses import asdict

        return asdict(self)

    def __str__(self) -> str:
        width = max([len(a["name"]) for a in self.arguments] + [10])
        lines = [self.schema]

        def row(name: str, text: str) -> None:
            lines.append(f"  {name:<{width}}  {text}")

        for argument in self.arguments:
            grad = "  (requires grad)" if argument["requires_grad"] else ""
            row(argument["name"], _set(argument["keys"]) + grad)
        if not self.arguments:
            row("(no tensors)", "DispatchKeySet()")
        row("union", _set(self.union))
        row("| included", _set(self.tls_included) + _change("adds", self.added_by_included))
        row("- excluded", _set(self.tls_excluded) + _change("removes", self.removed_by_excluded))
        if not self.mask_dropped:
            row("& mask", "drops nothing")
        for i, dropped in enumerate(self.mask_dropped):
            row("& mask" if i == 0 else "", f"drops {dropped['key']}: {dropped['reason']}")
        row("=", _set(self.dispatch_keys))
        lines.append(f"highest key: {self.key}")
        slot = self.slot
        if slot.kernel_name is None:
            lines.append(f"table slot:  {slot.key}: missing (the call raises NotImplementedError)")
        else:
            fall = "fallthrough " if slot.fallthrough else ""
            lines.append(f"table slot:  {slot.key}: {fall}{slot.registered_at} [{slot.label}]")
            lines.append(f"kernel:      {slot.kernel_name}")
        lines.append(f"why:         {slot.sentence()}")
        mode = (
            "inference mode"
            if self.inference_mode
            else "grad mode " + ("on" if self.grad_mode else "off")
        )
        lines.append(f"mode:        {mode}")
        if self.autograd_note:
            lines.append(f"autograd:    {self.autograd_note}")
        below = self.below_autograd
        if below is not None:
            lines.append(
                f"then:        redispatch with {_set(self.below_autograd_keys)} -> {below.key} "
                f"[{below.label or 'missing'}]"
            )
            lines.append(f"             {below.sentence()}")
        return "\n".join(lines)

    __repr__ = __str__


def _set(keys: list[str]) -> str:
    return "DispatchKeySet(" + ", ".join(keys) + ")"


def _change(verb: str, keys: list[str]) -> str:
    return f"   {verb} {', '.join(keys)}" if keys else ""


def _resolve(op, args: tuple, kwargs: dict):
    """(operator handle, the full schema-ordered argument list) for ``op`` called with args."""
    from ._ops import OpOverload, OpOverloadPacket

    if isinstance(op, OpOverload):
        return op.op, op._schema.bind(args, kwargs)
    if isinstance(op, str):
        name = op.removesuffix(".default")
        handle = dispatcher.find_op(name)
        if handle is None or handle.schema is None:
            raise RuntimeError(f"explain: no operator named {op}")
        return handle, handle.schema.bind(args, kwargs)
    if isinstance(op, OpOverloadPacket):
        errors = []
        for overload_name in op._overload_names:
            overload = getattr(op, overload_name or "default")
            try:
                return overload.op, overload._schema.bind(args, kwargs)
            except (RuntimeError, TypeError) as error:
                errors.append(str(error))
        raise RuntimeError(f"explain: no overload of {op} takes these arguments: {errors}")
    raise TypeError(f"explain: expected an operator (OpOverload or 'ns::name'), got {op!r}")


def _slot(handle, bits: int) -> SlotChoice:
    index = raw_table_index(bits)
    entry, steps = handle.entry.explain_index(index)
    key = key_name(raw_highest_priority_key(bits))
    if entry is None:
        return SlotChoice(key, None, None, None, False, steps)
    kernel, label = entry
    return SlotChoice(key, kernel_name(kernel), label, kernel.debug, kernel.is_fallthrough, steps)


def kernel_name(kernel) -> str:
    """``module.qualname`` of the kernel's function; just the recorded name when the
    function is an adapter around a user's kernel (ember.library keeps the user's name)."""
    fn = kernel.fn
    module = getattr(fn, "__module__", None)
    if module and getattr(fn, "__qualname__", None) == kernel.name:
        return f"{module}.{kernel.name}"
    return kernel.name


def _mask_reason(handle, key: DispatchKey) -> str:
    entry = handle.entry.lookup_index(raw_table_index(key_bits(key)))
    if entry is None:
        return "masked"
    kernel, label = entry
    what = "fallthrough backend fallback" if label == "backend fallback" else "fallthrough kernel"
    return f"{what} {kernel.debug}"


def explain(op, *args, **kwargs) -> Explanation:
    """Why calling ``op(*args, **kwargs)`` here reaches the kernel it does; runs no kernel."""
    handle, full = _resolve(op, args, kwargs)
    schema = handle.schema
    arguments, union = [], 0
    for index, is_list in handle._positions:
        value = full[index] if index < len(full) else None
        if value is None:
            continue
        values = [v for v in value if v is not None] if is_list else [value]
        bits = 0
        for item in values:
            bits |= getattr(item, "_key_bits", 0)
        union |= bits
        requires_grad = any(getattr(item, "requires_grad", False) for item in values)
        arguments.append(
            {
                "name": schema.arguments[index].name,
                "keys": names(bits),
                "requires_grad": requires_grad,
            }
        )
    included, excluded = local_state.included, local_state.excluded
    with_included = union | included
    before_mask = with_included & ~(excluded & FUNCTIONALITY_MASK)
    final = before_mask & handle.entry.fallthrough_mask(before_mask)
    kept = set(raw_keys(final))
    dropped = [k for k in raw_keys(before_mask) if k not in kept]
    removed = set(raw_keys(before_mask))
    explanation = Explanation(
        op=handle.name,
        schema=str(schema),
        arguments=arguments,
        union=names(union),
        tls_included=names(included),
        added_by_included=[key_name(k) for k in raw_keys(included & ~union)],
        tls_excluded=names(excluded),
        removed_by_excluded=[key_name(k) for k in raw_keys(with_included) if k not in removed],
        mask_dropped=[{"key": key_name(k), "reason": _mask_reason(handle, k)} for k in dropped],
        dispatch_keys=names(final),
        key=key_name(raw_highest_priority_key(final)),
        slot=_slot(handle, final),
        grad_mode=autograd_state.grad_mode,
        inference_mode=autograd_state.inference_mode,
    )
    key = raw_highest_priority_key(final)
    if final and to_functionality_key(key) in _AUTOGRAD_FUNCTIONALITIES:
        if explanation.slot.label in ("math kernel", "nested kernel"):
            explanation.autograd_note = (
                "a composite kernel fills the autograd slot: it runs here, above autograd, "
                "and the operators it calls record their own backward nodes (no redispatch)"
            )
        elif explanation.slot.label is not None:
            explanation.autograd_note = _autograd_note(arguments, autograd_state.grad_mode)
            below = final & after_autograd_keyset.raw_repr()
            explanation.below_autograd_keys = names(below)
            explanation.below_autograd = _slot(handle, below)
    return explanation


def _autograd_note(arguments: list[dict], grad_mode: bool) -> str:
    needing = [a["name"] for a in arguments if a["requires_grad"]]
    if not grad_mode:
        return "grad mode is off: the autograd kernel records no backward node, then redispatches"
    if not needing:
        return "no input requires grad: the autograd kernel records no backward node"
    return f"grad mode is on and {', '.join(needing)} requires grad: a backward node is recorded"
