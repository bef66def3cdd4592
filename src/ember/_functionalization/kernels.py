"""The Functionalize kernels: views replayed off an alias base, mutations made functional.

Layer: _functionalization. In: calls that reach the Functionalize key (a functional tensor
among the arguments, or Functionalize in the TLS include set). Out: the same call made on
the wrapped values with Functionalize excluded, its results wrapped. Mirrors
aten/src/ATen/FunctionalizeFallbackKernel.cpp and the kernels torchgen writes into
RegisterFunctionalization_*.cpp (gen_functionalization_type.py).

Note [Which Functionalize kernel an operator gets]
--------------------------------------------------
Read off each aten schema when this module loads, as torchgen reads native_functions.yaml:
* a view (a return aliases an input, nothing is written): the view -- or, when views are
  not reapplied, its ``*_copy`` -- runs on the value, and the result is a wrapper sharing
  the base's storage with one more ViewMeta (inverses.py says how it goes back);
* an in-place view (transpose_, squeeze_...): the wrapper's own ViewMetas grow;
* a CompositeImplicitAutograd view (reshape, flatten...): its decomposition runs at
  Functionalize, so the pass sees the views it is made of;
* a mutation (in-place or out=): the functional variant -- the non-mutating overload with
  the same arguments (add_.Tensor -> add.Tensor, add.out -> add.Tensor, copy_ -> copy) --
  runs on the synced values, and each written wrapper takes the result (replace_), queues
  it on its storage (commit_update) and is synced. An in-place result whose shape or
  dtype the in-place op would refuse is checked by running that op on copies, so the
  error is the op's own. A mutation with no functional variant runs on copies of the
  written values, which then replace them;
* everything else: the boxed fallback (unwrap and sync, call below, wrap the results when
  an input was functional or the op is a factory).
"""

from __future__ import annotations

import sys

from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import keys_bits
from ember._c10.geometry import contiguous_strides
from ember._c10.tensor_impl import PYTHON_KEY_BITS
from ember._c10.thread_state import per_thread
from ember._dispatch import builtin_fallbacks
from ember._dispatch.dispatcher import dispatcher
from ember._dispatch.kernel import KernelFunction
from ember._tensor import Tensor

from .inverses import INVERSES
from .wrapper import (
    FUNCTIONALIZE_BITS,
    ViewMeta,
    commit_update,
    functional_state,
    make_view_wrapper,
    mutate_view_meta,
    reapply_views,
    replace_,
    replace_storage,
    skip_functionalize,
    sync,
    to_functional,
)

__all__ = ["functionalize_fallback", "registered"]

_FUNCTIONALIZE = DispatchKey.Functionalize
_CIA = DispatchKey.CompositeImplicitAutograd
# exclude_keys_for_meta_dispatch: the check of an in-place op runs where neither a mode
# nor a functorch layer sees it.
_HIDDEN_CHECK_BITS = (
    FUNCTIONALIZE_BITS
    | PYTHON_KEY_BITS
    | keys_bits(
        [DispatchKey.FuncTorchDynamicLayerFrontMode, DispatchKey.FuncTorchDynamicLayerBackMode]
    )
)
registered: dict[str, str] = {}  # qualified name -> "view" / "inplace_view" / ...

_ALIAS_OUTPUT_MESSAGE = (
    "Found a custom (non-ATen) operator whose output has alias annotations: {schema}. We "
    "only support functionalizing operators whose outputs do not have alias annotations "
    "(e.g. 'Tensor(a)' is a Tensor with an alias annotation whereas 'Tensor' is a Tensor "
    "without. The '(a)' is the alias annotation). The alias annotation specifies that the "
    "output Tensor shares storage with an input that has the same annotation. Please "
    "check if (1) the output needs to be an output (if not, don't return it), (2) if the "
    "output doesn't share storage with any inputs, then delete the alias annotation. (3) "
    "if the output indeed shares storage with an input, then add a .clone() before "
    "returning it to prevent storage sharing and then delete the alias annotation. "
    "Otherwise, please file an issue on GitHub."
)
_MIXED_MESSAGE = (
    'false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/build/aten/src/ATen/'
    'RegisterFunctionalization_0.cpp":0, please report a bug to PyTorch. mutating a '
    "non-functional tensor with a functional tensor is not allowed. Please ensure that "
    "all of your inputs are wrapped inside of a functionalize() call."
)


# -- arguments ----------------------------------------------------------------------------


