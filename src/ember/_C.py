"""The private dispatcher diagnostics PyTorch exposes under ``torch._C``.

Layer: _C (above utils and autograd; imports _c10, _dispatch, autograd.fallback and
utils._python_dispatch). Mirrors torch/csrc/utils/python_dispatch.cpp and the DispatchKey
bindings of torch/csrc/Module.cpp (facts §10.5).
In: operator names, keys (a DispatchKey or its name) and objects carrying
``_key_bits``. Out: the same values, texts and errors PyTorch's functions give.
"""

from __future__ import annotations

import functools
import threading

from . import _tensor
from . import _torch_function as _tf
from ._c10 import tls as _tls
from ._c10.dispatch_key import (
    DispatchKey,
    key_name,
    parse_dispatch_key,
    parse_dispatch_key_or_none,
)
from ._c10.dispatch_key_set import (
    DispatchKeySet,
    after_ADInplaceOrView_keyset,
    after_autograd_keyset,
    autogradother_backends,
    get_backend_key_set_from_autograd,
    is_included_in_alias,
    raw_table_index,
)
from ._C_dispatcher import (  # noqa: F401 (torch._C's names)
    _dispatch_call_boxed,
    _dispatch_check_all_invariants,
    _dispatch_find_dangling_impls,
    _dispatch_get_registrations_for_dispatch_key,
    _dispatch_print_registrations_for_dispatch_key,
)
from ._dispatch.dispatcher import OperatorHandle, dispatcher
from ._dispatch.schema_parser import parse_name
from ._functorch import c_functorch as _functorch  # noqa: F401 (torch._C._functorch)
from ._tensor import Tensor
from .aten._generated import python_nn_functions as _nn  # noqa: F401 (torch._C._nn)
from .aten.tensor_subclass_like import is_tensor_subclass_like
from .autograd import fallback as _autograd_fallback
from .utils import _mode_utils, _python_dispatch, _python_fallback

try:
    from ._dispatch.schema import parse_schema as _parse_schema
except ImportError:  # the schema module's public name is still settling
    from ._dispatch.schema_parser import parse_schema as _parse_schema

__all__ = [
    "DispatchKey",
    "DispatchKeySet",
    "parse_schema",
    "_after_autograd_keyset",
    "_after_ADInplaceOrView_keyset",
    "_dispatch_autogradother_backends",
]

_after_autograd_keyset = after_autograd_keyset

# -- __torch_function__ (torch/csrc/utils/disable_torch_function.cpp) -------------------
DisableTorchFunction = _tf.DisableTorchFunction
DisableTorchFunctionSubclass = _tf.DisableTorchFunctionSubclass
_disabled_torch_function_impl = _tf._disabled_torch_function_impl
_is_torch_function_enabled = _tf.is_enabled
_is_torch_function_all_disabled = _tf.is_all_disabled
_is_torch_function_mode_enabled = _tf.mode_enabled
_push_on_torch_function_stack = _tf.push_mode
_pop_torch_function_stack = _tf.pop_mode
_len_torch_function_stack = _tf.stack_len
_get_function_stack_at = _tf.stack_at
_get_torch_function_state = _tf.get_state
_TorchFunctionState = _tf.TorchFunctionState
_has_torch_function = _tf.has_torch_function


def _has_torch_function_unary(obj) -> bool:
    return _tf.has_torch_function((obj,))


def _has_torch_function_variadic(*args) -> bool:
    return _tf.has_torch_function(args)


_set_torch_function_state = _tf.set_state
_after_ADInplaceOrView_keyset = after_ADInplaceOrView_keyset  # noqa: N816 (PyTorch's name)
_dispatch_autogradother_backends = autogradother_backends
_get_autograd_fallback_mode = _autograd_fallback.get_autograd_fallback_mode
_set_autograd_fallback_mode = _autograd_fallback.set_autograd_fallback_mode


def parse_schema(schema: str):
    """torch._C.parse_schema: RuntimeError with PyTorch's message on malformed text."""
    return _parse_schema(schema)


# -- key names ----------------------------------------------------------------


