"""How the caller called a method: as `x.m(...)` or through a bound method object.

Layer: aten (imports nothing of ember). In: the caller's frame. Out: whether its current
call loaded the callable as a method. CPython compiles `x.abs(1)` to a method load
(LOAD_METHOD; LOAD_ATTR with its method bit from 3.12) and calls the method descriptor of
torch's C type with `x` first, so a METH_NOARGS refusal names the type that defines it
(`TensorBase.abs()`); `getattr(x, "abs")(1)`, `f = x.abs; f(1)` or `x.abs(*args)` call a
bound method object, named after the type of `x` (`Tensor.abs()`, meth_get__qualname__).
Only the error path asks (python_arg_parser.no_arguments): nothing on the common path.
"""

from __future__ import annotations

import dis

__all__ = ["called_as_method"]

_CALLS = frozenset({"CALL", "PRECALL"})


def _is_method_load(instruction) -> bool:
    if instruction.opname == "LOAD_METHOD":
        return True
    return (
        instruction.opname == "LOAD_ATTR"
        and bool((instruction.arg or 0) & 1)
        and ("NULL|self" in instruction.argrepr)
    )


def called_as_method(frame) -> bool:
    """Walk back from the call `frame` is making, over its arguments' stack effects, to the
    instruction that loaded the callable. Where that walk cannot be trusted (a jump among
    the arguments), the method form (the usual spelling) is assumed."""
    instructions = list(dis.get_instructions(frame.f_code))
    at = max(i for i, ins in enumerate(instructions) if ins.offset <= frame.f_lasti)
    if instructions[at].opname == "CALL_FUNCTION_EX":
        return False  # star-arguments: the compiler loads a bound method
    if instructions[at].opname == "CALL" and at and instructions[at - 1].opname == "PRECALL":
        at -= 1  # 3.11: PRECALL n; CALL n
    if instructions[at].opname not in _CALLS:
        return True
    needed = instructions[at].arg or 0
    position = at - 1
    while position >= 0 and needed > 0:
        instruction = instructions[position]
        if instruction.is_jump_target or "JUMP" in instruction.opname:
            return True
        arg = instruction.arg if instruction.opcode >= dis.HAVE_ARGUMENT else None
        needed -= dis.stack_effect(instruction.opcode, arg, jump=False)
        position -= 1
    if position < 0 or "JUMP" in instructions[position].opname:
        return True
    return _is_method_load(instructions[position])
