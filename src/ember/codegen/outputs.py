"""Every generated file, as a mapping from its path to its text (deterministic).

Layer: codegen. The single list of what the generator owns; `__main__` writes
it and tests/test_codegen.py checks the committed files against it.
"""

from __future__ import annotations

from pathlib import Path

from . import gen_autograd, gen_forward_ad, gen_python, gen_registrations
from .autograd_model import autograd_ops, load_derivatives
from .model import load_native_functions, structured_groups, with_python_names
from .python_api import group_python_signatures, module_python_signatures, nn_python_signatures

PACKAGE = Path(__file__).resolve().parent.parent
ATEN_GENERATED = PACKAGE / "aten" / "_generated"
AUTOGRAD_GENERATED = PACKAGE / "autograd" / "_generated"


def generated_files() -> dict[Path, str]:
    functions = load_native_functions()
    kernels = with_python_names(functions)  # the generated kernels' parameters
    groups = structured_groups(kernels)
    files = {
        "__init__.py": gen_python.HEADER + '"""Code generated from native_functions.yaml."""\n',
        "definitions.py": gen_registrations.write_definitions(functions),
        "register_cpu.py": gen_registrations.write_backend(kernels, groups, "CPU"),
        "register_meta.py": gen_registrations.write_backend(kernels, groups, "Meta"),
        "register_composite.py": gen_registrations.write_composite(kernels),
        "register_backend_select.py": gen_registrations.write_backend_select(kernels),
        "register_inplace_or_view.py": gen_registrations.write_inplace_or_view(kernels),
        "python_functions.py": gen_python.write_functions(
            group_python_signatures(functions, method=False),
            "ember.<fn>: the Python functions of the aten operators.",
            method=False,
        ),
        "python_nn_functions.py": gen_python.write_functions(
            nn_python_signatures(functions),
            "ember._C._nn.<fn>: the Python functions of the nn operators.",
            method=False,
            module="ember.nn",
        ),
        "python_linalg_functions.py": gen_python.write_functions(
            module_python_signatures(functions, "linalg"),
            "ember._C._linalg.<fn>: the Python functions of the linalg operators.",
            method=False,
            module="ember.linalg",
        ),
        "python_special_functions.py": gen_python.write_functions(
            module_python_signatures(functions, "special"),
            "ember._C._special.<fn>: the Python functions of the special operators.",
            method=False,
            module="ember.special",
        ),
        "python_fft_functions.py": gen_python.write_functions(
            module_python_signatures(functions, "fft"),
            "ember._C._fft.<fn>: the Python functions of the fft operators.",
            method=False,
            module="ember.fft",
        ),
        "tensor_methods.py": gen_python.write_functions(
            group_python_signatures(functions, method=True),
            "Tensor.<method>: the methods of the aten operators.",
            method=True,
        ),
    }
    result = {ATEN_GENERATED / name: text for name, text in files.items()}
    ops = autograd_ops(kernels, load_derivatives())
    autograd_files = {
        "__init__.py": gen_python.HEADER + '"""Code generated from derivatives.yaml."""\n',
        "nodes.py": gen_autograd.write_nodes(ops, gen_autograd.used_helpers(ops)),
        "autograd_kernels.py": gen_autograd.write_kernels(ops),
        "forward_grads.py": gen_forward_ad.write_forward_grads(ops),
    }
    result.update({AUTOGRAD_GENERATED / name: text for name, text in autograd_files.items()})
    return result
