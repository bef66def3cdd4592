"""The normalisation, activation and loss modules against PyTorch 2.13: reprs, parameter
and buffer names, forward values and gradients, BatchNorm's running statistics and
num_batches_tracked over training steps (momentum and the cumulative average), eval mode,
and PyTorch's constructor and input checks."""

import numpy as np
import pytest
from nn_normact_support import same_error
from oracle import torch

import ember

REPRS = [
    lambda nn: nn.BatchNorm1d(3),
    lambda nn: nn.BatchNorm2d(16),
    lambda nn: nn.BatchNorm2d(4, eps=1e-3, momentum=None, affine=False),
    lambda nn: nn.BatchNorm3d(2, track_running_stats=False, bias=False),
    lambda nn: nn.InstanceNorm1d(3),
    lambda nn: nn.InstanceNorm2d(3, affine=True, track_running_stats=True),
    lambda nn: nn.LayerNorm(10),
    lambda nn: nn.LayerNorm((2, 3), eps=1e-6, bias=False),
    lambda nn: nn.LayerNorm([4], elementwise_affine=False),
    lambda nn: nn.GroupNorm(2, 4),
    lambda nn: nn.GroupNorm(1, 3, affine=False),
    lambda nn: nn.RMSNorm(4),
    lambda nn: nn.RMSNorm([2, 3], eps=1e-5, elementwise_affine=False),
    lambda nn: nn.LocalResponseNorm(2),
    lambda nn: nn.ReLU(),
    lambda nn: nn.ReLU(inplace=True),
    lambda nn: nn.ReLU6(True),
    lambda nn: nn.LeakyReLU(),
    lambda nn: nn.LeakyReLU(0.2, inplace=True),
    lambda nn: nn.ELU(),
    lambda nn: nn.ELU(0.5, True),
    lambda nn: nn.CELU(2.0),
    lambda nn: nn.SELU(),
    lambda nn: nn.GELU(),
    lambda nn: nn.GELU("tanh"),
    lambda nn: nn.SiLU(),
    lambda nn: nn.Mish(inplace=True),
    lambda nn: nn.Sigmoid(),
    lambda nn: nn.Tanh(),
    lambda nn: nn.Softplus(),
    lambda nn: nn.Softplus(2, 10),
    lambda nn: nn.Softmax(dim=1),
    lambda nn: nn.Softmax(),
    lambda nn: nn.LogSoftmax(-1),
    lambda nn: nn.Softmin(0),
    lambda nn: nn.Hardtanh(),
    lambda nn: nn.Hardtanh(-2, 2, True),
    lambda nn: nn.Hardswish(),
    lambda nn: nn.Hardsigmoid(),
    lambda nn: nn.PReLU(),
    lambda nn: nn.PReLU(3, 0.1),
    lambda nn: nn.Threshold(0.1, 20),
    lambda nn: nn.Threshold(0.1, 20.0, inplace=True),
    lambda nn: nn.GLU(),
    lambda nn: nn.GLU(0),
    lambda nn: nn.LogSigmoid(),
    lambda nn: nn.Hardshrink(),
    lambda nn: nn.Softshrink(0.3),
    lambda nn: nn.Softsign(),
    lambda nn: nn.Tanhshrink(),
    lambda nn: nn.MSELoss(),
    lambda nn: nn.L1Loss(reduction="sum"),
    lambda nn: nn.CrossEntropyLoss(label_smoothing=0.1),
    lambda nn: nn.NLLLoss(),
    lambda nn: nn.BCELoss(),
    lambda nn: nn.BCEWithLogitsLoss(),
    lambda nn: nn.KLDivLoss(reduction="batchmean"),
    lambda nn: nn.SmoothL1Loss(beta=0.5),
    lambda nn: nn.HuberLoss(delta=2.0),
    lambda nn: nn.SoftMarginLoss(),
    lambda nn: nn.PoissonNLLLoss(),
    lambda nn: nn.GaussianNLLLoss(),
    lambda nn: nn.MultiLabelSoftMarginLoss(),
    lambda nn: nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2)),
]


