"""Composite contractions: einsum (with its pairwise sumproduct), tensordot, inner, kron.

Layer: aten/native, CompositeImplicitAutograd. In: the full schema argument list. Out:
what the operators they call return (unsqueeze, permute, diagonal, sum, reshape, bmm,
mm, mul, _unsafe_view), in PyTorch's order, so a dispatch mode sees PyTorch's list and
autograd records PyTorch's nodes. Mirrors einsum / sumproduct_pair / tensordot of
ATen/native/Linear.cpp and inner / KronImpl of ATen/native/LinearAlgebra.cpp.
"""

from __future__ import annotations

import math

from ember._c10 import dtypes
from ember._c10.tensor_impl import shape_text
from ember.aten.native import at
from ember.aten.native.common import wrap_dim
from ember.aten.native.resize import resize_output

__all__ = ["einsum", "inner", "inner_out", "kron", "kron_out", "tensordot", "tensordot_out"]

_LETTERS = 26
_TOTAL_LABELS = 2 * _LETTERS
_ELLIPSIS = _TOTAL_LABELS


def _subscript(label: str) -> int:
    return ord(label) - ord("A") if label.isupper() else ord(label) - ord("a") + _LETTERS


def _label(subscript: int) -> str:
    if subscript < _LETTERS:
        return chr(subscript + ord("A"))
    return chr(subscript - _LETTERS + ord("a"))


def _is_alpha(label: str) -> bool:
    return label.isascii() and label.isalpha()


def _dims_bitset(dims, ndim: int) -> list:
    seen = [False] * ndim
    for d in dims:
        d = wrap_dim(d, ndim)
        if seen[d]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen[d] = True
    return seen


