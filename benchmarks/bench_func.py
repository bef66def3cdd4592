"""torch.func's jacrev of a 16 -> 16 function and hessian of a scalar function of 16 inputs:
ember against PyTorch (issue 14's target: at most 2x).

Side by side in one process, alternating rounds (bench_ops.per_call). jacrev is vmap over
vjp's vjp_fn in both libraries; hessian is jacfwd(jacrev(f)). The torch.autograd.functional
jacobian (one backward per output row) is shown beside them for scale.
"""

from __future__ import annotations

import numpy as np
from bench_ops import per_call

import ember

try:
    import torch
except ImportError:  # the PyTorch column is left out
    torch = None

N = 16


def _functions(lib, w):
    def vector_fn(x):
        return (w @ x).tanh() * x

    def scalar_fn(x):
        return ((w @ x).sin() * x).sum()

    return vector_fn, scalar_fn


def main() -> None:
    rng = np.random.default_rng(0)
    w_np = rng.standard_normal((N, N)).astype(np.float32)
    x_np = rng.standard_normal(N).astype(np.float32)
    libs = {"ember": ember}
    if torch is not None:
        torch.set_num_threads(1)
        libs["torch"] = torch
    rows: dict = {"jacrev 16->16": {}, "hessian 16->1": {}, "autograd.functional.jacobian": {}}
    for name, lib in libs.items():
        w, x = lib.from_numpy(w_np), lib.from_numpy(x_np)
        vector_fn, scalar_fn = _functions(lib, w)
        rows["jacrev 16->16"][name] = lambda lib=lib, f=vector_fn, x=x: lib.func.jacrev(f)(x)
        rows["hessian 16->1"][name] = lambda lib=lib, f=scalar_fn, x=x: lib.func.hessian(f)(x)
        rows["autograd.functional.jacobian"][name] = lambda lib=lib, f=vector_fn, x=x: (
            lib.autograd.functional.jacobian(f, x)
        )
    print(f"{'(µs per call)':<30} {'ember':>10} {'torch':>10} {'/torch':>9}")
    for label, fns in rows.items():
        try:
            times = per_call(fns, 20)
        except Exception as error:  # noqa: BLE001 (a transform ember lacks is reported, not fatal)
            print(f"{label:<30} {type(error).__name__}: {error}")
            continue
        mine, other = times["ember"], times.get("torch")
        other_text = f"{other:>10.1f}" if other else f"{'-':>10}"
        ratio = f"{mine / other:>8.2f}x" if other else f"{'-':>9}"
        print(f"{label:<30} {mine:>10.1f} {other_text} {ratio}")


if __name__ == "__main__":
    main()
