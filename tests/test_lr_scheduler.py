"""ember.optim.lr_scheduler against PyTorch 2.13: the lr sequences over 50 epochs (the
chainable formulas, CosineAnnealingLR's recursive one, to the last digit), step(epoch)'s
closed forms, get_last_lr, state_dict / load_state_dict, the warnings and the errors."""

import math
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember


def _optimizer(lib, lrs=(0.1,)):
    groups = [{"params": [lib.zeros(2, requires_grad=True)], "lr": lr} for lr in lrs]
    return lib.optim.SGD(groups, lr=lrs[0], momentum=0.9)


SCHEDULERS = {
    "StepLR": lambda s, o: s.StepLR(o, step_size=7, gamma=0.3),
    "MultiStepLR": lambda s, o: s.MultiStepLR(o, milestones=[3, 10, 10, 30], gamma=0.7),
    "ExponentialLR": lambda s, o: s.ExponentialLR(o, gamma=0.93),
    "CosineAnnealingLR": lambda s, o: s.CosineAnnealingLR(o, T_max=13, eta_min=0.001),
    "CosineAnnealingLR0": lambda s, o: s.CosineAnnealingLR(o, T_max=20),
    "LambdaLR": lambda s, o: s.LambdaLR(o, lr_lambda=lambda epoch: 0.95**epoch + 1 / (epoch + 1)),
    "LambdaLR_list": lambda s, o: s.LambdaLR(
        o, lr_lambda=[lambda e: 1 / (e + 1), lambda e: 0.9**e]
    ),
    "MultiplicativeLR": lambda s, o: s.MultiplicativeLR(o, lr_lambda=lambda epoch: 0.97),
    "LinearLR": lambda s, o: s.LinearLR(o, start_factor=0.25, end_factor=0.9, total_iters=17),
    "ConstantLR": lambda s, o: s.ConstantLR(o, factor=0.4, total_iters=9),
}


def _run(lib, make, epochs=50, lrs=(0.1, 0.03)):
    optimizer = _optimizer(lib, lrs)
    scheduler = make(lib.optim.lr_scheduler, optimizer)
    seen = [[repr(lr) for lr in scheduler.get_last_lr()]]
    for _ in range(epochs):
        optimizer.step()
        scheduler.step()
        seen.append([repr(lr) for lr in scheduler.get_last_lr()])
        assert [g["lr"] for g in optimizer.param_groups] == scheduler.get_last_lr()
    return seen, scheduler, optimizer


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_lr_sequences_equal_torch(name):
    ours, e_sched, e_opt = _run(ember, SCHEDULERS[name])
    theirs, t_sched, t_opt = _run(torch, SCHEDULERS[name])
    assert ours == theirs
    e_state, t_state = e_sched.state_dict(), t_sched.state_dict()
    assert list(e_state) == list(t_state)
    assert {k: v for k, v in e_state.items()} == {k: v for k, v in t_state.items()}
    assert e_opt.param_groups[0]["initial_lr"] == t_opt.param_groups[0]["initial_lr"]


@settings(max_examples=25, deadline=None)
@given(
    t_max=st.integers(1, 30),
    eta_min=st.sampled_from([0.0, 1e-4, 0.01]),
    lr=st.floats(1e-4, 1.0),
    gamma=st.floats(0.5, 0.999),
    step_size=st.integers(1, 12),
)
def test_hypothesis_sequences(t_max, eta_min, lr, gamma, step_size):
    for make in (
        lambda s, o: s.CosineAnnealingLR(o, T_max=t_max, eta_min=eta_min),
        lambda s, o: s.StepLR(o, step_size=step_size, gamma=gamma),
        lambda s, o: s.ExponentialLR(o, gamma=gamma),
    ):
        assert _run(ember, make, lrs=(lr,))[0] == _run(torch, make, lrs=(lr,))[0]


@pytest.mark.parametrize(
    "name",
    ["StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LinearLR", "ConstantLR"],
)
def test_closed_form_with_epoch(name):
    """step(epoch) takes the closed form and warns with PyTorch's deprecation text."""
    results = {}
    for lib in (ember, torch):
        optimizer = _optimizer(lib)
        scheduler = SCHEDULERS[name](lib.optim.lr_scheduler, optimizer)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            values = []
            for epoch in (3, 11, 4, 25, 40):
                optimizer.step()
                scheduler.step(epoch)
                values.append(repr(scheduler.get_last_lr()[0]))
        results[lib] = (values, sorted({str(w.message) for w in caught}))
    assert results[ember] == results[torch]


