"""The ZeroTensor key: `torch._efficientzerotensor`'s immutable zeros, and what reaches them.

Layer: aten. In: calls whose key set holds ZeroTensor (a tensor made by
`_efficientzerotensor`, or a view of one). Out: the backend fallback PyTorch registers
(ZeroTensorFallback.cpp): a view op goes on below ZeroTensor (its result keeps the key),
a write to a ZeroTensor is refused, any other op gets each ZeroTensor argument
materialised as `zeros([]).expand(size)` and goes on below; PyTorch's fallthroughs (views,
constructors, utilities); and its ZeroTensor kernels of add, sub, mul and div (BinaryOps.cpp):
a zero operand gives a ZeroTensor product, the other operand for a sum, and NaN / inf
fills for a quotient, with the shape and dtype the plain op would give.

A ZeroTensor holds real zeros in its storage (as PyTorch's CPU ones do), so reading it
outside dispatch (repr, tolist, numpy) gives zeros.
"""

from __future__ import annotations

from ember._c10.device import CPU, as_device
from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import full_after_bits
from ember._c10.tensor_impl import ZERO_TENSOR_BITS
from ember._dispatch.builtin_fallbacks import override
from ember._dispatch.dispatcher import caller_debug, dispatcher
from ember._dispatch.kernel import make_fallthrough
from ember._tensor import Tensor
from ember.aten.native import at
from ember.aten.registration import impl

__all__ = ["ZERO_TENSOR_BITS", "is_zerotensor", "register", "install"]

_BELOW = full_after_bits(DispatchKey.ZeroTensor)
_META = as_device("meta")
_IMMUTABLE = (
    "ZeroTensors are immutable. Please use the materialized zero tensor obtained using "
    ".clone() if you want a mutable tensor."
)

# TORCH_LIBRARY_IMPL(aten, ZeroTensor, m)'s fallthroughs (views, constructors, utilities)
_FALLTHROUGHS = (
    "_conj _unsafe_view add.Scalar alias as_strided_ chunk clone conj copy_ detach detach_ "
    "diagonal dot dsplit.array dsplit.int empty.memory_format empty.out empty_like "
    "empty_strided expand expand_as full_like hsplit.array hsplit.int imag is_complex "
    "is_floating_point movedim.int movedim.intlist mul.Scalar narrow permute real "
    "requires_grad_ reshape resize_ select.int size.int split.Tensor split_with_sizes squeeze "
    "squeeze_ stride.int swapaxes swapdims t t_ transpose.int transpose_ unbind.int "
    "unflatten.int unfold unsqueeze unsqueeze_ vdot view_as view_as_real vsplit.array "
    "vsplit.int zeros_like"
).split()


def is_zerotensor(t) -> bool:
    """Tensor._is_zerotensor()."""
    return bool(t._key_bits & ZERO_TENSOR_BITS)


def _materialise(t):
    """at::zeros({}, options).expand(sizes): a plain zero tensor of t's shape."""
    zero = at.zeros([], t.dtype, None, t.device, None)
    return at.expand(zero, list(t._sizes), False)


def zero_tensor_fallback(op, bits, *args):
    """zeroTensorFallback (ZeroTensorFallback.cpp)."""
    arguments = op.schema.arguments
    writes = {a.alias_info.is_write for a in arguments if a.alias_info is not None}
    if len(writes) > 1:
        raise RuntimeError(
            f"Unsupported operator for ZeroTensorFallback: {op.schema.name}ZeroTensor fallback "
            "doesn't work for operators with a mix mutable and non-mutable inputs that alias "
            "with outputs, this must be implemented manually.  If you got this error on a "
            "core op, please report a bug to PyTorch."
        )
    if writes == {False}:  # a view: its result keeps the key
        return op.redispatch(bits & _BELOW, *args)
    checked = list(args)
    for i, (argument, value) in enumerate(zip(arguments, args, strict=False)):
        mutable = argument.alias_info is not None
        if isinstance(value, Tensor):
            if value._key_bits & ZERO_TENSOR_BITS:
                if mutable:
                    raise RuntimeError(_IMMUTABLE)
                checked[i] = _materialise(value)
        elif isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
            items = list(value)
            for j, item in enumerate(items):
                if isinstance(item, Tensor) and item._key_bits & ZERO_TENSOR_BITS:
                    if mutable:
                        raise RuntimeError(_IMMUTABLE)
                    items[j] = _materialise(item)
            checked[i] = items
    return op.redispatch(bits & _BELOW, *checked)


