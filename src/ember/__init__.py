"""ember: PyTorch's dispatcher rebuilt in Python, on NumPy tensors with real storage and strides.

`import ember as torch`: dtypes, devices, Tensor, the aten operators (generated
from aten/native_functions.yaml), `ember.ops`, `ember.library`, `ember._C`.
The layers, bottom up: _c10 (keys, key sets, TLS, tensor data) -> _dispatch
(schemas, operator entries, the dispatcher) -> _ops / aten -> autograd ->
library -> tools. See docs/architecture.md.
"""

import os as _os

# `make generate` sets EMBER_CODEGEN=1 so that the generator runs even while the
# generated files it is about to rewrite are stale or broken.
if _os.environ.get("EMBER_CODEGEN") != "1":
    from ember._c10.device import device
    from ember._c10.dtypes import (
        bfloat16,
        bool,
        cdouble,
        cfloat,
        chalf,
        complex32,
        complex64,
        complex128,
        double,
        dtype,
        float,
        float16,
        float32,
        float64,
        get_default_dtype,
        half,
        int,
        int8,
        int16,
        int32,
        int64,
        long,
        promote_types,
        set_default_dtype,
        short,
        uint8,
    )
    from ember._size import Size
    from ember._tensor import Tensor
    from ember.aten import load as _load_aten  # noqa: F401  (registers every aten kernel)
    from ember.aten import tensor_api as _tensor_api
    from ember.aten._generated.python_functions import *  # noqa: F403

    # ember._C, ember.library and ember.ops land with the dispatcher layer.

    _tensor_api.install(Tensor)
