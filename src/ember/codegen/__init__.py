"""ember's code generator: native_functions.yaml (and derivatives.yaml) -> committed Python.

Layer: codegen. Run `python -m ember.codegen` (or `make generate`); `--check`
exits non-zero when a committed file differs from what would be written.
Mirrors torchgen: model.py (the yaml's model), python_api.py (Python
signatures), gen_python.py (ember.<fn> and Tensor methods), gen_registrations.py
(per-backend registrations, BackendSelect, ADInplaceOrView).
"""