def _unwrap(arg):
    """(value, was functional) for one argument: wrappers are synced, then unwrapped."""
    if isinstance(arg, Tensor):
        state = functional_state(arg)
        if state is None:
            return arg, False
        sync(arg)
        return arg._functional.value, True
    if isinstance(arg, (list, tuple)) and arg and any(isinstance(a, Tensor) for a in arg):
        values, found = [], False
        for a in arg:
            value, was = _unwrap(a) if a is not None else (None, False)
            values.append(value)
            found = found or was
        return values, found
    return arg, False


def _unwrap_all(args):
    values, any_functional, any_tensor = [], False, False
    for arg in args:
        value, was = _unwrap(arg)
        values.append(value)
        any_functional = any_functional or was
        if not any_tensor and (
            isinstance(arg, Tensor)
            or (isinstance(arg, (list, tuple)) and any(isinstance(a, Tensor) for a in arg))
        ):
            any_tensor = True
    return values, any_functional, any_tensor


def _wrap_result(result):
    if isinstance(result, Tensor):
        return to_functional(result)
    if isinstance(result, (list, tuple)):
        wrapped = [_wrap_result(r) for r in result]
        return tuple(wrapped) if isinstance(result, tuple) else wrapped
    return result


# -- the fallback ---------------------------------------------------------------------------


def functionalize_fallback(op, bits, *args):
    """functionalizeFallback: for an operator that neither views nor mutates."""
    schema = op.schema
    if any(a.alias_info is not None for a in (*schema.arguments, *schema.returns)):
        raise RuntimeError(_ALIAS_OUTPUT_MESSAGE.format(schema=schema))
    values, any_functional, any_tensor = _unwrap_all(args)
    with skip_functionalize():
        result = op.call(*values)
    if any_tensor and not any_functional:
        return result
    return _wrap_result(result)


# -- views ------------------------------------------------------------------------------------


def _view_kernel(name: str, view_call, copy_call, multi: bool):
    inverse = INVERSES.get(name)

    def reverse_for(rest, idx, reapply):
        def reverse(base, mutated):
            if inverse is None:
                raise NotImplementedError(
                    f"ember's functionalization has no view inverse for aten::{name}: a "
                    "mutation through this view cannot be written back to its base"
                )
            return inverse(base, mutated, reapply, idx, *rest)

        return reverse

    def functionalize_view(self, *rest):
        if functional_state(self) is None:
            values, _, _ = _unwrap_all(rest)
            with skip_functionalize():
                return view_call(self, *values)
        reapply = reapply_views()
        call = view_call if reapply or copy_call is None else copy_call
        with skip_functionalize():
            out = call(self._functional.value, *rest)
        if not multi:
            forward = lambda base: call(base, *rest)  # noqa: E731
            meta = ViewMeta(name, forward, reverse_for(rest, 0, reapply))
            return make_view_wrapper(out, self, meta)
        views = []
        for i, piece in enumerate(out):
            forward = lambda base, i=i: call(base, *rest)[i]  # noqa: E731
            meta = ViewMeta(name, forward, reverse_for(rest, i, reapply), i, True)
            views.append(make_view_wrapper(piece, self, meta))
        return views

    functionalize_view.__name__ = f"functionalize_{name.replace('.', '_')}"
    return functionalize_view


def _inplace_view_kernel(name: str, view_name: str, inplace_call, view_call, copy_call):
    inverse = INVERSES.get(view_name)

    def functionalize_inplace_view(self, *rest):
        if functional_state(self) is None:
            with skip_functionalize():
                return inplace_call(self, *rest)
        reapply = reapply_views()
        call = view_call if reapply or copy_call is None else copy_call

        def reverse(base, mutated):
            if inverse is None:
                raise NotImplementedError(
                    f"ember's functionalization has no view inverse for aten::{view_name}"
                )
            return inverse(base, mutated, reapply, 0, *rest)

        mutate_view_meta(self, ViewMeta(view_name, lambda base: call(base, *rest), reverse))
        return self

    functionalize_inplace_view.__name__ = f"functionalize_{name.replace('.', '_')}"
    return functionalize_inplace_view


def _lift_fresh(self):
    """lift_fresh_functionalize: a functional tensor gets a view of itself; a plain one
    (a torch.tensor(...) literal made inside the pass) becomes functional."""
    if functional_state(self) is not None:
        return self.view_as(self)
    with skip_functionalize():
        out = _LIFT_FRESH(self)
    return to_functional(out)


