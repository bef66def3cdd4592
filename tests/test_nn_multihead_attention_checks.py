"""MultiheadAttention's checks and the fast path's operators against PyTorch 2.13: the
errors of F.multi_head_attention_forward and the module (type and full message), the
warning for mismatched mask types, aten::_native_multi_head_attention called directly
(its three projection branches, mask types, need_weights, errors, autograd),
_transform_bias_rescale_qkv (values, layout, dtypes) and _masked_softmax with its
backward (mask types, fully masked rows, errors)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch
from test_nn_multihead_attention import (
    _outcome,
    _record_ops,
    _tensor,
    _text,
    assert_same_tensor,
    same_error,
)

import ember

RNG = np.random.default_rng(0)
X3 = RNG.standard_normal((3, 2, 4))  # (L, N, E)
X2 = RNG.standard_normal((3, 4))
W = RNG.standard_normal((12, 4))
B = RNG.standard_normal(12)
OW = RNG.standard_normal((4, 4))
OB = RNG.standard_normal(4)


def _as_tensor(lib, value):
    """A float array as a float64 tensor, a bool or integer one in its own dtype."""
    if not isinstance(value, np.ndarray):
        return value
    return _tensor(lib, value, "float64") if value.dtype.kind == "f" else lib.tensor(value)


def _mha(lib, query=X3, key=None, value=None, embed=4, heads=2, **kwargs):
    """F.multi_head_attention_forward with float64 tensors made from the arrays given
    (key / value default to the query); a numpy argument among kwargs becomes a tensor."""
    q = _tensor(lib, query, "float64")
    k = q if key is None else _tensor(lib, key, "float64")
    v = k if value is None else _tensor(lib, value, "float64")
    options = {
        "in_proj_weight": W, "in_proj_bias": B, "bias_k": None, "bias_v": None,
        "add_zero_attn": False, "dropout_p": 0.0, "out_proj_weight": OW, "out_proj_bias": OB,
    }  # fmt: skip
    options.update(kwargs)
    options = {name: _as_tensor(lib, value) for name, value in options.items()}
    return lib.nn.functional.multi_head_attention_forward(q, k, v, embed, heads, **options)


BOOL_2D = np.zeros((3, 3), bool)
FUNCTIONAL_ERRORS = {
    "4-D query": {"query": RNG.standard_normal((1, 3, 2, 4))},
    "batched query, 2-D key": {"key": X2},
    "batched query, 1-D padding mask": {"key_padding_mask": np.zeros(3, bool)},
    "batched query, 4-D mask": {"attn_mask": np.zeros((1, 1, 3, 3), bool)},
    "unbatched query, 3-D key": {"query": X2, "key": X3},
    "unbatched query, 2-D padding mask": {"query": X2, "key_padding_mask": BOOL_2D},
    "unbatched query, 4-D mask": {"query": X2, "attn_mask": np.zeros((1, 2, 3, 3), bool)},
    "unbatched query, 3-D mask of the wrong shape": {
        "query": X2, "attn_mask": np.zeros((3, 3, 3), bool),
    },
    "integer mask": {"attn_mask": np.zeros((3, 3), np.int64)},
    "integer padding mask": {"key_padding_mask": np.zeros((2, 3), np.int32)},
    "is_causal without a mask": {"is_causal": True},
    "embed_dim_to_check": {"embed": 5},
    "heads do not divide": {"heads": 3},
    "key and value shapes": {"key": X3, "value": RNG.standard_normal((4, 2, 4))},
    "separate weights, key and value lengths": {
        "key": X3, "value": RNG.standard_normal((4, 2, 4)), "use_separate_proj_weight": True,
        "q_proj_weight": OW, "k_proj_weight": OW, "v_proj_weight": OW,
    },
    "no in_proj_weight": {"in_proj_weight": None},
    "no q_proj_weight": {"use_separate_proj_weight": True},
    "no v_proj_weight": {
        "use_separate_proj_weight": True, "q_proj_weight": OW, "k_proj_weight": OW,
    },
    "q_proj_weight shape": {
        "use_separate_proj_weight": True, "q_proj_weight": W, "k_proj_weight": OW,
        "v_proj_weight": OW,
    },
    "v_proj_weight shape": {
        "use_separate_proj_weight": True, "q_proj_weight": OW, "k_proj_weight": OW,
        "v_proj_weight": RNG.standard_normal((4, 3)),
    },
    "bias shape": {
        "use_separate_proj_weight": True, "q_proj_weight": OW, "k_proj_weight": OW,
        "v_proj_weight": OW, "in_proj_bias": RNG.standard_normal(15),
    },
    "2-D mask shape": {"attn_mask": np.zeros((3, 4), bool)},
    "3-D mask shape": {"attn_mask": np.zeros((3, 3, 3), bool)},
    "bias_k with static_k": {
        "bias_k": RNG.standard_normal((1, 1, 4)), "bias_v": RNG.standard_normal((1, 1, 4)),
        "static_k": RNG.standard_normal((4, 3, 2)),
    },
    "bias_k without bias_v": {"bias_k": RNG.standard_normal((1, 1, 4))},
    "bias_v without bias_k": {"bias_v": RNG.standard_normal((1, 1, 4))},
    "static_k batch": {"static_k": RNG.standard_normal((3, 3, 2))},
    "static_v head size": {"static_v": RNG.standard_normal((4, 3, 3))},
    "padding mask batch": {"key_padding_mask": np.zeros((3, 3), bool)},
    "padding mask length": {"key_padding_mask": np.zeros((2, 4), bool)},
}  # fmt: skip


@pytest.mark.parametrize("case", list(FUNCTIONAL_ERRORS))
def test_functional_errors(case):
    same_error(lambda lib: _mha(lib, **FUNCTIONAL_ERRORS[case]))


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, m: m(_tensor(lib, X3), _tensor(lib, X3), _tensor(lib, RNG.standard_normal((3, 2, 3)))),
        lambda lib, m: m(*(_tensor(lib, X3),) * 3, attn_mask=lib.ones(3, 3, dtype=lib.int64)),
        lambda lib, m: m(*(_tensor(lib, X3),) * 3, attn_mask=lib.zeros(2, 3, dtype=lib.bool)),
        lambda lib, m: m(_tensor(lib, X3), _tensor(lib, X3[:2]), _tensor(lib, X3)),
    ],
)  # fmt: skip
def test_module_errors(call):
    def run(lib):
        lib.manual_seed(0)
        return call(lib, lib.nn.MultiheadAttention(4, 2))

    same_error(run)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("through", ["module", "functional"])
def test_mismatched_mask_types_warn(through, batch_first):
    mask = np.where(np.eye(3, dtype=bool), 0.0, -1.0)
    padding = np.array([[False, False, True], [False, False, False]])

    def run(lib):
        attn_mask = lib.tensor(mask, dtype=lib.float64)
        kpm = lib.tensor(padding)
        if through == "functional":
            return _mha(lib, attn_mask=attn_mask, key_padding_mask=kpm)
        lib.manual_seed(0)
        module = lib.nn.MultiheadAttention(4, 2, batch_first=batch_first, dtype=lib.float64)
        x = _tensor(lib, X3.swapaxes(0, 1) if batch_first else X3, "float64")
        return module(x, x, x, attn_mask=attn_mask, key_padding_mask=kpm)

    (e_result, e_error, e_warned), (t_result, t_error, t_warned) = (
        _outcome(run, ember), _outcome(run, torch),
    )  # fmt: skip
    assert e_error is None and t_error is None
    assert t_warned and e_warned == t_warned
    for e_value, t_value in zip(e_result, t_result, strict=True):
        assert_same_tensor(e_value, t_value, 1e-10, 1e-10)


# -- aten::_native_multi_head_attention called directly -------------------------------


def _native(lib, kind="self", mask=None, mask_type=None, dtype="float32", grad=False, **kw):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 3, 4))
    q = _tensor(lib, x, dtype, requires_grad=grad)
    k = q if kind == "self" else _tensor(lib, rng.standard_normal((2, 3, 4)), dtype)
    v = k if kind in ("self", "kv") else _tensor(lib, rng.standard_normal((2, 3, 4)), dtype)
    weights = [_tensor(lib, a, dtype) for a in (W, B, OW, OB)]
    m = None if mask is None else _tensor(lib, mask, dtype)
    return lib._native_multi_head_attention(q, k, v, 4, 2, *weights, m, mask_type=mask_type,
                                            **kw)  # fmt: skip


PAD = np.array([[False, False, True], [False, True, False]])
FULL = np.random.default_rng(9).random((2, 2, 3, 3)) < 0.3
FULL[..., 0] = False


@pytest.mark.parametrize("kind", ["self", "kv", "qkv"])
@pytest.mark.parametrize(
    "mask",
    [(None, None), (PAD, 1), (np.where(PAD, -np.inf, 0.0), 1), (FULL, 2),
     (np.triu(np.ones((3, 3), bool), 1), 0)],
)  # fmt: skip
@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("average", [True, False])
def test_native_multi_head_attention(kind, mask, need_weights, average):
    def run(lib):
        return _record_ops(lib, lambda: _native(
            lib, kind, *mask, need_weights=need_weights, average_attn_weights=average
        ))  # fmt: skip

    (e_result, e_ops), (t_result, t_ops) = run(ember), run(torch)
    assert e_ops == t_ops
    for e_value, t_value in zip(e_result, t_result, strict=True):
        assert_same_tensor(e_value, t_value, 2e-5, 2e-5)


def test_native_multi_head_attention_float64_and_grad_mode():
    """float64 values; inputs that require grad get PyTorch's grad_fn (the operator has
    no derivative formula)."""
    for kwargs in ({"dtype": "float64"}, {"grad": True}):
        e_result, t_result = _native(ember, **kwargs), _native(torch, **kwargs)
        for e_value, t_value in zip(e_result, t_result, strict=True):
            assert_same_tensor(e_value, t_value, 1e-10 if kwargs.get("dtype") else 2e-5, 2e-5)


def test_native_multi_head_attention_empty():
    def run(lib):
        q = lib.zeros(0, 3, 4)
        weights = [_tensor(lib, a) for a in (W, B, OW, OB)]
        return lib._native_multi_head_attention(q, q, q, 4, 2, *weights)

    e, t = run(ember), run(torch)
    assert tuple(e[0].shape) == tuple(t[0].shape) and e[1] is None and t[1] is None


NATIVE_ERRORS = [
    lambda lib, t: lib._native_multi_head_attention(t(X2), t(X2), t(X2), 4, 2, t(W), t(B), t(OW), t(OB)),
    lambda lib, t: lib._native_multi_head_attention(t(X3), t(X3), t(X3), 5, 1, t(W), t(B), t(OW), t(OB)),
    lambda lib, t: lib._native_multi_head_attention(t(X3), t(X2), t(X3), 4, 2, t(W), t(B), t(OW), t(OB)),
    lambda lib, t: lib._native_multi_head_attention(t(X3), t(X3), t(X2), 4, 2, t(W), t(B), t(OW), t(OB)),
    lambda lib, t: lib._native_multi_head_attention(t(X3), t(X3[:2]), t(X3[:2]), 4, 2, t(W), t(B), t(OW), t(OB)),
    lambda lib, t: lib._native_multi_head_attention(t(X3), t(X3), t(X3), 4, 2, t(B), t(B), t(OW), t(OB)),
    lambda lib, t: lib._native_multi_head_attention(t(X3), t(X3), t(X3), 4, 2, t(OW), t(B), t(OW), t(OB)),
    lambda lib, t: lib._native_multi_head_attention(t(X3), t(X3), t(X3), 4, 2, t(W[:, :3]), t(B), t(OW), t(OB)),
    lambda lib, t: lib._native_multi_head_attention(t(X3), t(X3), t(X3), 4, 2, t(W), t(W), t(OW), t(OB)),
    lambda lib, t: lib._native_multi_head_attention(t(X3), t(X3), t(X3), 4, 2, t(W), t(OB), t(OW), t(OB)),
    lambda lib, t: lib._native_multi_head_attention(t(X3), t(X3), t(X3), 4, 3, t(W), t(B), t(OW), t(OB)),
]  # fmt: skip


@pytest.mark.parametrize("index", range(len(NATIVE_ERRORS)))
def test_native_multi_head_attention_errors(index):
    same_error(lambda lib: NATIVE_ERRORS[index](lib, lambda a: _tensor(lib, a)))


# -- _transform_bias_rescale_qkv and _masked_softmax -----------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("shape", [(2, 3, 12, 2), (1, 4, 18, 3), (2, 1, 24, 4)])
def test_transform_bias_rescale_qkv(dtype, shape):
    *sizes, heads = shape
    rng = np.random.default_rng(10)
    qkv, bias = rng.standard_normal(sizes), rng.standard_normal(sizes[-1])

    def run(lib):
        return lib._transform_bias_rescale_qkv(_tensor(lib, qkv, dtype), _tensor(lib, bias, dtype),
                                               heads)  # fmt: skip

    for e_value, t_value in zip(run(ember), run(torch), strict=True):
        assert e_value.storage_offset() == t_value.storage_offset()
        assert_same_tensor(e_value.float(), t_value.float(), 0, 0)


def test_transform_bias_rescale_qkv_errors():
    same_error(lambda lib: lib._transform_bias_rescale_qkv(lib.zeros(1, 2, 12), lib.zeros(12), 5))
    same_error(
        lambda lib: lib._transform_bias_rescale_qkv(
            lib.zeros(1, 2, 12, dtype=lib.int64), lib.zeros(12, dtype=lib.int64), 2
        )
    )


@settings(max_examples=30, deadline=None)
@given(shape=st.lists(st.integers(1, 3), min_size=1, max_size=4),
       dtype=st.sampled_from(["float64", "float32"]), dim=st.integers(-1, 3),
       seed=st.integers(0, 2**16))  # fmt: skip
def test_masked_softmax_general_mask(shape, dtype, dim, seed):
    """mask_type 2 (any mask of the input's shape), rows fully masked included (NaN)."""
    rng = np.random.default_rng(seed)
    x, mask = rng.standard_normal(shape), rng.random(shape) < 0.4
    grad_out = rng.standard_normal(shape)
    dim = dim % len(shape)

    def run(lib):
        t = _tensor(lib, x, dtype, requires_grad=True)
        out = lib._masked_softmax(t, lib.tensor(mask), dim, 2)
        grad = lib.autograd.grad(out, t, _tensor(lib, grad_out, dtype))[0]
        return out, grad

    tol = 1e-10 if dtype == "float64" else 2e-6
    for e_value, t_value in zip(run(ember), run(torch), strict=True):
        assert_same_tensor(e_value, t_value, tol, tol)


@pytest.mark.parametrize("mask_type", [0, 1])
@pytest.mark.parametrize("dim", [None, 3, 2])
def test_masked_softmax_attention_and_padding_masks(mask_type, dim):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 2, 3, 3))
    mask = rng.random((3, 3) if mask_type == 0 else (2, 3)) < 0.4

    def run(lib):
        return lib._masked_softmax(_tensor(lib, x, "float64"), lib.tensor(mask), dim, mask_type)

    assert_same_tensor(run(ember), run(torch), 1e-12, 1e-12)


