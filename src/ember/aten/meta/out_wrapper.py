"""The out= handling of PyTorch's Python meta kernels, for the Meta kernels that mirror them.

Layer: aten/meta. In: an out= call's first argument, the meta function's result and `out`.
Out: `out` resized, or PyTorch's error. PyTorch's Meta kernel of many out= overloads
(add.out, eq.Tensor_out, mm.out: `PYTHON_META_OUT` in codegen/gen_registrations.py) is a
Python reference wrapped by out_wrapper (torch/_prims_common/wrappers.py): it compares the
devices of the first argument and of `out` before the reference runs, then resizes `out`
to the result and checks that the result may be copied into it (_safe_copy_out), with the
reference's own messages. `torch.add(cpu, cpu, out=meta)` reaches the Meta kernel (the
highest backend in the key set) and is refused there, as here.
"""

from __future__ import annotations

from ember._c10.naming import prefix
from ember._c10.warning import python_warn
from ember.aten.native import resize
from ember.aten.structured import _can_cast

__all__ = ["check_copy_devices", "copy_out"]


def check_copy_devices(source, out) -> None:
    """out_wrapper's maybe_check_copy_devices: the first argument, a tensor, and `out`."""
    if out.device != source.device:
        raise RuntimeError(
            f"Attempting to copy from device {source.device} to device {out.device}, but "
            "cross-device copies are not allowed!"
        )


def _resize(out, sizes: tuple) -> None:
    """_maybe_resize_out (its warning text is PyTorch's, unformatted placeholder included)."""
    if out._sizes == sizes:
        return
    if out.numel() != 0:
        python_warn(
            f"An output with one or more elements was resized since it had shape "
            f"{prefix()}.Size({list(out._sizes)}) which does not match the required output shape "
            "{str(shape)}. This behavior is deprecated, and in a future PyTorch release "
            "outputs will not be resized unless they have zero elements. You can explicitly "
            "reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0)."
        )
    resize.resize_impl(out, sizes)


def copy_out(meta, out, exact_dtype: bool = False) -> None:
    """_maybe_resize_out, then _safe_copy_out's checks (the copy itself has nothing to do on
    the Meta backend)."""
    spec = meta.specs[0]
    _resize(out, spec.sizes)
    if spec.sizes or spec.device.type != "cpu":  # is_cpu_scalar(result) skips the check
        if out.device != spec.device:
            raise RuntimeError(
                f"Attempting to copy from device {spec.device} to device {out.device}, but "
                "cross-device copies are not allowed!"
            )
    if exact_dtype:
        if out.dtype is not spec.dtype:
            raise RuntimeError(
                f"Expected out tensor to have dtype {spec.dtype} but got {out.dtype} instead"
            )
    elif not _can_cast(spec.dtype, out.dtype):
        raise RuntimeError(
            f"Attempting to cast from {spec.dtype} to out tensor with dtype {out.dtype}, "
            "but this can't be cast because it is not safe!"
        )