def _warnings_of(lib, call_optimizer_first: bool):
    optimizer = _optimizer(lib)
    scheduler = lib.optim.lr_scheduler.StepLR(optimizer, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if call_optimizer_first:
            optimizer.step()
        scheduler.step()
        scheduler.get_lr()
    return [(w.category.__name__, str(w.message)) for w in caught]


@pytest.mark.parametrize("first", [True, False])
def test_step_order_warning(first):
    assert _warnings_of(ember, first) == _warnings_of(torch, first)


def test_resume_from_state_dict():
    """load_state_dict resumes the sequence where the saved scheduler stopped."""
    make = SCHEDULERS["CosineAnnealingLR"]
    for lib in (ember, torch):
        optimizer = _optimizer(lib)
        scheduler = make(lib.optim.lr_scheduler, optimizer)
        for _ in range(17):
            optimizer.step()
            scheduler.step()
        saved_opt, saved_sched = optimizer.state_dict(), scheduler.state_dict()
        expected = []
        for _ in range(10):
            optimizer.step()
            scheduler.step()
            expected.append(scheduler.get_last_lr())
        resumed_opt = _optimizer(lib)
        resumed_opt.load_state_dict(saved_opt)
        resumed = make(lib.optim.lr_scheduler, resumed_opt)
        resumed.load_state_dict(saved_sched)
        again = []
        for _ in range(10):
            resumed_opt.step()
            resumed.step()
            again.append(resumed.get_last_lr())
        assert again == expected
        if lib is ember:
            ours = expected
    assert [[repr(x) for x in row] for row in ours] == [[repr(x) for x in row] for row in expected]


@pytest.mark.parametrize(
    "call",
    [
        lambda s, o: s.StepLR(object(), 3),
        lambda s, o: s.StepLR(o, 3, last_epoch=4),
        lambda s, o: s.LambdaLR(o, lr_lambda=[lambda e: 1.0] * 3),
        lambda s, o: s.MultiplicativeLR(o, lr_lambda=3),
        lambda s, o: s.ConstantLR(o, factor=1.5),
        lambda s, o: s.LinearLR(o, start_factor=0),
        lambda s, o: s.LinearLR(o, end_factor=2),
        lambda s, o: s.ReduceLROnPlateau(o, factor=1.0),
        lambda s, o: s.ReduceLROnPlateau(o, mode="avg"),
        lambda s, o: s.ReduceLROnPlateau(o, threshold_mode="pct"),
        lambda s, o: s.ReduceLROnPlateau(o, min_lr=[0.1, 0.2]),
    ],
)
def test_errors(call):
    outcomes = []
    for lib in (ember, torch):
        try:
            call(lib.optim.lr_scheduler, _optimizer(lib))
            outcomes.append(None)
        except Exception as error:  # noqa: BLE001 (compared with torch's)
            outcomes.append((type(error).__name__, str(error)))
    assert outcomes[0] == outcomes[1] and outcomes[0] is not None


@pytest.mark.parametrize(
    "mode, threshold_mode", [("min", "rel"), ("min", "abs"), ("max", "rel"), ("max", "abs")]
)
def test_reduce_lr_on_plateau(mode, threshold_mode):
    metrics = [1.0, 0.9, 0.95, 0.97, 0.96, 0.99, 0.98, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.97] * 3
    runs = {}
    for lib in (ember, torch):
        optimizer = _optimizer(lib, (0.1, 0.02))
        scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(
            optimizer,
            mode=mode,
            threshold_mode=threshold_mode,
            patience=2,
            cooldown=1,
            min_lr=[1e-3, 1e-4],
            factor=0.5,
        )
        lrs = []
        for value in metrics:
            optimizer.step()
            scheduler.step(value)
            lrs.append([repr(x) for x in scheduler.get_last_lr()])
        state = scheduler.state_dict()
        runs[lib] = (
            lrs,
            {k: v for k, v in state.items() if not (isinstance(v, float) and math.isinf(v))},
        )
    assert runs[ember] == runs[torch]


def _one_cycle_run(lib, optimizer_name, options, steps):
    params = [lib.zeros(2, requires_grad=True)]
    if optimizer_name == "Adam":
        optimizer = lib.optim.Adam(params, lr=0.1)
    else:
        optimizer = lib.optim.SGD(params, lr=0.1, momentum=0.9)
    scheduler = lib.optim.lr_scheduler.OneCycleLR(optimizer, **options)
    seen = []
    for _ in range(steps):
        optimizer.step()
        scheduler.step()
        group = optimizer.param_groups[0]
        momentum = group["betas"][0] if optimizer_name == "Adam" else group["momentum"]
        seen.append((repr(scheduler.get_last_lr()[0]), repr(momentum)))
    return seen, sorted(optimizer.param_groups[0])


@pytest.mark.parametrize("optimizer_name", ["SGD", "Adam"])
@pytest.mark.parametrize(
    "options",
    [
        {"max_lr": 0.5, "total_steps": 40},
        {"max_lr": 0.5, "epochs": 5, "steps_per_epoch": 8, "anneal_strategy": "linear"},
        {"max_lr": [0.2], "total_steps": 41, "three_phase": True, "pct_start": 0.25},
        {"max_lr": 1.0, "total_steps": 40, "cycle_momentum": False, "div_factor": 10.0},
    ],
)
def test_one_cycle(optimizer_name, options):
    assert _one_cycle_run(ember, optimizer_name, options, 39) == _one_cycle_run(
        torch, optimizer_name, options, 39
    )


@pytest.mark.parametrize(
    "options",
    [
        {"max_lr": 0.5},
        {"max_lr": 0.5, "total_steps": 0},
        {"max_lr": 0.5, "epochs": 0, "steps_per_epoch": 3},
        {"max_lr": 0.5, "epochs": 2, "steps_per_epoch": -1},
        {"max_lr": 0.5, "total_steps": 10, "pct_start": 1},
        {"max_lr": 0.5, "total_steps": 10, "anneal_strategy": "exp"},
        {"max_lr": [0.5, 0.1], "total_steps": 10},
    ],
)
def test_one_cycle_errors(options):
    outcomes = []
    for lib in (ember, torch):
        try:
            lib.optim.lr_scheduler.OneCycleLR(_optimizer(lib), **options)
            outcomes.append(None)
        except Exception as error:  # noqa: BLE001 (compared with torch's)
            outcomes.append((type(error).__name__, str(error)))
    assert outcomes[0] == outcomes[1] and outcomes[0] is not None


def test_one_cycle_past_its_steps():
    outcomes = []
    for lib in (ember, torch):
        optimizer = _optimizer(lib)
        scheduler = lib.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.5, total_steps=3)
        with pytest.raises(ValueError) as caught:
            for _ in range(5):
                optimizer.step()
                scheduler.step()
        outcomes.append(str(caught.value))
    assert outcomes[0] == outcomes[1]


