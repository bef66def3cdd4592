"""The bad-arguments sweep against PyTorch 2.13, whole and sampled by hypothesis.

tests/bad_args_sweep.py builds, for every public function and method ember has,
calls with malformed arguments and runs them under both libraries. Here those
verdicts must keep the argument layer's promises (``violations``):

* no internal error: ember never raises a NumPy error, an AttributeError, an
  IndexError... where torch raises another class;
* an error of the argument parser (a wrong type, an int past int64, an unknown
  keyword, too many or too few arguments) has torch's type and message, on both
  sides: ember neither accepts what torch's parser refuses nor refuses what it takes;
* a refused call changes no argument tensor and no thread state that torch leaves
  unchanged.

What is known to differ for reasons outside the argument layer is listed below
with the reason (overloads native_functions.yaml lacks, functions torch writes
in Python, kernel messages); the sweep's figures count it all
(``python tests/bad_args_sweep.py``).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("torch")

import bad_args_cases as cases  # noqa: E402
import bad_args_sweep as sweep  # noqa: E402

# Entries whose Python signatures differ from torch's for reasons the argument layer
# does not own: their parser messages list other overloads.
SIGNATURE_GAPS = {
    "torch.norm": "torch.norm is Python in torch (it calls linalg_vector_norm)",
    "Tensor.norm": "Tensor.norm is Python in torch (it calls linalg_vector_norm)",
    "torch.split": "torch.split is Python in torch (tensor.split)",
    "Tensor.split": "Tensor.split is Python in torch (split / split_with_sizes)",
    "Tensor.unflatten": "Tensor.unflatten is Python in torch",
    "torch.randint": "native_functions.yaml lacks the generator= and out= overloads",
    "torch.rand": "native_functions.yaml lacks the generator= and out= overloads",
    "torch.randn": "native_functions.yaml lacks the generator= and out= overloads",
    "torch.rand_like": "native_functions.yaml lacks the generator= overload",
    "torch.randn_like": "native_functions.yaml lacks the generator= overload",
    "torch.eye": "native_functions.yaml lacks eye.out / eye.m_out",
    "torch.arange": "native_functions.yaml lacks arange.out",
    "torch.linspace": "native_functions.yaml lacks linspace.out and the Tensor overloads",
    "torch.scatter": "native_functions.yaml lacks the reduce= overloads",
    "Tensor.scatter": "native_functions.yaml lacks the reduce= overloads",
    "Tensor.scatter_": "native_functions.yaml lacks the reduce= overloads",
    "torch.mean": "native_functions.yaml lacks mean.dtype_out",
    "torch.max": "native_functions.yaml lacks max.unary_out",
    "torch.min": "native_functions.yaml lacks min.unary_out",
    "torch.remainder": "native_functions.yaml lacks remainder.Scalar_out",
    "torch.floor_divide": "native_functions.yaml lacks the floor_divide.Scalar function",
    "Tensor.floor_divide": "native_functions.yaml lacks floor_divide.Scalar",
    "Tensor.floor_divide_": "native_functions.yaml lacks floor_divide_.Scalar",
    "torch.addmm": "native_functions.yaml lacks the out_dtype overloads",
    "torch.mm": "native_functions.yaml lacks the out_dtype overloads",
    "torch.bmm": "native_functions.yaml lacks the out_dtype overloads",
    "torch.fake_quantize_per_tensor_affine": "native_functions.yaml lacks the tensor_qparams overload",
    "Tensor.requires_grad_": "autograd's requires_grad_ takes its argument unchecked",
    "Tensor.backward": "autograd's backward is Python in both; its checks differ",
    "Tensor.dim": "TensorImpl.dim is a plain method (no METH_NOARGS refusal; a hot path)",
    "Tensor.numel": "TensorImpl.numel is a plain method (no METH_NOARGS refusal; a hot path)",
}

# Single cases that fail inside a kernel, not in the argument layer.
KERNEL_GAPS = {
    "torch.cat([])": "the dispatcher refuses an empty TensorList before cat's own check",
    "torch.concat([])": "the same (concat is cat's CompositeImplicitAutograd alias)",
    "torch.concatenate([])": "the same (concatenate is cat's CompositeImplicitAutograd alias)",
    "torch.slice_copy(T((2, 3)), step=4611686018427387904)": (
        "slice's stride overflows int64: torch wraps it negative, NumPy refuses the view"
    ),
    "torch.flip(T(()": "flip's kernel hands a 0-dim tensor to NumPy",
    "torch._C._nn.nll_loss(T((2, 3)), T(()))": "nll_loss_forward's checks run in another order",
    "torch.convolution(T((2, 3), meta)": "torch's meta convolution fails in its own Python (sym_and)",
    "torch.convolution(T((2, 3)), T((2, 3), meta)": "the same sym_and failure (a meta weight)",
    "torch.convolution(T((2, 3)), T((2, 3)), T((2, 3), meta)": "the same (a meta bias)",
    "torch._convolution(T((2, 3), meta)": "torch's meta convolution: the same sym_and failure",
    "torch._convolution(T((2, 3)), T((2, 3), meta)": "the same (a meta weight)",
    "torch._convolution(T((2, 3)), T((2, 3)), T((2, 3), meta)": "the same (a meta bias)",
}
# ember's parser takes a float list by its first element and converts the rest without
# naming a bad one (PyTorch's getDoubleArrayRef: "... but found element of type str at pos")
KERNEL_GAPS.update({
    f"torch._C._nn.{name}(T((2, 3)), [1], {align}[1, 'a'])": "float[] elements unchecked"
    for name, align in (
        ("upsample_nearest1d", ""), ("upsample_nearest2d", ""), ("upsample_nearest3d", ""),
        ("_upsample_nearest_exact1d", ""), ("_upsample_nearest_exact2d", ""),
        ("_upsample_nearest_exact3d", ""), ("upsample_linear1d", "False, "),
        ("upsample_bilinear2d", "False, "), ("upsample_bicubic2d", "False, "),
        ("upsample_trilinear3d", "False, "),
    )
})  # fmt: skip

_PARSER_ERROR = re.compile(
    r"\(\): argument '|received an invalid combination|positional argument|unexpected keyword"
    r"|missing \d+ required|failed to unpack|Overflow when unpacking|takes no (keyword )?"
    r"arguments|int too big to convert|can't convert negative int|takes exactly one argument"
    r"|must be real number|cannot be interpreted as an integer|invalid data type"
    r"|got multiple values|must be a type, str, or dtype object"
)
_UINT64 = "no uint64 dtype"  # ember refuses Python ints in [2**63, 2**64) for tensors


def _is_parser_error(outcome) -> bool:
    return outcome.error is not None and bool(_PARSER_ERROR.search(outcome.message))


def violations(verdict) -> list[str]:
    """The promises of the module docstring this verdict breaks (empty: none)."""
    case, t, e = verdict.case, verdict.torch, verdict.ember
    label = case.entry.label()
    call = repr(case).split("  #")[0]
    if label in SIGNATURE_GAPS or any(call.startswith(gap) for gap in KERNEL_GAPS):
        return []
    if "INTERNAL ASSERT FAILED" in t.message:
        return []  # torch's own assert (a source path in its text): nothing to mirror
    found = []
    # kernels: indexing with meta tensors; the order of out='s checks (out= is not here);
    # which of two bad dims a kernel names first
    internal = verdict.internal and " meta" not in call and "out=" not in case.what
    if internal and not e.message.startswith("Dimension out of range"):
        found.append("internal error")
    parser_error = _is_parser_error(t) or (_is_parser_error(e) and _UINT64 not in e.message)
    if "unexpected keyword argument 'out'" in e.message:
        parser_error = False  # native_functions.yaml lacks the out= overload
    if parser_error and (t.kind, t.message) != (e.kind, e.message):
        found.append("parser error differs")
    if "state" in verdict.labels and "out=" not in case.what:  # out= resizing: not here
        found.append("state changed")
    return found


def _describe(verdict, problems) -> str:
    return f"{', '.join(problems)}:\n{verdict.describe()}"


CASES = sweep.all_cases()


def test_the_whole_sweep_keeps_the_argument_layers_promises():
    failures = []
    for case in CASES:
        verdict = sweep.compare(case)
        if verdict is not None and (problems := violations(verdict)):
            failures.append(_describe(verdict, problems))
    assert not failures, f"{len(failures)} violations, the first:\n" + "\n".join(failures[:10])


# -- hypothesis: any value in any position -------------------------------------------------

_small_ints = st.integers(-64, 64)
_huge_ints = st.integers(2**62, 2**70) | st.integers(-(2**70), -(2**62))
_values = st.one_of(
    st.sampled_from(sorted({repr(v): v for v in sweep.COMMON_BAD}.values(), key=repr)),
    _small_ints,
    _huge_ints,
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.text(max_size=3),
    st.complex_numbers(max_magnitude=1e3),
    st.lists(_small_ints | _huge_ints | st.text(max_size=1) | st.none(), max_size=3),
    st.sampled_from([sweep.T(), sweep.T((), "int64"), sweep.T((3,), "int64"), sweep.T((0,))]),
)
_ENTRIES = [e for e in sweep.entries() if e.label() not in SIGNATURE_GAPS]


@st.composite
def malformed_calls(draw):
    entry = draw(st.sampled_from(_ENTRIES))
    signature = draw(st.sampled_from(entry.signatures))
    args = cases._base(entry, signature)
    kwargs = {}
    positional = [p for p in signature if not p.keyword_only][: len(args)]
    params = list(signature)
    if params and draw(st.booleans()):
        param = draw(st.sampled_from(params))
        value = draw(_values)
        if param in positional:
            args[positional.index(param)] = value
        else:
            kwargs[param.name] = value
    else:
        what = draw(st.sampled_from(["extra keyword", "extra positional", "drop one"]))
        if what == "extra keyword":
            kwargs[draw(st.sampled_from(["foo", "out", "dim", "dtype"]))] = draw(_values)
        elif what == "extra positional":
            args.append(draw(_values))
        elif args:
            args.pop(draw(st.integers(0, len(args) - 1)))
    return sweep.Case(entry, tuple(args), tuple(kwargs.items()), "hypothesis")


@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
@given(malformed_calls())
def test_malformed_calls_keep_the_argument_layers_promises(case):
    verdict = sweep.compare(case)
    if verdict is not None:
        problems = violations(verdict)
        assert not problems, _describe(verdict, problems)
