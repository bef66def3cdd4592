"""The conv, pooling and padding modules against PyTorch 2.13: reprs, seeded initial
weights and biases (kaiming_uniform_(a=sqrt(5)) and the fan-in bound), forward and
backward through each padding_mode, ConvTranspose's output_size, a small CNN's
outputs and gradients, state_dict keys, and the constructors' errors."""

import re

import numpy as np
import pytest
from oracle import torch

import ember

MODULES = [
    lambda nn: nn.Conv2d(3, 16, 3, padding=1),
    lambda nn: nn.Conv2d(3, 16, (3, 5), stride=2, dilation=2, bias=False),
    lambda nn: nn.Conv2d(4, 8, 3, groups=2, padding="same", padding_mode="replicate"),
    lambda nn: nn.Conv2d(2, 4, 3, padding="valid"),
    lambda nn: nn.Conv1d(4, 6, 3, groups=2, padding_mode="reflect", padding=1),
    lambda nn: nn.Conv1d(2, 2, 1, padding_mode="circular"),
    lambda nn: nn.Conv3d(2, 2, 2, stride=(1, 2, 1)),
    lambda nn: nn.ConvTranspose2d(4, 2, 3, stride=2, output_padding=1),
    lambda nn: nn.ConvTranspose2d(4, 2, 3, groups=2, dilation=2, bias=False),
    lambda nn: nn.ConvTranspose1d(2, 3, 2, bias=False),
    lambda nn: nn.ConvTranspose3d(2, 2, 2, padding=1),
    lambda nn: nn.MaxPool2d(2),
    lambda nn: nn.MaxPool2d(3, 2, 1, ceil_mode=True),
    lambda nn: nn.MaxPool1d(2, return_indices=True),
    lambda nn: nn.MaxPool3d((1, 2, 2), dilation=(1, 1, 2)),
    lambda nn: nn.AvgPool2d(2),
    lambda nn: nn.AvgPool2d(3, 1, 1, count_include_pad=False),
    lambda nn: nn.AvgPool1d(3, 2),
    lambda nn: nn.AvgPool3d(2, divisor_override=2),
    lambda nn: nn.AdaptiveAvgPool2d((1, 1)),
    lambda nn: nn.AdaptiveAvgPool2d((None, 3)),
    lambda nn: nn.AdaptiveAvgPool1d(3),
    lambda nn: nn.AdaptiveMaxPool2d(2),
    lambda nn: nn.AdaptiveMaxPool1d(4, return_indices=True),
    lambda nn: nn.LPPool2d(2, 3),
    lambda nn: nn.LPPool1d(1.5, 2, stride=1),
    lambda nn: nn.ZeroPad2d(1),
    lambda nn: nn.ZeroPad1d((1, 2)),
    lambda nn: nn.ConstantPad1d((1, 2), 3.5),
    lambda nn: nn.ConstantPad3d(1, -1.0),
    lambda nn: nn.ReflectionPad2d(2),
    lambda nn: nn.ReflectionPad1d((1, 0)),
    lambda nn: nn.ReplicationPad1d((1, 0)),
    lambda nn: nn.ReplicationPad3d(1),
    lambda nn: nn.CircularPad2d(1),
    lambda nn: nn.CircularPad1d((2, 1)),
    lambda nn: nn.Upsample(scale_factor=2),
    lambda nn: nn.Upsample(size=(5, 4), mode="bilinear", align_corners=False),
    lambda nn: nn.Upsample(scale_factor=(1.5, 2), mode="bicubic"),
    lambda nn: nn.UpsamplingNearest2d(size=5),
    lambda nn: nn.UpsamplingBilinear2d(scale_factor=2),
    lambda nn: nn.PixelShuffle(2),
    lambda nn: nn.PixelUnshuffle(2),
    lambda nn: nn.Unfold(2, padding=1),
    lambda nn: nn.Unfold((2, 3), dilation=2, stride=(1, 2)),
]

INPUTS = {
    "Conv1d": (2, 4, 7), "Conv2d": (2, 4, 11, 12), "Conv3d": (1, 2, 4, 5, 4),
    "ConvTranspose1d": (2, 2, 5), "ConvTranspose2d": (1, 4, 4, 5), "ConvTranspose3d": (1, 2, 3, 3, 3),
    "1d": (2, 4, 7), "2d": (2, 3, 7, 6), "3d": (1, 2, 4, 5, 4),
}  # fmt: skip
OTHER_INPUTS = {
    "Upsample": (1, 2, 3, 4), "UpsamplingNearest2d": (1, 2, 3, 4),
    "UpsamplingBilinear2d": (1, 2, 3, 4), "PixelShuffle": (1, 4, 2, 3),
    "PixelUnshuffle": (1, 2, 4, 6), "Unfold": (2, 3, 6, 7),
}  # fmt: skip


def _input_shape(module):
    name = type(module).__name__
    if name in OTHER_INPUTS:
        return OTHER_INPUTS[name]
    if name in INPUTS:
        shape = list(INPUTS[name])
        if name.startswith("Conv"):
            shape[1] = module.in_channels
        return tuple(shape)
    return INPUTS[name[-2:]]