def _parse_dispatch_key(name: str) -> DispatchKey | None:
    return parse_dispatch_key_or_none(name)


def _as_key(key: DispatchKey | str) -> DispatchKey:
    return parse_dispatch_key(key) if isinstance(key, str) else DispatchKey(key)


def _dispatch_key_name(key: DispatchKey) -> str:
    return key_name(key)


_DEVICE_KEYS = {
    "cpu": "CPU", "cuda": "CUDA", "hip": "HIP", "xla": "XLA", "mps": "MPS", "ipu": "IPU",
    "xpu": "XPU", "hpu": "HPU", "ve": "VE", "lazy": "Lazy", "mtia": "MTIA", "maia": "MAIA",
    "privateuseone": "PrivateUse1", "meta": "Meta", "fpga": "FPGA", "vulkan": "Vulkan",
}  # fmt: skip
_CAFFE2_DEVICES = ("mkldnn", "opengl", "opencl", "ideep")
_DEVICE_LIST = (
    "cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, "
    "vulkan, mps, meta, hpu, mtia, privateuseone"
)


def _dispatch_key_for_device(device_type: str) -> str:
    """The dispatch key name for a device type string (``cpu`` -> ``CPU``)."""
    if ":" in device_type:
        raise RuntimeError(
            f"Expected device_type string to not have a device index; got {device_type}"
        )
    if device_type in _CAFFE2_DEVICES:
        raise RuntimeError(
            '0 INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/c10/core/TensorOptions.h":663, '
            "please report a bug to PyTorch. This is a grandfathered Caffe2 device type "
            f"{device_type}, it shouldn't ever convert to a DispatchKey.  File a bug describing "
            "what you were doing if you think this is in error."
        )
    try:
        return _DEVICE_KEYS[device_type]
    except KeyError:
        raise RuntimeError(
            f"Expected one of {_DEVICE_LIST} device type at start of device string: {device_type}"
        ) from None


# -- key sets -------------------------------------------------------------------


def _dispatch_keys(tensor) -> DispatchKeySet:
    """The tensor's own key set (no TLS)."""
    return DispatchKeySet.from_raw(tensor._key_bits)


def _dispatch_key_set(tensor) -> DispatchKeySet:
    """Same as ``_dispatch_keys`` in 2.13: the tensor's key set, TLS not applied."""
    return DispatchKeySet.from_raw(tensor._key_bits)


def _dispatch_keyset_full() -> DispatchKeySet:
    return DispatchKeySet.full()


def _dispatch_keyset_full_after(key: DispatchKey) -> DispatchKeySet:
    return DispatchKeySet.full_after(key)


def _dispatch_is_included_in_alias(key: DispatchKey | str, alias: DispatchKey | str) -> bool:
    return is_included_in_alias(_as_key(key), _as_key(alias))


def _dispatch_get_backend_keyset_from_autograd(key: DispatchKey) -> DispatchKeySet:
    return get_backend_key_set_from_autograd(key)


# -- thread-local state ---------------------------------------------------------
_dispatch_tls_local_include_set = _tls.tls_local_include_set
_dispatch_tls_local_exclude_set = _tls.tls_local_exclude_set


def _dispatch_tls_is_dispatch_key_included(key: DispatchKey | str) -> bool:
    return _tls.tls_is_dispatch_key_included(_as_key(key))


def _dispatch_tls_is_dispatch_key_excluded(key: DispatchKey | str) -> bool:
    return _tls.tls_is_dispatch_key_excluded(_as_key(key))


def _dispatch_tls_set_dispatch_key_included(key: DispatchKey | str, desired: bool) -> None:
    _tls.tls_set_dispatch_key_included(_as_key(key), desired)


def _dispatch_tls_set_dispatch_key_excluded(key: DispatchKey | str, desired: bool) -> None:
    _tls.tls_set_dispatch_key_excluded(_as_key(key), desired)


_AutoDispatchBelowAutograd = _tls.AutoDispatchBelowAutograd
_AutoDispatchBelowADInplaceOrView = _tls.AutoDispatchBelowADInplaceOrView


