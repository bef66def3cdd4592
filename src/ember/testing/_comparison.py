"""torch.testing.assert_close: are two (nested) values close, and if not, PyTorch's message.

Layer: testing (the top, beside nn and functional). In: tensors, numbers, bools, None,
and sequences or mappings of them. Out: None, or the AssertionError (TypeError,
ValueError) torch.testing raises, with its text. Mirrors torch/testing/_comparison.py:
the inputs are first paired up leaf by leaf (a structural problem or an unusable pair
fails at once, before any value is compared), then each pair is compared and the first
mismatch is raised. See Note [Comparison pairs].
"""

from __future__ import annotations

import cmath
import collections.abc
import warnings

import numpy as np

from ember._c10 import dtypes
from ember._tensor import Tensor
from ember._tensor_ctors import as_tensor, tensor

__all__ = ["assert_allclose", "assert_close", "default_tolerances"]

# Note [Comparison pairs]
# -----------------------
# PyTorch tries, for each pair of leaves, the pair kinds None, bool, number, tensor-like
# in that order; the first that accepts both inputs compares them. A kind "accepts" by
# type alone (bool before number, since bool is an int), except tensor-likes, which also
# need both to be instances of one another's type and to convert with as_tensor. Errors
# found while pairing ignore the caller's `msg`; errors found while comparing use it.

# {dtype: (rtol, atol)}, torch.testing's defaults; every other dtype compares exactly
_DTYPE_PRECISIONS = {
    dtypes.float16: (0.001, 1e-5),
    dtypes.bfloat16: (0.016, 1e-5),
    dtypes.float32: (1.3e-6, 1e-5),
    dtypes.float64: (1e-7, 1e-7),
    dtypes.complex32: (0.001, 1e-5),
    dtypes.complex64: (1.3e-6, 1e-5),
    dtypes.complex128: (1e-7, 1e-7),
}
_NUMBER_DTYPES = {int: dtypes.int64, float: dtypes.float64, complex: dtypes.complex128}


class _Failure(Exception):
    """A mismatch found: the exception type to raise, its message and the item's path."""

    def __init__(self, kind, text: str, path: tuple = ()) -> None:
        super().__init__(text)
        self.kind = kind
        self.text = text
        self.path = path

    def error(self, msg=None) -> Exception:
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.text
        if self.path:
            text += "\n\nThe failure occurred for item " + "".join(str([p]) for p in self.path)
        return self.kind(msg(text) if callable(msg) else text)


def default_tolerances(*inputs, dtype_precisions=None) -> tuple[float, float]:
    """The loosest (rtol, atol) of the inputs' dtypes."""
    found = []
    for item in inputs:
        if isinstance(item, Tensor):
            found.append(item.dtype)
        elif isinstance(item, dtypes.dtype):
            found.append(item)
        else:
            raise TypeError(
                f"Expected a torch.Tensor or a torch.dtype, but got {type(item)} instead."
            )
    table = dtype_precisions or _DTYPE_PRECISIONS
    pairs = [table.get(d, (0.0, 0.0)) for d in found]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _tolerances(*inputs, rtol, atol, path):
    if (rtol is None) != (atol is None):
        missing = "rtol" if rtol is None else "atol"
        raise _Failure(
            ValueError,
            f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {missing}.",
            path,
        )
    if rtol is not None:
        return rtol, atol
    return default_tolerances(*inputs)


# -- messages -----------------------------------------------------------------------


def _mismatch_text(identifier, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol) -> str:
    exact = rtol == 0 and atol == 0

    def line(kind: str, diff, idx, tol) -> str:
        text = (
            f"{kind.title()} difference: {diff}"
            if idx is None
            else (f"Greatest {kind} difference: {diff} at index {idx}")
        )
        return text + ("" if exact else f" (up to {tol} allowed)") + "\n"

    text = f"{identifier} are not {'equal' if exact else 'close'}!\n\n"
    if extra:
        text += extra.strip() + "\n"
    text += line("absolute", abs_diff, abs_idx, atol)
    text += line("relative", rel_diff, rel_idx, rtol)
    return text.strip()


def _scalar_text(actual, expected, rtol, atol, identifier="Scalars") -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    extra = f"Expected {expected} but got {actual}."
    return _mismatch_text(identifier, extra, abs_diff, None, atol, rel_diff, None, rtol)


def _unravel(flat: int, shape) -> tuple:
    index = []
    for size in reversed(shape):
        flat, rest = divmod(flat, size)
        index.append(rest)
    return tuple(reversed(index))


