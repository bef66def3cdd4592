"""The "received an invalid combination of arguments" message.

Layer: aten. In: the call's arguments and the printed signatures (strings such as
``(Tensor input, *, ember.dtype dtype = None)``); out: PyTorch's message, text for
text. Mirrors torch/csrc/utils/invalid_arguments.cpp, which re-parses the printed
signatures: a parameter ``Tensor out = None`` is read as type ``Tensor out =`` named
``None``, and the ``*`` counts as an argument. Those quirks decide when PyTorch adds
the "didn't match because ..." lines, so they are kept on purpose.
"""

from __future__ import annotations

import os

from ember.aten.python_arg_convert import SEQUENCES, tp_name

_MULTI_TYPES = {"float": ("float", "int", "long"), "int": ("int", "long")}


class _Option:
    __slots__ = ("names", "types")

    def __init__(self, option_str: str):
        # _parseOption: split "(a, b)" on ", "; the last space divides type and name.
        self.names, self.types = [], []
        for arg in option_str[1:-1].split(", "):
            type_end = arg.rfind(" ")
            self.names.append(arg[type_end + 1 :])
            type_name = arg if type_end < 0 else arg[:type_end]
            self.types.append(_MULTI_TYPES.get(type_name, (type_name,)))

    def matches(self, position: int, obj) -> bool:
        return tp_name(obj) in self.types[position]


def _kwargs_in_map_order(kwargs: dict) -> list[tuple[str, object]]:
    # PyTorch copies the kwargs into a std::unordered_map, whose iteration order
    # (libstdc++, few keys) is the reverse of insertion.
    return list(reversed(kwargs.items()))


def _arg_count_match(option: _Option, args: tuple, kwargs: list) -> bool:
    return len(option.names) == len(args) + len(kwargs)


def _describe(obj, detailed: bool) -> str:
    name = tp_name(obj)
    if not detailed or not isinstance(obj, SEQUENCES):
        return name
    inner = ", ".join(tp_name(item) for item in obj)
    if isinstance(obj, tuple):
        return f"{name} of ({inner}{',' if len(obj) == 1 else ''})"
    return f"{name} of [{inner}]"


def _formatted_arg_desc(option: _Option, args: tuple, kwargs: list) -> str:
    """_formattedArgDesc: each argument, marked ``!type!`` where it does not match."""
    if os.isatty(1) and os.isatty(2):
        red, reset_red, green, reset_green = "\33[31;1m", "\33[0m", "\33[32;1m", "\33[0m"
    else:
        red, reset_red, green, reset_green = "!", "!", "", ""
    by_name = dict(kwargs)
    parts = []
    for position in range(len(args) + len(kwargs)):
        is_kwarg = position >= len(args)
        if is_kwarg:
            name = option.names[position]
            obj = by_name.get(name, kwargs[position - len(args)][1])
        else:
            obj = args[position]
        matching = position < len(option.names) and option.matches(position, obj)
        text = (name + "=" if is_kwarg else "") + _describe(obj, detailed=True)
        parts.append(green + text + reset_green if matching else red + text + reset_red)
    return _join(parts, args)


def _join(parts: list[str], args: tuple) -> str:
    # PyTorch trims the trailing ", " only when there were positional arguments.
    text = "".join(part + ", " for part in parts)
    return "(" + (text[:-2] if args else text) + ")"


def _arg_desc(args: tuple, kwargs: list) -> str:
    parts = [tp_name(arg) for arg in args]
    parts += [f"{name}={tp_name(value)}" for name, value in kwargs]
    return _join(parts, args)


def _try_match_kwargs(option: _Option, kwargs: list) -> list[str]:
    start = max(len(option.names) - len(kwargs), 0)
    candidates = option.names[start:]
    return [name for name, _ in kwargs if name not in candidates]


def format_invalid_args(
    args: tuple, kwargs: dict | None, function_name: str, options: list[str]
) -> str:
    """format_invalid_args: the message for a call that matched none of ``options``."""
    pairs = _kwargs_in_map_order(kwargs) if kwargs else []
    message = f"{function_name} received an invalid combination of arguments - "
    if len(options) == 1:
        option = _Option(options[0])
        unmatched = _try_match_kwargs(option, pairs) if pairs else []
        if unmatched:
            return message + "got unrecognized keyword arguments: " + ", ".join(unmatched)
        if _arg_count_match(option, args, pairs):
            got = _formatted_arg_desc(option, args, pairs)
        else:
            got = _arg_desc(args, pairs)
        return message + f"got {got}, but expected {options[0]}"
    lines = [message + f"got {_arg_desc(args, pairs)}, but expected one of:\n"]
    for option_str in options:
        option = _Option(option_str)
        lines.append(f" * {option_str}\n")
        if _arg_count_match(option, args, pairs):
            unmatched = _try_match_kwargs(option, pairs) if pairs else []
            if unmatched:
                reason = "some of the keywords were incorrect: " + ", ".join(unmatched)
            else:
                reason = "some of the arguments have invalid types: "
                reason += _formatted_arg_desc(option, args, pairs)
            lines.append(f"      didn't match because {reason}\n")
    return "".join(lines)
