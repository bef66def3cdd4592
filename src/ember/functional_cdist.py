"""torch.cdist as torch/functional.py writes it: the compute_mode string to aten's int.

Layer: torch face (beside ember.functional). In: two tensors, p and the compute_mode name.
Out: aten::cdist's result through the generated binding (`_VF.cdist`). Mirrors
torch/functional.py's cdist.
"""

from __future__ import annotations

from ember._torch_function import handle_torch_function, has_torch_function
from ember.aten._generated import python_functions as _VF

__all__ = ["cdist"]

_MODES = {
    "use_mm_for_euclid_dist_if_necessary": None,
    "use_mm_for_euclid_dist": 1,
    "donot_use_mm_for_euclid_dist": 2,
}


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    if has_torch_function((x1, x2)):
        return handle_torch_function(cdist, (x1, x2), x1, x2, p=p, compute_mode=compute_mode)
    if compute_mode not in _MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return _VF.cdist(x1, x2, p, _MODES[compute_mode])