MASKED_SOFTMAX_ERRORS = [
    lambda lib: lib._masked_softmax(lib.zeros(2, 3), lib.zeros(2, 3), 1, 2),
    lambda lib: lib._masked_softmax(lib.zeros(2, 3), lib.zeros(3, 2, dtype=lib.bool), 1, 2),
    lambda lib: lib._masked_softmax(lib.zeros(1, 1, 2, 3), lib.zeros(1, 3, dtype=lib.bool), 3, 1),
    lambda lib: lib._masked_softmax(lib.zeros(1, 1, 2, 2), lib.zeros(3, 3, dtype=lib.bool), 3, 0),
    lambda lib: lib._masked_softmax(lib.zeros(1, 1, 2, 3), lib.zeros(2, 3, dtype=lib.bool), 3),
    lambda lib: lib._masked_softmax(lib.zeros(1, 1, 2, 3), lib.zeros(2, 3, dtype=lib.bool), 3, 7),
    lambda lib: lib._masked_softmax(lib.zeros(2, 3, dtype=lib.int64), lib.zeros(2, 3, dtype=lib.bool)),
    lambda lib: lib._masked_softmax(lib.zeros(2, 3), lib.zeros(2, 3, dtype=lib.bool), 2, 2),
    lambda lib: lib._masked_softmax_backward(lib.zeros(2, 3), lib.zeros(2, 3), lib.zeros(3, 2, dtype=lib.bool)),
    lambda lib: lib._masked_softmax_backward(lib.zeros(2, 3), lib.zeros(2, 3), lib.zeros(2, 3)),
]  # fmt: skip