# -- the ZeroTensor kernels of BinaryOps.cpp ---------------------------------------------------


def _out_device(self, other):
    """correct_out_device: a cpu scalar operand takes the other's device."""
    if self.device == CPU and self.dim() == 0 and other.device != CPU:
        return other.device
    return self.device


def _meta_result(op, self, other, *extra):
    """The plain op on meta copies: the result's shape and dtype."""
    return op(at._to_copy(self, None, None, _META, None, False, None),
              at._to_copy(other, None, None, _META, None, False, None), *extra)  # fmt: skip


def mul_zerotensor(self, other):
    meta = _meta_result(at.mul_Tensor, self, other)
    return at._efficientzerotensor(
        list(meta._sizes), meta.dtype, None, _out_device(self, other), None
    )


def div_zerotensor(self, other):
    meta = _meta_result(at.div_Tensor, self, other)
    device, sizes = _out_device(self, other), list(meta._sizes)
    if is_zerotensor(self) and not is_zerotensor(other):
        return at._efficientzerotensor(sizes, meta.dtype, None, device, None)
    fill = float("nan") if is_zerotensor(self) else float("inf")  # 0/0, and x/0 (any x)
    return at.full(sizes, fill, meta.dtype, None, device, None)


def _add_or_sub(self, other, alpha):
    """maybe_add_maybe_sub: zero + zero is a ZeroTensor, else the other operand, cast."""
    meta = _meta_result(at.add_Tensor, self, other, 1)
    device, sizes = _out_device(self, other), list(meta._sizes)

    def out_like(t):
        return at._to_copy(at.expand(t, sizes, False), meta.dtype, None, device, None, False, None)

    if is_zerotensor(self):
        if is_zerotensor(other):
            return at._efficientzerotensor(sizes, meta.dtype, None, device, None)
        result = out_like(other)
        return result if alpha == 1 else at.mul_Scalar(result, alpha)
    return out_like(self)


def add_zerotensor(self, other, alpha):
    return _add_or_sub(self, other, alpha)


def sub_zerotensor(self, other, alpha):
    return _add_or_sub(self, other, -alpha)


def register() -> None:
    """The fallback, fallthroughs and kernels (aten/load.py calls it once the aten operators
    are defined)."""
    override(DispatchKey.ZeroTensor, zero_tensor_fallback, keyset_arg="boxed_raw")
    debug = caller_debug(0)
    for name in _FALLTHROUGHS:
        overload, _, overload_name = name.partition(".")
        if dispatcher.find_schema("aten::" + overload, overload_name) is not None:
            kernel = make_fallthrough(debug)
            dispatcher.register_impl("aten::" + name, DispatchKey.ZeroTensor, kernel, debug)
    for name, fn in (("mul.Tensor", mul_zerotensor), ("div.Tensor", div_zerotensor),
                     ("add.Tensor", add_zerotensor), ("sub.Tensor", sub_zerotensor)):  # fmt: skip
        impl(name, "ZeroTensor", fn)
    for name in ("view", "as_strided", "_reshape_alias"):  # the views keep the key
        if dispatcher.find_schema("aten::" + name, "") is not None:
            impl(name, "ZeroTensor", _view_below(name), keyset_arg="raw")


def _view_below(name):
    handle = dispatcher.find_schema("aten::" + name, "")

    def view_kernel(ks, *args):
        return handle.redispatch(ks & _BELOW, *args)

    view_kernel.__name__ = f"{name}_zerotensor"
    return view_kernel


def install(tensor_class) -> None:
    tensor_class._is_zerotensor = is_zerotensor
