"""torch.nn.utils against PyTorch 2.13: clip_grad_norm_ / clip_grad_value_ (the total
norm, the clipped gradients, norm types, mixed dtypes, empty inputs, foreach, the
non-finite error) and parameters_to_vector / vector_to_parameters."""

from __future__ import annotations

import warnings

import pytest
from nn_support import both, close

import ember


def _model_with_grads(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Linear(4, 2))
    model(lib.randn(5, 3)).pow(2).sum().backward()
    return model


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, "inf", float("inf")])
@pytest.mark.parametrize("max_norm", [0.05, 100.0])
@pytest.mark.parametrize("foreach", [None, True, False])
def test_clip_grad_norm(norm_type, max_norm, foreach):
    def program(lib, log):
        model = _model_with_grads(lib)
        total = lib.nn.utils.clip_grad_norm_(
            model.parameters(), max_norm, norm_type, foreach=foreach
        )
        log(total, [p.grad for p in model.parameters()])

    close(program)


def test_clip_grad_norm_inputs():
    def program(lib, log):
        utils = lib.nn.utils
        model = _model_with_grads(lib)
        log(utils.clip_grad_norm_(model[0].weight, 1.0), model[0].weight.grad)
        log(utils.clip_grad_norm_([], 1.0))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            log(utils.clip_grad_norm_((p for p in []), 1.0), [str(w.message) for w in caught])
            log(utils.clip_grad_norm(model.parameters(), 0.5), caught[-1].category.__name__)
        p = lib.nn.Parameter(lib.ones(2, dtype=lib.float64))
        p.grad = lib.full((2,), 3.0, dtype=lib.float64)
        q = lib.nn.Parameter(lib.ones(2))
        q.grad = lib.full((2,), 4.0)
        none = lib.nn.Parameter(lib.ones(1))
        log(utils.clip_grad_norm_([q, none, p], 1.0), p.grad, q.grad, none.grad)
        log.attempt(
            lambda: utils.clip_grad_norm_(
                lib.nn.Parameter(lib.ones(1, device="meta")), 1.0, foreach=True
            )
        )

    close(program)


@pytest.mark.skipif(
    not hasattr(ember.Tensor, "isinf"), reason="Tensor.isinf lands with the elementwise ops"
)
def test_clip_grad_norm_non_finite():
    def program(lib, log):
        p = lib.nn.Parameter(lib.ones(3))
        p.grad = lib.tensor([1.0, float("inf"), 2.0])
        log.attempt(lambda: lib.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True))
        log(lib.nn.utils.clip_grad_norm_([p], 1.0), p.grad)

    both(program)


def test_clip_grad_value():
    def program(lib, log):
        model = _model_with_grads(lib)
        log(
            lib.nn.utils.clip_grad_value_(model.parameters(), 0.05),
            [p.grad for p in model.parameters()],
        )
        lib.nn.utils.clip_grad_value_(model[1].bias, 0.001, foreach=True)
        log(model[1].bias.grad)

    close(program)


def test_parameters_and_vectors():
    def program(lib, log):
        utils = lib.nn.utils
        model = _model_with_grads(lib)
        vec = utils.parameters_to_vector(model.parameters())
        log(vec, type(vec.grad_fn).__name__)
        bias = model[1].bias
        utils.vector_to_parameters(lib.arange(float(vec.numel())), model.parameters())
        log([p for p in model.parameters()], model[1].bias is bias, type(bias).__name__)
        log.attempt(lambda: utils.vector_to_parameters([1.0], model.parameters()))

    both(program)
