"""Which check of an in-place or out= arithmetic call speaks first, against torch: the
result-type check of TensorIterator before add's alpha check; on the Meta backend the
checks of torch's Python meta kernels (torch/_meta_registrations.py) instead of the
structured meta function's. Each call runs under both libraries and must raise the same
exception (type and message) or give the same result."""

from __future__ import annotations

import pytest
from autograd_support import same_outcome
from hypothesis import given, settings
from hypothesis import strategies as st

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool",
          "complex64"]  # fmt: skip


def _tensor(t, shape, dtype, device):
    return t.ones(shape, dtype=getattr(t, dtype), device=device)


ALPHA_CASES = {
    "complex_into_bfloat16_bool_alpha": ("bfloat16", 1j, True),
    "complex_tensor_into_bfloat16": ("bfloat16", "complex64", True),
    "complex_into_float": ("float32", 1j, True),
    "complex_into_bool": ("bool", 1j, True),
    "float_into_long_bool_alpha": ("int64", 1.5, True),
    "float_alpha_on_long": ("int64", 1, 1.5),
    "bool_alpha_on_float": ("float32", 1, True),
    "complex_alpha_on_float": ("float32", 1.0, 1j),
    "bool_into_bool_int_alpha": ("bool", True, 2),
}


@pytest.mark.parametrize("op", ["add_", "sub_", "add_out", "sub_out", "add"])
@pytest.mark.parametrize("name", sorted(ALPHA_CASES))
def test_alpha_is_checked_after_the_output(name, op):
    dtype, other, alpha = ALPHA_CASES[name]

    def program(t):
        x = _tensor(t, (3,), dtype, "cpu")
        y = _tensor(t, (3,), other, "cpu") if isinstance(other, str) else other
        if op.endswith("_out"):
            return getattr(t, op[:-4])(x, y, alpha=alpha, out=_tensor(t, (3,), dtype, "cpu"))
        if op.endswith("_"):
            return getattr(x, op)(y, alpha=alpha)
        return getattr(t, op)(x, y, alpha=alpha)

    same_outcome(program)


OTHERS = st.one_of(
    st.tuples(st.just("tensor"), st.sampled_from([(3,), (2, 3), (1,), (), (2,), (0,), (1, 3)]),
              st.sampled_from(DTYPES), st.sampled_from(["meta", "meta", "cpu"])),
    st.tuples(st.just("number"), st.sampled_from([2, 1.5, True, False, 1j, -3])),
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["mul_", "add_", "sub_", "div_"]),
    st.sampled_from([(3,), (2, 3), (0,), ()]),
    st.sampled_from(DTYPES),
    OTHERS,
    st.sampled_from([None, 1, 2, True, 1.5, 1j]),
)
def test_meta_inplace_arithmetic_as_torchs_python_meta_kernels(op, shape, dtype, other, alpha):
    def program(t):
        x = _tensor(t, shape, dtype, "meta")
        y = _tensor(t, *other[1:]) if other[0] == "tensor" else other[1]
        kwargs = {} if alpha is None or op in ("mul_", "div_") else {"alpha": alpha}
        result = getattr(x, op)(y, **kwargs)
        return result is x, tuple(result.shape), str(result.dtype).split(".")[1], x._version

    same_outcome(program)


@pytest.mark.parametrize("op", ["mul_", "add_", "div_"])
def test_a_meta_operand_takes_a_cpu_inplace_call_to_the_python_meta_kernel(op):
    """torch: the Meta kernel runs (the key set has Meta) and returns the CPU self as it is."""

    def program(t):
        x = t.ones(3)
        result = getattr(x, op)(t.ones(3, device="meta"))
        return result is x, x.tolist(), x._version

    same_outcome(program)


@pytest.mark.parametrize("dst", ["int64", "bool", "uint8", "float64", "complex64", "float16"])
@pytest.mark.parametrize("src_kind", ["leaf", "expanded", "non_leaf"])
def test_copy_into_a_non_differentiable_dtype_records_nothing(dst, src_kind):
    """VariableTypeManual's copy_: requires_grad &= isDifferentiableType(self.dtype)."""

    def program(t):
        leaf = t.tensor([1.5, -2.0, 3.0], requires_grad=True)
        src = {"leaf": leaf, "expanded": leaf[:1].expand(3), "non_leaf": leaf * 2}[src_kind]
        x = t.zeros(3, 2, dtype=getattr(t, dst)).t()  # (2, 3), transposed
        result = x.copy_(src)
        assert result is x
        grad_fn = None if result.grad_fn is None else result.grad_fn.name()
        return result.requires_grad, grad_fn, result.tolist(), result._version

    same_outcome(program)
