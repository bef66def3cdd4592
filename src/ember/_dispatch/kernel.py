"""KernelFunction: one registered kernel, with how to call it and where it came from.

Layer: _dispatch. Mirrors ATen/core/boxing/KernelFunction.h / KernelFunction.cpp.
In: a Python callable and its calling convention. Out: the object an
OperatorEntry stores per key and the dispatcher invokes. Also the two special
kernels PyTorch has: the fallthrough kernel and the ambiguous-AutogradOther kernel.

See Note [Dispatcher calling convention] in docs/architecture.md for what
``keyset_arg`` means:

* ``None``: ``fn(*args)``
* ``"set"``: ``fn(DispatchKeySet, *args)`` (``with_keyset=True`` user kernels)
* ``"raw"``: ``fn(raw_bits: int, *args)`` (ember's own autograd / ADInplaceOrView kernels)
* ``"boxed"``: ``fn(op_handle, DispatchKeySet, *args)`` (backend fallbacks and the
  ambiguous-AutogradOther kernel, which need to know the operator)
* ``"boxed_raw"``: ``fn(op_handle, raw_bits: int, *args)`` (ember's own fallbacks on the
  hot path, which skip building a DispatchKeySet)
"""

from __future__ import annotations

from collections.abc import Callable

KEYSET_ARG_KINDS = (None, "set", "raw", "boxed", "boxed_raw")

_FALLTHROUGH_ASSERT = (
    '0 INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/core/boxing/'
    'KernelFunction.cpp":14, please report a bug to PyTorch. fallthrough_kernel was executed '
    "but it should have been short-circuited by the dispatcher. This could occur if you "
    "registered a fallthrough kernel as a override for a specific operator (as opposed to a "
    "backend fallback); this is NOT currently supported, and we do not intend to add support "
    "for it in the near future.  If you do find yourself in need of this, let us know in the "
    "bug tracker."
)

_AMBIGUOUS_ASSERT = (
    '0 INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/core/boxing/'
    'KernelFunction.cpp":23, please report a bug to PyTorch. {name} has kernels registered to '
    "both CompositeImplicitAutograd and a backend mapped to AutogradOther. This makes the "
    "backend kernel unreachable; the dispatcher will always prefer the CompositeImplicitAutograd "
    "lowering (see Note [Ambiguity in AutogradOther kernel]). If you want to override "
    "CompositeImplicitAutograd, please open an issue to request a dedicated Autograd dispatch "
    "key for the backend.\nIf you only want to run inference instead of training, in C++, add "
    "`c10::InferenceMode mode;` before model.forward(); in Python, use `torch.inference_mode()` "
    "as a context manager (see https://pytorch.org/docs/stable/generated/torch.autograd.grad_mode"
    ".inference_mode.html).\nCanonical state\n~~~~~~~~~~~\n{state}\n\n"
)


class KernelFunction:
    """A kernel as the dispatcher stores it (immutable once built)."""

    __slots__ = (
        "fn",
        "keyset_arg",
        "is_fallthrough",
        "debug",
        "name",
        "inferred_schema",
        "unboxed",
    )

    def __init__(
        self,
        fn: Callable,
        *,
        keyset_arg: str | None = None,
        is_fallthrough: bool = False,
        debug: str = "",
        name: str = "",
        inferred_schema=None,
        unboxed: bool = False,
    ) -> None:
        if keyset_arg not in KEYSET_ARG_KINDS:
            raise ValueError(f"keyset_arg must be one of {KEYSET_ARG_KINDS}, got {keyset_arg!r}")
        self.fn = fn
        self.keyset_arg = keyset_arg
        self.is_fallthrough = is_fallthrough
        self.debug = debug
        self.name = name or getattr(fn, "__qualname__", repr(fn))
        # The unnamed FunctionSchema a typed C++ kernel's signature gives (PyTorch's
        # inferred_function_schema), or None; checked against the operator's def.
        self.inferred_schema = inferred_schema
        # Whether PyTorch would hold an unboxed entry too (a typed C++ kernel): dumps only.
        self.unboxed = unboxed

    def dump_state(self) -> str:
        """The ``[ ... ]`` part of a ``_dispatch_dump`` line (KernelFunction::dumpState)."""
        state = ("fallthrough " if self.is_fallthrough else "") + "boxed "
        return state + "unboxed " if self.unboxed else state

    def __repr__(self) -> str:
        flag = " fallthrough" if self.is_fallthrough else ""
        return f"<KernelFunction {self.name}{flag} ({self.debug})>"


def _fallthrough_body(*args: object, **kwargs: object) -> None:
    raise RuntimeError(_FALLTHROUGH_ASSERT)


def make_fallthrough(debug: str) -> KernelFunction:
    """A fallthrough kernel: its key is masked out of every call's key set (§3.3)."""
    return KernelFunction(_fallthrough_body, is_fallthrough=True, debug=debug, name="fallthrough")


def _ambiguous_autogradother(op, keyset, *args: object) -> None:
    raise RuntimeError(_AMBIGUOUS_ASSERT.format(name=op.name, state=op.entry.dump()))


# The kernel the table holds at AutogradOther when an op has both a CompositeImplicitAutograd
# kernel and a kernel on a backend that maps to AutogradOther (facts §4.1, §5.4).
AMBIGUOUS_AUTOGRADOTHER = KernelFunction(
    _ambiguous_autogradother,
    keyset_arg="boxed",
    debug="ambiguous_autogradother",
    name="ambiguous_autogradother",
)
