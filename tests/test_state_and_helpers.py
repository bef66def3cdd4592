"""The torch namespace's state and helper functions with bad arguments, against torch:
set_default_dtype, promote_types / result_type / can_cast, torch.dtype and torch.device
construction, the generator's seeds and state, is_tensor / numel / is_floating_point and
the no-argument functions. Each call must raise what torch raises (type and message) or
return what it returns."""

from __future__ import annotations

import pickle

import pytest
from autograd_support import same_outcome

CASES = {
    "set_default_dtype_int": lambda t: t.set_default_dtype(t.int64),
    "set_default_dtype_str": lambda t: t.set_default_dtype("float32"),
    "set_default_dtype_none": lambda t: t.set_default_dtype(None),
    "promote_types_one": lambda t: t.promote_types(t.float32),
    "promote_types_none": lambda t: t.promote_types(),
    "promote_types_str": lambda t: t.promote_types("a", t.float32),
    "promote_types_int": lambda t: t.promote_types(t.float32, 1),
    "promote_types_three": lambda t: t.promote_types(t.float32, t.int64, 3),
    "promote_types_keywords": lambda t: t.promote_types(type1=t.uint8, type2=t.int8),
    "promote_types_bad_keyword": lambda t: t.promote_types(t.float32, type3=t.int64),
    "result_type_numbers": lambda t: t.result_type(1, 2.5),
    "result_type_tensor_str": lambda t: t.result_type(t.ones(2), "a"),
    "result_type_tensor_number": lambda t: t.result_type(t.ones(2, dtype=t.int32), 1.5),
    "can_cast_str": lambda t: t.can_cast(t.float32, "a"),
    "can_cast_one": lambda t: t.can_cast(t.float32),
    "can_cast": lambda t: (t.can_cast(t.float32, t.int64), t.can_cast(t.int64, t.float32)),
    "dtype_str": lambda t: t.dtype("float32"),
    "dtype_none": lambda t: t.dtype(),
    "dtype_pickles": lambda t: pickle.loads(pickle.dumps(t.float64)) is t.float64,
    "device_index_str": lambda t: t.device("cpu", "x"),
    "device_float": lambda t: t.device(1.5),
    "device_none": lambda t: t.device(),
    "device_three": lambda t: t.device("cpu", 0, 1),
    "device_keywords": lambda t: (t.device("cpu", index=0), t.device(type="meta")),
    "device_negative_index": lambda t: t.device("cpu", -1),
    "device_float_index": lambda t: t.device("cpu", 1.5),
    "device_none_index": lambda t: t.device("cpu", None),
    "device_of_none": lambda t: t.device(None),
    "device_device_index": lambda t: t.device(t.device("cpu"), 1),
    "device_bool_index": lambda t: t.device("cpu", True),
    "device_huge_index": lambda t: t.device("cpu", 2**63),
    "device_bytes": lambda t: t.device(b"cpu"),
    "device_bad_keyword": lambda t: t.device("cpu", bogus=1),
    "device_float_keyword": lambda t: t.device(type=1.5),
    "device_index_only": lambda t: t.device(index=1),
    "device_str_index_keyword": lambda t: t.device("cpu", index="x"),
    "device_list": lambda t: t.device([1]),
    "device_int": lambda t: t.device(0),
    "device_negative_int": lambda t: t.device(-1),
    "device_pickles": lambda t: pickle.loads(pickle.dumps(t.device("cpu", 0))),
    "set_rng_state_str": lambda t: t.set_rng_state("a"),
    "set_rng_state_float": lambda t: t.set_rng_state(t.ones(3)),
    "set_rng_state_size": lambda t: t.set_rng_state(t.ones(3, dtype=t.uint8)),
    "set_rng_state_invalid": lambda t: t.set_rng_state(t.ones(5056, dtype=t.uint8)),
    "get_rng_state": lambda t: (t.get_rng_state().dtype, tuple(t.get_rng_state().shape)),
    "rng_state_round_trip": lambda t: _round_trip(t),
    "generator_seed_str": lambda t: t.Generator().manual_seed("a"),
    "generator_seed_float": lambda t: t.Generator().manual_seed(1.5),
    "generator_seed_bool": lambda t: t.Generator().manual_seed(True),
    "generator_seed_tensor": lambda t: t.Generator().manual_seed(t.tensor(3)),
    "generator_seed_huge": lambda t: t.Generator().manual_seed(2**64),
    "generator_seed_negative": lambda t: t.Generator().manual_seed(-1).initial_seed(),
    "manual_seed_huge": lambda t: t.manual_seed(2**64),
    "manual_seed_very_negative": lambda t: t.manual_seed(-(2**63) - 1),
    "manual_seed_float": lambda t: (t.manual_seed(1.5), t.initial_seed())[1],
    "manual_seed_str": lambda t: t.manual_seed("a"),
    "manual_seed_tensor": lambda t: (t.manual_seed(t.tensor(3)), t.initial_seed())[1],
    "is_tensor_two": lambda t: t.is_tensor(1, 2),
    "is_tensor_none": lambda t: t.is_tensor(),
    "is_tensor": lambda t: (t.is_tensor(t.ones(1)), t.is_tensor(1)),
    "is_storage": lambda t: (t.is_storage(1), t.is_storage(t.ones(1).untyped_storage())),
    "numel_int": lambda t: t.numel(3),
    "numel_none": lambda t: t.numel(),
    "numel_two": lambda t: t.numel(t.ones(2), 1),
    "numel": lambda t: t.numel(t.ones(2, 3)),
    "is_floating_point_int": lambda t: t.is_floating_point(3),
    "is_complex_str": lambda t: t.is_complex("a"),
    "is_floating_point": lambda t: (t.is_floating_point(t.ones(1)), t.is_complex(t.ones(1))),
    "typename": lambda t: (t.typename(3), t.typename(t.ones(1)), t.typename(pickle)),
    "get_default_dtype_argument": lambda t: t.get_default_dtype(1),
    "is_grad_enabled_keyword": lambda t: t.is_grad_enabled(x=1),
}


