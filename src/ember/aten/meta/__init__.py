"""Meta functions: shapes, dtypes, strides and argument checks of every structured operator.

Layer: aten. In: an operator's functional arguments (tensors may be meta).
Out: a StructuredMeta (aten/structured.py) describing the outputs. One
function per structured group, named after its functional overload's kernel
(`add_Tensor`, `mm`, `sum_dim_IntList`); CPU and Meta kernels share it.
Mirrors the TORCH_META_FUNC definitions of ATen/native/*.cpp.
"""

from .activation import *  # noqa: F403
from .bitwise import *  # noqa: F403
from .gather_scatter import *  # noqa: F403
from .index_ops import *  # noqa: F403
from .index_reduce import *  # noqa: F403
from .isin import *  # noqa: F403
from .joining import *  # noqa: F403
from .linalg import *  # noqa: F403
from .linalg_cross import *  # noqa: F403
from .linalg_decomp import *  # noqa: F403
from .linalg_lu import *  # noqa: F403
from .loss import *  # noqa: F403
from .out_wrapper import *  # noqa: F403
from .pointwise import *  # noqa: F403
from .pointwise_binary_more import *  # noqa: F403
from .pointwise_ternary import *  # noqa: F403
from .pointwise_unary import *  # noqa: F403
from .pointwise_unary_more import *  # noqa: F403
from .python_inplace import *  # noqa: F403
from .reduction import *  # noqa: F403
from .renorm import *  # noqa: F403
from .softmax import *  # noqa: F403
from .sorting import *  # noqa: F403
