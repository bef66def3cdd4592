"""Bind the Python arguments of a public function to one of its Python signatures.

Layer: aten (imports ``ember._c10`` and aten modules that import nothing above it).
In: ``args`` / ``kwargs`` of a call such as ``ember.sum(x, 1, keepdim=True)``;
out: ``(index of the matching signature, values in its parameter order, defaults
filled)``, or PyTorch's TypeError text for text. Mirrors PythonArgParser and
FunctionSignature::parse in torch/csrc/utils/python_arg_parser.cpp.

    parser = PythonArgParser(["sum(Tensor input, *, ScalarType? dtype=None)",
                              "sum(Tensor input, int[1]? dim, bool keepdim=False, *, "
                              "ScalarType? dtype=None, Tensor? out=None)"])
    index, (x, dim, keepdim, dtype, out) = parser.parse((t, 1), {"keepdim": True})

Signatures are tried in order (deprecated ones last), as PyTorch does. A method's
signatures do not list ``self``; the caller passes it as ``self=`` (kept for
``__torch_function__``; it takes no part in binding).
"""

from __future__ import annotations

import sys
import warnings

from ember._c10.device import device_lazy_init
from ember._c10.naming import as_named
from ember.aten.call_form import through_descriptor
from ember.aten.invalid_arguments import format_invalid_args
from ember.aten.python_arg_convert import FAIL, SEQUENCES, DeferredError, UnpackError, tp_name
from ember.aten.python_signature import FunctionSignature, should_allow_numbers_as_tensors

__all__ = [
    "PythonArgParser",
    "FunctionSignature",
    "should_allow_numbers_as_tensors",
    "no_arguments",
    "no_arguments_method",
]

_MISSING = object()
# PyTorch warns about a deprecated signature with TORCH_WARN_ONCE at one call site:
# the first deprecated call of the process warns, no later one does.
_deprecation_warned = False


def no_arguments(self, name: str, args: tuple, kwargs: dict | None):
    """The TypeError CPython gives a METH_NOARGS method of torch's TensorBase (``abs``) called
    with arguments: ``TensorBase.abs()`` for ``x.abs(1)``, ``Tensor.abs()`` (the type of
    `self`) for a bound method object's call (see aten/call_form.py)."""
    caller = sys._getframe(2)  # no_arguments <- the method <- its caller
    owner = "TensorBase" if through_descriptor(caller, self) else type(self).__qualname__
    no_arguments_function(f"{owner}.{name}", args, kwargs)


def no_arguments_function(qualified_name: str, args: tuple, kwargs: dict | None):
    """The TypeError CPython gives a METH_NOARGS function (``torch.get_default_dtype``)."""
    if kwargs:
        raise TypeError(f"{qualified_name}() takes no keyword arguments")
    raise TypeError(f"{qualified_name}() takes no arguments ({len(args)} given)")


def no_arguments_method(method, name: str):
    """`method(self)` as a METH_NOARGS method of torch's TensorBase (tolist, dim): arguments
    get Python's own refusal (no_arguments)."""

    def checked(self, *args, **kwargs):
        if args or kwargs:
            no_arguments(self, name, args, kwargs)
        return method(self)

    checked.__name__ = checked.__qualname__ = name
    checked.__doc__ = method.__doc__
    checked.takes_no_arguments = True  # See Note [Wrappers only where needed]
    return checked


def _kwargs_bind(sig: FunctionSignature, args: tuple, kwargs: dict):
    """FunctionSignature::parse without raising, for calls with keyword arguments."""
    count = len(args)
    if count > sig.max_pos_args:
        return _bind(sig, args, kwargs, False) if sig.intlist_first else None
    values = []
    for convert, obj in zip(sig.pos_converts, args):
        value = convert(obj)
        if value is FAIL:
            return _bind(sig, args, kwargs, False) if sig.intlist_first else None
        values.append(value)
    used = 0
    for param in sig.rest_params[count]:
        obj = kwargs.get(param.name, _MISSING)
        for numpy_name in param.numpy_names:
            if obj is not _MISSING:
                break
            obj = kwargs.get(numpy_name, _MISSING)
        if obj is _MISSING:
            if not param.optional:
                return None
            values.append(param.default)
            continue
        used += 1
        value = param.convert(obj)
        if value is FAIL:
            return None
        values.append(value)
    return values if used == len(kwargs) else None


