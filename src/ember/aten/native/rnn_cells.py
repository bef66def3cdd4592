"""The CompositeImplicitAutograd RNN cells: lstm_cell, gru_cell, rnn_tanh_cell, rnn_relu_cell.

Layer: aten/native (device-generic composites). In: the schema's arguments. Out: the new
hidden state(s), built from linear, in-place pointwise ops and unsafe_chunk through the
dispatcher, so autograd records each step (there is no fused cell on CPU). Mirrors
ATen/native/RNN.cpp: the check_rnn_cell_forward_* checks, SimpleCell, LSTMCell, GRUCell.
"""

from __future__ import annotations

from ember.aten.native import at

__all__ = ["lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"]


def _check_input(input, input_size):  # noqa: A002 (PyTorch's argument name)
    if input._sizes[1] != input_size:
        raise RuntimeError(
            f"input has inconsistent input_size: got {input._sizes[1]} expected {input_size}"
        )


def _check_hidden(input, hx, hidden_size, label):  # noqa: A002
    if input._sizes[0] != hx._sizes[0]:
        raise RuntimeError(
            f"Input batch size {input._sizes[0]} doesn't match hidden{label} batch size "
            f"{hx._sizes[0]}"
        )
    if hx._sizes[1] != hidden_size:
        raise RuntimeError(
            f"hidden{label} has inconsistent hidden_size: got {hx._sizes[1]}, expected "
            f"{hidden_size}"
        )


def _check_weights(gates, w_ih, w_hh, hidden_size):
    for name, w in (("weight_ih", w_ih), ("weight_hh", w_hh)):
        if w._sizes[0] != gates * hidden_size:
            raise RuntimeError(
                f"{name} first dim must be {gates} * hidden_size = {gates * hidden_size}, "
                f"but got {w._sizes[0]}"
            )


def _gates(input, hx, w_ih, w_hh, b_ih, b_hh):  # noqa: A002
    """linear_hh(hx).add_(linear_ih(input)), CellParams' order."""
    return at.add__Tensor(at.linear(hx, w_hh, b_hh), at.linear(input, w_ih, b_ih), 1)


def lstm_cell(input, hx, w_ih, w_hh, b_ih, b_hh):  # noqa: A002
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    hidden_size = w_hh._sizes[1]
    _check_input(input, w_ih._sizes[1])
    _check_weights(4, w_ih, w_hh, hidden_size)
    _check_hidden(input, hx[0], hidden_size, 0)
    _check_hidden(input, hx[1], hidden_size, 1)
    h, c = hx
    ingate, forgetgate, cellgate, outgate = at.unsafe_chunk(
        _gates(input, h, w_ih, w_hh, b_ih, b_hh), 4, 1
    )
    ingate = at.sigmoid_(ingate)
    forgetgate = at.sigmoid_(forgetgate)
    cellgate = at.tanh_(cellgate)
    outgate = at.sigmoid_(outgate)
    cy = at.add__Tensor(at.mul_Tensor(forgetgate, c), at.mul_Tensor(ingate, cellgate), 1)
    hy = at.mul_Tensor(outgate, at.tanh(cy))
    return hy, cy


def gru_cell(input, hx, w_ih, w_hh, b_ih, b_hh):  # noqa: A002
    _check_input(input, w_ih._sizes[1])
    _check_hidden(input, hx, w_hh._sizes[1], 0)
    _check_weights(3, w_ih, w_hh, w_hh._sizes[1])
    i_r, i_i, i_n = at.unsafe_chunk(at.linear(input, w_ih, b_ih), 3, 1)
    h_r, h_i, h_n = at.unsafe_chunk(at.linear(hx, w_hh, b_hh), 3, 1)
    reset_gate = at.sigmoid_(at.add__Tensor(h_r, i_r, 1))
    input_gate = at.sigmoid_(at.add__Tensor(h_i, i_i, 1))
    new_gate = at.tanh_(at.add_Tensor(i_n, at.mul__Tensor(h_n, reset_gate), 1))
    return at.add__Tensor(at.mul__Tensor(at.sub_Tensor(hx, new_gate, 1), input_gate), new_gate, 1)


def _simple_cell(nonlinearity, input, hx, w_ih, w_hh, b_ih, b_hh):  # noqa: A002
    _check_weights(1, w_ih, w_hh, w_hh._sizes[1])
    _check_input(input, w_ih._sizes[1])
    _check_hidden(input, hx, w_hh._sizes[1], 0)
    return nonlinearity(_gates(input, hx, w_ih, w_hh, b_ih, b_hh))


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih, b_hh):  # noqa: A002
    return _simple_cell(at.tanh, input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih, b_hh):  # noqa: A002
    return _simple_cell(at.relu, input, hx, w_ih, w_hh, b_ih, b_hh)