def _tensor_text(actual, expected, matches, rtol, atol) -> str:
    total = matches.numel()
    mismatched = total - int(matches.sum().item())
    extra = f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})"
    left, right, same = actual.flatten(), expected.flatten(), matches.flatten()
    if not (actual.dtype.is_floating_point or actual.dtype.is_complex):
        left, right = left.to(dtypes.int64), right.to(dtypes.int64)
    abs_diff = (left - right).abs()
    abs_diff[same] = 0
    abs_max, abs_at = abs_diff.max(0)
    rel_diff = abs_diff / right.abs()
    rel_diff[same] = 0
    rel_max, rel_at = rel_diff.max(0)
    shape = tuple(matches.shape)
    return _mismatch_text(
        "Tensor-likes",
        extra,
        abs_max.item(),
        _unravel(int(abs_at.item()), shape),
        atol,
        rel_max.item(),
        _unravel(int(rel_at.item()), shape),
        rtol,
    )


# -- the pair kinds -----------------------------------------------------------------


class _Unsupported(Exception):
    """This pair kind does not take these inputs: try the next."""


def _none_pair(actual, expected, path, options):
    if actual is not None and expected is not None:
        raise _Unsupported

    def compare():
        if not (actual is None and expected is None):
            raise _Failure(AssertionError, f"None mismatch: {actual} is not {expected}", path)

    return compare


def _bool_pair(actual, expected, path, options):
    kinds = (bool, np.bool_)
    if not (isinstance(actual, kinds) and isinstance(expected, kinds)):
        raise _Unsupported
    actual, expected = bool(actual), bool(expected)

    def compare():
        if actual is not expected:
            raise _Failure(AssertionError, f"Booleans mismatch: {actual} is not {expected}", path)

    return compare


def _number_pair(actual, expected, path, options):
    kinds = (int, float, complex, np.number)
    if not (isinstance(actual, kinds) and isinstance(expected, kinds)):
        raise _Unsupported
    actual, expected = (v.item() if isinstance(v, np.number) else v for v in (actual, expected))
    rtol, atol = _tolerances(
        *[_NUMBER_DTYPES[type(v)] for v in (actual, expected)],
        rtol=options["rtol"],
        atol=options["atol"],
        path=path,
    )

    def compare():
        if options["check_dtype"] and type(actual) is not type(expected):
            raise _Failure(
                AssertionError,
                f"The (d)types do not match: {type(actual)} != {type(expected)}.",
                path,
            )
        if actual == expected:
            return
        if options["equal_nan"] and cmath.isnan(actual) and cmath.isnan(expected):
            return
        abs_diff = abs(actual - expected)
        if cmath.isfinite(abs_diff) and abs_diff <= atol + rtol * abs(expected):
            return
        raise _Failure(AssertionError, _scalar_text(actual, expected, rtol, atol), path)

    return compare


def _tensor_pair(actual, expected, path, options):
    if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
        raise _Unsupported
    if not options["allow_subclasses"] and type(actual) is not type(expected):
        raise _Unsupported
    try:
        actual, expected = (
            v if isinstance(v, Tensor) else as_tensor(v) for v in (actual, expected)
        )
    except Exception:  # noqa: BLE001 (as PyTorch: whatever as_tensor refuses is not a tensor-like)
        raise _Unsupported from None
    rtol, atol = _tolerances(
        actual, expected, rtol=options["rtol"], atol=options["atol"], path=path
    )
    return lambda: _compare_tensors(actual, expected, rtol, atol, path, options)


def _compare_tensors(actual, expected, rtol, atol, path, options) -> None:
    def differ(name, left, right):
        raise _Failure(
            AssertionError,
            f"The values for attribute '{name}' do not match: {left} != {right}.",
            path,
        )

    if actual.shape != expected.shape:
        differ("shape", actual.shape, expected.shape)
    if options["check_stride"] and actual.stride() != expected.stride():
        differ("stride()", actual.stride(), expected.stride())
    if options["check_device"] and actual.device != expected.device:
        differ("device", actual.device, expected.device)
    if options["check_dtype"] and actual.dtype != expected.dtype:
        differ("dtype", actual.dtype, expected.dtype)
    if actual.device.type == "meta" or expected.device.type == "meta":
        return
    if actual.device != expected.device:
        actual, expected = actual.cpu(), expected.cpu()
    if actual.dtype != expected.dtype:
        common = dtypes.promote_types(actual.dtype, expected.dtype)
        actual, expected = actual.to(common), expected.to(common)
    matches = actual.isclose(expected, rtol=rtol, atol=atol, equal_nan=options["equal_nan"])
    if matches.all().item():
        return
    if actual.dim() == 0:
        text = _scalar_text(actual.item(), expected.item(), rtol, atol)
    else:
        text = _tensor_text(actual, expected, matches, rtol, atol)
    raise _Failure(AssertionError, text, path)


