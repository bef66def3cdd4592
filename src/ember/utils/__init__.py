"""ember.utils: helpers above the core, as torch.utils (here: ``_python_dispatch``).

Layer: utils (above autograd; imports _c10, _dispatch, _ops, _tensor). Importing any
module of this package runs this file first, and it installs the real Python and
PythonTLSSnapshot backend fallbacks (``_python_fallback``, facts §8.2): registration
from above, so that the mode stack (``_python_dispatch``) imports nothing that
registers and the two modules form no import cycle.
"""

from ember.utils import (
    _python_fallback,  # noqa: F401  (installs the Python-key fallbacks)
    _python_metadata,  # noqa: F401  (fills in c10's py_interpreter)
    _pytree,  # noqa: F401,E402  (torch.utils._pytree after `import torch`)
)
