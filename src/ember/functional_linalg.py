"""torch.lu, the linear-algebra function PyTorch writes in Python in torch/functional.py.

Layer: torch face (beside ember.functional). In: A, pivot, get_infos, out. Out: the results of
aten::_lu_with_info (LU, pivots and, with get_infos, the info codes), reached exactly where
torch.functional calls torch._lu_with_info; out= tensors resized and copied into as there.
The return type depends on get_infos (boolean_dispatch in PyTorch). Mirrors torch/functional.py
(_lu_impl, _lu_with_infos, _lu_no_infos, _check_list_size) and Tensor.lu of torch/_tensor.py.
"""

from __future__ import annotations

from ember.aten._generated import python_functions as _VF

__all__ = ["lu", "tensor_lu"]


def _lu_impl(A, pivot=True, get_infos=False, out=None):  # noqa: N803 (PyTorch's names)
    return _VF._lu_with_info(A, pivot=pivot, check_errors=not get_infos)


def _check_list_size(out_len: int, get_infos: bool, out) -> None:
    if out_len - int(bool(get_infos)) != 2:
        raise TypeError(f"expected tuple of {2 + int(get_infos)} elements but got {out_len}")
    if not isinstance(out, (tuple, list)):
        raise TypeError(f"argument 'out' must be tuple of Tensors, not {type(out).__name__}")


def _lu(A, pivot, get_infos, out, count):  # noqa: N803
    result = _lu_impl(A, pivot, get_infos, out)
    if out is not None:
        _check_list_size(len(out), get_infos, out)
        for target, value in zip(out, result):
            target.resize_(value.shape).copy_(value)  # resize_as_, which ember lacks as a method
        return out
    return result if count == 3 else (result[0], result[1])


def lu(*args, **kwargs):
    """torch.lu(A, pivot=True, get_infos=False, out=None): (LU, pivots) or (LU, pivots, info)."""
    get_infos = (
        kwargs["get_infos"] if "get_infos" in kwargs else (args[2] if len(args) > 2 else False)
    )
    return _dispatch(*args, count=3 if get_infos else 2, **kwargs)


def _dispatch(A, pivot=True, get_infos=False, out=None, *, count):  # noqa: N803
    return _lu(A, pivot, get_infos, out, count)


def tensor_lu(self, pivot=True, get_infos=False):
    """Tensor.lu (torch/_tensor.py): _lu_with_info's results as a plain tuple."""
    LU, pivots, infos = _lu_impl(self, pivot, get_infos)  # noqa: N806
    return (LU, pivots, infos) if get_infos else (LU, pivots)