def _round_trip(t):
    t.manual_seed(3)
    state = t.get_rng_state()
    first = t.rand(3)
    t.manual_seed(5)
    t.set_rng_state(state.view(2, -1))
    return bool((first == t.rand(3)).all()), t.initial_seed()


@pytest.mark.parametrize("name", sorted(CASES))
def test_state_and_helpers_as_torch(name):
    def program(t):
        try:
            return repr(CASES[name](t)).replace("ember", "torch")  # devices, dtypes, names
        finally:
            t.set_default_dtype(t.float32)
            t.manual_seed(0)

    same_outcome(program)


TENSOR_CASES = {  # called directly (`t.dim(1)`): CPython names the method TensorBase.dim
    "data_ptr_argument": lambda t: t.ones(2).data_ptr(1),
    "element_size_argument": lambda t: t.ones(2).element_size(1),
    "dim_argument": lambda t: t.ones(2).dim(1),
    "numel_argument": lambda t: t.ones(2).numel(1),
    "storage_offset_argument": lambda t: t.ones(2).storage_offset(1),
    "untyped_storage_argument": lambda t: t.ones(2).untyped_storage(1),
    "nelement_argument": lambda t: t.ones(2).nelement(1),
    "ndimension_argument": lambda t: t.ones(2).ndimension(1),
    "is_floating_point_argument": lambda t: t.ones(2).is_floating_point(1),
    "is_complex_argument": lambda t: t.ones(2).is_complex(1),
    "is_signed_argument": lambda t: t.ones(2).is_signed(1),
    "get_device_argument": lambda t: t.ones(2).get_device(1),
    "is_inference_argument": lambda t: t.ones(2).is_inference(1),
    "dim_two_arguments": lambda t: t.ones(2).dim(1, 2),
    "type_as_int": lambda t: t.ones(2).type_as(3),
    "type_as_none": lambda t: t.ones(2).type_as(),
    "type_as": lambda t: t.ones(2).type_as(t.ones(1, dtype=t.int64)),
    "type_as_meta": lambda t: t.ones(2).type_as(t.ones(1, device="meta")),
    "type_as_keyword": lambda t: t.ones(2).type_as(other=t.ones(1, dtype=t.float64)).dtype,
    "contains_str": lambda t: "a" in t.ones(2),
    "contains_none": lambda t: None in t.ones(2),
    "contains_tuple": lambda t: (1,) in t.ones(2),
    "contains_numbers": lambda t: (1 in t.ones(2), 1.5 in t.ones(2), True in t.ones(2)),
    "contains_tensor": lambda t: t.ones(1) in t.ones(2),
    "requires_grad__str": lambda t: t.ones(2).requires_grad_("x"),
    "is_contiguous_positional": lambda t: t.ones(2).is_contiguous("x"),
    "is_contiguous_two": lambda t: t.ones(2).is_contiguous(1, 2),
    "is_contiguous_keyword": lambda t: t.ones(2).is_contiguous(memory_format=t.contiguous_format),
}


@pytest.mark.parametrize("name", sorted(TENSOR_CASES))
def test_tensor_helpers_as_torch(name):
    same_outcome(lambda t: repr(TENSOR_CASES[name](t)).replace("ember", "torch"))
