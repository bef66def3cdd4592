"""ember's code generator: native_functions.yaml (and derivatives.yaml) -> committed Python.

Layer: codegen. Run `EMBER_CODEGEN=1 python -m ember.codegen` (or `make generate`; the variable
keeps `import ember` from loading the generated files while they are rewritten); `--check`
exits non-zero when a committed file differs from what would be written.
Mirrors torchgen: model.py (the yaml's model), python_api.py (Python
signatures), gen_python.py (ember.<fn> and Tensor methods), gen_registrations.py
(per-backend registrations, BackendSelect, ADInplaceOrView).
"""
