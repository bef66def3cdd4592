"""0-dim tensors through every pointwise operator and reduction, against PyTorch 2.13.

A 0-dim result must be an ordinary tensor: modified in place (`add_`, `fill_`,
`y[...] = v`, `mul_`), it behaves as PyTorch's does (Note [NumPy scalars from
0-d operands]). The pointwise sweep takes every functional overload that
native_functions.yaml tags `pointwise`, so an operator added later is swept
too; the reductions, views and indexing of 0-dim tensors are listed below.
Backward through each of them is compared as well (values and grad_fn names).
"""

from __future__ import annotations

import warnings
from functools import partial

import numpy as np
import pytest
from oracle import torch

import ember
from ember._dispatch.dispatcher import dispatcher

DTYPES = ["float32", "float64", "int64", "bool"]


def _value(lib, dtype: str, which: int):
    values = {"bool": [True, False], "int64": [3, -2]}.get(dtype, [1.5, -2.25])
    return lib.tensor(values[which], dtype=getattr(lib, dtype))


def _tagged_overloads(tag: str) -> list[str]:
    """`name.overload` of every functional aten overload with ``tag``."""
    found = []
    for qualified in dispatcher.all_op_names():
        namespace, _, name = qualified.partition("::")
        if namespace != "aten":
            continue
        packet = getattr(ember.ops.aten, name.partition(".")[0])
        for overload in packet.overloads():
            op = getattr(packet, overload)
            if tag in op.tags and not op._schema.is_mutable:
                found.append(f"{packet._qualified_op_name.split('::')[1]}.{overload}")
    return sorted(set(found))


POINTWISE = _tagged_overloads("pointwise")
REDUCTION = _tagged_overloads("reduction")

# Arguments that are neither tensors nor Scalars, and have no default.
_REQUIRED = {"rounding_mode": "floor", "threshold": 0.5, "dtype": "float64"}


def _arguments(lib, op, dtype: str, dim=None) -> list:
    """Arguments for ``op``: 0-dim tensors, Scalar 2, ``dim`` (a dim or dim list
    argument, as the schema types it, when not None), defaults for the rest."""
    tensors = iter([_value(lib, dtype, 0), _value(lib, dtype, 1), _value(lib, dtype, 1)])
    args = []
    for argument in op._schema.arguments:
        kind = str(argument.type)
        if argument.kwarg_only and argument.has_default_value():
            break
        if argument.name == "dim" and dim is not None:
            args.append([dim] if "[" in kind else dim)
        elif argument.name == "dtype" and not argument.has_default_value():
            args.append(getattr(lib, _REQUIRED["dtype"]))
        elif argument.name in _REQUIRED:
            args.append(_REQUIRED[argument.name])
        elif kind.startswith("Tensor"):
            args.append(next(tensors))
        elif kind in ("number", "Scalar", "number?", "Scalar?"):
            args.append(2)
        elif argument.has_default_value():
            args.append(argument.default_value)
        elif argument.name == "dim":
            args.append([0] if "[" in kind else 0)
        else:
            raise AssertionError(f"no argument for {argument.name} of {op}")
    return args


