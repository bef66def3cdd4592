"""torch.nn's instance normalisation: InstanceNorm1d, InstanceNorm2d, InstanceNorm3d.

Layer: nn. In: _NormBase's arguments (affine and track_running_stats off by default).
Out: modules whose forward calls F.instance_norm, an unbatched input going through an
unsqueezed batch of one, with PyTorch's checks on the channel count. Mirrors
torch/nn/modules/instancenorm.py.
"""

from __future__ import annotations

import warnings

from ember.nn import functional as F
from ember.nn.modules.batchnorm import _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class _InstanceNorm(_NormBase):
    def __init__(self, num_features: int, eps: float = 1e-5, momentum=0.1,
                 affine: bool = False, track_running_stats: bool = False, device=None,
                 dtype=None, *, bias: bool = True) -> None:  # fmt: skip
        super().__init__(num_features, eps, momentum, affine, track_running_stats,
                         device=device, dtype=dtype, bias=bias)  # fmt: skip

    _dims = ()
    _no_batch_dim = 0

    def _check_input_dim(self, input) -> None:  # noqa: A002
        if input.dim() not in self._dims:
            expected = " or ".join(f"{d}D" for d in self._dims)
            raise ValueError(f"expected {expected} input (got {input.dim()}D input)")

    def _apply_instance_norm(self, input):  # noqa: A002
        return F.instance_norm(
            input,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0,
            self.eps,
        )

    def forward(self, input):  # noqa: A002
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch_dim
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features"
                    f" ({self.num_features}), but got: {input.size(feature_dim)}."
                )
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. "
                "You can silence this warning by not passing in num_features, "
                "which is not used because affine=False",
                stacklevel=2,
            )
        if input.dim() == self._no_batch_dim:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    _dims = (2, 3)
    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    _dims = (3, 4)
    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    _dims = (4, 5)
    _no_batch_dim = 4
