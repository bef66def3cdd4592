"""The result of a structured meta function, shared by functional, in-place and out= kernels.

Layer: aten. In: OutputSpecs computed by a meta function (aten/meta/).
Out: allocated outputs (functional), checked `self` (in-place), resized
`out` tensors (out=). See Note [Structured kernels] in
codegen/gen_registrations.py. Mirrors the set_output / check_inplace /
resize_out helpers that torchgen writes into RegisterCPU.cpp.
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._c10.device import CPU
from ember._c10.storage import allocation_error
from ember._c10.tensor_impl import contiguous_strides, shape_text
from ember._tensor import Tensor, empty_tensor
from ember.aten.native import resize
from ember.aten.native.common import type_meta_name


def _can_cast(source, target) -> bool:
    """c10::canCast: no complex -> non-complex, float -> integral, non-bool -> bool."""
    if source.is_complex and not target.is_complex:
        return False
    if source.is_floating_point and not (target.is_floating_point or target.is_complex):
        return False
    if source is not dtypes.bool and target is dtypes.bool:
        return False
    return True


def resize_output(out, sizes, strides=None) -> None:
    """The resize_out of generated structured kernels: at::native::resize_output, then,
    when `out` had to be resized, the strides the meta function computed (as_strided_)."""
    sizes = tuple(sizes)
    if out._sizes == sizes:
        return
    resize.resize_output(out, sizes)
    if strides is not None and tuple(strides) != out._strides:
        resize.resize_impl(out, sizes, tuple(strides))


def _fresh(spec):
    np_dtype = spec.dtype.np_dtype
    if (
        spec.device is CPU
        and np_dtype is not None
        and spec.strides == contiguous_strides(spec.sizes)
    ):
        # The common case, a contiguous CPU output: straight from NumPy.
        try:
            array = np.empty(spec.sizes, np_dtype)
        except (MemoryError, ValueError) as error:  # See Note [Allocation errors]
            raise allocation_error(error, spec.sizes, spec.dtype.itemsize) from None
        return Tensor._wrap(array, spec.dtype)
    return empty_tensor(spec.sizes, spec.dtype, spec.device, spec.strides)


# Note [Out= dtypes of structured kernels]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The resize_out that torchgen writes into RegisterCPU.cpp wants an out= tensor of exactly
# the dtype the meta function set ("Expected out tensor to have dtype float, but got double
# instead"). A TensorIterator op passes it the out= tensor's own dtype, after its own check
# that the result can be cast to it ("result type Float can't be cast to the desired output
# type Long"), and so do the reductions that infer their dtype from `out`. A meta function
# whose PyTorch twin sets the dtype from its inputs (mm, gather, sort, max.dim...) builds its
# StructuredMeta with exact_out=True; the others keep the castable check.


def _check_exact_inplace(self_tensor, spec) -> None:
    if self_tensor.dtype is not spec.dtype:
        raise RuntimeError(
            f"Bad in-place call: input tensor dtype {type_meta_name(self_tensor.dtype)} and "
            f"output tensor dtype {type_meta_name(spec.dtype)} should match"
        )
    if spec.device is not None and self_tensor.device != spec.device:
        raise RuntimeError(
            f"Bad in-place call: input tensor device {self_tensor.device} and output tensor "
            f"device {spec.device} should match"
        )
    if self_tensor._sizes != spec.sizes:
        raise RuntimeError(
            f"Bad in-place call: input tensor size {shape_text(self_tensor._sizes)} and output "
            f"tensor size {shape_text(spec.sizes)} should match"
        )


class StructuredMeta:
    """Outputs described by a meta function, plus the dtype the op computes in."""

    __slots__ = ("specs", "compute_dtype", "inplace_checks_dtype", "exact_out", "exact_inplace")

    def __init__(
        self,
        specs,
        compute_dtype=None,
        *,
        inplace_checks_dtype: bool = True,
        exact_out: bool = False,
        exact_inplace: bool = False,
    ) -> None:
        self.specs = specs if isinstance(specs, tuple) else (specs,)
        self.compute_dtype = compute_dtype if compute_dtype is not None else self.specs[0].dtype
        self.inplace_checks_dtype = inplace_checks_dtype
        # See Note [Out= dtypes of structured kernels]
        self.exact_out = exact_out
        # an op that is no TensorIterator: its in-place variant is the generated check_inplace
        # (RegisterCPU.cpp's "Bad in-place call"), same dtype, device and sizes
        self.exact_inplace = exact_inplace

    @property
    def spec(self):
        return self.specs[0]

    def allocate(self):
        """The functional variant: fresh outputs as the meta function describes them."""
        specs = self.specs
        if len(specs) == 1:
            return _fresh(specs[0])
        return tuple([_fresh(spec) for spec in specs])

    def allocate_through(self, empty_strided):
        """The default backend kernel's outputs: ``at::empty_strided`` of each output, on
        the output's device (Note [Default backend kernels])."""
        made = tuple(
            empty_strided(list(s.sizes), list(s.strides), s.dtype, None, s.device, None)
            for s in self.specs
        )
        return made[0] if len(made) == 1 else made

    def check_inplace(self, self_tensor) -> None:
        """The in-place variant: `self` must already have the output's shape and a castable dtype."""
        spec = self.specs[0]
        if self.exact_inplace:
            _check_exact_inplace(self_tensor, spec)
            return
        if self_tensor._sizes != spec.sizes:
            raise RuntimeError(
                f"output with shape {shape_text(self_tensor._sizes)} doesn't match the "
                f"broadcast shape {shape_text(spec.sizes)}"
            )
        if self.inplace_checks_dtype and not _can_cast(spec.dtype, self_tensor.dtype):
            raise RuntimeError(
                f"result type {dtypes.scalar_type_name(spec.dtype)} can't be cast to the desired "
                f"output type {dtypes.scalar_type_name(self_tensor.dtype)}"
            )

    def check_read_write(self, out, index: int = 0) -> None:
        """An out= tensor that is also an input (Note [Resizing out= arguments])."""
        resize.check_input_not_resized(out, self.specs[index].sizes)

    def resize_outputs(self, *outs) -> None:
        """The out= variant: check dtypes, resize outputs that have the wrong shape."""
        for out, spec in zip(outs, self.specs):
            if self.exact_out and out.dtype is not spec.dtype:
                raise RuntimeError(
                    f"Expected out tensor to have dtype {type_meta_name(spec.dtype)}, but got "
                    f"{type_meta_name(out.dtype)} instead"
                )
            if out.device != spec.device and spec.device is not None:
                raise RuntimeError(
                    "Expected out tensor to have device "
                    f"{spec.device}, but got {out.device} instead"
                )
            if not _can_cast(spec.dtype, out.dtype):
                raise RuntimeError(
                    f"result type {dtypes.scalar_type_name(spec.dtype)} can't be cast to the "
                    f"desired output type {dtypes.scalar_type_name(out.dtype)}"
                )
            resize_output(out, spec.sizes, spec.strides)
