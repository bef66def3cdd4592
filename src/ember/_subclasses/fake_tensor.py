"""FakeTensor and FakeTensorMode: run every operator on meta kernels, keeping the device.

Layer: _subclasses (an example of the extension API; imports aten, utils._python_dispatch).
Mirrors torch/_subclasses/fake_tensor.py, much reduced. In: real tensors
(``mode.from_tensor``) or FakeTensors, and operator calls while the mode is
active. Out: FakeTensors -- wrapper subclasses with the sizes, strides, dtype
and device a real run would give, and no data.

How it works: a FakeTensor wraps a meta tensor (``t._meta``) and reports its
own ``fake_device``. The mode's ``__torch_dispatch__`` swaps every FakeTensor
argument for its meta tensor, turns ``device=`` arguments into ``meta``, runs
the operator (so the Meta kernels, or a custom op's fake impl, compute the
metadata) and wraps each meta result as a FakeTensor on the inputs' device.
Operators that need data (``item``, ``tolist``) raise as they do on meta.
"""

from __future__ import annotations

from ember._c10.device import as_device
from ember._c10.tensor_impl import storage_span
from ember._tensor import Tensor
from ember.aten._generated.python_functions import empty
from ember.utils._python_dispatch import (
    TorchDispatchMode,
    _disable_current_modes,
    _TorchDispatchModeKey,
)

__all__ = ["FakeTensor", "FakeTensorMode", "UnsupportedFakeTensorException"]

_META = as_device("meta")


class UnsupportedFakeTensorException(RuntimeError):
    pass


class FakeTensor(Tensor):
    """A tensor with metadata and no data; ``fake_device`` is the device it pretends to be on."""

    @staticmethod
    def __new__(cls, fake_mode: FakeTensorMode, elem: Tensor, device):
        self = Tensor._make_wrapper_subclass(
            cls,
            elem._sizes,
            strides=elem._strides,
            storage_offset=elem._storage_offset,
            dtype=elem.dtype,
            device=device,
            requires_grad=elem._requires_grad,
        )
        self._meta = elem
        self.fake_mode = fake_mode
        self.fake_device = as_device(device)
        return self

    def __init__(self, *args, **kwargs) -> None:
        pass

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        """Outside its mode, a FakeTensor re-enters the mode that made it."""
        mode = next(a.fake_mode for a in _flat(args, kwargs) if isinstance(a, FakeTensor))
        with mode:
            return func(*args, **(kwargs or {}))


def _flat(args, kwargs=None):
    for value in (*args, *(kwargs or {}).values()):
        if isinstance(value, (list, tuple)):
            yield from value
        else:
            yield value


class FakeTensorMode(TorchDispatchMode):
    """Every operator runs on meta kernels; results are FakeTensors (an infra mode)."""

    _mode_key = _TorchDispatchModeKey.FAKE

    def __init__(self, *, allow_non_fake_inputs: bool = False) -> None:
        super().__init__()
        self.allow_non_fake_inputs = allow_non_fake_inputs

    @classmethod
    def is_infra_mode(cls) -> bool:
        return True

    # -- conversion ---------------------------------------------------------------
    def from_tensor(self, tensor: Tensor, static_shapes: bool = True) -> FakeTensor:
        """A FakeTensor with ``tensor``'s metadata (sizes, strides, dtype, device, grad)."""
        if isinstance(tensor, FakeTensor):
            return tensor
        meta = _meta_like(tensor)
        fake = FakeTensor(self, meta, tensor.device)
        fake._requires_grad = tensor._requires_grad
        return fake

    def _to_meta(self, value, func):
        if isinstance(value, FakeTensor):
            return value._meta
        if isinstance(value, Tensor):
            if value.device.type == "meta":
                return value
            if not self.allow_non_fake_inputs and not value._is_wrapped_number:
                raise AssertionError(
                    f"Please convert all Tensors to FakeTensors first or instantiate "
                    f"FakeTensorMode with 'allow_non_fake_inputs'. Found in {func}"
                )
            meta = _meta_like(value)
            meta._is_wrapped_number = value._is_wrapped_number  # promotes as a number
            return meta
        if isinstance(value, (list, tuple)):
            return type(value)(self._to_meta(item, func) for item in value)
        return value

    # -- dispatch -----------------------------------------------------------------------
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func.name() == "aten::lift_fresh":  # a constructor's fresh tensor: made fake
            return self.from_tensor(args[0])
        device = self._common_device(func, args, kwargs)
        meta_args = tuple(self._to_meta(arg, func) for arg in args)
        meta_kwargs = {key: self._to_meta(value, func) for key, value in kwargs.items()}
        for index, argument in enumerate(func._schema.arguments):
            if argument.name == "device" and str(argument.type).startswith(
                ("Device", "Optional[Device")
            ):
                if argument.kwarg_only:
                    meta_kwargs["device"] = _META
                elif index < len(meta_args):
                    meta_args = (*meta_args[:index], _META, *meta_args[index + 1 :])
        result = func(*meta_args, **meta_kwargs)
        return self._wrap(result, device, args, meta_args)

    def _common_device(self, func, args, kwargs):
        """The inputs' device (FakeTensors report fake_device), else ``device=``, else cpu."""
        devices = []
        for value in _flat(args, kwargs):
            if isinstance(value, FakeTensor):
                devices.append(value.fake_device)
            elif isinstance(value, Tensor):
                devices.append(value.device)
        if not devices:
            return as_device(kwargs.get("device") or "cpu")
        return devices[0]

    def _wrap(self, result, device, args, meta_args):
        if isinstance(result, Tensor):
            for original, meta in zip(args, meta_args):
                if meta is result and isinstance(original, FakeTensor):
                    # In-place and out= ops return their input: keep the FakeTensor, with
                    # whatever metadata the op gave its meta tensor.
                    original._set_sizes_strides(meta._sizes, meta._strides, meta._storage_offset)
                    return original
            return FakeTensor(self, result, device)
        if isinstance(result, (list, tuple)):
            return type(result)(self._wrap(item, device, args, meta_args) for item in result)
        return result


def _meta_like(tensor: Tensor) -> Tensor:
    """A meta tensor with ``tensor``'s sizes, strides, offset and dtype."""
    sizes, strides, offset = tensor._sizes, tensor._strides, tensor._storage_offset
    with _disable_current_modes():
        base = empty((storage_span(sizes, strides, offset),), dtype=tensor.dtype, device="meta")
        return base.as_strided(sizes, strides, offset)
