"""OpOverload, OpOverloadPacket and the ``ember.ops`` namespaces.

Layer: above _dispatch (imports _dispatch and _c10 only). Mirrors torch/_ops.py
(facts §8.5). In: Python calls with positional and keyword arguments. Out: the
schema-bound full argument list handed to ``OperatorHandle.call`` (Note
[Dispatcher calling convention], docs/architecture.md).

``ember.ops.<ns>`` is an ``_OpNamespace``; attribute access finds the operator's
overloads in the dispatcher and caches an ``OpOverloadPacket``; attribute
access on the packet caches an ``OpOverload``. ``clear_cache`` (called when a
Library is destroyed) drops cached packets so the next access sees the
current registrations.
"""

from __future__ import annotations

import operator
import os
import types

from ._c10.dispatch_key_set import DispatchKeySet
from ._dispatch.dispatcher import OperatorHandle, dispatcher
from ._dispatch.python_returns import PYBIND_TYPE_ERROR


def _is_view(schema) -> bool:
    """Some argument has a non-write alias and none has a write alias (torch/_ops.py)."""
    is_write = None
    for argument in schema.arguments:
        alias = argument.alias_info
        if alias is None:
            continue
        is_write = alias.is_write if is_write is None else (alias.is_write or is_write)
    return is_write is not None and not is_write


# inside the package, so a trace's caller search passes over these frames as ember's
_FAST_FILENAME = os.path.join(os.path.dirname(__file__), "<OpOverload fast call>")


def _fast_call(handle, exact: tuple | None, tails: dict, general, raise_as_pybind):
    """Note [OpOverload fast path] as one function per overload, the overload's own
    ``__call__``: ``call(*args, **kwargs)`` tests the positional arguments' exact types for
    each count a fast call may give and calls the handle with them (and the defaults bind
    would append); any other call goes to ``general(args, kwargs)``. The handle's ``call``
    is read on every call (tracing swaps it)."""
    cases = dict(tails)
    if exact is not None:
        cases[len(exact)] = (exact, ())
    constants = {"handle": handle, "general": general, "raise_as_pybind": raise_as_pybind}
    lines = ["def call(*args, **kwargs):"]
    if cases:
        lines += ["    if not kwargs:", "        n = len(args)"]
    for number, (count, (kinds, tail)) in enumerate(sorted(cases.items())):
        values = [f"args[{i}]" for i in range(count)]
        for i, kind in enumerate(kinds):
            constants[f"k{count}_{i}"] = kind
        for i, default in enumerate(tail):
            constants[f"d{count}_{i}"] = default
        test = " and ".join(f"type(args[{i}]) is k{count}_{i}" for i in range(count)) or "True"
        passed = ", ".join(values + [f"d{count}_{i}" for i in range(len(tail))])
        lines.append(f"        {'if' if number == 0 else 'elif'} n == {count} and {test}:")
        lines += [
            "            try:",
            f"                return handle.call({passed})",
            "            except RuntimeError as error:",
            "                raise_as_pybind(error)",
            "                raise",
        ]
    lines.append("    return general(args, kwargs)")
    exec(compile("\n".join(lines), _FAST_FILENAME, "exec"), constants)
    return constants["call"]