@pytest.mark.parametrize("index", range(len(MASKED_SOFTMAX_ERRORS)))
def test_masked_softmax_errors(index):
    same_error(MASKED_SOFTMAX_ERRORS[index])


def test_linear_under_a_mode_adds_its_bias_out_of_place():
    """F.linear on a non-contiguous 3-D input under a mode: add.Tensor, as PyTorch's
    composite-compliant branch (add_ otherwise)."""
    x = RNG.standard_normal((3, 2, 4))

    def run(lib):
        t = _tensor(lib, x).transpose(0, 1)
        w, b = _tensor(lib, OW), _tensor(lib, OB)
        return _record_ops(lib, lambda: lib.nn.functional.linear(t, w, b))

    (e_out, e_ops), (t_out, t_ops) = run(ember), run(torch)
    assert e_ops == t_ops
    assert_same_tensor(e_out, t_out, 1e-6, 1e-6)


@pytest.mark.parametrize("permutation", [(0, 1, 2, 3), (2, 0, 1, 3), (0, 2, 1, 3)])
def test_flash_attention_layout(permutation):
    """_scaled_dot_product_flash_attention_for_cpu returns empty_like(query)'s strides
    and a logsumexp written (B, L, H); fully masked rows give 0, not NaN."""
    rng = np.random.default_rng(12)
    arrays = [rng.standard_normal((2, 2, 3, 2)) for _ in range(3)]

    def run(lib):
        q, k, v = (_tensor(lib, a, "float64").permute(*permutation) for a in arrays)
        mask = np.zeros(tuple(q.shape[2:3]) + tuple(k.shape[2:3]))
        mask[1] = -np.inf
        return lib.ops.aten._scaled_dot_product_flash_attention_for_cpu(
            q, k, v, attn_mask=_tensor(lib, mask, "float64")
        )

    for e_value, t_value in zip(run(ember), run(torch), strict=True):
        assert_same_tensor(e_value, t_value, 1e-12, 1e-12)


