"""LoggingMode: print every operator call below autograd, one line each.

Layer: top (an example of the extension API; imports ember, _python_dispatch).
Mirrors torch/testing/_internal/logging_tensor.py (LoggingTensorMode with
capture_logs(is_mode=True)). In: operator calls while the mode is active.
Out: lines such as ``$2: f32[2, 3] = aten.mm.default($0, $1)``: each tensor
gets a short id the first time it is seen; results show dtype and shape.

    with LoggingMode() as log:
        c = a @ b
    print("\\n".join(log.lines))        # or LoggingMode(print_lines=True)
"""

from __future__ import annotations

import weakref

from ember._tensor import Tensor
from ember.utils._python_dispatch import TorchDispatchMode

__all__ = ["LoggingMode", "dtype_abbrs"]

dtype_abbrs = {
    "float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16",
    "int64": "i64", "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8",
    "bool": "b8", "complex64": "c64", "complex128": "c128", "complex32": "c32",
}  # fmt: skip


def _abbr(dtype) -> str:
    name = str(dtype).rsplit(".", 1)[-1]
    return dtype_abbrs.get(name, name)


class LoggingMode(TorchDispatchMode):
    """Records (and optionally prints) ``$id: dtype[shape] = op(args)`` for every call."""

    def __init__(self, print_lines: bool = False) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.print_lines = print_lines
        self._ids: dict[int, tuple[weakref.ref, int]] = {}  # id(tensor) -> (ref, short id)
        self._next_id = 0

    def _id(self, tensor: Tensor) -> int:
        """The tensor's short id (tensors compare elementwise, so key by identity)."""
        found = self._ids.get(id(tensor))
        if found is not None and found[0]() is tensor:
            return found[1]
        self._ids[id(tensor)] = (weakref.ref(tensor), self._next_id)
        self._next_id += 1
        return self._next_id - 1

    def _fmt(self, value, with_type: bool = False) -> str:
        if isinstance(value, Tensor):
            text = f"${self._id(value)}"
            if with_type:
                text += f": {_abbr(value.dtype)}[{', '.join(map(str, value.shape))}]"
            return text
        if isinstance(value, (list, tuple)):
            items = [self._fmt(item, with_type) for item in value]
            if isinstance(value, list) or not with_type:
                return str(items) if with_type else _sequence(value, items)
            return str(tuple(items))
        return repr(value)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        arguments = [self._fmt(a) for a in args]
        arguments += [f"{key}={self._fmt(value)}" for key, value in kwargs.items()]
        line = f"{self._fmt(out, with_type=True)} = {func}({', '.join(arguments)})"
        self.lines.append(line)
        if self.print_lines:
            print(line)
        return out


def _sequence(value, items: list) -> str:
    joined = ", ".join(items)
    if isinstance(value, list):
        return f"[{joined}]"
    return f"({joined},)" if len(items) == 1 else f"({joined})"
