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
        half,
        int,
        int8,
        int16,
        int32,
        int64,
        long,
        set_default_dtype,
        short,
        uint8,
        uint16,
        uint32,
        uint64,
    )
    from ember._c10.layout import layout, strided
    from ember._c10.layout import OTHER_LAYOUTS as _OTHER_LAYOUTS

    globals().update(_OTHER_LAYOUTS)
    from ember._size import Size
    from ember._tensor import Tensor
    from ember.aten import load as _load_aten  # noqa: F401  (registers every aten kernel)
    from ember.autograd import load as _load_autograd  # noqa: F401  (then the autograd kernels)
    from ember.aten import indexing as _indexing
    from ember.aten import tensor_api as _tensor_api
    from ember.aten import zero_tensor as _zero_tensor
    from ember.aten import torch_function as _aten_torch_function
    from ember.aten._generated.python_functions import *  # noqa: F403
    from ember._tensor_ctors import (
        as_tensor,
        channels_last,
        channels_last_3d,
        contiguous_format,
        from_numpy,
        memory_format,
        preserve_format,
        tensor,
    )
    from ember._tensor_ctors import install as _install_conversions
    from ember.functional import broadcast_shapes, split
    from ember.functional_cdist import cdist
    from ember.functional_shape import (
        atleast_1d,
        atleast_2d,
        atleast_3d,
        block_diag,
        broadcast_tensors,
        cartesian_prod,
        einsum,
        meshgrid,
        nonzero,
        tensordot,
        unique,
        unique_consecutive,
        unravel_index,
    )
    from ember._tensor_subclass import install as _install_subclass_constructors
    from ember._c10.stream import Stream
    from ember._stream import install as _install_stream
    from ember._tensor_set import install as _install_set
    from ember import storage
    from ember.storage import (
        BFloat16Storage,
        BoolStorage,
        ByteStorage,
        CharStorage,
        ComplexDoubleStorage,
        ComplexFloatStorage,
        DoubleStorage,
        FloatStorage,
        HalfStorage,
        IntStorage,
        LongStorage,
        ShortStorage,
        TypedStorage,
    )

    Storage = FloatStorage  # torch/__init__.py's legacy alias
    from ember._tensor_deepcopy import install as _install_deepcopy
    from ember.functional import tensor_split_method as _tensor_split_method
    from ember._type_helpers import (
        can_cast,
        get_default_dtype,
        is_grad_enabled,
        is_complex,
        is_floating_point,
        is_inference,
        is_storage,
        is_tensor,
        numel,
        promote_types,
        result_type,
        typename,
    )
    from ember.random import (
        Generator,
        default_generator,
        get_rng_state,
        initial_seed,
        manual_seed,
        seed,
        set_rng_state,
    )
    from ember import _C, dispatch, fft, library, linalg, multiprocessing, nn, return_types, special
    from ember import signal
    from ember import func
    from ember.func import vmap
    from ember._C import DispatchKey
    from ember import overrides
    from ember import functional as _functional
    from ember.functional import norm
    from ember.functional_linalg import lu
    from ember._ops import ops
    from ember import autograd
    from ember import testing
    from ember import amp, cpu
    from ember._functionalization import (
        _disable_functionalization,
        _enable_functionalization,
        _freeze_functional_tensor,
        _from_functional_tensor,
        _functionalize_commit_update,
        _functionalize_enable_reapply_views,
        _functionalize_has_data_mutation,
        _functionalize_has_metadata_mutation,
        _functionalize_is_multi_output_view,
        _functionalize_replace,
        _functionalize_sync,
        _is_functional_tensor_base,
        _is_functional_tensor,
        _sync,
        _to_functional_tensor,
    )
    from ember import optim, serialization
    from ember import masked
    from ember import backends
    from ember.serialization import load, save
    from ember.amp import autocast
    from ember.amp.state import (
        autocast_decrement_nesting,
        autocast_increment_nesting,
        clear_autocast_cache,
        get_autocast_cpu_dtype,
        get_autocast_dtype,
        is_autocast_cache_enabled,
        is_autocast_cpu_enabled,
        is_autocast_enabled,
        set_autocast_cache_enabled,
        set_autocast_cpu_dtype,
        set_autocast_cpu_enabled,
        set_autocast_dtype,
        set_autocast_enabled,
    )
    from ember.autograd.grad_mode import (
        enable_grad,
        inference_mode,
        is_inference_mode_enabled,
        no_grad,
        set_grad_enabled,
    )

    _tensor_api.install(Tensor)
    _zero_tensor.install(Tensor)
    _indexing.install(Tensor)
    _install_conversions(Tensor)
    _install_subclass_constructors(Tensor)
    _install_stream()
    _install_set(Tensor)
    _install_deepcopy(Tensor)
    Tensor.norm = _functional.tensor_norm
    from ember.functional_linalg import tensor_lu as _tensor_lu

    Tensor.lu = _tensor_lu
    from ember import functional_shape as _functional_shape

    Tensor.nonzero = _functional_shape.tensor_nonzero
    Tensor.unique = _functional_shape.tensor_unique
    Tensor.unique_consecutive = _functional_shape.tensor_unique_consecutive
    autograd.install(Tensor)
    Tensor.split = _tensor_split_method
    _aten_torch_function.install(Tensor)  # last: wraps what the layers above installed

    # -- the non-operator names of torch's namespace (wtop) --
    import math as _math

    inf = _math.inf
    nan = _math.nan
    pi = _math.pi
    e = _math.e
    newaxis = None
    from ember._namespace.type_info import finfo, iinfo
    from ember._namespace.removed_linalg import eig, lstsq, matrix_rank, solve, symeig
    from ember._namespace.global_state import (
        are_deterministic_algorithms_enabled,
        get_deterministic_debug_mode,
        get_float32_matmul_precision,
        get_num_interop_threads,
        get_num_threads,
        is_deterministic_algorithms_warn_only_enabled,
        is_warn_always_enabled,
        set_deterministic_debug_mode,
        set_float32_matmul_precision,
        set_flush_denormal,
        set_num_interop_threads,
        set_num_threads,
        set_warn_always,
        use_deterministic_algorithms,
    )
    from ember._namespace.legacy_types import (
        BFloat16Tensor,
        BoolTensor,
        ByteTensor,
        CharTensor,
        DoubleTensor,
        FloatTensor,
        HalfTensor,
        IntTensor,
        LongTensor,
        ShortTensor,
        set_default_tensor_type,
    )
    from ember._tensor_str import set_printoptions
    from ember._namespace.functional_ops import chain_matmul, detach_, range  # noqa: A001
