"""The parts of `ember.nn.functional`, one module per family; functional.py re-exports them.

Layer: the Python face, above aten. Mirrors the sections of torch/nn/functional.py.
"""