class OpOverload:
    """One overload (``ember.ops.aten.add.Tensor``): binds Python arguments and dispatches.

    Note [OpOverload fast path]
    ---------------------------
    When every schema argument is positional and of a type that ``bind``
    passes through unchanged (Tensor, int, SymInt, float, bool, str), a call
    with no keywords and exactly one value of exactly that type per argument
    binds to its own arguments, so ``__call__`` hands them to the handle as
    they are. Likewise a call that gives only leading positional arguments of
    those types, when every argument it leaves out has an immutable default
    (``aten.add.Tensor(a, b)``, alpha left out): the handle gets them followed
    by the defaults, as ``bind`` would append them. Anything else (a subclass, a number for a Tensor, keywords,
    missing or extra arguments) takes the full ``bind``, so its conversions
    and error messages are unchanged.
    """

    def __init__(self, packet: OpOverloadPacket, handle: OperatorHandle) -> None:
        schema = handle.schema
        self._op = handle
        self._schema = schema
        self._overloadpacket = packet
        self._overloadname = schema.overload_name or "default"
        self._name = schema.name
        self.namespace, op_name = schema.name.split("::", 1)
        self._namespace = self.namespace
        self._opname = op_name
        self.__name__ = f"{op_name}.{self._overloadname}"
        self.__qualname__ = schema.qualified_name
        self.__module__ = packet.__module__
        self.is_view = _is_view(schema)
        self.tags = list(handle.entry.tags)
        from ._tensor import Tensor  # beside this layer; loaded before any overload exists

        # See Note [OpOverload fast path]
        self._exact_types = schema._plan.exact_types(Tensor)
        self._exact_arity = -1 if self._exact_types is None else len(self._exact_types)
        # the one argument's type when the arity is 1 (None matches no type(value))
        self._exact_one = self._exact_types[0] if self._exact_arity == 1 else None
        # calls that leave defaulted arguments out: given count -> (the exact types of the
        # arguments given, the defaults appended)
        prefix, tails = schema._plan.default_tails_after_exact(Tensor)
        self._default_tails = {given: (prefix[:given], tail) for given, tail in tails.items()}
        self._call = _fast_call(
            handle, self._exact_types, self._default_tails, self._bound_call, _raise_as_pybind
        )

    def name(self) -> str:
        return self._schema.qualified_name

    @property
    def overloadpacket(self) -> OpOverloadPacket:
        return self._overloadpacket

    @property
    def op(self) -> OperatorHandle:
        return self._op

    # Calling an overload runs its own generated ``_call`` (Note [OpOverload fast path]):
    # Python finds __call__ on the class, and this property hands it the instance's
    # function through a C getter, so the call costs that function's frame alone.
    __call__ = property(operator.attrgetter("_call"))

    def _bound_call(self, args: tuple, kwargs: dict):
        """A call the fast path leaves: ``bind`` converts and checks the arguments."""
        try:
            try:
                full = self._schema.bind(args, kwargs)
            except RuntimeError:
                full = self._bind_numbers_as_tensors(args, kwargs)
            self._schema.check_defined(full)
            return self._op.call(*full)
        except RuntimeError as error:
            _raise_as_pybind(error)
            raise

    def redispatch(self, /, keyset: DispatchKeySet, *args, **kwargs):
        """Boxed redispatch with ``keyset`` used as-is (facts §8.5)."""
        bits = keyset if isinstance(keyset, int) else keyset.raw_repr()
        try:
            full = self._schema.bind(args, kwargs)
        except RuntimeError:
            full = self._bind_numbers_as_tensors(args, kwargs)
        self._schema.check_defined(full)
        try:
            return self._op.redispatch(bits, *full)
        except RuntimeError as error:
            _raise_as_pybind(error)
            raise

    def _bind_numbers_as_tensors(self, args: tuple, kwargs: dict) -> list:
        """aten operators accept Python numbers for Tensor arguments (as wrapped numbers).

        PyTorch's boxed path allows this for the aten namespace only
        (ToIValueAllowNumbersAsTensors); other namespaces keep the binding error.
        It runs only after a plain bind failed, so the common path pays nothing.
        """
        if self.namespace != "aten":
            return self._schema.bind(args, kwargs)
        names = [argument.name for argument in self._schema.arguments]
        tensor_slots = {i for i, (is_tensor, is_list) in enumerate(
            argument.type.is_tensor_like() for argument in self._schema.arguments
        ) if is_tensor and not is_list}  # fmt: skip
        args = tuple(_number_as_tensor(a) if i in tensor_slots else a for i, a in enumerate(args))
        kwargs = {
            key: _number_as_tensor(value)
            if key in names and names.index(key) in tensor_slots
            else value
            for key, value in kwargs.items()
        }
        return self._schema.bind(args, kwargs)

    def has_kernel_for_dispatch_key(self, key) -> bool:
        """A kernel registered directly at ``key`` (torch._C._dispatch_has_kernel_for_dispatch_key)."""
        return self._op.entry.has_kernel_for_key(key)

    def __str__(self) -> str:
        return f"{self.namespace}.{self._overloadpacket.__name__}.{self._overloadname}"

    def __repr__(self) -> str:
        packet = self._overloadpacket
        return f"<OpOverload(op='{self.namespace}.{packet.__name__}', overload='{self._overloadname}')>"

    def __hash__(self) -> int:
        return hash(self._op)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OpOverload) and other._op is self._op

    def __reduce__(self):
        # Note [Pickling operators]
        # -------------------------
        # An operator pickles as its name and unpickles as the cached object that name finds
        # in ember.ops (so `loads(dumps(op)) is op`); the operator must exist where it is
        # loaded, as a function must for pickle. deepcopy returns the operator itself, as
        # torch/_ops.py's does.
        return _overload_named, (self.namespace, self._opname, self._overloadname)

    def __deepcopy__(self, memo):
        return self