def _guard_refusal(name: str, argument: str, value) -> TypeError:
    return TypeError(
        "__init__(): incompatible constructor arguments. The following argument types are "
        f"supported:\n    1. torch._C.{name}(arg0: torch._C.{argument})\n\n"
        f"Invoked with: {value!r}"
    )


class _ExcludeDispatchKeyGuard(_tls.ExcludeDispatchKeyGuard):
    """torch._C._ExcludeDispatchKeyGuard(DispatchKeySet): a context manager (``as`` gives None)."""

    __slots__ = ()

    def __init__(self, keyset: DispatchKeySet) -> None:
        if not isinstance(keyset, DispatchKeySet):
            raise _guard_refusal("_ExcludeDispatchKeyGuard", "DispatchKeySet", keyset)
        super().__init__(keyset)

    def __enter__(self) -> None:
        super().__enter__()


class _ForceDispatchKeyGuard(_tls.ForceDispatchKeyGuard):
    """torch._C._ForceDispatchKeyGuard(include set, exclude set): the TLS sets, exactly."""

    __slots__ = ()

    def __init__(self, included: DispatchKeySet, excluded: DispatchKeySet) -> None:
        if not (isinstance(included, DispatchKeySet) and isinstance(excluded, DispatchKeySet)):
            raise TypeError(
                "__init__(): incompatible constructor arguments. The following argument types "
                "are supported:\n    1. torch._C._ForceDispatchKeyGuard(arg0: "
                "torch._C.DispatchKeySet, arg1: torch._C.DispatchKeySet)\n\n"
                f"Invoked with: {included!r}, {excluded!r}"
            )
        super().__init__(included, excluded)

    def __enter__(self) -> None:
        super().__enter__()


_python_dispatcher_state = threading.local()  # c10's PythonDispatcherTLS: on or off


def _set_python_dispatcher(enabled: bool) -> None:
    """PythonDispatcherTLS::set_state / reset_state: the flag and the key's include bit."""
    _python_dispatcher_state.enabled = enabled
    _tls.tls_set_dispatch_key_included(DispatchKey.PythonDispatcher, enabled)


class _EnablePythonDispatcher:
    """torch._C._EnablePythonDispatcher: on from construction until ``__exit__`` or
    collection, which put back the state construction found (c10's RAII guard)."""

    __slots__ = ("_was_enabled",)

    def __init__(self) -> None:
        self._was_enabled = getattr(_python_dispatcher_state, "enabled", False)
        _set_python_dispatcher(True)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        _set_python_dispatcher(self._was_enabled)

    def __del__(self) -> None:
        _set_python_dispatcher(self._was_enabled)


class _IncludeDispatchKeyGuard(_tls.IncludeDispatchKeyGuard):
    """torch._C._IncludeDispatchKeyGuard(DispatchKey or its name); ember also takes a set."""

    __slots__ = ()

    def __init__(self, key: DispatchKey | str | DispatchKeySet) -> None:
        if not isinstance(key, (DispatchKey, str, DispatchKeySet)):
            raise _guard_refusal("_IncludeDispatchKeyGuard", "DispatchKey", key)
        super().__init__(key)

    def __enter__(self) -> None:
        super().__enter__()


# -- operators --------------------------------------------------------------------


def _find_op_or_throw(name: str) -> OperatorHandle:
    # torch::jit::parseName: a malformed name is a parse error; blanks around it are dropped
    handle = dispatcher.find_op(parse_name(name))
    if handle is None:
        raise RuntimeError(f"operator {name} does not exist")
    return handle


@functools.lru_cache(maxsize=1024)
def _parsed_name(name: str) -> str:
    return parse_name(name)  # a malformed name raises each time (errors are not cached)


def _dispatch_dump(name: str) -> str:
    handle = dispatcher.find_op(_parsed_name(name))
    return "" if handle is None else handle.entry.dump()


def _dispatch_dump_table(name: str) -> str:
    handle = dispatcher.find_op(_parsed_name(name))
    return "" if handle is None else handle.entry.dump_table()