@pytest.mark.parametrize("case", range(len(REPRS)))
def test_repr_and_state_names(case):
    ember.manual_seed(0)
    ours = REPRS[case](ember.nn)
    torch.manual_seed(0)
    theirs = REPRS[case](torch.nn)
    assert repr(ours) == repr(theirs)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    for (_, a), (_, b) in zip(ours.named_parameters(), theirs.named_parameters(), strict=True):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def _copy_params(ours, theirs):
    with torch.no_grad():
        for (_, a), (_, b) in zip(ours.named_parameters(), theirs.named_parameters(), strict=True):
            data = np.random.default_rng(len(a.shape)).standard_normal(tuple(a.shape))
            b.copy_(torch.tensor(data, dtype=b.dtype))
            a.detach().copy_(ember.tensor(data, dtype=a.dtype))


@pytest.mark.parametrize("momentum", [0.1, 0.5, None])
@pytest.mark.parametrize("make,shape", [
    (lambda nn, m: nn.BatchNorm1d(3, momentum=m), (4, 3)),
    (lambda nn, m: nn.BatchNorm1d(3, momentum=m), (4, 3, 5)),
    (lambda nn, m: nn.BatchNorm2d(3, momentum=m), (2, 3, 4, 4)),
    (lambda nn, m: nn.BatchNorm3d(3, momentum=m, affine=False), (2, 3, 2, 2, 2)),
    (lambda nn, m: nn.InstanceNorm2d(3, momentum=m, affine=True, track_running_stats=True),
     (2, 3, 4, 4)),
])  # fmt: skip
def test_running_statistics_over_training_steps(make, shape, momentum):
    ours, theirs = make(ember.nn, momentum).double(), make(torch.nn, momentum).double()
    _copy_params(ours, theirs)
    rng = np.random.default_rng(0)
    for step in range(4):
        data = rng.standard_normal(shape) * (step + 1) + step
        x_e = ember.tensor(data, requires_grad=True)
        x_t = torch.tensor(data, requires_grad=True)
        y_e, y_t = ours(x_e), theirs(x_t)
        np.testing.assert_allclose(y_e.detach().numpy(), y_t.detach().numpy(), rtol=1e-10,
                                   atol=1e-10)  # fmt: skip
        (y_e * y_e).sum().backward()
        (y_t * y_t).sum().backward()
        np.testing.assert_allclose(x_e.grad.numpy(), x_t.grad.numpy(), rtol=1e-8, atol=1e-8)
    for (name, a), (_, b) in zip(ours.named_buffers(), theirs.named_buffers(), strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12, err_msg=name)
    for (_, a), (_, b) in zip(ours.named_parameters(), theirs.named_parameters(), strict=True):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-8, atol=1e-8)
    ours.eval()
    theirs.eval()
    data = rng.standard_normal(shape)
    np.testing.assert_allclose(ours(ember.tensor(data)).detach().numpy(),
                               theirs(torch.tensor(data)).detach().numpy(),
                               rtol=1e-10, atol=1e-10)  # fmt: skip


MODULES = [
    (lambda nn: nn.LayerNorm(4), (2, 3, 4)),
    (lambda nn: nn.GroupNorm(2, 4), (2, 4, 3)),
    (lambda nn: nn.RMSNorm([3, 4]), (2, 3, 4)),
    (lambda nn: nn.InstanceNorm1d(3), (2, 3, 5)),
    (lambda nn: nn.InstanceNorm1d(3), (3, 5)),
    (lambda nn: nn.PReLU(3), (2, 3, 4)),
    (
        lambda nn: nn.Sequential(
            nn.ELU(),
            nn.LeakyReLU(0.1),
            nn.Softplus(2.0),
            nn.GELU("tanh"),
            nn.SiLU(),
            nn.Mish(),
            nn.Hardswish(),
            nn.Hardsigmoid(),
            nn.Hardtanh(-0.5, 0.5),
            nn.ReLU6(),
            nn.SELU(),
            nn.CELU(0.5),
            nn.Threshold(0.0, -1.0),
            nn.LogSigmoid(),
            nn.Softsign(),
            nn.Tanhshrink(),
            nn.Hardshrink(0.1),
            nn.Softshrink(0.1),
            nn.Sigmoid(),
            nn.Tanh(),
            nn.ReLU(),
            nn.Softmax(-1),
            nn.LogSoftmax(-1),
            nn.Softmin(-1),
        ),
        (3, 4),
    ),  # fmt: skip
    (lambda nn: nn.GLU(1), (3, 4)),
]


