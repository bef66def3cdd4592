"""How the caller called a method: through its descriptor or through a bound method object.

Layer: aten (imports nothing of ember). In: the caller's frame and the method's `self`.
Out: whether CPython would have called torch's method descriptor. `x.abs(1)` compiles to a
method load (LOAD_METHOD; LOAD_ATTR with its method bit from 3.12) and calls the method
descriptor of torch's C type with `x` first, as `Tensor.abs(x, 1)` and `f(x, 1)` for
`f = Tensor.abs` do; a METH_NOARGS refusal then names the type that defines the method
(`TensorBase.abs()`). `getattr(x, "abs")(1)`, `g(1)` for `g = x.abs` and `x.abs(*args)`
call a bound method object, named after the type of `x` (`Tensor.abs()`,
meth_get__qualname__). Only the error path asks (python_arg_parser.no_arguments).
"""

from __future__ import annotations

import dis
import types

__all__ = ["through_descriptor"]

_VARIABLE_LOADS = frozenset(
    {"LOAD_FAST", "LOAD_DEREF", "LOAD_CLOSURE", "LOAD_GLOBAL", "LOAD_NAME", "LOAD_CLASSDEREF"}
)


def _is_method_load(instruction) -> bool:
    if instruction.opname == "LOAD_METHOD":
        return True
    return instruction.opname == "LOAD_ATTR" and "NULL|self" in instruction.argrepr


def _variable(frame, instruction):
    """The value a LOAD_FAST / LOAD_DEREF / LOAD_GLOBAL ... instruction read."""
    name = instruction.argval
    if name in frame.f_locals:
        return frame.f_locals[name]
    if name in frame.f_globals:
        return frame.f_globals[name]
    return frame.f_builtins.get(name)


def _callable_producer(instructions, at: int):
    """The instruction that pushed the callable of the call at `at` (walking back over its
    arguments' stack effects), or None where that walk cannot be trusted (a jump)."""
    call = instructions[at]
    if call.opname == "CALL_FUNCTION_EX":
        needed = 2 if (call.arg or 0) & 1 else 1  # the arguments tuple, the keywords dict
    else:
        if call.opname == "CALL" and at and instructions[at - 1].opname == "PRECALL":
            at -= 1  # 3.11: PRECALL n; CALL n
        if instructions[at].opname not in ("CALL", "PRECALL"):
            return None
        needed = instructions[at].arg or 0
    position = at - 1
    while position >= 0 and needed > 0:
        instruction = instructions[position]
        if instruction.is_jump_target or "JUMP" in instruction.opname:
            return None
        arg = instruction.arg if instruction.opcode >= dis.HAVE_ARGUMENT else None
        needed -= dis.stack_effect(instruction.opcode, arg, jump=False)
        position -= 1
    if position < 0 or "JUMP" in instructions[position].opname:
        return None
    return position


def through_descriptor(frame, self) -> bool:
    """Whether the call `frame` is making reached the method through its descriptor; where
    the bytecode leaves it open, the method form (the usual spelling) is assumed."""
    instructions = list(dis.get_instructions(frame.f_code))
    at = max(i for i, ins in enumerate(instructions) if ins.offset <= frame.f_lasti)
    position = _callable_producer(instructions, at)
    if position is None:
        return True
    producer = instructions[position]
    if _is_method_load(producer):
        return True
    if producer.opname in _VARIABLE_LOADS:  # `f(x, 1)`, `g(1)`: what the variable holds
        return not isinstance(_variable(frame, producer), types.MethodType)
    if producer.opname == "LOAD_ATTR" and position:  # `Tensor.abs(x, 1)`, `x.abs(*args)`
        owner = instructions[position - 1]
        if owner.opname in _VARIABLE_LOADS:
            return isinstance(_variable(frame, owner), type)
    return False  # the result of a call (`getattr(x, "abs")`) or of an expression: bound