def _varargs_bind(sig: FunctionSignature, args: tuple):
    """``x.view(2, 3)``: all positional arguments become the one int list parameter."""
    first = sig.params[0]
    if not args or first.size:
        return _bind(sig, args, None, False)
    value = first.convert(args)
    if value is FAIL or sig.varargs_tail is None:
        return None
    return [value, *sig.varargs_tail]


def _bind(sig: FunctionSignature, args: tuple, kwargs: dict | None, raise_exception: bool):
    """FunctionSignature::parse: the values, or None (or a TypeError when raising)."""
    nargs = len(args)
    remaining_kwargs = len(kwargs) if kwargs else 0
    arg_pos = 0
    params = sig.params
    # A single positional int list accepts var-args: x.view(2, 3) is x.view((2, 3)).
    first = params[0] if params else None
    varargs_value = first.convert(args) if sig.intlist_first else FAIL
    allow_varargs = varargs_value is not FAIL
    if nargs > sig.max_pos_args and not allow_varargs:
        if raise_exception:
            _extra_args(sig, nargs)
        return None
    values = []
    refused: list = []  # the DeferredErrors of arguments whose type matched
    for param in params:
        obj, is_kwd = _MISSING, False
        if arg_pos < nargs:
            if param.keyword_only:
                if raise_exception:
                    _extra_args(sig, nargs)
                return None
            obj = args[arg_pos]
        elif kwargs:
            obj = kwargs.get(param.name, _MISSING)
            for numpy_name in param.numpy_names:
                if obj is not _MISSING:
                    break
                obj = kwargs.get(numpy_name, _MISSING)
            is_kwd = True
        varargs_eligible = allow_varargs and arg_pos == 0 and not is_kwd
        if obj is _MISSING and param.optional:
            values.append(param.default)
        elif obj is None and param.allow_none:
            values.append(param.none_value)
        elif obj is _MISSING:
            if raise_exception:
                _missing_args(sig, param.index)
            return None
        elif (value := _convert(param, obj, refused)) is not FAIL:
            values.append(value)
        elif varargs_eligible:
            values.append(varargs_value)
            arg_pos = nargs
            continue
        elif raise_exception:
            _wrong_type(sig, param, obj, is_kwd, arg_pos, args, varargs_eligible)
        else:
            return None
        if not is_kwd:
            arg_pos += 1
        elif obj is not _MISSING:
            remaining_kwargs -= 1
    if remaining_kwargs > 0:
        if raise_exception:
            _extra_kwargs(sig, kwargs, nargs)
        return None
    if refused:
        _options_first(sig, values)
    if refused:  # the signature matches: now a refused value is the error; PyTorch's
        # bindings unpack their arguments in the call `dispatch_op(_r.x(0), _r.y(1), ...)`,
        # which GCC evaluates right to left: the last refused value is the one reported
        raise refused[-1].unpack_error.error()
    return values


def _options_first(sig, values: list) -> None:
    """A factory initialises its device before it unpacks its other arguments."""
    index = sig.device_index
    if index is not None and index < len(values):
        device = values[index]
        if device is not None and hasattr(device, "dispatch_key"):
            device_lazy_init(device.type)


def _convert(param, obj, refused: list):
    """``param.convert(obj)``, a DeferredError counted as a match and kept in ``refused``."""
    try:
        return param.convert(obj)
    except DeferredError as error:
        refused.append(error)
        return None


def _extra_args(sig: FunctionSignature, nargs: int):
    if sig.min_args != sig.max_pos_args:
        raise TypeError(
            f"{sig.name}() takes from {sig.min_args} to {sig.max_pos_args} positional "
            f"arguments but {nargs} were given"
        )
    plural = "" if sig.max_pos_args == 1 else "s"
    were = "was" if nargs == 1 else "were"
    raise TypeError(
        f"{sig.name}() takes {sig.max_pos_args} positional argument{plural} "
        f"but {nargs} {were} given"
    )


def _missing_args(sig: FunctionSignature, index: int):
    missing = [f'"{p.name}"' for p in sig.params[index:] if not p.optional]
    # PyTorch's plural is inverted: "missing 1 required positional arguments".
    plural = "s" if len(missing) == 1 else ""
    raise TypeError(
        f"{sig.name}() missing {len(missing)} required positional argument{plural}: "
        + ", ".join(missing)
    )