def _resize_(self, size, memory_format):
    """resize__functionalization: growing replaces the storage (refused for a view);
    shrinking is a view of the first elements (an as_strided ViewMeta)."""
    if functional_state(self) is None:
        with skip_functionalize():
            return _RESIZE_(self, size, memory_format)
    sync(self)
    value = self._functional.value
    with skip_functionalize():
        grown = _RESIZE_(_CLONE(value, None), size, memory_format)
    numel = 1
    for n in size:
        numel *= n
    if (self._storage_offset + numel) * self.dtype.itemsize > self._functional.storage.nbytes:
        replace_storage(self, grown)
        return self
    reapply = reapply_views()
    strides = list(contiguous_strides(tuple(size)))
    call = _AS_STRIDED if reapply else _AS_STRIDED_COPY
    meta = ViewMeta(
        "resize_",
        lambda base: call(base, list(size), strides, None),
        lambda base, mutated: _AS_STRIDED_SCATTER(base, mutated, list(size), strides, None),
    )
    mutate_view_meta(self, meta)
    return self


# -- mutations ------------------------------------------------------------------------------


def _mutation_kernel(name, schema, mutable_call, functional_call, written, out_positions):
    """``written``: the argument positions the op writes; ``out_positions``: those of them
    that are out= arguments (left out of the functional variant's call)."""
    rets = schema.returns
    returns_written = bool(rets) and all(r.is_write for r in rets)
    inplace = not out_positions

    def functionalize_mutation(*args):
        values, _, _ = _unwrap_all(args)
        targets = [args[i] for i in written]
        if not any(_is_functional_arg(t) for t in targets):
            if any(_unwrap(a)[1] for i, a in enumerate(args) if i not in written):
                raise RuntimeError(_MIXED_MESSAGE)
            with skip_functionalize():
                return mutable_call(*values)
        if functional_call is not None:
            call_args = [v for i, v in enumerate(values) if i not in out_positions]
            with skip_functionalize():
                result = functional_call(*call_args)
            new_values = list(result) if isinstance(result, (tuple, list)) else [result]
            if inplace:
                new_values = [
                    _checked(targets[k], new, values, written[k])
                    for k, new in enumerate(new_values)
                ]
            outputs = None
        else:
            copies = list(values)
            with skip_functionalize():
                for i in written:
                    copies[i] = _clone(copies[i])
                outputs = mutable_call(*copies)
            new_values = [copies[i] for i in written]
        for target, new in zip(targets, new_values):
            if isinstance(target, list):
                for t, n in zip(target, new):
                    _commit(t, n)
            else:
                _commit(target, new)
        if not rets:
            return None
        if returns_written:
            chosen = [args[i] for i in written]
            return chosen[0] if len(rets) == 1 else tuple(chosen[: len(rets)])
        return _mixed_returns(outputs, rets, schema, args)

    def _checked(target, new, values, position):
        """The in-place op's own error where its result could not be written in place
        (run on copies, out of a dispatch mode's sight, as PyTorch's meta check is)."""
        old = target._functional.value
        if new._sizes != old._sizes or new.dtype is not old.dtype:
            copies = list(values)
            ts = per_thread.state
            prev = ts.excluded
            ts.excluded = prev | _HIDDEN_CHECK_BITS
            try:
                copies[position] = _clone(old)
                mutable_call(*copies)
            finally:
                ts.excluded = prev
        return new

    functionalize_mutation.__name__ = f"functionalize_{name.replace('.', '_')}"
    return functionalize_mutation


def _is_functional_arg(arg) -> bool:
    if isinstance(arg, Tensor):
        return functional_state(arg) is not None
    return isinstance(arg, list) and any(
        isinstance(a, Tensor) and functional_state(a) is not None for a in arg
    )


def _clone(value):
    if isinstance(value, list):
        return [_CLONE(v, None) for v in value]
    return _CLONE(value, None)


def _commit(target, new) -> None:
    if functional_state(target) is None:
        return
    replace_(target, new)
    commit_update(target)
    sync(target)


def _mixed_returns(outputs, rets, schema, args):
    """Returns of a mutation that also makes fresh tensors (the written ones come back as
    their wrappers, the fresh ones wrapped)."""
    outputs = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
    chosen = []
    for ret, out in zip(rets, outputs):
        if ret.is_write:
            alias = set(ret.alias_info.before)
            chosen.append(
                next(
                    a
                    for a, arg in zip(args, schema.arguments)
                    if arg.alias_info is not None and alias & set(arg.alias_info.before)
                )
            )
        else:
            chosen.append(_wrap_result(out))
    return chosen[0] if len(chosen) == 1 else tuple(chosen)