_PAIR_KINDS = (
    ("NonePair", _none_pair),
    ("BooleanPair", _bool_pair),
    ("NumberPair", _number_pair),
    ("TensorLikePair", _tensor_pair),
)


def _is_sequence(value) -> bool:
    return isinstance(value, collections.abc.Sequence) and not isinstance(value, str)


def _pairs(actual, expected, path, options) -> list:
    """Every leaf pair of the two structures, as compare functions (Note [Comparison pairs])."""
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Failure(
                AssertionError,
                f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                path,
            )
        found = []
        for index in range(len(actual)):
            found.extend(_pairs(actual[index], expected[index], (*path, index), options))
        return found
    mapping = collections.abc.Mapping
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        return _mapping_pairs(actual, expected, path, options)
    for name, kind in _PAIR_KINDS:
        try:
            return [kind(actual, expected, path, options)]
        except _Unsupported:
            continue
        except _Failure:
            raise
        except Exception as error:
            raise RuntimeError(
                f"Originating a {name}() at item {''.join(str([p]) for p in path)} with\n\n"
                f"{type(actual).__name__}(): {actual}\n\nand\n\n"
                f"{type(expected).__name__}(): {expected}\n\n"
                "resulted in the unexpected exception above. If you are a user and see this "
                "message during normal operation please file an issue at "
                "https://github.com/pytorch/pytorch/issues. If you are a developer and working "
                "on the comparison functions, please except the previous error and raise an "
                "expressive `ErrorMeta` instead."
            ) from error
    raise _Failure(
        TypeError,
        f"No comparison pair was able to handle inputs of type {type(actual)} and "
        f"{type(expected)}.",
        path,
    )


def _mapping_pairs(actual, expected, path, options) -> list:
    actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
    if actual_keys != expected_keys:
        raise _Failure(
            AssertionError,
            "The keys of the mappings do not match:\n"
            f"Missing keys in the actual mapping: {sorted(expected_keys - actual_keys)}\n"
            f"Additional keys in the actual mapping: {sorted(actual_keys - expected_keys)}",
            path,
        )
    keys = actual_keys
    try:
        keys = sorted(keys)
    except Exception:  # noqa: BLE001, S110 (unsortable keys keep their set order, as in torch)
        pass
    found = []
    for key in keys:
        found.extend(_pairs(actual[key], expected[key], (*path, key), options))
    return found


def assert_close(
    actual,
    expected,
    *,
    allow_subclasses: bool = True,
    rtol=None,
    atol=None,
    equal_nan: bool = False,
    check_device: bool = True,
    check_dtype: bool = True,
    check_layout: bool = True,
    check_stride: bool = False,
    msg=None,
):
    """Raise unless `actual` and `expected` are close (see torch.testing.assert_close)."""
    __tracebackhide__ = True
    options = {
        "allow_subclasses": allow_subclasses,
        "rtol": rtol,
        "atol": atol,
        "equal_nan": equal_nan,
        "check_device": check_device,
        "check_dtype": check_dtype,
        "check_stride": check_stride,
    }
    try:
        compares = _pairs(actual, expected, (), options)
    except _Failure as failure:
        raise failure.error() from None
    for compare in compares:
        try:
            compare()
        except _Failure as failure:
            raise failure.error(msg) from None


_ALLCLOSE_PRECISIONS = {
    dtypes.float16: (1e-3, 1e-3),
    dtypes.float32: (1e-4, 1e-5),
    dtypes.float64: (1e-5, 1e-8),
}


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """The deprecated assert_allclose: assert_close with its own tolerances, dtypes promoted."""
    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
        "future release. Please use `torch.testing.assert_close()` instead. You can find "
        "detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning,
        stacklevel=2,
    )
    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = default_tolerances(actual, expected, dtype_precisions=_ALLCLOSE_PRECISIONS)
    assert_close(
        actual,
        expected,
        rtol=rtol,
        atol=atol,
        equal_nan=equal_nan,
        check_device=True,
        check_dtype=False,
        check_stride=False,
        msg=msg or None,
    )
