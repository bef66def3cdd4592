"""The schemas that the ``out`` and ``inplace`` tags allow, checked when an op is defined.

Layer: top (custom-op layer; imports _dispatch). Mirrors _validate_out_schema and
_validate_inplace_schema of torch/library.py. In: the parsed schema of a
``Library.define`` (or ``torch.library.define`` / ``custom_op``) tagged ``out``
or ``inplace``. Out: nothing, or PyTorch's ValueError naming the first rule
the schema breaks.
"""

from __future__ import annotations

__all__ = ["validate_out_schema", "validate_inplace_schema"]


def _is_tensor(kind) -> bool:
    """Exactly ``Tensor`` (torch.TensorType): no list, no optional."""
    return kind.kind == "base" and kind.name == "Tensor"


def _mutable(argument) -> bool:
    return argument.alias_info is not None and argument.alias_info.is_write


def validate_out_schema(schema) -> None:
    """``torch.Tag.out``: keyword-only mutable Tensors, each returned as its own alias."""
    tag = "Schema tagged with torch.Tag.out"
    mutable = [argument for argument in schema.arguments if _mutable(argument)]
    if not mutable:
        raise ValueError(f"{tag} must have at least one mutable argument. Got: {schema}")
    positional = [argument.name for argument in mutable if not argument.kwarg_only]
    if positional:
        raise ValueError(
            f"{tag} requires all mutable arguments to be keyword-only (after the *). Found "
            f"mutable positional args: {positional}. Got: {schema}"
        )
    unsupported = [argument.name for argument in mutable if not _is_tensor(argument.type)]
    if unsupported:
        raise ValueError(
            f"{tag} only supports Tensor mutable arguments. Found unsupported mutable args: "
            f"{unsupported}. Got: {schema}"
        )
    if len(schema.returns) != len(mutable):
        raise ValueError(
            f"{tag} must return all mutable arguments (got {len(mutable)} mutable args but "
            f"{len(schema.returns)} returns). Got: {schema}"
        )
    for index, (ret, argument) in enumerate(zip(schema.returns, mutable)):
        alias = ret.alias_info
        if alias is None:
            raise ValueError(
                f"Return {index} of schema tagged with torch.Tag.out must alias mutable arg "
                f"'{argument.name}'. Got: {schema}"
            )
        if not alias.is_write:
            raise ValueError(
                f"Return {index} of schema tagged with torch.Tag.out must be a mutable alias "
                f"(e.g., Tensor(a!), not Tensor(a)) of arg '{argument.name}'. Got: {schema}"
            )
        if alias.before_set != argument.alias_info.before_set:
            raise ValueError(
                f"Return {index} of schema tagged with torch.Tag.out must alias mutable arg "
                f"'{argument.name}' (return aliases {alias.before_set} but arg aliases "
                f"{argument.alias_info.before_set}). Got: {schema}"
            )


def validate_inplace_schema(schema) -> None:
    """``torch.Tag.inplace``: the first positional Tensor is mutated, and only it, and returned."""
    tag = "Schema tagged with torch.Tag.inplace"
    arguments = schema.arguments
    if not arguments or arguments[0].kwarg_only:
        raise ValueError(f"{tag} must have at least one positional argument. Got: {schema}")
    first = arguments[0]
    if not _mutable(first):
        raise ValueError(
            f"{tag} requires the first positional argument to be mutable (e.g., Tensor(a!)). "
            f"Got: {schema}"
        )
    if not _is_tensor(first.type):
        raise ValueError(
            f"{tag} requires the first positional argument to be a Tensor. Got type "
            f"'{first.type}' for arg '{first.name}'. Got: {schema}"
        )
    if len(schema.returns) != 1:
        raise ValueError(
            f"{tag} must return exactly one value (the first argument). Got "
            f"{len(schema.returns)} returns. Got: {schema}"
        )
    ret = schema.returns[0]
    returned = f"{tag} must return the first mutable argument"
    if not _is_tensor(ret.type):
        raise ValueError(
            f"{returned} (return must be a Tensor, got type '{ret.type}'). Got: {schema}"
        )
    if ret.alias_info is None:
        raise ValueError(f"{returned} (return must alias the first argument). Got: {schema}")
    if not ret.alias_info.is_write:
        raise ValueError(
            f"{returned} (return must be a mutable alias, e.g., Tensor(a!)). Got: {schema}"
        )
    if ret.alias_info.before_set != first.alias_info.before_set:
        raise ValueError(
            f"{returned} (return aliases {ret.alias_info.before_set} but first arg aliases "
            f"{first.alias_info.before_set}). Got: {schema}"
        )
    others = [argument.name for argument in arguments[1:] if _mutable(argument)]
    if others:
        raise ValueError(
            f"{tag} must only mutate the first positional argument. Found additional mutable "
            f"args: {others}. Got: {schema}"
        )