def _extra_kwargs(sig: FunctionSignature, kwargs: dict, nargs: int):
    for key in kwargs:
        if not isinstance(key, str):
            raise TypeError("keywords must be strings")
        index = sig.names.get(key, -1)
        if index < 0:
            raise TypeError(f"{sig.name}() got an unexpected keyword argument '{key}'")
        if index < nargs:
            raise TypeError(f"{sig.name}() got multiple values for argument '{key}'")
    raise TypeError("invalid keyword arguments")


def _wrong_type(sig, param, obj, is_kwd: bool, arg_pos: int, args: tuple, varargs_eligible: bool):
    if param.type_name is None:  # a Stream: see TYPE_NAMES
        raise RuntimeError("unknown parameter type")
    head = f"{sig.name}(): argument '{param.name}'"
    if is_kwd:
        raise TypeError(as_named(f"{head} must be {param.type_name}, not {tp_name(obj)}"))
    failed = param.failed_index(obj)
    if failed < 0 and varargs_eligible:
        failed = param.failed_index(args)
    if failed >= 0:
        items = obj if isinstance(obj, SEQUENCES) else args
        raise TypeError(
            as_named(
                f"{head} (position {arg_pos + 1}) must be {param.type_name}, but found element "
                f"of type {tp_name(items[failed])} at pos {failed}"
            )
        )
    raise TypeError(
        as_named(f"{head} (position {arg_pos + 1}) must be {param.type_name}, not {tp_name(obj)}")
    )


class PythonArgParser:
    """Binds a call to the first of several Python signatures that accepts it."""

    def __init__(self, signatures: list[str], *, numbers_as_tensors: bool = False):
        self.signatures = [
            FunctionSignature(fmt, index, numbers_as_tensors)
            for index, fmt in enumerate(signatures)
        ]
        if not self.signatures:
            raise ValueError("PythonArgParser needs at least one signature")
        self.function_name = self.signatures[0].name
        # Check deprecated signatures last (a stable partition, as in PyTorch).
        self._order = [s for s in self.signatures if not s.deprecated]
        self._order += [s for s in self.signatures if s.deprecated]

    def parse(parser, args: tuple, kwargs: dict | None = None, self=None) -> tuple[int, list]:  # noqa: N805
        """The index of the first matching signature and its values in parameter order."""
        count = len(args)
        for sig in parser._order:
            try:
                if kwargs:
                    values = _kwargs_bind(sig, args, kwargs)
                else:
                    values = sig.binders[count](args) if count <= sig.max_pos_args else None
                    if values is None and sig.intlist_first:
                        values = _varargs_bind(sig, args)
            except DeferredError:  # a value refused after its type matched: bind it fully
                values = _bind(sig, args, kwargs, False)
            if values is not None:
                if sig.needs_finish:
                    parser._finish(sig, values)
                return sig.index, values
        parser._raise(args, kwargs)

    def _finish(self, sig: FunctionSignature, values: list):
        for position in reversed(sig.deferred):  # the last refused value: see _bind
            if values[position].__class__ is UnpackError:
                _options_first(sig, values)
                raise values[position].error()
        if sig.deprecated:
            self._warn_deprecated(sig)

    def _raise(self, args: tuple, kwargs: dict | None):
        """print_error: the one plausible signature's own error, else the summary."""
        if len(self.signatures) == 1:
            _bind(self.signatures[0], args, kwargs, True)
        num_args = len(args) + (len(kwargs) if kwargs else 0)
        plausible = [
            sig
            for sig in self._order
            if sig.min_args <= num_args <= sig.max_args and not sig.hidden
        ]
        if len(plausible) == 1:
            _bind(plausible[0], args, kwargs, True)
        raise TypeError(
            as_named(format_invalid_args(args, kwargs, self.function_name + "()", self.options()))
        )

    def options(self) -> list[str]:
        """get_signatures: the printed signatures that are not hidden."""
        return [str(sig) for sig in self._order if not sig.hidden]

    def _warn_deprecated(self, sig: FunctionSignature):
        global _deprecation_warned
        if _deprecation_warned:
            return
        _deprecation_warned = True
        message = f"This overload of {sig.name} is deprecated:\n\t{sig.name}{sig}"
        options = self.options()
        if options:
            message += "\nConsider using one of the following signatures instead:"
            message += "".join(f"\n\t{sig.name}{option}" for option in options)
        warnings.warn(message, UserWarning, stacklevel=5)  # the caller of the binding

    def __repr__(self) -> str:
        return f"PythonArgParser({[f'{s.name}{s}' for s in self.signatures]})"
