"""Tensor printing: ``tensor([1., 2.])`` exactly as PyTorch prints it.

Layer: torch face (imports _c10 only). Mirrors torch/_tensor_str.py: print
options, the per-tensor number formatter (integer mode, fixed point or
scientific, one width for all elements), summarisation with ``...`` above the
threshold, line wrapping at the line width, and the suffixes (device, size,
dtype, grad_fn / requires_grad). Works on a NumPy copy of the values, so it
needs no operator; dtypes print as ``ember.int32`` where PyTorch prints
``torch.int32``.
"""

from __future__ import annotations

import contextlib
import math

import numpy as np

from ._c10 import dtypes as _dtypes
from ._c10.tensor_impl import resolved_array


class _PrintOptions:
    __slots__ = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")

    def __init__(self) -> None:
        self.precision = 4
        self.threshold = 1000
        self.edgeitems = 3
        self.linewidth = 80
        self.sci_mode = None


PRINT_OPTS = _PrintOptions()

# The classes printed as ``tensor(`` besides Tensor: torch.nn.Parameter (nn/parameter.py
# adds itself, as torch/_tensor_str.py tests ``type(inp) is torch.nn.Parameter``).
PLAIN_CLASSES: set = set()

_PROFILES = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def set_printoptions(
    precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None
) -> None:
    """torch.set_printoptions: the same arguments and profiles."""
    if profile in _PROFILES:  # another name changes nothing, as in torch
        (
            PRINT_OPTS.precision,
            PRINT_OPTS.threshold,
            PRINT_OPTS.edgeitems,
            PRINT_OPTS.linewidth,
        ) = _PROFILES[profile]
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict:
    return {name: getattr(PRINT_OPTS, name) for name in _PrintOptions.__slots__}


@contextlib.contextmanager
def printoptions(**kwargs):
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


class _Formatter:
    """One number format for every element of a (real) array: see torch's _Formatter."""

    def __init__(self, values: np.ndarray) -> None:
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not self.floating:
            for value in flat.tolist():
                self.max_width = max(self.max_width, len(f"{value}"))
        else:
            self._scan_floats(flat)

    def _scan_floats(self, flat: np.ndarray) -> None:
        finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            return  # no finite non-zero value: the defaults stand (sci_mode option too)
        magnitudes = np.abs(finite.astype(np.float64))
        smallest = float(magnitudes.min())
        largest = float(magnitudes.max())
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
        else:
            self.sci_mode = PRINT_OPTS.sci_mode
        precision = PRINT_OPTS.precision
        values = finite.tolist()
        if self.sci_mode:
            widths = (len(f"{value:.{precision}e}") for value in values)
        elif self.int_mode:  # a "." follows each integer
            widths = (len(f"{value:.0f}") + 1 for value in values)
        else:
            widths = (len(f"{value:.{precision}f}") for value in values)
        self.max_width = max(self.max_width, max(widths))

    def width(self) -> int:
        return self.max_width

    def format(self, value) -> str:
        if self.floating:
            precision = PRINT_OPTS.precision
            if self.sci_mode:
                text = f"{value:{self.max_width}.{precision}e}"
            elif self.int_mode:
                text = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    text += "."
            else:
                text = f"{value:.{precision}f}"
        else:
            text = f"{value}"
        return (self.max_width - len(text)) * " " + text


def _summarized(values: np.ndarray) -> np.ndarray:
    """The edge items of every dimension (torch's get_summarized_data)."""
    edge = PRINT_OPTS.edgeitems
    if values.ndim == 0:
        return values
    if values.ndim == 1:
        if values.shape[0] > 2 * edge:
            return np.concatenate((values[:edge], values[-edge:]))  # [-0:] is all, as in torch
        return values
    if not edge:
        return np.empty((0,) * values.ndim, values.dtype)
    if values.shape[0] > 2 * edge:
        rows = [values[i] for i in range(edge)]
        rows += [values[i] for i in range(len(values) - edge, len(values))]
    else:
        rows = list(values)
    return np.stack([_summarized(row) for row in rows])


def _complex_text(real: str, imag: str) -> str:
    imag = (imag + "j").lstrip()
    if imag[0] in "+-":
        return real + imag
    return real + "+" + imag


