"""ember.utils: helpers above the core, as torch.utils (here: ``_python_dispatch``).

Layer: top. Importing ``ember.utils._python_dispatch`` installs the real Python
and PythonTLSSnapshot backend fallbacks (facts §8.2).
"""

from ember.utils import _python_dispatch  # noqa: F401  (installs the Python-key fallbacks)
