"""functorch: the transforms (vmap, and the layer stack the others build on) as dispatch keys.

Layer: _functorch (above autograd and utils, below _C and func). Mirrors torch/_functorch/
and aten/src/ATen/functorch/. Importing it replaces the built-in fallbacks of the
DynamicLayer keys and FuncTorchBatched and registers the batching rules.

Note [The functorch layer stack]
--------------------------------
A transform (vmap, grad, jvp, functionalize) runs its function with one *layer* pushed
on this thread's dynamic layer stack (dynamic_layer.py). A layer is an ``Interpreter``
(interpreter.py) with a level; levels count from 1, innermost highest. While any layer
is live, FuncTorchDynamicLayerFrontMode and BackMode are in the TLS include set (fact A2),
so every operator call goes:

1. **FrontMode** (``dynamic_layer.front_fallback``): saves the TLS, then
   ``interpreter.enter_tls()`` excludes every key between FrontMode and BackMode except
   ``interpreter.layer_keys`` and includes ``interpreter.include_keys`` (facts A3, A4),
   then calls ``interpreter.process(op, args)`` -- by default ``op.call(*args)`` again,
   so the layer's own keys (FuncTorchBatched, or the autograd keys for grad) handle it.
2. The layer's keys run. A wrapper tensor of this level (a BatchedTensor, a
   GradTrackingTensor) carries exactly one functorch key bit, however deeply nested
   (wrappers.py: ``make_wrapper``; its ``_functorch`` slot holds a ``WrapperRecord``
   with ``value`` and ``level``). Kernels at those keys unwrap *this level's* wrappers
   (``record.level == interpreter.lvl``) and call the op on the values.
3. **BackMode** (``dynamic_layer.back_fallback``): restores the TLS saved at FrontMode,
   pops the layer for the duration of the call and calls
   ``interpreter.send_to_next(op, args)`` -- by default ``op.call(*args)``, which
   reaches the next layer's FrontMode, or, below all layers, ordinary level-0
   dispatch with the default TLS (Autograd, then CPU).

**Adding a transform** (the Grad and Jvp interpreters): subclass ``Interpreter``, set
``transform`` (``TransformType.Grad`` / ``Jvp``), ``layer_keys`` (for grad:
``interpreter.AUTOGRAD_LAYER_BITS``, the autograd keys and ADInplaceOrView, which the
layer keeps live) and ``include_keys``; make the level's wrappers with
``wrappers.make_wrapper(value, record, DispatchKey.FuncTorchGradWrapper, sizes, strides)``
where ``record`` is a ``WrapperRecord`` subclass with ``kind = "grad"`` and a
``header()`` (``GradTrackingTensor(lvl=1``) and ``dump()`` (``Wrapper[lvl=1, ...]``);
override ``send_to_next`` to ``lower`` this level's wrappers in ``args`` (replace each by
its ``record.value``), call ``op.call(*lowered)``, and ``lift`` the results (wrap them
at this level); push the layer around the transformed function with
``dynamic_layer.pushed(interpreter)`` at level ``dynamic_layer.next_level()``.
``torch._C._functorch``'s queries (c_functorch.py) read ``record.kind`` / ``level``, so
``is_gradtrackingtensor``, ``maybe_get_level``, ``get_unwrapped``, ``dump_tensor`` and
``get_interpreter_stack`` work for the new wrappers with no change here.
"""

from __future__ import annotations

from . import autograd_function, batching, c_functorch, dynamic_layer, fallback  # noqa: F401
from .vmap import vmap

__all__ = ["vmap"]

from . import tensor_wrapper  # noqa: E402,F401 (the FuncTorchGradWrapper fallback)
from .eager_transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp  # noqa: E402

__all__ += ["grad", "grad_and_value", "vjp", "jacrev", "jvp", "jacfwd", "hessian"]