def _sumproduct_pair(left, right, sum_dims_, keepdim: bool):
    """(left * right).sum(sum_dims) through permute, reshape and bmm."""
    if left.dim() != right.dim():
        raise RuntimeError("number of dimensions must match")
    if not sum_dims_:
        return at.mul_Tensor(left, right)
    dim = left.dim()
    sum_dims = _dims_bitset(sum_dims_, dim)
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(dim):
        sl = left._sizes[i] != 1
        sr = right._sizes[i] != 1
        if sum_dims[i]:
            if sl and sr:
                if left._sizes[i] != right._sizes[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left._sizes[i]
            elif sl:
                left = at.sum_dim_IntList(left, [i], True, None)
            elif sr:
                right = at.sum_dim_IntList(right, [i], True, None)
        elif sl and sr:
            if left._sizes[i] != right._sizes[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left._sizes[i]
        elif sl:
            lo.append(i)
            lo_size *= left._sizes[i]
        else:
            ro.append(i)
            ro_size *= right._sizes[i]
    sum_list = list(sum_dims_)
    out_size = (
        [left._sizes[d] for d in lro]
        + [left._sizes[d] for d in lo]
        + [1] * len(sum_list)
        + [right._sizes[d] for d in ro]
    )
    lpermutation = lro + lo + sum_list + ro
    rpermutation = lro + sum_list + ro + lo
    opermutation = [-1] * len(out_size)
    for i, d in enumerate(lro + lo + sum_list + ro):
        opermutation[d] = i
    left = at.reshape(at.permute(left, lpermutation), [lro_size, lo_size, sum_size])
    right = at.reshape(at.permute(right, rpermutation), [lro_size, sum_size, ro_size])
    result = at.bmm(left, right)
    result = at.permute(at.view(result, out_size), opermutation)
    if not keepdim:
        sizes = [s for i, s in enumerate(result._sizes) if not sum_dims[i]]
        result = at.view(result, sizes)
    return result


def _parse_operands(lhs: str, num_ops: int) -> list:
    op_labels: list = [[] for _ in range(num_ops)]
    ell_in_input = False
    curr_op = 0
    i = 0
    while i < len(lhs):
        label = lhs[i]
        if label == " ":
            pass
        elif label == ".":
            if ell_in_input:
                raise RuntimeError(
                    f"einsum(): found '.' for operand {curr_op} for which an ellipsis was "
                    "already found"
                )
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise RuntimeError(
                    f"einsum(): found '.' for operand {curr_op} that is not part of any ellipsis"
                )
            i += 2
            op_labels[curr_op].append(_ELLIPSIS)
            ell_in_input = True
        elif label == ",":
            curr_op += 1
            if curr_op >= num_ops:
                raise RuntimeError(
                    "einsum(): fewer operands were provided than specified in the equation"
                )
            ell_in_input = False
        else:
            if not _is_alpha(label):
                raise RuntimeError(
                    f"einsum(): invalid subscript given at index {i} in the equation string, "
                    "subscripts must be in [a-zA-Z]"
                )
            op_labels[curr_op].append(_subscript(label))
        i += 1
    if curr_op != num_ops - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return op_labels


def einsum(equation, tensors, path):
    operands = list(tensors)
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    num_ops = len(operands)
    if path is not None:
        path_size = 1 if num_ops == 1 else (num_ops - 1) * 2
        if len(path) != path_size:
            raise RuntimeError(
                "einsum(): expected contraction path given in path parameter to have size "
                f"{path_size} but got {len(path)}"
            )
    arrow_pos = equation.find("->")
    lhs = equation if arrow_pos < 0 else equation[:arrow_pos]
    op_labels = _parse_operands(lhs, num_ops)
    label_count = [0] * _TOTAL_LABELS
    ell_num_dim = 0
    for i, operand in enumerate(operands):
        labels = op_labels[i]
        ndims = operand.dim()
        nlabels = len(labels)
        has_ellipsis = False
        for label in labels:
            if label == _ELLIPSIS:
                nlabels -= 1
                has_ellipsis = True
                ell_num_dim = max(ell_num_dim, ndims - nlabels)
            else:
                label_count[label] += 1
        if not (nlabels <= ndims if has_ellipsis else nlabels == ndims):
            relation = (
                ") is more than the number of dimensions ("
                if has_ellipsis
                else ") does not match the number of dimensions ("
            )
            tail = "" if has_ellipsis else " and no ellipsis was given"
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({nlabels}{relation}"
                f"{ndims}) for operand {i}{tail}"
            )
    label_perm_index = [-1] * _TOTAL_LABELS
    perm_index = 0
    ell_index = 0
    ell_in_output = False
    if arrow_pos < 0:
        perm_index = ell_num_dim
        ell_in_output = True
        for label in range(_TOTAL_LABELS):
            if label_count[label] == 1:
                label_perm_index[label] = perm_index
                perm_index += 1
    else:
        rhs = equation[arrow_pos + 2 :]
        i = 0
        while i < len(rhs):
            label = rhs[i]
            if label == " ":
                pass
            elif label == ".":
                if ell_in_output:
                    raise RuntimeError(
                        "einsum(): found '.' for output but an ellipsis (...) was already found"
                    )
                if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                    raise RuntimeError(
                        "einsum(): found '.' for output that is not part of any ellipsis (...)"
                    )
                i += 2
                ell_index = perm_index
                perm_index += ell_num_dim
                ell_in_output = True
            else:
                if not _is_alpha(label):
                    raise RuntimeError(
                        f"einsum(): invalid subscript given at index {len(lhs) + 2 + i} in the "
                        "equation string, subscripts must be in [a-zA-Z]"
                    )
                index = _subscript(label)
                if not (label_count[index] > 0 and label_perm_index[index] == -1):
                    why = (
                        " appears more than once in the output"
                        if label_perm_index[index] > -1
                        else " does not appear in the equation for any input operand"
                    )
                    raise RuntimeError(f"einsum(): output subscript {label}{why}")
                label_perm_index[index] = perm_index
                perm_index += 1
            i += 1
    out_num_dim = perm_index
    if not ell_in_output:
        ell_index = perm_index
        perm_index += ell_num_dim
    for label in range(_TOTAL_LABELS):
        if label_count[label] > 0 and label_perm_index[label] == -1:
            label_perm_index[label] = perm_index
            perm_index += 1

    label_size = [1] * _TOTAL_LABELS
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * perm_index
    ops = []
    for i, op in enumerate(operands):
        permutation = [-1] * perm_index
        dim = 0
        for s in op_labels[i]:
            if s == _ELLIPSIS:
                ndim = operands[i].dim() - (len(op_labels[i]) - 1)
                for j in range(ell_num_dim - ndim, ell_num_dim):
                    if op._sizes[dim] != 1:
                        if not (ell_sizes[j] == 1 or ell_sizes[j] == op._sizes[dim]):
                            raise RuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {i}"
                                f"has size {op._sizes[dim]} which does not broadcast with "
                                f"previously seen ellipsis with size {ell_sizes[j]} for the "
                                "respective dimension"
                            )
                        ell_sizes[j] = op._sizes[dim]
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[label_perm_index[s]] == -1:
                if op._sizes[dim] != 1:
                    if not (label_size[s] == 1 or label_size[s] == op._sizes[dim]):
                        raise RuntimeError(
                            f"einsum(): subscript {_label(s)} has size {op._sizes[dim]} for "
                            f"operand {i} which does not broadcast with previously seen size "
                            f"{label_size[s]}"
                        )
                    label_size[s] = op._sizes[dim]
                    dim_counts[label_perm_index[s]] += 1
                permutation[label_perm_index[s]] = dim
                dim += 1
            else:
                prev_dim = permutation[label_perm_index[s]]
                if op._sizes[dim] != op._sizes[prev_dim]:
                    raise RuntimeError(
                        f"einsum(): subscript {_label(s)} is repeated for operand {i} but the "
                        f"sizes don't match, {op._sizes[dim]} != {op._sizes[prev_dim]}"
                    )
                op = at.movedim_int(at.diagonal(op, 0, prev_dim, dim), -1, prev_dim)
        for k, val in enumerate(permutation):
            if val == -1:
                op = at.unsqueeze(op, dim)
                permutation[k] = dim
                dim += 1
        ops.append(at.permute(op, permutation))

    contract_path = list(path) if path is not None else []
    position = 0
    while len(ops) > 1:
        i, j = 0, 1
        if path is not None:
            i, j = contract_path[position], contract_path[position + 1]
            position += 2
            if j < i:
                i, j = j, i
            if not (i != j and i >= 0 and j < len(ops)):
                why = (
                    ") cannot contract an operand with itself"
                    if i == j
                    else ") operand index is out of bounds"
                )
                raise RuntimeError(f"einsum(): invalid contraction ({i}, {j}{why}")
        a, b = ops[i], ops[j]
        del ops[j]
        del ops[i]
        sum_dims, a_dims_to_sum, b_dims_to_sum = [], [], []
        for dim in range(out_num_dim, perm_index):
            if a._sizes[dim] != 1 and b._sizes[dim] != 1:
                dim_counts[dim] -= 1
                if dim_counts[dim] == 1:
                    sum_dims.append(dim)
                    dim_counts[dim] = 0
            elif dim_counts[dim] == 1:
                if a._sizes[dim] != 1:
                    a_dims_to_sum.append(dim)
                    dim_counts[dim] = 0
                elif b._sizes[dim] != 1:
                    b_dims_to_sum.append(dim)
                    dim_counts[dim] = 0
        if a_dims_to_sum:
            a = at.sum_dim_IntList(a, a_dims_to_sum, True, None)
        if b_dims_to_sum:
            b = at.sum_dim_IntList(b, b_dims_to_sum, True, None)
        product = _sumproduct_pair(a, b, sum_dims, True)
        if path is not None:
            ops.append(product)
        else:
            ops.insert(0, product)

    if perm_index - out_num_dim > 0:
        if num_ops > 1:
            return at.view(ops[0], list(ops[0]._sizes[:out_num_dim]))
        return at.sum_dim_IntList(ops[0], list(range(out_num_dim, perm_index)), False, None)
    return ops[0]


def tensordot(self, other, dims_self, dims_other):
    dims1, dims2 = list(dims_self), list(dims_other)
    if len(dims1) != len(dims2):
        raise RuntimeError("both dimension lists should have same length")
    if self.dtype is not other.dtype:
        raise RuntimeError("both inputs should have same dtype")
    csize = 1
    t1, t2 = self, other
    for d1, d2 in zip(dims1, dims2):
        s1 = self._sizes[wrap_dim(d1, self.dim())]
        s2 = other._sizes[wrap_dim(d2, other.dim())]
        if s2 == 1:
            t1 = at.sum_dim_IntList(t1, [d1], True, t1.dtype)
        elif s1 == 1:
            t2 = at.sum_dim_IntList(t2, [d2], True, t2.dtype)
        else:
            if s1 != s2:
                raise RuntimeError(
                    f"contracted dimensions need to match, but first has size {s1} in dim {d1} "
                    f"and second has size {s2} in dim {d2}"
                )
            csize *= s1
    cdims1 = _dims_bitset(dims1, self.dim())
    cdims2 = _dims_bitset(dims2, other.dim())
    p1 = [i for i in range(self.dim()) if not cdims1[i]]
    p2 = list(dims2)
    rsizes = [t1._sizes[i] for i in p1]
    size1 = math.prod(rsizes)
    kept2 = [i for i in range(other.dim()) if not cdims2[i]]
    size2 = math.prod(t2._sizes[i] for i in kept2)
    rsizes += [t2._sizes[i] for i in kept2]
    p1 += dims1
    p2 += kept2
    t1 = at.reshape(at.permute(t1, p1), [size1, csize])
    t2 = at.reshape(at.permute(t2, p2), [csize, size2])
    return at.reshape(at.mm(t1, t2), rsizes)


def tensordot_out(self, other, dims_self, dims_other, out):
    result = tensordot(self, other, dims_self, dims_other)
    if not (out.device == self.device == other.device):
        raise RuntimeError(
            "tensordot: Expected the output and input tensors to be on the same device, but got "
            f"the output tensor on {out.device}, input tensor a on {self.device}, and input "
            f"tensor b on {other.device}"
        )
    if result.dtype is not out.dtype:
        raise RuntimeError(
            f"tensordot: Expected the output tensor to have dtype "
            f"{dtypes.scalar_type_name(result.dtype)}, but got an output tensor with dtype "
            f"{dtypes.scalar_type_name(out.dtype)}"
        )
    resize_output(out, result._sizes)
    return at.copy_(out, result, False)


def inner(self, other):
    if self.dim() == 0 or other.dim() == 0:
        return at.mul_Tensor(self, other)
    if self._sizes[-1] != other._sizes[-1]:
        raise RuntimeError(
            "inner() the last dimension must match on both input tensors but got shapes "
            f"{shape_text(self._sizes)} and {shape_text(other._sizes)}"
        )
    return at.tensordot(self, other, [-1], [-1])


def inner_out(self, other, out):
    if self.dim() == 0 or other.dim() == 0:
        return at.mul_out(self, other, out)
    if self._sizes[-1] != other._sizes[-1]:
        raise RuntimeError(
            "inner() the last dimension must match on both input tensors but got shapes "
            f"{shape_text(self._sizes)} and {shape_text(other._sizes)}"
        )
    return at.tensordot_out(self, other, [-1], [-1], out)


def _kron_shapes(self, other):
    maxdim = max(self.dim(), other.dim())
    pad_self = maxdim - self.dim()
    pad_other = maxdim - other.dim()
    a_reshape, b_reshape, result_reshape = [], [], []
    for i in range(maxdim):
        a = self._sizes[i - pad_self] if i >= pad_self else 1
        b = other._sizes[i - pad_other] if i >= pad_other else 1
        a_reshape += [a, 1]
        b_reshape += [1, b]
        result_reshape.append(a * b)
    return a_reshape, b_reshape, result_reshape


def kron(self, other):
    a_reshape, b_reshape, result_reshape = _kron_shapes(self, other)
    self_view = at._unsafe_view(self, a_reshape)
    other_view = at._unsafe_view(other, b_reshape)
    return at._unsafe_view(at.mul_Tensor(self_view, other_view), result_reshape)


def kron_out(self, other, out):
    a_reshape, b_reshape, result_reshape = _kron_shapes(self, other)
    self_view = at._unsafe_view(self, a_reshape)
    other_view = at._unsafe_view(other, b_reshape)
    mul_shape = []
    for i in range(len(result_reshape)):
        mul_shape += [a_reshape[2 * i], b_reshape[2 * i + 1]]
    resize_output(out, result_reshape)
    at.mul_out(self_view, other_view, at._unsafe_view(out, mul_shape))
    return out
