"""torch.func: the composable function transforms.

Layer: func (above nn and _functorch). Mirrors torch/func/__init__.py, which re-exports
torch/_functorch's transforms (and functional_call, which sits here: it calls into nn).
"""

from __future__ import annotations

from ember._functorch.vmap import vmap

__all__ = ["vmap"]

from ember._functorch.functionalize import functionalize  # noqa: E402

__all__ += ["functionalize"]

from ember.func.functional_call import functional_call, stack_module_state  # noqa: E402

__all__ += ["functional_call", "stack_module_state"]

from ember._functorch.eager_transforms import (  # noqa: E402
    grad,
    grad_and_value,
    hessian,
    jacfwd,
    jacrev,
    jvp,
    vjp,
)

__all__ += ["grad", "grad_and_value", "vjp", "jacrev", "jvp", "jacfwd", "hessian"]