_NUMBER_TYPES = (bool, int, float, complex)


def _raise_as_pybind(error: RuntimeError) -> None:
    """A pybind11 type_error met on the way (Note [Results of Python kernels]) reaches a
    caller of ``ember.ops`` as the TypeError pybind11 makes of it; a caller of the Python
    bindings gets it as the RuntimeError it is."""
    if getattr(error, PYBIND_TYPE_ERROR, False):
        setattr(error, PYBIND_TYPE_ERROR, False)
        raise TypeError(str(error)) from None


def _number_as_tensor(value):
    """c10::scalar_to_tensor, marked as a wrapped number (promotes as a Python number)."""
    if type(value) not in _NUMBER_TYPES:
        return value
    import numpy as np

    from ._c10 import dtypes
    from ._tensor import Tensor  # the tensor class sits beside this layer; needed only here

    dtype = {bool: dtypes.bool, int: dtypes.int64, float: dtypes.float64,
             complex: dtypes.complex128}[type(value)]  # fmt: skip
    if dtype is dtypes.int64 and dtypes.UINT64_SCALARS_FROM <= value < 2**64:
        dtype = dtypes.uint64  # Note [uint64 Scalars]
    result = Tensor._wrap(np.array(value, dtype=dtype.np_dtype), dtype)
    result._is_wrapped_number = True
    return result


def unwrap_number(value):
    """Boxing into Python turns a wrapped-number tensor back into the number (toPyObject)."""
    if getattr(value, "_is_wrapped_number", False):
        number = value.ndarray().reshape(()).item()  # read here: no operator dispatched
        return {"bool": bool, "int64": int, "float64": float}.get(value.dtype.name, complex)(number)
    return value


class OpOverloadPacket:
    """All overloads of one name (``ember.ops.aten.add``)."""

    def __init__(self, namespace: str, op_name: str, overload_names: list[str]) -> None:
        self._qualified_op_name = f"{namespace}::{op_name}"
        self.__name__ = op_name
        self.__qualname__ = op_name
        self.__module__ = f"ember._ops.{namespace}"  # as torch: torch._ops.aten
        self._namespace = namespace
        self._overload_names = list(overload_names)
        self._dir: list[str] = []

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='{self._namespace}.{self.__name__}')>"

    def __str__(self) -> str:
        return f"{self._namespace}.{self.__name__}"

    def overloads(self) -> list[str]:
        return [name or "default" for name in self._overload_names]

    def __reduce__(self):  # See Note [Pickling operators]
        return _packet_named, (self._namespace, self.__name__)

    def __deepcopy__(self, memo):
        return self

    def __getattr__(self, key: str) -> OpOverload:
        if key.startswith("__") and key.endswith("__"):
            raise AttributeError(key)
        overload_name = "" if key == "default" else key
        handle = dispatcher.find_schema(self._qualified_op_name, overload_name)
        if handle is None:
            raise AttributeError(f"The underlying op of '{self}' has no overload name '{key}'")
        overload = OpOverload(self, handle)
        setattr(self, key, overload)
        self._dir.append(key)
        return overload

    def __call__(self, /, *args, **kwargs):
        """Pick the first overload (in registration order) whose schema binds the arguments."""
        errors = []
        for name in self._overload_names:
            overload = getattr(self, name or "default")
            try:
                full = overload._schema.bind(args, kwargs)
            except (RuntimeError, TypeError) as error:
                errors.append(str(error))
                continue
            try:
                overload._schema.check_defined(full)
                return overload._op.call(*full)
            except RuntimeError as error:
                _raise_as_pybind(error)
                raise
        if len(errors) == 1:
            raise RuntimeError(errors[0])
        raise RuntimeError(
            "Overloaded torch operator invoked from Python failed to match any schema:\n"
            + "".join(f"{error}\n\n" for error in errors)
        )


