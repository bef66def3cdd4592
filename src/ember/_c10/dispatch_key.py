"""DispatchKey and BackendComponent: the full PyTorch 2.13 enum.

Layer: _c10 (imports nothing of ember). Mirrors c10/core/DispatchKey.h.
Every key PyTorch has exists here with the same number and name, whether or
not ember implements its functionality, so key sets order and print exactly
as PyTorch's do.

See Note [DispatchKeySet Internal Representation] in dispatch_key_set.py for
how functionality keys and backend components combine into runtime keys.
"""

from __future__ import annotations

import enum

# BackendComponent order (c10/core/DispatchKey.h, C10_FORALL_BACKEND_COMPONENTS).
BACKEND_NAMES = (
    "CPU",
    "CUDA",
    "HIP",
    "XLA",
    "MPS",
    "IPU",
    "XPU",
    "HPU",
    "VE",
    "Lazy",
    "MTIA",
    "MAIA",
    "PrivateUse1",
    "PrivateUse2",
    "PrivateUse3",
    "Meta",
)
NUM_BACKENDS = len(BACKEND_NAMES)  # 16

# Functionality keys 0..47, in priority order (higher number = dispatched first).
FUNCTIONALITY_NAMES = (
    "Undefined",
    "Dense",
    "FPGA",
    "Vulkan",
    "Metal",
    "Quantized",
    "CustomRNGKeyId",
    "MkldnnCPU",
    "Sparse",
    "SparseCsr",
    "NestedTensor",
    "BackendSelect",
    "Fake",
    "Python",
    "FuncTorchDynamicLayerBackMode",
    "Functionalize",
    "Conjugate",
    "Negative",
    "ZeroTensor",
    "ADInplaceOrView",
    "AutogradOther",
    "AutogradFunctionality",
    "AutogradNestedTensor",
    "Tracer",
    "AutocastCPU",
    "AutocastMTIA",
    "AutocastMAIA",
    "AutocastXPU",
    "AutocastIPU",
    "AutocastHPU",
    "AutocastXLA",
    "AutocastMPS",
    "AutocastCUDA",
    "AutocastPrivateUse1",
    "FuncTorchBatched",
    "BatchedNestedTensor",
    "FuncTorchVmapMode",
    "Batched",
    "VmapMode",
    "FuncTorchGradWrapper",
    "DeferredInit",
    "PythonTLSSnapshot",
    "FuncTorchDynamicLayerFrontMode",
    "TESTING_ONLY_GenericWrapper",
    "TESTING_ONLY_GenericMode",
    "PreDispatch",
    "PythonDispatcher",
    "EndOfFunctionalityKeys",
)
NUM_FUNCTIONALITY_KEYS = len(FUNCTIONALITY_NAMES)  # 48, the sentinel included

# Per-backend functionalities: each owns one bit in a key set but one
# dispatch-table slot per backend. (functionality name, runtime-key prefix,
# name printed for its StartOf marker)
PER_BACKEND_FUNCTIONALITIES = (
    ("Dense", "", "Undefined"),
    ("Quantized", "Quantized", "QuantizedUndefined"),
    ("Sparse", "Sparse", "SparseUndefined"),
    ("SparseCsr", "SparseCsr", "SparseCsrUndefined"),
    ("NestedTensor", "NestedTensor", "NestedTensorUndefined"),
    ("AutogradFunctionality", "Autograd", "AutogradUndefined"),
)

ALIAS_NAMES = (
    "Autograd",
    "CompositeImplicitAutograd",
    "FuncTorchBatchedDecomposition",
    "CompositeImplicitAutogradNestedTensor",
    "CompositeExplicitAutograd",
    "CompositeExplicitAutogradNonFunctional",
)


def _enum_members() -> dict[str, int]:
    members = {name: value for value, name in enumerate(FUNCTIONALITY_NAMES)}
    value = NUM_FUNCTIONALITY_KEYS
    for functionality, prefix, _ in PER_BACKEND_FUNCTIONALITIES:
        members[f"StartOf{functionality}Backends"] = value
        for offset, backend in enumerate(BACKEND_NAMES, start=1):
            members[prefix + backend] = value + offset
        value += NUM_BACKENDS + 1
    members["EndOfRuntimeBackendKeys"] = value - 1
    for name in ALIAS_NAMES:
        members[name] = value
        value += 1
    members["StartOfAliasKeys"] = members[ALIAS_NAMES[0]]
    members["EndOfAliasKeys"] = value - 1
    # Backward-compatibility aliases (DispatchKey.h).
    members["CatchAll"] = members["Undefined"]
    members["CPUTensorId"] = members["CPU"]
    members["CUDATensorId"] = members["CUDA"]
    members["DefaultBackend"] = members["CompositeExplicitAutograd"]
    members["PrivateUse1_PreAutograd"] = members["AutogradPrivateUse1"]
    members["PrivateUse2_PreAutograd"] = members["AutogradPrivateUse2"]
    members["PrivateUse3_PreAutograd"] = members["AutogradPrivateUse3"]
    members["Autocast"] = members["AutocastCUDA"]
    for functionality, prefix, _ in PER_BACKEND_FUNCTIONALITIES:
        members[f"EndOf{functionality}Backends"] = members[prefix + BACKEND_NAMES[-1]]
    return members