def _vector_str(values, indent, summarize, real_fmt, imag_fmt) -> str:
    element_length = real_fmt.width() + 2
    if imag_fmt is not None:
        element_length += imag_fmt.width() + 1
    per_line = max(1, int(math.floor((PRINT_OPTS.linewidth - indent) / element_length)))

    def text(value):
        if imag_fmt is not None:
            return _complex_text(real_fmt.format(value.real), imag_fmt.format(value.imag))
        return real_fmt.format(value)

    edge = PRINT_OPTS.edgeitems
    if summarize and not edge:
        data = ["..."]
    elif summarize and values.shape[0] > 2 * edge:
        data = [text(v) for v in values[:edge].tolist()] + [" ..."]
        data += [text(v) for v in values[-edge:].tolist()]
    else:
        data = [text(v) for v in values.tolist()]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(values, indent, summarize, real_fmt, imag_fmt) -> str:
    ndim = values.ndim
    if ndim == 0:
        value = values.item()
        if imag_fmt is not None:
            return _complex_text(real_fmt.format(value.real), imag_fmt.format(value.imag))
        return real_fmt.format(value)
    if ndim == 1:
        return _vector_str(values, indent, summarize, real_fmt, imag_fmt)
    edge = PRINT_OPTS.edgeitems
    count = values.shape[0]
    if summarize and count > 2 * edge:
        rows = list(range(edge)) + [None] + list(range(count - edge, count))
    else:
        rows = range(count)
    slices = [
        "..." if i is None else _nested_str(values[i], indent + 1, summarize, real_fmt, imag_fmt)
        for i in rows
    ]
    return "[" + ("," + "\n" * (ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def _printable_values(tensor) -> np.ndarray:
    """The tensor's values as NumPy, half types widened to float32 (as torch does)."""
    values = resolved_array(tensor)  # a lazy conjugate / negative bit resolved
    if tensor.dtype is _dtypes.float16 or tensor.dtype is _dtypes.bfloat16:
        values = values.astype(np.float32)
    return values


def _tensor_str(tensor, indent: int) -> str:
    if tensor.numel() == 0:
        return "[]"
    values = _printable_values(tensor)
    summarize = values.size > PRINT_OPTS.threshold
    sample = _summarized(values) if summarize else values
    if values.dtype.kind == "c":
        real_fmt = _Formatter(np.ascontiguousarray(sample.real))
        imag_fmt = _Formatter(np.ascontiguousarray(sample.imag))
        return _nested_str(values, indent, summarize, real_fmt, imag_fmt)
    return _nested_str(values, indent, summarize, _Formatter(sample), None)


def _add_suffixes(text: str, suffixes: list, indent: int) -> str:
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def _has_data(tensor) -> bool:
    storage = tensor._storage
    return storage is None or storage.data is not None


# A functional tensor's parts, (functorch level, value), or None for any other tensor: set
# by ember._functionalization, which sits above this layer (torch._is_functional_tensor's
# branches of _str_intern: FunctionalTensor(lvl=...) inside functionalize(), else
# _to_functional_tensor(...)).
functional_parts = None


def _str(tensor, *, tensor_contents=None) -> str:
    """repr(tensor). See the module docstring."""
    from ._tensor import Tensor

    parts = functional_parts(tensor) if functional_parts is not None else None
    if parts is not None:
        return _functional_str(tensor, *parts)
    cls = type(tensor)
    prefix = "tensor(" if cls is Tensor or cls in PLAIN_CLASSES else f"{cls.__name__}("
    indent = len(prefix)
    suffixes = []
    if tensor.device.type != "cpu":
        suffixes.append(f"device='{tensor.device}'")
    default = _dtypes.get_default_dtype()
    default_complex = _dtypes.complex128 if default is _dtypes.float64 else _dtypes.complex64
    dtype = tensor.dtype
    has_default_dtype = dtype in (default, default_complex, _dtypes.int64, _dtypes.bool)
    shape = str(tuple(tensor._sizes))
    if tensor.device.type == "meta" or (tensor_contents is None and not _has_data(tensor)):
        # A storage-less wrapper subclass (a FakeTensor among them) whose class gives no
        # contents prints like a meta tensor; given contents, it prints like any tensor.
        suffixes.append("size=" + shape)
        if dtype is not default:
            suffixes.append(f"dtype={dtype}")
        text = "..."
    elif tensor.numel() == 0:
        if len(tensor._sizes) != 1:
            suffixes.append("size=" + shape)
        if dtype is not default:
            suffixes.append(f"dtype={dtype}")
        text = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append("size=" + shape)
        if not has_default_dtype:
            suffixes.append(f"dtype={dtype}")
        text = None if tensor_contents is not None else _tensor_str(tensor, indent)
    if tensor_contents is not None:
        text = tensor_contents
    grad_fn = tensor._grad_fn
    if grad_fn is not None:
        name = type(grad_fn).__name__
        if name == "CppFunction":  # a node without a Python class of its own
            name = grad_fn.name().rsplit("::", 1)[-1]
        suffixes.append(f"grad_fn=<{name}>")
    elif tensor._requires_grad:
        suffixes.append("requires_grad=True")
    forward_grads = tensor._fw_grad  # a dual tensor: its tangent (Note [Forward grads])
    if forward_grads is not None and forward_grads.values:
        suffixes.append(f"tangent={next(iter(forward_grads.values.values()))}")
    return _add_suffixes(prefix + text, suffixes, indent)


def _functional_str(tensor, level: int, value) -> str:
    if level != -1:  # a literal backslash before the newline, as PyTorch prints it
        return f"FunctionalTensor(lvl={level}, value=\\\n{value!r})"
    prefix = "_to_functional_tensor("
    suffixes = [f"device='{tensor.device}'"] if tensor.device.type != "cpu" else []
    if tensor._grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(tensor._grad_fn).__name__}>")
    elif tensor._requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + repr(value), suffixes, len(prefix))
