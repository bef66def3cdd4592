"""ember.func: torch.func's public names (the function transforms and functional_call).

Layer: func (with masked; above nn and _functorch). Mirrors torch/func/__init__.py.
"""

from ember.func.functional_call import functional_call

__all__ = ["functional_call"]