@pytest.mark.parametrize("case", range(len(MODULES)))
def test_forward_and_backward(case):
    make, shape = MODULES[case]
    ours, theirs = make(ember.nn).double(), make(torch.nn).double()
    _copy_params(ours, theirs)
    data = np.random.default_rng(1).standard_normal(shape)
    x_e = ember.tensor(data, requires_grad=True)
    x_t = torch.tensor(data, requires_grad=True)
    y_e, y_t = ours(x_e), theirs(x_t)
    assert type(y_e.grad_fn).__name__ == type(y_t.grad_fn).__name__
    np.testing.assert_allclose(y_e.detach().numpy(), y_t.detach().numpy(), rtol=1e-10, atol=1e-12)
    y_e.sum().backward()
    y_t.sum().backward()
    np.testing.assert_allclose(x_e.grad.numpy(), x_t.grad.numpy(), rtol=1e-8, atol=1e-10)


LOSSES = [
    (lambda nn: nn.MSELoss(), "real"),
    (lambda nn: nn.L1Loss(reduction="none"), "real"),
    (lambda nn: nn.SmoothL1Loss(beta=0.5), "real"),
    (lambda nn: nn.HuberLoss(reduction="sum", delta=0.5), "real"),
    (lambda nn: nn.BCELoss(), "prob"),
    (lambda nn: nn.BCEWithLogitsLoss(), "prob"),
    (lambda nn: nn.SoftMarginLoss(), "sign"),
    (lambda nn: nn.CrossEntropyLoss(), "class"),
    (lambda nn: nn.CrossEntropyLoss(label_smoothing=0.2, ignore_index=1), "class"),
    (lambda nn: nn.CrossEntropyLoss(), "prob"),
    (lambda nn: nn.NLLLoss(reduction="sum"), "class"),
    (lambda nn: nn.PoissonNLLLoss(), "prob"),
    (lambda nn: nn.MultiLabelSoftMarginLoss(), "binary"),
    (lambda nn: nn.KLDivLoss(reduction="sum", log_target=True), "real"),
]


@pytest.mark.parametrize("case", range(len(LOSSES)))
def test_loss_modules(case):
    make, kind = LOSSES[case]
    rng = np.random.default_rng(case)
    data = rng.standard_normal((4, 3))
    target = {
        "real": rng.standard_normal((4, 3)),
        "prob": rng.random((4, 3)),
        "sign": np.where(rng.random((4, 3)) < 0.5, -1.0, 1.0),
        "binary": (rng.random((4, 3)) < 0.5) * 1.0,
        "class": np.array([0, 2, 1, 1]),
    }[kind]

    def run(lib):
        x = lib.tensor(data, requires_grad=True)
        inp = x.sigmoid() if isinstance(make(lib.nn), lib.nn.BCELoss) else x
        t = lib.tensor(target)
        loss = make(lib.nn)(inp, t)
        loss.sum().backward()
        return loss.detach().numpy(), x.grad.numpy(), type(loss.grad_fn).__name__

    (ev, eg, en), (tv, tg, tn) = run(ember), run(torch)
    assert en == tn
    np.testing.assert_allclose(ev, tv, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(eg, tg, rtol=1e-10, atol=1e-12)


ERRORS = [
    lambda nn: nn.BatchNorm1d(3)(nn.Identity()(_ones(nn, 2, 3, 4, 5))),
    lambda nn: nn.BatchNorm2d(3)(_ones(nn, 2, 3)),
    lambda nn: nn.BatchNorm3d(3)(_ones(nn, 2, 3, 4)),
    lambda nn: nn.BatchNorm1d(3)(_ones(nn, 1, 3)),
    lambda nn: nn.InstanceNorm1d(3)(_ones(nn, 2, 3, 4, 5)),
    lambda nn: nn.InstanceNorm1d(3, affine=True)(_ones(nn, 2, 4, 5)),
    lambda nn: nn.GroupNorm(3, 4),
    lambda nn: nn.HuberLoss(delta="1"),
    lambda nn: nn.LayerNorm(3)(_ones(nn, 2, 4)),
]


def _ones(nn, *shape):
    lib = ember if nn is ember.nn else torch
    return lib.ones(*shape)


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors(case):
    same_error(lambda lib: ERRORS[case](lib.nn))