def _dispatch_get_all_op_names() -> list[str]:
    """Every operator name the dispatcher knows (`aten::add.Tensor`), in no set order."""
    return dispatcher.all_op_names(sort=False)


def _dispatch_check_invariants(name: str) -> None:
    dispatcher.check_invariants(name)


def _dispatch_find_schema_or_throw(name: str, overload_name: str) -> OperatorHandle:
    return dispatcher.find_schema_or_throw(name, overload_name)


def _dispatch_has_kernel_for_dispatch_key(name: str, key: DispatchKey | str) -> bool:
    """A kernel registered directly at ``key`` (runtime or alias), not a computed one."""
    return _find_op_or_throw(name).entry.has_kernel_for_key(_as_key(key))


def _dispatch_has_computed_kernel_for_dispatch_key(name: str, key: DispatchKey | str) -> bool:
    key = _as_key(key)
    entry = _find_op_or_throw(name).entry
    if key >= DispatchKey.StartOfAliasKeys:
        raise RuntimeError("Alias keys do not have runtime kernel registrations.")
    return entry.lookup_index(raw_table_index(DispatchKeySet(key).raw_repr())) is not None


def _dispatch_kernel_for_dispatch_key_is_fallthrough(name: str, key: DispatchKey | str) -> bool:
    key = _as_key(key)
    handle = _find_op_or_throw(name)
    kernels = handle.entry.kernels.get(key)
    if not kernels:
        raise RuntimeError(f"no kernel for {key_name(key)} on {handle.name}")
    return kernels[0].is_fallthrough


def _dispatch_has_backend_fallback(key: DispatchKey | str) -> bool:
    return dispatcher.has_backend_fallback(_as_key(key))


# -- the TorchDispatchMode stack (torch._C._push_on_torch_dispatch_stack & co) -------------------
# They live in ember.utils._python_dispatch, the layer below this one.


def _push_on_torch_dispatch_stack(mode) -> None:
    _python_dispatch._push_on_torch_dispatch_stack(mode)


def _pop_torch_dispatch_stack(mode_key=None):
    return _python_dispatch._pop_torch_dispatch_stack(mode_key)


def _len_torch_dispatch_stack() -> int:
    return _python_dispatch._len_torch_dispatch_stack()


def _get_dispatch_stack_at(index: int):
    return _python_dispatch._get_dispatch_stack_at(index)


def _get_dispatch_mode(mode_key):
    return _python_dispatch._get_dispatch_mode(mode_key)


# -- torch._C._dispatch_isTensorSubclassLike (ATen/TensorSubclassLikeUtils.h) ----------------------
def _dispatch_isTensorSubclassLike(tensor) -> bool:  # noqa: N802 (PyTorch's name)
    """Whether ``tensor`` (or an active dispatch mode) may not hold plain dense data."""
    if not isinstance(tensor, Tensor):
        raise TypeError(
            "_dispatch_isTensorSubclassLike(): incompatible function arguments. The following "
            "argument types are supported:\n    1. (arg0: torch.Tensor) -> bool\n\n"
            f"Invoked with: {tensor!r}"
        )
    return is_tensor_subclass_like(tensor)


# -- torch._C._DisableTorchDispatch (torch/csrc/autograd/init.cpp) ----------------------------
_DisableTorchDispatch = _mode_utils.DisableTorchDispatch
# torch._C._RestorePythonTLSSnapshot (Note [Reentrant dispatch] in utils/_python_fallback.py)
_RestorePythonTLSSnapshot = _python_fallback.RestorePythonTLSSnapshot
_disabled_torch_dispatch_impl = _tensor._disabled_torch_dispatch_impl

# torch._C's forward grad mode (this thread's; torch.autograd.forward_ad reads it)
from .autograd.forward_ad import _is_fwd_grad_enabled  # noqa: E402, F401


def _set_fwd_grad_enabled(enabled: bool) -> None:
    from ._c10.thread_state import per_thread

    per_thread.state.fw_grad_mode = bool(enabled)
