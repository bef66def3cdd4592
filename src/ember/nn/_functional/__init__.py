"""The parts of ember.nn.functional, one module per family (re-exported by nn/functional.py)."""
