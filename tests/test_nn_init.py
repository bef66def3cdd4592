"""torch.nn.init against PyTorch 2.13: the same seed (or generator) gives the same numbers.

Each initialiser fills a tensor in both libraries after seeding both alike; uniform
draws must be bit-equal (PyTorch's mt19937 stream and formulas), normal ones equal up to
the last bit of PyTorch's vectorised float log/cos; the gains, fan computations,
warnings and errors are PyTorch's.
"""

from __future__ import annotations

import warnings

import pytest
from nn_support import both, close

import ember


def _filled(lib, log, fn, *shape, **kwargs):
    lib.manual_seed(7)
    t = lib.empty(*shape)
    result = fn(lib)(t, **kwargs)
    log(result is t, t)


INITIALISERS = [
    ("uniform_", {}),
    ("uniform_", {"a": -3.0, "b": 0.5}),
    ("normal_", {"mean": 1.0, "std": 0.1}),
    ("xavier_uniform_", {"gain": 2.0}),
    ("xavier_normal_", {}),
    ("kaiming_uniform_", {}),
    ("kaiming_uniform_", {"a": 0.2, "mode": "fan_out", "nonlinearity": "leaky_relu"}),
    ("kaiming_normal_", {"mode": "FAN_OUT", "nonlinearity": "relu"}),
    ("trunc_normal_", {"std": 0.02}),
    ("trunc_normal_", {"mean": 0.0, "std": 1.0, "a": 1.5, "b": 3.0}),
    ("constant_", {"val": 0.25}),
    ("ones_", {}),
    ("zeros_", {}),
    ("eye_", {}),
]


@pytest.mark.parametrize(("name", "kwargs"), INITIALISERS)
@pytest.mark.parametrize("shape", [(4, 5), (3, 2, 3)])
def test_initialisers_draw_pytorchs_numbers(name, kwargs, shape):
    if name == "eye_" and len(shape) != 2:
        shape = (3, 4)

    def program(lib, log):
        _filled(lib, log, lambda lib: getattr(lib.nn.init, name), *shape, **kwargs)

    if "normal" in name:
        # PyTorch's float normal_ of 16 or more elements takes vectorised log/cos whose
        # last bit ember (correctly rounded) does not always reproduce
        close(program, rtol=3e-7, atol=1e-7)
    else:
        close(program, rtol=0, atol=0)


def test_generator_argument_and_parameters():
    def program(lib, log):
        g = lib.Generator().manual_seed(3)
        p = lib.nn.Parameter(lib.empty(3, 4))
        lib.nn.init.kaiming_uniform_(p, generator=g)
        lib.nn.init.normal_(w := lib.empty(2, 2), generator=g)
        lib.nn.init.trunc_normal_(t := lib.empty(5), generator=g)
        log(p, p.requires_grad, p.grad_fn is None, p.is_leaf, w, t)
        lib.nn.init.xavier_normal_(p, generator=g)
        log(p, type(p).__name__)

    close(program)


def test_dirac_and_sparse():
    def program(lib, log):
        w = lib.empty(4, 2, 3)
        log(lib.nn.init.dirac_(w, 2), lib.nn.init.dirac_(lib.empty(2, 3, 3, 3)))
        log(lib.nn.init.dirac_(lib.empty(2, 2, 1, 3, 2)))
        log.attempt(lambda: lib.nn.init.dirac_(lib.empty(3, 3)))
        log.attempt(lambda: lib.nn.init.dirac_(lib.empty(3, 2, 2), groups=2))
        log.attempt(lambda: lib.nn.init.sparse_(lib.empty(6), 0.5))

    both(program)

    def sparse(lib, log):
        lib.manual_seed(0)
        t = lib.nn.init.sparse_(lib.empty(6, 3), 0.5)
        log(t, (t == 0).sum(0))

    close(sparse, rtol=3e-7, atol=1e-9)


def test_gains_and_errors():
    def program(lib, log):
        init = lib.nn.init
        for name in ("linear", "conv2d", "sigmoid", "tanh", "relu", "leaky_relu", "selu"):
            log(init.calculate_gain(name))
        log(init.calculate_gain("leaky_relu", 0.2), init.calculate_gain("leaky_relu", 1))
        log.attempt(lambda: init.calculate_gain("leaky_relu", True))
        log.attempt(lambda: init.calculate_gain("softmax"))
        log.attempt(lambda: init.xavier_uniform_(lib.empty(3)))
        log.attempt(lambda: init.kaiming_normal_(lib.empty(3, 3), mode="fan_avg"))
        log.attempt(lambda: init.eye_(lib.empty(2, 2, 2)))
        log(init._calculate_fan_in_and_fan_out(lib.empty(4, 3, 2, 5)))

    both(program)


def test_zero_element_and_deprecation_warnings():
    def program(lib, log):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t = lib.empty(0, 3)
            log(lib.nn.init.kaiming_uniform_(t) is t, lib.nn.init.kaiming_normal_(t) is t)
            lib.manual_seed(0)
            log(lib.nn.init.normal(lib.empty(2)))
            lib.nn.init.trunc_normal_(lib.empty(3), mean=10.0)
        log([(w.category.__name__, str(w.message)) for w in caught])

    both(program)


def test_initialisers_run_under_no_grad():
    def program(lib, log):
        p = lib.nn.Parameter(lib.ones(2, 2))
        lib.nn.init.constant_(p, 3.0)
        lib.nn.init.eye_(p)
        lib.nn.init.dirac_(q := lib.nn.Parameter(lib.ones(2, 2, 1)))
        log(p, p.grad_fn is None, q, q._version > 0)

    both(program)


@pytest.mark.skipif(
    not (hasattr(ember.linalg, "qr") and hasattr(ember, "diag")),
    reason="orthogonal_ needs torch.linalg.qr and torch.diag (other branches)",
)
@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 2, 2)])
def test_orthogonal(shape):
    def program(lib, log):
        lib.manual_seed(2)
        t = lib.nn.init.orthogonal_(lib.empty(*shape, dtype=lib.float64), gain=2.0)
        log(t)
        log.attempt(lambda: lib.nn.init.orthogonal_(lib.empty(3)))

    close(program, rtol=1e-10, atol=1e-12)


def test_orthogonal_refuses_vectors():
    def program(lib, log):
        log.attempt(lambda: lib.nn.init.orthogonal_(lib.empty(3)))
        log(lib.nn.init.orthogonal_(lib.empty(0, 3)).shape)

    both(program)
