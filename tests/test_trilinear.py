"""aten::_trilinear against PyTorch 2.13 on the unusual calls too: dims no input has
(size 0, so nothing is computed), summed and unrolled dims, broadcasting, mixed dtypes,
and the errors Linear.cpp's loop meets (unroll_dim, unsqueeze / size ranges, narrow,
sumproduct_pair's and the in-place add's checks)."""

from __future__ import annotations

import pytest
from nn_support import close


def _t(lib, *shape):
    n = 1
    for size in shape:
        n *= size
    return lib.arange(float(n), dtype=lib.float64).reshape(shape) / 7 - 0.5


CASES = [
    ((3, 2), (2, 3), (2, 3), [1], [1], [1], [1]),
    ((2, 3), (2, 3), (3, 2), [1], [1], [1], [1]),
    ((2, 3), (2, 3), (2, 3), [1], [1], [1], [-1]),
    ((2, 3), (2, 3), (2, 3), [1], [1], [1], []),
    ((2, 3), (2, 3), (2, 3), [1], [1], [1], [], 0),
    ((2, 3), (2, 3), (2, 3), [1], [1], [1], [0, 2], 0),
    ((2, 3), (2, 3), (2, 3), [1], [1], [1], [0, 2], 2),
    ((3, 2), (3, 3), (3, 3), [1], [1], [1], [2], 0),
    ((2, 3), (2, 3), (2, 2), [1], [1], [1], [2], 0),
    ((2, 3), (2, 3), (2, 3), [1], [1], [1], [1], 5),
    ((2, 3), (2,), (2, 3), [1], [1], [1], [1]),
    ((2, 3), (2, 3), (2, 3), [2], [1], [1], [1]),
    ((2, 3), (2, 3), (2, 3), [1, 1], [1], [1], [1]),
    ((2, 3), (2, 3, 1), (2, 3), [1], [1], [1], [1]),
    ((0, 3), (2, 3), (2, 3), [1], [1], [1], [2], 0),
    ((4, 3), (5, 3, 2), (4, 2), [1, 3], [0], [1, 2], [2, 3]),
    ((4, 3), (5, 3, 2), (4, 2), [1, 3], [0], [1, 2], [2, 3], 0),
    ((4, 3), (5, 3, 2), (4, 2), [1, 3], [0], [1, 2], [2, 3], 3),
    ((1, 3), (5, 3, 2), (4, 2), [1, 3], [0], [1, 2], [2, 3]),
    ((2, 1), (2, 3), (2, 3), [1], [1], [1], [], 2),
    ((1, 3), (2, 3), (2, 3), [1], [1], [1], [0], 2),
]


@pytest.mark.parametrize("case", CASES)
def test_trilinear_cases(case):
    shapes, rest = case[:3], case[3:]

    def program(lib, log):
        inputs = [_t(lib, *shape) for shape in shapes]
        log.attempt(lambda: lib._trilinear(*inputs, *rest))

    close(program, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("which", [0, 1, 2])
def test_trilinear_mixed_dtypes(which):
    def program(lib, log):
        inputs = [_t(lib, 2, 3) for _ in range(3)]
        inputs[which] = inputs[which].float()
        log.attempt(lambda: lib._trilinear(*inputs, [1], [1], [1], [2], 0))
        log.attempt(lambda: lib._trilinear(*inputs, [1], [1], [1], [1]))

    close(program, rtol=1e-6, atol=1e-7)