# -- registration ---------------------------------------------------------------------------


def _signature(schema) -> tuple:
    return tuple((a.name, str(a.type)) for a in schema.arguments if not a.is_out)


def _is_view(schema) -> bool:
    return not schema.is_mutable and any(r.alias_info is not None for r in schema.returns)


def _call(name):
    handle = dispatcher.find_op("aten::" + name)
    return None if handle is None or not handle.has_schema() else handle.call


_CLONE = _call("clone")
_LIFT_FRESH = _call("lift_fresh")
_RESIZE_ = _call("resize_")
_AS_STRIDED = _call("as_strided")
_AS_STRIDED_COPY = _call("as_strided_copy")
_AS_STRIDED_SCATTER = _call("as_strided_scatter")


def _copy_name(qualified: str) -> str:
    base, _, overload = qualified.partition(".")
    return f"{base}_copy.{overload}" if overload else f"{base}_copy"


def _register(qualified: str, kind: str, fn, keyset_arg=None) -> None:
    kernel = KernelFunction(fn, keyset_arg=keyset_arg, debug=_DEBUG, name=fn.__name__)
    dispatcher.register_impl("aten::" + qualified, _FUNCTIONALIZE, kernel, kernel.debug)
    registered[qualified] = kind


_DEBUG = f"registered at {__file__}:{sys._getframe().f_lineno}"


def _register_all() -> None:
    handles = {}
    for full in dispatcher.all_op_names():
        if full.startswith("aten::"):
            handle = dispatcher.find_op(full)
            if handle.has_schema():
                handles[full[6:]] = handle
    by_signature: dict[tuple, list] = {}
    for qualified, handle in handles.items():
        if not handle.schema.is_mutable:
            key = (handle.schema.name, _signature(handle.schema))
            by_signature.setdefault(key, []).append(qualified)
    views = {q for q, h in handles.items() if _is_view(h.schema)}
    for qualified, handle in handles.items():
        schema = handle.schema
        if handle.entry.has_kernel_for_key(_FUNCTIONALIZE):
            continue
        if qualified == "lift_fresh":
            _register(qualified, "special", _lift_fresh)
        elif qualified == "resize_":
            _register(qualified, "special", _resize_)
        elif qualified in views:
            cia = handle.entry.kernels.get(_CIA)
            if cia:
                kernel = cia[0]
                _register(qualified, "composite_view", kernel.fn, kernel.keyset_arg)
                continue
            copy = _call(_copy_name(qualified))
            multi = any(r.type.kind == "list" for r in schema.returns)
            _register(qualified, "view", _view_kernel(qualified, handle.call, copy, multi))
        elif schema.is_mutable:
            _register_mutation(qualified, handle, handles, views, by_signature)


def _register_mutation(qualified, handle, handles, views, by_signature) -> None:
    schema = handle.schema
    base_name = schema.name.split("::")[-1]
    written = [i for i, a in enumerate(schema.arguments) if a.is_write]
    out_positions = [i for i in written if schema.arguments[i].is_out]
    functional_name = base_name if out_positions else base_name[:-1]
    candidates = by_signature.get(("aten::" + functional_name, _signature(schema)), [])
    if not out_positions and base_name.endswith("_") and written == [0]:
        view_matches = [c for c in candidates if c in views]
        if view_matches and any(r.is_write for r in schema.returns):
            view_name = view_matches[0]
            kernel = _inplace_view_kernel(
                qualified, view_name, handle.call, handles[view_name].call,
                _call(_copy_name(view_name)),
            )  # fmt: skip
            _register(qualified, "inplace_view", kernel)
            return
    functional = None
    for candidate in candidates:
        returns = handles[candidate].schema.returns
        if candidate not in views and len(returns) == len(written):
            functional = handles[candidate].call
            break
    kernel = _mutation_kernel(qualified, schema, handle.call, functional, written, out_positions)
    _register(qualified, "mutation" if functional is not None else "mutation_on_copies", kernel)


builtin_fallbacks.override(
    _FUNCTIONALIZE,
    functionalize_fallback,
    f"registered at {__file__}:{sys._getframe().f_lineno}",
    keyset_arg="boxed_raw",
)
_register_all()
