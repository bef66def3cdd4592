"""The private dispatcher diagnostics PyTorch exposes under ``torch._C``.

Layer: _C (above utils and autograd; imports _c10, _dispatch, autograd.fallback and
utils._python_dispatch). Mirrors torch/csrc/utils/python_dispatch.cpp and the DispatchKey
bindings of torch/csrc/Module.cpp (facts §10.5).
In: operator names, keys (a DispatchKey or its name) and objects carrying
``_key_bits``. Out: the same values, texts and errors PyTorch's functions give.
"""

from __future__ import annotations

from . import _torch_function as _tf
from ._c10 import tls as _tls
from ._c10.dispatch_key import DispatchKey, key_name
from ._c10.dispatch_key_set import (
    DispatchKeySet,
    after_ADInplaceOrView_keyset,
    after_autograd_keyset,
    autogradother_backends,
    get_backend_key_set_from_autograd,
    is_included_in_alias,
    raw_table_index,
)
from ._dispatch.dispatcher import OperatorHandle, dispatcher
from ._dispatch.schema_parser import parse_name
from .aten._generated import python_nn_functions as _nn  # noqa: F401 (torch._C._nn)
from .autograd import fallback as _autograd_fallback
from .utils import _python_dispatch

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

# Names PyTorch's fixed parse table (c10/core/DispatchKey.cpp parseDispatchKey) lacks,
# although toString produces them (facts §1.2). tests/test_c_diagnostics.py checks this
# list against torch._C._parse_dispatch_key over every key.
_UNPARSEABLE = frozenset(
    """UnknownUnknown QuantizedUndefined QuantizedHIP QuantizedXLA QuantizedMPS QuantizedIPU
    QuantizedHPU QuantizedVE QuantizedLazy QuantizedMTIA QuantizedMAIA QuantizedPrivateUse2
    QuantizedPrivateUse3 QuantizedMeta SparseUndefined SparseXLA SparseIPU SparseHPU SparseLazy
    SparseMTIA SparseMAIA SparsePrivateUse2 SparsePrivateUse3 SparseCsrUndefined SparseCsrXLA
    SparseCsrIPU SparseCsrHPU SparseCsrLazy SparseCsrMTIA SparseCsrMAIA SparseCsrPrivateUse2
    SparseCsrPrivateUse3 NestedTensorUndefined NestedTensorHIP NestedTensorXLA NestedTensorMPS
    NestedTensorIPU NestedTensorVE NestedTensorLazy NestedTensorMTIA NestedTensorMAIA
    NestedTensorPrivateUse2 NestedTensorPrivateUse3 AutogradUndefined AutogradHIP AutogradVE
    AutogradMTIA AutogradMAIA""".split()
)
_PARSE_TABLE: dict[str, DispatchKey] = {}
for _value in range(int(DispatchKey.EndOfAliasKeys) + 1):
    if key_name(_value) not in _UNPARSEABLE:  # the first key with a name wins (Undefined, not 48)
        _PARSE_TABLE.setdefault(key_name(_value), DispatchKey(_value))


def _parse_dispatch_key(name: str) -> DispatchKey | None:
    return _PARSE_TABLE.get(name)


def parse_dispatch_key(name: str) -> DispatchKey:
    """c10::parseDispatchKey: RuntimeError ``could not parse dispatch key: <name>``."""
    key = _PARSE_TABLE.get(name)
    if key is None:
        raise RuntimeError(f"could not parse dispatch key: {name}")
    return key


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


def _dispatch_is_included_in_alias(key: DispatchKey, alias: DispatchKey) -> bool:
    return is_included_in_alias(key, alias)


def _dispatch_get_backend_keyset_from_autograd(key: DispatchKey) -> DispatchKeySet:
    return get_backend_key_set_from_autograd(key)


# -- thread-local state ---------------------------------------------------------
_dispatch_tls_local_include_set = _tls.tls_local_include_set
_dispatch_tls_local_exclude_set = _tls.tls_local_exclude_set
_dispatch_tls_is_dispatch_key_included = _tls.tls_is_dispatch_key_included
_dispatch_tls_is_dispatch_key_excluded = _tls.tls_is_dispatch_key_excluded
_dispatch_tls_set_dispatch_key_included = _tls.tls_set_dispatch_key_included
_dispatch_tls_set_dispatch_key_excluded = _tls.tls_set_dispatch_key_excluded
_AutoDispatchBelowAutograd = _tls.AutoDispatchBelowAutograd
_AutoDispatchBelowADInplaceOrView = _tls.AutoDispatchBelowADInplaceOrView
_ExcludeDispatchKeyGuard = _tls.ExcludeDispatchKeyGuard
_IncludeDispatchKeyGuard = _tls.IncludeDispatchKeyGuard


# -- operators --------------------------------------------------------------------


def _find_op_or_throw(name: str) -> OperatorHandle:
    # torch::jit::parseName: a malformed name is a parse error; blanks around it are dropped
    handle = dispatcher.find_op(parse_name(name))
    if handle is None:
        raise RuntimeError(f"operator {name} does not exist")
    return handle


def _dispatch_dump(name: str) -> str:
    handle = dispatcher.find_op(parse_name(name))
    return "" if handle is None else handle.entry.dump()


def _dispatch_dump_table(name: str) -> str:
    handle = dispatcher.find_op(parse_name(name))
    return "" if handle is None else handle.entry.dump_table()


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