def _packet_named(namespace: str, op_name: str) -> OpOverloadPacket:
    """The packet ``ember.ops.<namespace>.<op_name>`` (unpickling, Note [Pickling operators])."""
    return getattr(getattr(ops, namespace), op_name)


def _overload_named(namespace: str, op_name: str, overload_name: str) -> OpOverload:
    """The overload ``ember.ops.<namespace>.<op_name>.<overload_name>`` (unpickling)."""
    return getattr(_packet_named(namespace, op_name), overload_name)


def _overload_names(namespace: str, op_name: str) -> list[str]:
    prefix = f"{namespace}::{op_name}"
    names = []
    for name in dispatcher.all_op_names(sort=False):
        if name == prefix or name.startswith(prefix + "."):
            handle = dispatcher.find_op(name)
            if handle is not None and handle.has_schema():
                names.append(name[len(prefix) + 1 :])
    return names


class _OpNamespace(types.ModuleType):
    """``ember.ops.<ns>``: operators of one namespace, cached as packets on first access."""

    def __init__(self, name: str) -> None:
        super().__init__(f"ember.ops.{name}")
        self.name = name
        self.__file__ = "ember.ops"
        self._dir: list[str] = []

    def __iter__(self):
        return iter(self._dir)

    def __getattr__(self, op_name: str) -> OpOverloadPacket:
        overloads = _overload_names(self.name, op_name)
        if not overloads and op_name.startswith("__") and op_name.endswith("__"):
            raise AttributeError(op_name)  # a protocol probe (`__wrapped__`); aten.__and__ is an op
        if not overloads:
            raise AttributeError(
                f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'"
            )
        packet = OpOverloadPacket(self.name, op_name, overloads)
        setattr(self, op_name, packet)
        self._dir.append(op_name)
        return packet


class _Ops(types.ModuleType):
    """``ember.ops``: namespaces are created on first access."""

    __file__ = "_ops.py"

    def __init__(self) -> None:
        super().__init__("ember.ops")

    def __getattr__(self, name: str) -> _OpNamespace:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        namespace = _OpNamespace(name)
        setattr(self, name, namespace)
        return namespace


ops = _Ops()


def refresh_packet(namespace: str, op_name: str) -> None:
    """A new overload was defined: update a cached packet's overload list (``_refresh_packet``)."""
    ns = vars(ops).get(namespace)
    if ns is None:
        return
    packet = vars(ns).get(op_name)
    if packet is not None:
        packet._overload_names = _overload_names(namespace, op_name)


def clear_cache(qualified_names) -> None:
    """Drop cached packets for these ``ns::op[.overload]`` names (``_clear_torch_ops_cache``)."""
    _OVERLOADS.clear()
    for qualname in qualified_names:
        namespace, name_with_overload = qualname.split("::", 1)
        name = name_with_overload.split(".")[0]
        ns = vars(ops).get(namespace)
        if ns is None or name not in vars(ns):
            continue
        delattr(ns, name)
        if name in ns._dir:
            ns._dir.remove(name)


# handle -> its OpOverload, for the boxed fallbacks (the Python key runs on every call a
# mode sees); emptied with the packets it mirrors (clear_cache).
_OVERLOADS: dict[OperatorHandle, OpOverload] = {}


def overload_for_handle(handle: OperatorHandle) -> OpOverload:
    """The cached OpOverload of an operator handle (for boxed fallbacks that receive a handle)."""
    try:
        return _OVERLOADS[handle]
    except KeyError:
        pass
    namespace, rest = handle.name.split("::", 1)
    op_name, _, overload_name = rest.partition(".")
    packet = getattr(getattr(ops, namespace), op_name)
    overload = _OVERLOADS[handle] = getattr(packet, overload_name or "default")
    return overload
