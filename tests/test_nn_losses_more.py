"""The margin and embedding losses, the distances and channel_shuffle against PyTorch 2.13:
values and float64 gradients for every reduction (and the legacy size_average / reduce
pair), grad_fn names, the operators a TorchDispatchMode sees (forward and backward),
PyTorch's errors, and the modules' reprs and forwards."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nn_normact_support import compare_autograd as _compare_autograd
from nn_normact_support import same_error, same_values
from oracle import torch

import ember

REDUCTIONS = ["mean", "sum", "none"]


def compare_autograd(fn, arrays, backward_ops=False, scalar_tensor=True, **kwargs):
    """Values, gradients, grad_fn names; the forward's operators, and the backward's where
    the formulas on the way call PyTorch's operators (`backward_ops=True`; clamp_min's and
    where's backward call full where PyTorch calls scalar_tensor). `scalar_tensor=False`:
    the forward converts a double to a Tensor in C++ (cosine_similarity's clamp_min_),
    which PyTorch dispatches as aten::scalar_tensor and ember, without that operator yet,
    does not."""
    e, t = _compare_autograd(fn, arrays, ops=False, **kwargs)
    forward = t["stages"]["forward"]
    if not scalar_tensor:
        forward = [op for op in forward if op != "aten.scalar_tensor.default"]
    assert e["stages"]["forward"] == forward
    if backward_ops:
        assert e["stages"]["backward"] == t["stages"]["backward"]
    return e, t


def F(lib):  # noqa: N802
    return lib.nn.functional


def _const(lib, values, dtype="float64"):
    return lib.tensor(values, dtype=getattr(lib, dtype))


def _signs(rng, shape):
    return np.where(rng.random(shape) < 0.5, -1.0, 1.0)


rows = st.integers(1, 4)
cols = st.integers(1, 5)
seeds = st.integers(0, 2**16)


# -- margin_ranking, hinge_embedding, cosine_embedding -------------------------------------


@pytest.mark.parametrize("reduction", REDUCTIONS)
@settings(max_examples=5, deadline=None)
@given(n=rows, seed=seeds, margin=st.sampled_from([0.0, 0.5, 2.0]))
def test_margin_ranking_loss(reduction, n, seed, margin):
    rng = np.random.default_rng(seed)
    a, b, t = rng.standard_normal(n), rng.standard_normal(n), _signs(rng, n)
    compare_autograd(
        lambda L, x, y: F(L).margin_ranking_loss(x, y, _const(L, t), margin, reduction=reduction),
        [a, b],
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@settings(max_examples=5, deadline=None)
@given(n=rows, m=cols, seed=seeds, margin=st.sampled_from([1.0, 0.25]))
def test_hinge_embedding_loss(reduction, n, m, seed, margin):
    rng = np.random.default_rng(seed)
    x, t = rng.standard_normal((n, m)), _signs(rng, (n, m))
    compare_autograd(
        lambda L, x: F(L).hinge_embedding_loss(x, _const(L, t), margin, reduction=reduction), [x]
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@settings(max_examples=5, deadline=None)
@given(n=rows, m=cols, seed=seeds, margin=st.sampled_from([0.0, 0.3]))
def test_cosine_embedding_loss(reduction, n, m, seed, margin):
    rng = np.random.default_rng(seed)
    a, b, t = rng.standard_normal((n, m)), rng.standard_normal((n, m)), _signs(rng, n)
    compare_autograd(
        lambda L, x, y: F(L).cosine_embedding_loss(x, y, _const(L, t), margin,
                                                  reduction=reduction),
        [a, b],
    )  # fmt: skip
    # a 0-d target with 1-d inputs
    compare_autograd(
        lambda L, x, y: F(L).cosine_embedding_loss(x[0], y[0], _const(L, t[0]), margin), [a, b]
    )


def test_legacy_reduction_pair():
    x, y, t = np.arange(4.0), np.ones(4), np.array([1.0, -1.0, 1.0, -1.0])
    for size_average, reduce in ((False, None), (None, False), (True, True)):
        compare_autograd(
            lambda L, a, b, s=size_average, r=reduce: F(L).margin_ranking_loss(
                a, b, _const(L, t), size_average=s, reduce=r),
            [x, y],
        )  # fmt: skip


def test_multi_margin_losses_of_0d_inputs():
    compare_autograd(lambda L, x: F(L).multi_margin_loss(x[0], L.tensor(0)), [np.array([0.3])],
                     True)  # fmt: skip
    for target in (0, -1):
        compare_autograd(
            lambda L, x, t=target: F(L).multilabel_margin_loss(x[0], L.tensor(t), reduction="none"),
            [np.array([0.3])], True,
        )  # fmt: skip


def test_integer_and_bool_inputs():
    same_values(lambda L: F(L).margin_ranking_loss(
        L.tensor([1, 2, 3]), L.tensor([3, 1, 2]), L.tensor([1, -1, 1]), reduction="none"))  # fmt: skip
    same_values(lambda L: F(L).cosine_embedding_loss(
        L.tensor([[1, 0], [1, 1]]), L.tensor([[0, 1], [1, 1]]), L.tensor([1, -1])))  # fmt: skip
    same_values(lambda L: F(L).cosine_embedding_loss(
        L.tensor([[True, False]]), L.tensor([[True, True]]), L.tensor([1])))  # fmt: skip


# -- triplet_margin and triplet_margin_with_distance ---------------------------------------


@pytest.mark.parametrize("reduction", REDUCTIONS)
@settings(max_examples=5, deadline=None)
@given(n=rows, m=cols, seed=seeds, swap=st.booleans(), p=st.sampled_from([1.0, 2.0, 3.0]))
def test_triplet_margin_loss(reduction, n, m, seed, swap, p):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal((n, m)) for _ in range(3)]
    compare_autograd(
        lambda L, a, b, c: F(L).triplet_margin_loss(a, b, c, margin=0.5, p=p, swap=swap,
                                                    reduction=reduction),
        arrays,
    )  # fmt: skip


@pytest.mark.parametrize("reduction", REDUCTIONS)
@settings(max_examples=4, deadline=None)
@given(n=rows, m=cols, seed=seeds, swap=st.booleans())
def test_triplet_margin_with_distance_loss(reduction, n, m, seed, swap):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal((n, m)) for _ in range(3)]
    compare_autograd(
        lambda L, a, b, c: F(L).triplet_margin_with_distance_loss(a, b, c, swap=swap,
                                                                  reduction=reduction),
        arrays,
    )  # fmt: skip
    compare_autograd(
        lambda L, a, b, c: F(L).triplet_margin_with_distance_loss(
            a, b, c, distance_function=L.nn.CosineSimilarity(dim=-1), margin=2.0,
            reduction=reduction),
        arrays, scalar_tensor=False,
    )  # fmt: skip


# -- multi_margin and multilabel_margin ----------------------------------------------------


@pytest.mark.parametrize("reduction", REDUCTIONS)
@settings(max_examples=6, deadline=None)
@given(n=rows, m=cols, seed=seeds, p=st.sampled_from([1, 2]), weighted=st.booleans())
def test_multi_margin_loss(reduction, n, m, seed, p, weighted):
    rng = np.random.default_rng(seed)
    x, target = rng.standard_normal((n, m)), rng.integers(0, m, n)
    w = rng.random(m) if weighted else None
    compare_autograd(
        lambda L, x: F(L).multi_margin_loss(
            x, L.tensor(target), p=p, margin=0.7,
            weight=None if w is None else _const(L, w), reduction=reduction),
        [x], True,
    )  # fmt: skip
    # one sample: a 1-d input and a 0-d target
    compare_autograd(
        lambda L, x: F(L).multi_margin_loss(x[0], L.tensor(target[0]), p=p, reduction=reduction),
        [x],
        True,
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@settings(max_examples=6, deadline=None)
@given(n=rows, m=cols, seed=seeds)
def test_multilabel_margin_loss(reduction, n, m, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, m))
    target = np.stack([rng.permutation(m) for _ in range(n)])
    cut = rng.integers(0, m + 1, n)
    target[np.arange(m)[None, :] >= cut[:, None]] = -1  # the targets stop at the first -1
    if m > 2:
        target[:, -1] = rng.integers(0, m, n)  # after the -1: not a target
    compare_autograd(
        lambda L, x: F(L).multilabel_margin_loss(x, L.tensor(target), reduction=reduction),
        [x],
        True,
    )
    compare_autograd(
        lambda L, x: F(L).multilabel_margin_loss(x[0], L.tensor(target[0]), reduction=reduction),
        [x],
        True,
    )


# -- distances and channel_shuffle ---------------------------------------------------------


@settings(max_examples=6, deadline=None)
@given(n=rows, m=cols, seed=seeds, dim=st.sampled_from([0, 1, -1]))
def test_cosine_similarity(n, m, seed, dim):
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal((n, m)), rng.standard_normal((n, m))
    a[0] = 0.0  # a zero row: the norm is clamped to eps
    compare_autograd(lambda L, x, y: F(L).cosine_similarity(x, y, dim=dim), [a, b], True, False)
    compare_autograd(lambda L, x, y: F(L).cosine_similarity(x, y[:1], dim=dim), [a, b], True, False)


@settings(max_examples=8, deadline=None)
@given(n=st.integers(2, 5), m=cols, seed=seeds, p=st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 3.0,
                                                                    float("inf")]))  # fmt: skip
def test_pdist(n, m, seed, p):
    rng = np.random.default_rng(seed)
    x = rng.integers(-3, 4, (n, m)) / 2.0  # ties and equal rows: the subgradients
    compare_autograd(lambda L, x: F(L).pdist(x, p), [x], True)


@settings(max_examples=8, deadline=None)
@given(r1=st.integers(1, 4), r2=st.integers(1, 4), m=cols, seed=seeds,
       p=st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0, float("inf")]),
       mode=st.sampled_from(["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                             "donot_use_mm_for_euclid_dist"]),
       batch=st.sampled_from([(), (2,)]))  # fmt: skip
def test_cdist(r1, r2, m, seed, p, mode, batch):
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal(batch + (r1, m)), rng.standard_normal((r2, m))
    compare_autograd(lambda L, x, y: L.cdist(x, y, p, compute_mode=mode), [a, b], True, rtol=1e-6)


def test_distances_corner_shapes():
    for fn in (
        lambda L: F(L).pdist(L.ones(1, 3)),
        lambda L: F(L).pdist(L.ones(3, 0)),
        lambda L: F(L).pdist(L.arange(12.0).reshape(3, 4).t()),
        lambda L: L.cdist(L.ones(2, 0), L.ones(3, 0)),
        lambda L: L.cdist(L.arange(12.0).reshape(2, 1, 3, 2), L.arange(16.0).reshape(4, 2, 2)),
        lambda L: F(L).cosine_similarity(L.tensor([[1, 2]]), L.tensor([[1.0, 0.0]])),
        lambda L: F(L).channel_shuffle(L.ones(0, 4, 2), 2),
    ):
        same_values(fn)
    assert L_shape(lambda L: L.cdist(L.ones(0, 3), L.ones(2, 3))) == (0, 2)


def L_shape(fn):  # noqa: N802
    e, t = fn(ember), fn(torch)
    assert tuple(e.shape) == tuple(t.shape)
    return tuple(t.shape)


def test_cdist_large_uses_the_matmul_path():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((30, 3)), rng.standard_normal((4, 3))
    e, _ = compare_autograd(lambda L, x, y: L.cdist(x, y), [a, b], True, rtol=1e-6)
    assert "aten._euclidean_dist.default" in e["stages"]["forward"]


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex64"])
def test_channel_shuffle_values(dtype):
    values = np.arange(2 * 6 * 3).reshape(2, 6, 3) % 5
    same_values(lambda L: F(L).channel_shuffle(_const(L, values, dtype), 3))
    same_values(lambda L: L.nn.ChannelShuffle(2)(_const(L, values, dtype)))


def test_channel_shuffle_autograd():
    x = np.random.default_rng(0).standard_normal((2, 4, 2, 3))
    compare_autograd(lambda L, x: F(L).channel_shuffle(x, 2), [x], True)


def test_channel_shuffle_channels_last_strides():
    x = np.random.default_rng(1).standard_normal((2, 4, 3, 2))

    def strides(L):
        t = _const(L, x).contiguous(memory_format=L.channels_last)
        return F(L).channel_shuffle(t, 2).stride()

    assert strides(ember) == strides(torch)


# -- errors --------------------------------------------------------------------------------

ERRORS = [
    lambda L: F(L).margin_ranking_loss(L.ones(2, 2), L.ones(2, 2), L.ones(2)),
    lambda L: F(L).margin_ranking_loss(L.ones(2), L.ones(2), L.ones(2), reduction="abc"),
    lambda L: F(L).hinge_embedding_loss(L.ones(2), L.ones(2), reduction="abc"),
    lambda L: F(L).cosine_embedding_loss(L.ones(3, 3), L.ones(3, 3), L.ones(3, 1)),
    lambda L: F(L).cosine_embedding_loss(L.ones(3, 3), L.ones(3), L.ones(3)),
    lambda L: F(L).cosine_embedding_loss(L.ones(3), L.ones(3, 3), L.ones(())),
    lambda L: F(L).triplet_margin_loss(L.ones(2, 3), L.ones(2, 3), L.ones(2, 3), margin=-1.0),
    lambda L: F(L).triplet_margin_loss(L.ones(3), L.ones(2, 3), L.ones(2, 3)),
    lambda L: F(L).triplet_margin_loss(L.ones(2, 3), L.ones(2, 4), L.ones(2, 3)),
    lambda L: F(L).triplet_margin_with_distance_loss(
        L.ones(2), L.ones(2), L.ones(2), reduction="abc"
    ),
    lambda L: F(L).triplet_margin_with_distance_loss(L.ones(2), L.ones(2), L.ones(2), margin=0),
    lambda L: F(L).triplet_margin_with_distance_loss(L.ones(2), L.ones(1, 2), L.ones(2)),
    lambda L: F(L).multi_margin_loss(L.ones(5, 4), L.zeros(5, 4).long()),
    lambda L: F(L).multi_margin_loss(L.ones(5, 0), L.zeros(5).long()),
    lambda L: F(L).multi_margin_loss(L.ones(5, 4), L.zeros(5)),
    lambda L: F(L).multi_margin_loss(L.ones(5, 4), L.zeros(5).long() + 4),
    lambda L: F(L).multi_margin_loss(L.ones(5, 4), L.zeros(5).long(), weight=L.ones(3)),
    lambda L: F(L).multi_margin_loss(L.ones(5, 4), L.zeros(5).long(), weight=L.ones(1, 4)),
    lambda L: F(L).multi_margin_loss(L.ones(5, 4), L.zeros(5).long(), p=3),
    lambda L: F(L).multi_margin_loss(L.ones(5, 4).long(), L.zeros(5).long()),
    lambda L: F(L).multi_margin_loss(L.ones(5, 4), L.zeros(5).long(), reduction="abc"),
    lambda L: F(L).multilabel_margin_loss(L.ones(5, 4), L.zeros(4).long()),
    lambda L: F(L).multilabel_margin_loss(L.ones(5, 4), L.zeros(5, 4).long() + 4),
    lambda L: F(L).multilabel_margin_loss(L.ones(5, 4), L.zeros(5, 4)),
    lambda L: F(L).multilabel_margin_loss(L.ones(0), L.zeros(0).long()),
    lambda L: F(L).cosine_similarity(L.ones(3, 3).long(), L.ones(3, 3).long()),
    lambda L: F(L).cosine_similarity(L.ones(3, 3), L.ones(4, 3)),
    lambda L: F(L).pdist(L.ones(2, 3, 4)),
    lambda L: F(L).pdist(L.ones(2, 3).long()),
    lambda L: F(L).pdist(L.ones(2, 3), -1),
    lambda L: F(L).pdist(L.ones(3, 3).half()),
    lambda L: L.cdist(L.ones(3), L.ones(3, 3)),
    lambda L: L.cdist(L.ones(3, 3), L.ones(3, 2)),
    lambda L: L.cdist(L.ones(3, 3), L.ones(3, 3), compute_mode="x"),
    lambda L: L.cdist(L.ones(3, 3).long(), L.ones(3, 3).long()),
    lambda L: L.cdist(L.ones(3, 3), L.ones(3, 3), -1.0),
    lambda L: L.cdist(L.ones(3, 3).half(), L.ones(3, 3).half()),
    lambda L: L.cdist(L.ones(3, 2).double(), L.ones(2, 2)),
    lambda L: F(L).channel_shuffle(L.ones(2, 3), 1),
    lambda L: F(L).channel_shuffle(L.ones(2, 3, 4), 0),
    lambda L: F(L).channel_shuffle(L.ones(2, 3, 4), 2),
    lambda L: L.nn.TripletMarginLoss(margin=0),
    lambda L: L.nn.TripletMarginWithDistanceLoss(margin=-1),
    lambda L: L.nn.MultiMarginLoss(p=3),
    lambda L: L.nn.MultiMarginLoss(weight=L.ones(2, 2)),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors(index):
    same_error(ERRORS[index])


# -- modules -------------------------------------------------------------------------------

MODULES = [
    lambda nn: nn.MarginRankingLoss(),
    lambda nn: nn.MarginRankingLoss(margin=0.5, reduction="sum"),
    lambda nn: nn.HingeEmbeddingLoss(margin=2.0),
    lambda nn: nn.CosineEmbeddingLoss(size_average=False),
    lambda nn: nn.TripletMarginLoss(margin=0.5, p=1, swap=True),
    lambda nn: nn.TripletMarginWithDistanceLoss(),
    lambda nn: nn.TripletMarginWithDistanceLoss(distance_function=nn.CosineSimilarity()),
    lambda nn: nn.MultiMarginLoss(p=2, margin=0.5),
    lambda nn: nn.MultiLabelMarginLoss(reduction="none"),
    lambda nn: nn.PairwiseDistance(p=1.0, keepdim=True),
    lambda nn: nn.CosineSimilarity(dim=0, eps=1e-6),
    lambda nn: nn.ChannelShuffle(3),
    lambda nn: nn.LogSigmoid(),
]


@pytest.mark.parametrize("index", range(len(MODULES)))
def test_module_repr_and_attributes(index):
    e, t = MODULES[index](ember.nn), MODULES[index](torch.nn)
    assert repr(e) == repr(t)
    for name in ("margin", "reduction", "p", "eps", "swap", "norm", "keepdim", "dim", "groups"):
        assert getattr(e, name, None) == getattr(t, name, None), name
    assert [n for n, _ in e.named_modules()] == [n for n, _ in t.named_modules()]


def test_loss_modules_forward():
    rng = np.random.default_rng(5)
    x, y, z = (rng.standard_normal((3, 4)) for _ in range(3))
    t = _signs(rng, 3)
    cases = [
        (lambda nn: nn.MarginRankingLoss(0.2), lambda L, a, b, c: (a[:, 0], b[:, 0], _const(L, t))),
        (lambda nn: nn.HingeEmbeddingLoss(), lambda L, a, b, c: (a, _const(L, np.sign(y)))),
        (lambda nn: nn.CosineEmbeddingLoss(0.1), lambda L, a, b, c: (a, b, _const(L, t))),
        (lambda nn: nn.TripletMarginLoss(), lambda L, a, b, c: (a, b, c)),
        (lambda nn: nn.TripletMarginWithDistanceLoss(swap=True), lambda L, a, b, c: (a, b, c)),
        (lambda nn: nn.MultiMarginLoss(), lambda L, a, b, c: (a, L.tensor([0, 3, 1]))),
        (lambda nn: nn.MultiLabelMarginLoss(), lambda L, a, b, c: (a, L.tensor([[3, 0, -1, 1]] * 3))),
        (lambda nn: nn.PairwiseDistance(), lambda L, a, b, c: (a, b)),
        (lambda nn: nn.CosineSimilarity(), lambda L, a, b, c: (a, b)),
    ]  # fmt: skip
    for make, inputs in cases:
        compare_autograd(
            lambda L, a, b, c, m=make, i=inputs: m(L.nn)(*i(L, a, b, c)),
            [x, y, z],
            scalar_tensor=False,
        )