@pytest.mark.parametrize("case", range(len(MODULES)))
def test_repr_seeded_parameters_forward_backward(case):
    results = []
    for lib in (ember, torch):
        lib.manual_seed(0)
        module = MODULES[case](lib.nn)
        x = lib.tensor(np.random.default_rng(case).standard_normal(_input_shape(module)))
        x = x.float().requires_grad_()
        out = module(x)
        first = out[0] if isinstance(out, tuple) else out
        first.backward(lib.ones_like(first))
        params = {k: v.detach().numpy().copy() for k, v in module.named_parameters()}
        grads = {k: v.grad.numpy().copy() for k, v in module.named_parameters()}
        names = [
            o.grad_fn.name() if o.grad_fn else None
            for o in (out if isinstance(out, tuple) else (out,))
        ]  # noqa: E501
        results.append((repr(module), params, first.detach().numpy(), x.grad.numpy(), grads, names))
    (e_repr, e_params, e_out, e_gx, e_grads, e_names) = results[0]
    (t_repr, t_params, t_out, t_gx, t_grads, t_names) = results[1]
    assert e_repr == t_repr
    assert e_names == t_names
    assert e_params.keys() == t_params.keys()
    for key in t_params:
        np.testing.assert_array_equal(e_params[key], t_params[key])  # the same seeded numbers
        np.testing.assert_allclose(e_grads[key], t_grads[key], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(e_out, t_out, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(e_gx, t_gx, rtol=1e-5, atol=1e-5)


def test_small_cnn_matches_torch():
    def build(nn):
        return nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.MaxPool2d(2), nn.Conv2d(8, 4, 3, padding=1, padding_mode="circular"),  # noqa: E501
            nn.AvgPool2d(2), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 2),
        )  # fmt: skip

    x = np.random.default_rng(5).standard_normal((4, 3, 8, 8))
    outs = []
    for lib in (ember, torch):
        lib.manual_seed(1)
        net = build(lib.nn).double()
        y = net(lib.tensor(x))
        (y * y).sum().backward()
        outs.append(
            (
                repr(net),
                list(net.state_dict()),
                y.detach().numpy(),
                [p.grad.numpy() for p in net.parameters()],
            )
        )  # noqa: E501
    assert outs[0][0] == outs[1][0]
    assert outs[0][1] == outs[1][1]
    np.testing.assert_allclose(outs[0][2], outs[1][2], rtol=1e-10)
    for a, b in zip(outs[0][3], outs[1][3], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("size", [[9, 9], [10, 10], (1, 4, 10, 9)])
def test_conv_transpose_output_size(size):
    shapes = []
    for lib in (ember, torch):
        lib.manual_seed(0)
        module = lib.nn.ConvTranspose2d(4, 2, 3, stride=2)
        shapes.append(tuple(module(lib.ones(1, 4, 4, 4), output_size=size).shape))
    assert shapes[0] == shapes[1]


ERRORS = [
    lambda nn, lib: nn.Conv2d(3, 4, 3, groups=2),
    lambda nn, lib: nn.Conv2d(4, 3, 3, groups=2),
    lambda nn, lib: nn.Conv2d(4, 4, 3, groups=0),
    lambda nn, lib: nn.Conv2d(3, 3, 3, padding="same", stride=2),
    lambda nn, lib: nn.Conv2d(3, 3, 3, padding_mode="foo"),
    lambda nn, lib: nn.ConvTranspose2d(2, 2, 2, padding_mode="reflect"),
    lambda nn, lib: nn.ConvTranspose2d(4, 2, 3, stride=2)(
        lib.ones(1, 4, 4, 4), output_size=[20, 20]
    ),  # noqa: E501
    lambda nn, lib: nn.ConvTranspose2d(4, 2, 3, stride=2)(lib.ones(1, 4, 4, 4), output_size=[9]),
    lambda nn, lib: nn.CircularPad2d(1)(lib.ones(3, 3)),
    lambda nn, lib: nn.Conv2d(3, 4, 3)(lib.ones(1, 2, 5, 5)),
    lambda nn, lib: nn.MaxPool2d(2)(lib.ones(1, 1, 1, 1)),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors_match_torch(case):
    outcomes = []
    for lib in (ember, torch):
        try:
            ERRORS[case](lib.nn, lib)
            outcomes.append(None)
        except Exception as error:  # noqa: BLE001 (compared with torch's)
            text = str(error).replace("ember.", "torch.")
            # a printed set's order is the process's hash order: compare its members
            text = re.sub(r"\{[^}]*\}", lambda m: str(sorted(m.group(0)[1:-1].split(", "))), text)
            outcomes.append((type(error).__name__, text))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0] is not None


def test_invalid_padding_string_message():
    """PyTorch prints its set of valid strings (in the process's hash order)."""
    with pytest.raises(ValueError) as caught:
        ember.nn.Conv2d(3, 3, 3, padding="full")
    assert str(caught.value) in (
        "Invalid padding string 'full', should be one of {'same', 'valid'}",
        "Invalid padding string 'full', should be one of {'valid', 'same'}",
    )


def test_fold_module_inverts_unfold_shape():
    results = []
    for lib in (ember, torch):
        fold = lib.nn.Fold((4, 5), 2, padding=1)
        cols = lib.tensor(np.random.default_rng(0).standard_normal((2, 12, 30)))
        results.append((repr(fold), fold(cols).numpy()))
    assert results[0][0] == results[1][0]
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)