def _outcome(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(), None
    except Exception as error:  # noqa: BLE001 (compared with torch's)
        return None, error


def _grad_fn_name(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def _same_tensor(e, t) -> None:
    assert tuple(e.shape) == tuple(t.shape)
    assert tuple(e.stride()) == tuple(t.stride())
    assert str(e.dtype).rpartition(".")[2] == str(t.dtype).rpartition(".")[2]
    assert e.requires_grad == t.requires_grad
    assert _grad_fn_name(e) == _grad_fn_name(t)
    assert e._is_zerotensor() == t._is_zerotensor()  # sgn_backward's ZeroTensor
    if t._is_zerotensor():
        return
    expected = t.detach().numpy()
    got = np.asarray(e.detach().numpy())
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=0, equal_nan=True)


def _same(e, t) -> None:
    if isinstance(t, (tuple, list)):
        assert len(e) == len(t)
        for a, b in zip(e, t):
            _same(a, b)
    elif isinstance(t, torch.Tensor):
        _same_tensor(e, t)
    else:
        assert e == t


def _same_outcome(e_fn, t_fn):
    """Both raise the same error, or both return the same thing (returned, else None)."""
    t, t_error = _outcome(t_fn)
    e, e_error = _outcome(e_fn)
    if t_error is not None or e_error is not None:
        assert type(e_error).__name__ == type(t_error).__name__, (e_error, t_error)
        assert str(e_error) == str(t_error)
        return None
    _same(e, t)
    return e, t


def _first_tensor(result):
    if isinstance(result, (tuple, list)):
        return result[0] if result else None
    return result


MODIFICATIONS = {
    "add_": lambda lib, y: y.add_(1),
    "mul_": lambda lib, y: y.mul_(lib.tensor(3)),
    "fill_": lambda lib, y: y.fill_(7),
    "setitem": lambda lib, y: y.__setitem__(Ellipsis, 5) or y,
    "setitem_tensor": lambda lib, y: y.__setitem__((), lib.tensor(4)) or y,
    "neg_": lambda lib, y: y.neg_(),
    "zero_": lambda lib, y: y.zero_(),
}


def _modified(modify, lib, fn):
    return modify(lib, _first_tensor(fn()).detach())


def _check_result_and_modifications(e_fn, t_fn) -> None:
    """`fn` on both libraries, then each in-place modification of a fresh result."""
    if _same_outcome(e_fn, t_fn) is None:
        return
    for modify in MODIFICATIONS.values():
        _same_outcome(
            partial(_modified, modify, ember, e_fn), partial(_modified, modify, torch, t_fn)
        )


def test_the_sweeps_cover_the_tagged_operators():
    names = {overload.partition(".")[0] for overload in POINTWISE}
    assert {"add", "mul", "div", "pow", "neg", "exp", "where", "clamp", "eq"} <= names
    names = {overload.partition(".")[0] for overload in REDUCTION}
    assert {"sum", "mean", "prod", "amax", "max", "std", "var", "all", "argmax"} <= names


@pytest.mark.parametrize("dim", [None, 0, -1, 1])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("overload", REDUCTION)
def test_reduction_on_zero_dim(overload, dtype, dim):
    name, _, which = overload.partition(".")
    e_op = getattr(getattr(ember.ops.aten, name), which)
    t_op = getattr(getattr(torch.ops.aten, name), which)
    _check_result_and_modifications(
        lambda: e_op(*_arguments(ember, e_op, dtype, dim)),
        lambda: t_op(*_arguments(torch, e_op, dtype, dim)),
    )


@pytest.mark.parametrize("dim", [None, 0, -1])
@pytest.mark.parametrize("overload", REDUCTION)
def test_reduction_backward_on_zero_dim(overload, dim):
    name, _, which = overload.partition(".")
    e_op = getattr(getattr(ember.ops.aten, name), which)
    t_op = getattr(getattr(torch.ops.aten, name), which)

    def run(lib, op):
        args = _arguments(lib, e_op, "float64", dim)
        args[0].requires_grad_()
        result = _first_tensor(op(*args))
        result.sum().backward()
        return result, args[0].grad

    _same_outcome(lambda: run(ember, e_op), lambda: run(torch, t_op))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("overload", POINTWISE)
def test_pointwise_on_zero_dim(overload, dtype):
    name, _, which = overload.partition(".")
    e_op = getattr(getattr(ember.ops.aten, name), which)
    t_op = getattr(getattr(torch.ops.aten, name), which)
    _check_result_and_modifications(
        lambda: e_op(*_arguments(ember, e_op, dtype)),
        lambda: t_op(*_arguments(torch, e_op, dtype)),
    )


# Python numbers beside a 0-dim tensor go through the arithmetic fast paths (and wrap
# the number as PyTorch does); reflected forms put the number first.
NUMBER_CASES = {
    "mul": lambda lib, x: x * 2,
    "rmul": lambda lib, x: 2 * x,
    "add": lambda lib, x: x + 1,
    "add_float": lambda lib, x: x + 0.5,
    "sub": lambda lib, x: x - 1,
    "rsub": lambda lib, x: 1 - x,
    "div": lambda lib, x: x / 2,
    "rdiv": lambda lib, x: 2 / x,
    "floordiv": lambda lib, x: x // 2,
    "mod": lambda lib, x: x % 2,
    "pow": lambda lib, x: x**2,
    "rpow": lambda lib, x: 2**x,
    "self_add": lambda lib, x: x + x,
    "self_mul": lambda lib, x: x * x,
    "self_sub": lambda lib, x: x - x,
    "self_div": lambda lib, x: x / x,
    "cmp": lambda lib, x: x > 0,
    "eq": lambda lib, x: x == x,
    "neg": lambda lib, x: -x,
    "abs": lambda lib, x: abs(x),
    "where": lambda lib, x: lib.where(x > 0, x, 0),
    "maximum": lambda lib, x: lib.maximum(x, x),
    "clamp_min": lambda lib, x: x.clamp(min=0),
    "clamp_both": lambda lib, x: x.clamp(-1, 1),
    "relu": lambda lib, x: lib.relu(x),
    "gelu": lambda lib, x: lib.nn.functional.gelu(x),
    "gelu_tanh": lambda lib, x: lib.nn.functional.gelu(x, approximate="tanh"),
    "sigmoid": lambda lib, x: lib.sigmoid(x),
    "masked_fill": lambda lib, x: x.masked_fill(x > 0, 1),
    "sign": lambda lib, x: x.sign(),
    "isnan": lambda lib, x: x.isnan(),
    "logical_not": lambda lib, x: x.logical_not(),
    "mixed_tensor": lambda lib, x: x + lib.ones(1),
    "with_float64": lambda lib, x: x * lib.tensor(2.0, dtype=lib.float64),
}

REDUCTIONS = {
    "sum": lambda lib, x: x.sum(),
    "sum_dim": lambda lib, x: x.sum(0),
    "sum_dim_keep": lambda lib, x: x.sum(-1, keepdim=True),
    "sum_dims": lambda lib, x: x.sum([]),
    "mean": lambda lib, x: x.mean(),
    "mean_dim": lambda lib, x: x.mean(dim=0),
    "mean_dim_list": lambda lib, x: x.mean(dim=[0], keepdim=True),
    "prod": lambda lib, x: x.prod(),
    "prod_dim": lambda lib, x: x.prod(0),
    "std": lambda lib, x: x.std(),
    "std_dim": lambda lib, x: x.std(dim=0),
    "var": lambda lib, x: x.var(correction=0),
    "var_dim": lambda lib, x: x.var(dim=0, correction=0),
    "amax": lambda lib, x: x.amax(),
    "amax_dim": lambda lib, x: x.amax(0),
    "amin_dim": lambda lib, x: x.amin(-1),
    "max": lambda lib, x: x.max(),
    "min": lambda lib, x: x.min(),
    "max_dim": lambda lib, x: x.max(0),
    "min_dim": lambda lib, x: x.min(0, keepdim=True),
    "argmax": lambda lib, x: x.argmax(),
    "argmin_dim": lambda lib, x: x.argmin(0),
    "all": lambda lib, x: x.all(),
    "any_dim": lambda lib, x: x.any(0),
    "logsumexp": lambda lib, x: x.logsumexp(0),
    "cumsum": lambda lib, x: x.cumsum(0),
    "softmax": lambda lib, x: x.softmax(0),
    "log_softmax": lambda lib, x: x.log_softmax(-1),
    "sort": lambda lib, x: x.sort(),
    "topk": lambda lib, x: x.topk(1),
    "dot": lambda lib, x: lib.ones(2, dtype=x.dtype).dot(lib.ones(2, dtype=x.dtype)),
    "mse": lambda lib, x: lib.nn.functional.mse_loss(x, x * 0),
}

VIEWS_AND_INDEXING = {
    "index_select": lambda lib, x: x.index_select(0, lib.tensor([0])),
    "index_select_0d": lambda lib, x: x.index_select(0, lib.tensor(0)),
    "index_select_last": lambda lib, x: x.index_select(-1, lib.tensor([0])),
    "index_select_two": lambda lib, x: x.index_select(0, lib.tensor([0, 0])),
    "gather": lambda lib, x: x.gather(0, lib.tensor(0)),
    "gather_1d": lambda lib, x: x.gather(0, lib.tensor([0, 0])),
    "gather_last": lambda lib, x: x.gather(-1, lib.tensor(0)),
    "scatter": lambda lib, x: x.scatter(0, lib.tensor(0), 5),
    "flip": lambda lib, x: x.flip(0),
    "flip_last": lambda lib, x: x.flip(-1),
    "flip_none": lambda lib, x: x.flip([]),
    "flip_out_of_range": lambda lib, x: x.flip(1),
    "flip_twice": lambda lib, x: x.flip(0, 0),
    "roll": lambda lib, x: x.roll(1),
    "roll_dim": lambda lib, x: x.roll(1, 0),
    "roll_last": lambda lib, x: x.roll(1, -1),
    "roll_far": lambda lib, x: x.roll(1, 1),
    "roll_dims": lambda lib, x: x.roll([1, 2], [0, 0]),
    "roll_no_shifts": lambda lib, x: x.roll([], []),
    "index_5": lambda lib, x: x[5],
    "index_minus_1": lambda lib, x: x[-1],
    "index_0": lambda lib, x: x[0],
    "index_ellipsis": lambda lib, x: x[...],
    "index_none": lambda lib, x: x[None],
    "index_true": lambda lib, x: x[True],
    "index_false": lambda lib, x: x[False],
    "index_slice": lambda lib, x: x[:],
    "index_tensor": lambda lib, x: x[lib.tensor(0)],
    "index_none_5": lambda lib, x: x[None, 5],
    "unsqueeze": lambda lib, x: x.unsqueeze(0),
    "squeeze": lambda lib, x: x.squeeze(0),
    "reshape": lambda lib, x: x.reshape(1),
    "t": lambda lib, x: x.t(),
    "transpose": lambda lib, x: x.transpose(0, -1),
    "permute": lambda lib, x: x.permute([]),
    "stack": lambda lib, x: lib.stack([x, x]),
    "clone": lambda lib, x: x.clone(),
    "to": lambda lib, x: x.to(lib.float64),
    "where_self": lambda lib, x: lib.where(x > 0, x, x),
}

CASES = {**NUMBER_CASES, **REDUCTIONS, **VIEWS_AND_INDEXING}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_zero_dim_results_modified_in_place(case, dtype):
    fn = CASES[case]
    _check_result_and_modifications(
        lambda: fn(ember, _value(ember, dtype, 0)),
        lambda: fn(torch, _value(torch, dtype, 0)),
    )


def _backward(lib, fn, dtype):
    x = _value(lib, dtype, 0).requires_grad_()
    result = _first_tensor(fn(lib, x))
    result.sum().backward()
    return result, x.grad


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_zero_dim_backward(case, dtype):
    fn = CASES[case]
    _same_outcome(lambda: _backward(ember, fn, dtype), lambda: _backward(torch, fn, dtype))


@pytest.mark.parametrize("overload", POINTWISE)
def test_pointwise_backward_on_zero_dim(overload):
    name, _, which = overload.partition(".")
    e_op = getattr(getattr(ember.ops.aten, name), which)
    t_op = getattr(getattr(torch.ops.aten, name), which)

    def run(lib, op):
        args = _arguments(lib, e_op, "float32")
        leaves = [a.requires_grad_() for a in args if isinstance(a, lib.Tensor)]
        result = _first_tensor(op(*args))
        result.sum().backward()
        return result, [leaf.grad for leaf in leaves]

    _same_outcome(lambda: run(ember, e_op), lambda: run(torch, t_op))
