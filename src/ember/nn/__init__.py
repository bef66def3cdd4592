"""`ember.nn`: the neural-network face of ember (so far, the functional API).

Layer: the Python face, above aten. In/out: tensors. Mirrors torch/nn/__init__.py;
`ember.nn.functional` mirrors torch/nn/functional.py.
"""

from ember.nn import functional  # noqa: F401