COMPOSITES = {
    "PolynomialLR": lambda s, o: s.PolynomialLR(o, total_iters=23, power=1.7),
    "SequentialLR": lambda s, o: s.SequentialLR(
        o,
        [s.LinearLR(o, start_factor=0.1, total_iters=8), s.CosineAnnealingLR(o, T_max=20)],
        milestones=[8],
    ),
    "SequentialLR3": lambda s, o: s.SequentialLR(
        o,
        [s.ConstantLR(o, factor=0.5, total_iters=4), s.ExponentialLR(o, 0.9), s.StepLR(o, 5)],
        milestones=[6, 20],
    ),
    "ChainedScheduler": lambda s, o: s.ChainedScheduler(
        [s.ConstantLR(o, factor=0.2, total_iters=6), s.ExponentialLR(o, gamma=0.95)]
    ),
}


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_composite_sequences_equal_torch(name):
    ours, e_sched, _ = _run(ember, COMPOSITES[name])
    theirs, t_sched, _ = _run(torch, COMPOSITES[name])
    assert ours == theirs
    e_state, t_state = e_sched.state_dict(), t_sched.state_dict()
    assert list(e_state) == list(t_state)
    if "_schedulers" in t_state:
        assert [list(s) for s in e_state["_schedulers"]] == [
            list(s) for s in t_state["_schedulers"]
        ]


@pytest.mark.parametrize(
    "call",
    [
        lambda s, o, lib: s.SequentialLR(o, [], milestones=[]),
        lambda s, o, lib: s.SequentialLR(o, [s.StepLR(o, 2), s.StepLR(o, 3)], milestones=[]),
        lambda s, o, lib: s.SequentialLR(o, [s.ReduceLROnPlateau(o)], milestones=[]),
        lambda s, o, lib: s.SequentialLR(o, [object()], milestones=[]),
        lambda s, o, lib: s.ChainedScheduler([]),
        lambda s, o, lib: s.ChainedScheduler([s.StepLR(o, 2), s.StepLR(_optimizer(lib), 2)]),
    ],
)
def test_composite_errors(call):
    outcomes = []
    for lib in (ember, torch):
        try:
            call(lib.optim.lr_scheduler, _optimizer(lib), lib)
            outcomes.append(None)
        except Exception as error:  # noqa: BLE001 (compared with torch's)
            outcomes.append((type(error).__name__, str(error).split(" has ")[0]))
    assert outcomes[0] == outcomes[1] and outcomes[0] is not None