# Keys that torch._C.DispatchKey has no Python attribute for; PyTorch prints them as ``???``.
_UNBOUND_IN_PYTORCH = frozenset(
    (
        "FPGA", "Vulkan", "Metal", "CustomRNGKeyId", "MkldnnCPU", "Fake", "Tracer",
        "AutocastMTIA", "AutocastMAIA", "AutocastXLA", "BatchedNestedTensor", "Batched",
        "VmapMode", "DeferredInit", "TESTING_ONLY_GenericWrapper", "TESTING_ONLY_GenericMode",
        "EndOfFunctionalityKeys",
    )
)  # fmt: skip


def _python_name(key) -> str:
    """The name torch._C.DispatchKey shows for a key in str() and repr()."""
    return "???" if key.name in _UNBOUND_IN_PYTORCH else key.name


DispatchKey = enum.IntEnum("DispatchKey", _enum_members(), module=__name__)
DispatchKey.__doc__ = "A dispatch key; its number is its priority (higher runs first)."
DispatchKey.__str__ = lambda self: f"DispatchKey.{_python_name(self)}"
DispatchKey.__repr__ = lambda self: f"<DispatchKey.{_python_name(self)}: {int(self)}>"


class BackendComponent(enum.IntEnum):
    """Which backend a per-backend runtime key belongs to (bit ``value - 1``)."""

    InvalidBit = 0
    CPUBit = 1
    CUDABit = 2
    HIPBit = 3
    XLABit = 4
    MPSBit = 5
    IPUBit = 6
    XPUBit = 7
    HPUBit = 8
    VEBit = 9
    LazyBit = 10
    MTIABit = 11
    MAIABit = 12
    PrivateUse1Bit = 13
    PrivateUse2Bit = 14
    PrivateUse3Bit = 15
    MetaBit = 16


_BLOCK_SIZE = NUM_BACKENDS + 1
_START_OF_BLOCKS = {
    DispatchKey[f"StartOf{functionality}Backends"]: (DispatchKey[functionality], marker)
    for functionality, _, marker in PER_BACKEND_FUNCTIONALITIES
}
PER_BACKEND_FUNCTIONALITY_KEYS = tuple(
    DispatchKey[functionality] for functionality, _, _ in PER_BACKEND_FUNCTIONALITIES
)


def is_per_backend_functionality(key: int) -> bool:
    return key in _PER_BACKEND_SET


_PER_BACKEND_SET = frozenset(int(k) for k in PER_BACKEND_FUNCTIONALITY_KEYS)


def _block_of(key: int) -> int | None:
    """Index of the per-backend block a runtime key (or marker) lies in, else None."""
    start = int(DispatchKey.StartOfDenseBackends)
    if start <= key <= int(DispatchKey.EndOfRuntimeBackendKeys):
        return (key - start) // _BLOCK_SIZE
    return None


def to_functionality_key(key: int) -> DispatchKey:
    """The functionality a key belongs to: AutogradCPU -> AutogradFunctionality."""
    block = _block_of(key)
    if block is None:
        if key <= int(DispatchKey.EndOfFunctionalityKeys):
            return DispatchKey(key)
        return DispatchKey.Undefined
    return PER_BACKEND_FUNCTIONALITY_KEYS[block]


def to_backend_component(key: int) -> BackendComponent:
    """The backend of a per-backend runtime key (InvalidBit for anything else)."""
    block = _block_of(key)
    if block is None:
        return BackendComponent.InvalidBit
    return BackendComponent((key - int(DispatchKey.StartOfDenseBackends)) % _BLOCK_SIZE)


def to_runtime_per_backend_key(functionality: int, backend: int) -> DispatchKey:
    """Dense + CPUBit -> CPU; AutogradFunctionality + MetaBit -> AutogradMeta."""
    block = PER_BACKEND_FUNCTIONALITY_KEYS.index(functionality)
    return DispatchKey(int(DispatchKey.StartOfDenseBackends) + block * _BLOCK_SIZE + backend)


def _key_to_string(key: int) -> str:
    if key in _START_OF_BLOCKS:
        return _START_OF_BLOCKS[key][1]
    if key == int(DispatchKey.EndOfFunctionalityKeys) or key > int(DispatchKey.EndOfAliasKeys):
        return "UnknownUnknown"
    return DispatchKey(key).name


def key_name(key: int) -> str:
    """The name PyTorch's toString gives a key number."""
    if 0 <= key < len(_KEY_NAMES):
        return _KEY_NAMES[key]
    return _key_to_string(int(key))


_KEY_NAMES = tuple(_key_to_string(value) for value in range(int(DispatchKey.EndOfAliasKeys) + 1))


# Runtime keys: every key that can own a slot in an operator's table.
RUNTIME_KEYS = tuple(
    DispatchKey(value)
    for value in range(1, int(DispatchKey.EndOfRuntimeBackendKeys) + 1)
    if value != int(DispatchKey.EndOfFunctionalityKeys)
    and value not in _START_OF_BLOCKS
    and value not in _PER_BACKEND_SET
)
ALIAS_KEYS = tuple(DispatchKey[name] for name in ALIAS_NAMES)


# -- parsing a key name (c10/core/DispatchKey.cpp parseDispatchKey) -------------------------------

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


def parse_dispatch_key_or_none(name: str) -> DispatchKey | None:
    return _PARSE_TABLE.get(name)


def parse_dispatch_key(name: str) -> DispatchKey:
    """c10::parseDispatchKey: RuntimeError ``could not parse dispatch key: <name>``."""
    key = _PARSE_TABLE.get(name)
    if key is None:
        raise RuntimeError(f"could not parse dispatch key: {name}")
    return key
