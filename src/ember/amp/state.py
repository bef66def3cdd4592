"""Autocast's thread-local state: which device types autocast, to which dtype, the cast cache.

Layer: amp. In: calls of torch.autocast and of the `torch.*autocast*` functions. Out: the
thread's exclude set (autocast for a device type is on exactly when its Autocast key is
not excluded, as PyTorch keeps it), and per thread the autocast dtype of each device
type, whether casts are cached, the nesting depth and the cache itself. Mirrors
aten/src/ATen/autocast_mode.cpp (its thread_local state) and the bindings of
torch/csrc/autograd/init.cpp.
"""

from __future__ import annotations

import threading
import weakref

from ember._c10 import dtypes
from ember._c10.device import _parse
from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import key_bits
from ember._c10.thread_state import per_thread
from ember._c10.warning import torch_warn

__all__ = [
    "cpu_autocast_dtype",
    "autocast_key_bits",
    "is_autocast_enabled",
    "set_autocast_enabled",
    "get_autocast_dtype",
    "set_autocast_dtype",
    "is_autocast_cache_enabled",
    "set_autocast_cache_enabled",
    "clear_autocast_cache",
    "autocast_increment_nesting",
    "autocast_decrement_nesting",
    "cached_cast_of",
    "cache_cast",
]

_KEYS = {
    "cpu": DispatchKey.AutocastCPU, "cuda": DispatchKey.AutocastCUDA,
    "xpu": DispatchKey.AutocastXPU, "ipu": DispatchKey.AutocastIPU,
    "hpu": DispatchKey.AutocastHPU, "xla": DispatchKey.AutocastXLA,
    "mps": DispatchKey.AutocastMPS, "mtia": DispatchKey.AutocastMTIA,
    "maia": DispatchKey.AutocastMAIA, "privateuseone": DispatchKey.AutocastPrivateUse1,
}  # fmt: skip
_DEFAULT_DTYPES = {
    "cpu": dtypes.bfloat16, "cuda": dtypes.float16, "xpu": dtypes.float16,
    "ipu": dtypes.float16, "hpu": dtypes.bfloat16, "xla": dtypes.bfloat16,
    "mps": dtypes.float16, "mtia": dtypes.float16, "maia": dtypes.bfloat16,
    "privateuseone": dtypes.float16,
}  # fmt: skip


class _State(threading.local):
    def __init__(self) -> None:
        self.dtypes = dict(_DEFAULT_DTYPES)
        self.cache_enabled = True
        self.nesting = 0
        # Note [Autocast's cast cache]
        # ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
        # A cast of a float32 leaf that requires grad is kept while the outermost autocast
        # region lasts, keyed by the leaf's identity with a weak reference to it (the cache
        # never keeps a parameter alive, and an id reused by another tensor misses), as
        # PyTorch's cached_casts map keys TensorImpl*.
        self.cache: dict[int, tuple[weakref.ref, object]] = {}


_state = _State()


def cached_cast_of(t):
    """The cast of `t` this region cached, or None."""
    found = _state.cache.get(id(t))
    if found is not None and found[0]() is t:
        return found[1]
    return None


def cache_cast(t, cast) -> None:
    _state.cache[id(t)] = (weakref.ref(t), cast)


def _device_type(device_type, function: str) -> str:
    """The device type a string names (`'cpu:0'` is cpu); errors as c10::Device's."""
    if not isinstance(device_type, str):
        raise TypeError(
            f"{function}(): argument 'device_type' (position 1) must be str, not "
            f"{type(device_type).__name__}"
        )
    return _parse(device_type)[0]


def autocast_key_bits(device_type: str, function: str = "is_autocast_enabled") -> int:
    """get_autocast_dispatch_key_from_device_type, as bits."""
    key = _KEYS.get(_device_type(device_type, function))
    if key is None:
        raise RuntimeError(
            "unknown device type for autocast in get_autocast_dispatch_key_from_device_type"
        )
    return key_bits(key)


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether autocast is on for a device type (CUDA when none is named)."""
    bits = autocast_key_bits("cuda" if device_type is None else device_type)
    return not per_thread.state.excluded & bits


def set_autocast_enabled(device_type: str, enabled: bool) -> None:
    bits = autocast_key_bits(device_type, "set_autocast_enabled")
    if not isinstance(enabled, bool):
        raise TypeError(
            "set_autocast_enabled(): argument 'enabled' (position 2) must be bool, not "
            f"{type(enabled).__name__}"
        )
    ts = per_thread.state
    ts.excluded = ts.excluded & ~bits if enabled else ts.excluded | bits


def get_autocast_dtype(device_type: str):
    """The device type's autocast dtype: a default for those with an Autocast key, or what
    set_autocast_dtype stored (for any device type)."""
    found = _state.dtypes.get(_device_type(device_type, "get_autocast_dtype"))
    if found is None:
        raise RuntimeError("unsupported scalarType")
    return found


def cpu_autocast_dtype():
    """get_autocast_dtype("cpu") without the argument check: the AutocastCPU kernels'."""
    return _state.dtypes["cpu"]


def set_autocast_dtype(device_type: str, dtype) -> None:
    name = _device_type(device_type, "set_autocast_dtype")
    if not isinstance(dtype, dtypes.dtype):
        raise TypeError(
            "set_autocast_dtype(): argument 'dtype' (position 2) must be torch.dtype, not "
            f"{type(dtype).__name__}"
        )
    _state.dtypes[name] = dtype


def is_autocast_cache_enabled() -> bool:
    return _state.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool (got {type(enabled).__name__})")
    _state.cache_enabled = enabled


def clear_autocast_cache() -> None:
    _state.cache.clear()


def autocast_increment_nesting() -> int:
    _state.nesting += 1
    return _state.nesting


def autocast_decrement_nesting() -> int:
    _state.nesting -= 1
    return _state.nesting


# -- the deprecated per-device spellings (torch/csrc/autograd/init.cpp) ------------------------


def _deprecated(old: str, new: str, line: int) -> None:
    torch_warn(
        f"torch.{old if old.endswith(')') else old + '()'} is deprecated. Please use torch.{new} "
        "instead.",
        f"torch/csrc/autograd/init.cpp:{line}",
        DeprecationWarning,
    )


def is_autocast_cpu_enabled() -> bool:
    _deprecated("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')", 883)
    return is_autocast_enabled("cpu")


def get_autocast_cpu_dtype():
    _deprecated("get_autocast_cpu_dtype", "get_autocast_dtype('cpu')", 1016)
    return get_autocast_dtype("cpu")


def set_autocast_cpu_enabled(enabled: bool) -> None:
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)", 874)
    set_autocast_enabled("cpu", enabled)


def set_autocast_cpu_dtype(dtype) -> None:
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)", 967)
    set_autocast_dtype("cpu", dtype)