@pytest.mark.parametrize(
    "qkv, bias, heads, error",
    [
        ((2, 3), (12,), 2, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
        ((), (12,), 2, "Dimension specified as 0 but tensor has no dimensions"),
        ((1, 2, 12), (12,), 0, "_transform_bias_rescale_qkv: num_heads must be positive, got 0"),
        ((1, 2, 12), (6,), 2, "_transform_bias_rescale_qkv: expected qkv_bias with 12 elements, got 6"),
    ],
)  # fmt: skip
def test_transform_bias_rescale_qkv_refuses_what_torch_reads_out_of_bounds(qkv, bias, heads, error):
    """A malformed call raises (torch raises alike for the first two; for the others its
    kernel divides by zero or reads past the bias)."""
    with pytest.raises((IndexError, RuntimeError)) as raised:
        ember._transform_bias_rescale_qkv(ember.zeros(qkv), ember.zeros(bias), heads)
    assert str(raised.value) == error


def test_transform_bias_rescale_qkv_dtype_mismatch_refused():
    with pytest.raises(NotImplementedError, match="reads the bias's bytes"):
        ember._transform_bias_rescale_qkv(
            ember.zeros(1, 2, 12), ember.zeros(12, dtype=ember.float64), 2
        )


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("average", [True, False])
@pytest.mark.parametrize("batch", [0, 2])
def test_native_multi_head_attention_on_meta_tensors(need_weights, average, batch):
    """PyTorch's Python meta kernel: shapes only, (0,) for weights not asked for."""

    def run(lib):
        x = lib.empty(batch, 3, 8, device="meta")
        weights = [lib.empty(*s, device="meta") for s in ((24, 8), (24,), (8, 8), (8,))]
        return lib._native_multi_head_attention(
            x, x, x, 8, 2, *weights, need_weights=need_weights, average_attn_weights=average
        )

    e, t = run(ember), run(torch)
    assert [(tuple(a.shape), a.stride(), _text(a.device)) for a in e] == [
        (tuple(a.shape), a.stride(), str(a.device)) for a in t
    ]
