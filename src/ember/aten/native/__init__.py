"""Hand-written aten kernels, one module per family; the codegen refers to them by name.

Layer: aten (CPU via NumPy, device-generic composites). In: the full,
schema-ordered argument list (Note [Dispatcher calling convention]). Out:
tensors. native_functions.yaml names each kernel in its `dispatch:` section;
structured operators name here only their CPU implementation
(`fn(meta, *args, *outs)`), since aten/_generated/ writes the rest.
Mirrors ATen/native/*.cpp. Kernels call other operators through `at`
(native/at.py), i.e. through the dispatcher, as at::add does.
"""

from .activation import *  # noqa: F403
from .adaptive_pooling import *  # noqa: F403
from .addmm_activation import *  # noqa: F403
from .adjoint import *  # noqa: F403
from .aliases import *  # noqa: F403
from .aliases_elementwise import *  # noqa: F403
from .as_strided_scatter import *  # noqa: F403
from .attention import *  # noqa: F403
from .batched_blas import *  # noqa: F403
from .binary_composites import *  # noqa: F403
from .binary_float import *  # noqa: F403
from .bitwise import *  # noqa: F403
from .bucketing import *  # noqa: F403
from .channel_shuffle import *  # noqa: F403
from .chunk_cat import *  # noqa: F403
from .compare import *  # noqa: F403
from .complex import *  # noqa: F403
from .complex_construct import *  # noqa: F403
from .complex_views import *  # noqa: F403
from .contraction import *  # noqa: F403
from .conv_composite import *  # noqa: F403
from .conv_legacy import *  # noqa: F403
from .convolution import *  # noqa: F403
from .copy import *  # noqa: F403
from .correlation import *  # noqa: F403
from .cumulative import *  # noqa: F403
from .distance import *  # noqa: F403
from .dropout_variants import *  # noqa: F403
from .embedding import *  # noqa: F403
from .factories import *  # noqa: F403
from .fake_quantize import *  # noqa: F403
from .fill_factories import *  # noqa: F403
from .float_parts import *  # noqa: F403
from .fold import *  # noqa: F403
from .functional_copies import *  # noqa: F403
from .gather_scatter import *  # noqa: F403
from .gradient import *  # noqa: F403
from .histogram import *  # noqa: F403
from .index_ops import *  # noqa: F403
from .index_reduce import *  # noqa: F403
from .indexing import *  # noqa: F403
from .inplace_views import *  # noqa: F403
from .integration import *  # noqa: F403
from .isin import *  # noqa: F403
from .joining import *  # noqa: F403
from .legacy_norms import *  # noqa: F403
from .linalg import *  # noqa: F403
from .linalg_cholesky import *  # noqa: F403
from .linalg_composite import *  # noqa: F403
from .linalg_decomp import *  # noqa: F403
from .linalg_eig import *  # noqa: F403
from .linalg_householder import *  # noqa: F403
from .linalg_lstsq import *  # noqa: F403
from .linalg_lu import *  # noqa: F403
from .linalg_misc import *  # noqa: F403
from .linalg_norms import *  # noqa: F403
from .linalg_out import *  # noqa: F403
from .linalg_pinv import *  # noqa: F403
from .linalg_products import *  # noqa: F403
from .linalg_triangular import *  # noqa: F403
from .logspace import *  # noqa: F403
from .loss import *  # noqa: F403
from .loss_margin import *  # noqa: F403
from .loss_more import *  # noqa: F403
from .loss_nll2d import *  # noqa: F403
from .matrix_exp import *  # noqa: F403
from .misc_ops import *  # noqa: F403
from .multihead_attention import *  # noqa: F403
from .multinomial import *  # noqa: F403
from .namespace_aliases import *  # noqa: F403
from .native_dropout import *  # noqa: F403
from .nonzero_static import *  # noqa: F403
from .normalization import *  # noqa: F403
from .order_stats import *  # noqa: F403
from .padding import *  # noqa: F403
from .pointwise import *  # noqa: F403  # noqa: F403
from .pointwise_select import *  # noqa: F403  # noqa: F403
from .pointwise_ternary import *  # noqa: F403
from .pooling import *  # noqa: F403
from .pooling3d_unpool import *  # noqa: F403
from .pooling_composite import *  # noqa: F403
from .quantile import *  # noqa: F403
from .random_distributions import *  # noqa: F403
from .random_fill import *  # noqa: F403
from .randperm import *  # noqa: F403
from .range_inclusive import *  # noqa: F403
from .ranges import *  # noqa: F403
from .reduction import *  # noqa: F403
from .reduction_more import *  # noqa: F403
from .reduction_stats import *  # noqa: F403
from .renorm import *  # noqa: F403
from .repeat import *  # noqa: F403
from .resize_as import *  # noqa: F403
from .restride import *  # noqa: F403
from .rnn_cells import *  # noqa: F403
from .rounding import *  # noqa: F403
from .set_storage import *  # noqa: F403
from .shape import *  # noqa: F403
from .shape_as import *  # noqa: F403
from .shape_more import *  # noqa: F403
from .shifted_polynomials import *  # noqa: F403
from .softmax import *  # noqa: F403
from .sorting import *  # noqa: F403
from .special_aliases import *  # noqa: F403
from .special_functions import *  # noqa: F403
from .special_polynomial_ops import *  # noqa: F403
from .spectral import *  # noqa: F403
from .spectral_composite import *  # noqa: F403
from .split_ops import *  # noqa: F403
from .stacking import *  # noqa: F403
from .testing_ops import *  # noqa: F403
from .trilinear import *  # noqa: F403
from .unary_float import *  # noqa: F403
from .unfold_backward import *  # noqa: F403
from .unique import *  # noqa: F403
from .upsample_ops import *  # noqa: F403
from .upsample_out import *  # noqa: F403
from .view_backward import *  # noqa: F403
from .view_copy import *  # noqa: F403
from .view_copy_more import *  # noqa: F403
from .views import *  # noqa: F403
from .windows import *  # noqa: F403
