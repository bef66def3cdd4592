"""torch.autocast: the context manager and decorator, and custom_fwd / custom_bwd.

Layer: amp. In: a device type and the options PyTorch takes. Out: the thread's autocast
state (ember.amp.state) set on entry and restored on exit, the cast cache cleared when
the outermost region ends. Mirrors torch/amp/autocast_mode.py: its checks, warnings and
messages. Only the CPU has kernels (autocast_kernels.py); CUDA is refused as PyTorch's
CPU build refuses it, with a warning, and autocast stays off.
"""

from __future__ import annotations

import functools
import warnings

from ember._c10 import dtypes
from ember._c10.device import _parse
from ember._tensor import Tensor

from . import state

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_available"]

_AVAILABLE = ("cpu", "cuda", "xpu", "ipu", "hpu", "xla", "mps", "mtia", "maia", "privateuseone")
_SUPPORTED = (dtypes.bfloat16, dtypes.float16)


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast knows the device type (its Autocast key exists); 'cpu:0' is cpu."""
    return _parse(device_type)[0] in _AVAILABLE


class autocast:  # noqa: N801 (PyTorch's name)
    """Run the region (or the decorated function) with autocast on for `device_type`."""

    def __init__(self, device_type: str, dtype=None, enabled: bool = True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = state.get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(self.device):
            raise RuntimeError(
                f"User specified an unsupported autocast device_type '{self.device}'"
            )
        if self.device == "privateuseone":
            raise AssertionError(
                "Tried to use AMP with the `privateuseone` backend, but the backend has not "
                "registered a module or  the module miss some necessary funcs. The backend "
                "should register a module by `torch._register_device_module`, and the module "
                "must have these funcs: \n`get_amp_supported_dtype() -> List[torch.dtype]`. \n"
            )
        self._cache_enabled = (
            state.is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        )
        name = self.device.upper()
        if enabled:
            if self.device == "cuda":
                warnings.warn(
                    "CUDA is not available or torch_xla is imported. Disabling autocast.",
                    stacklevel=2,
                )
                enabled = False
            elif self.fast_dtype not in _SUPPORTED:
                warnings.warn(
                    f"In {name} autocast, but the target dtype is not supported. Disabling "
                    f"autocast.\n{name} Autocast only supports dtypes of "
                    + ", ".join(map(str, _SUPPORTED))
                    + " currently.",
                    stacklevel=2,
                )
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = state.is_autocast_cache_enabled()
        self.prev = state.is_autocast_enabled(self.device)
        self.prev_fastdtype = state.get_autocast_dtype(self.device)
        state.set_autocast_enabled(self.device, self._enabled)
        state.set_autocast_dtype(self.device, self.fast_dtype)
        state.autocast_increment_nesting()
        state.set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if state.autocast_decrement_nesting() == 0:
            state.clear_autocast_cache()
        state.set_autocast_enabled(self.device, self.prev)
        state.set_autocast_dtype(self.device, self.prev_fastdtype)
        state.set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                "Did you mean to use autocast as a context manager? For example:\n"
                "    with torch.autocast(device_type=...):\n"
                "        output = model(input)"
            )

        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return decorate_autocast


def _cast(value, device_type: str, dtype):
    """custom_fwd's cast_inputs: floating tensors of the device type (not float64) to dtype,
    through lists, tuples and dicts."""
    if isinstance(value, Tensor):
        eligible = (
            value.is_floating_point()
            and value.device.type == device_type
            and value.dtype is not dtypes.float64
        )
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, dict):
        return {
            _cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device_type, dtype) for v in value)
    return value


def custom_fwd(fwd=None, *, device_type: str, cast_inputs=None):
    """Decorate an autograd.Function's forward: remember whether autocast was on; with
    `cast_inputs`, run forward with autocast off on inputs cast to that dtype."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = state.get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = state.is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        on = state.is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if not on:
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(
                *_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs)
            )

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type: str):
    """Decorate backward: run it with the autocast state forward ran with."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(
            device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype
        ):
            return bwd(*args, **kwargs)

    return decorate_bwd
