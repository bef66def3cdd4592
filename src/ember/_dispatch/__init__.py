"""The dispatcher layer: schemas, operator entries, the Dispatcher, dispatch tracing.

Layer: _dispatch (imports only _c10). Mirrors ATen/core/dispatch. Importing any
module of this package runs this file first, and it registers PyTorch's start-up
backend fallbacks (builtin_fallbacks.py) with the dispatcher: registration from
above, so that dispatcher.py imports nothing that registers and the two modules
form no import cycle.
"""

from . import builtin_fallbacks  # noqa: F401  (registers the built-in backend fallbacks)
