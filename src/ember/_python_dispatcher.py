"""torch._python_dispatcher.PythonDispatcher: a teaching view of how one operator's table is computed.

Layer: top (imports ember._C and ember.library, which installs _C._dispatch_library).
Mirrors torch/_python_dispatcher.py. In: a list of key names among a few chosen to stand
for each kind of key (an in-tree backend and its autograd key, a backend served by
AutogradOther, an out-of-tree backend, the alias keys). Out: the same texts PyTorch
prints. The table is not modelled here: each registration is a real typed kernel
``fn_<key>`` on the operator ``__test__::foo`` through ``_dispatch_library``, and the
tables are the dispatcher's own dumps, trimmed to the chosen keys. Like PyTorch's, every
instance registers on the same operator; an instance's registrations end with it.
"""

from __future__ import annotations

import os
import re

from ember import _C
from ember import library as _library  # noqa: F401 (installs _C._dispatch_library)

__all__ = ["PythonDispatcher"]

# A backend fallback ember registers itself is the framework's, as PyTorch's
# *FallbackKernel.cpp ones are: the tables show it without its location.
_FRAMEWORK_FALLBACK = re.compile(
    r"registered at " + re.escape(os.path.dirname(os.path.abspath(_C.__file__))) + r"\S* (?=\[)"
)


class PythonDispatcher:
    """Register kernels at a few keys of one operator and read the table computed from them."""

    namespace = "__test__"
    name = "foo"
    runtime_keys = [
        "CPU", "AutogradCPU",
        "FPGA", "AutogradOther",
        "XLA", "AutogradXLA",
        "Lazy", "AutogradLazy",
    ]  # fmt: skip
    alias_keys = ["CompositeExplicitAutograd", "Autograd", "CompositeImplicitAutograd"]
    supported_keys = runtime_keys + alias_keys

    def __init__(self) -> None:
        _C._dispatch_check_invariants(self.name)
        self.ref = _C._dispatch_library("FRAGMENT", self.namespace, "")
        self.ref.def_("foo(Tensor x) -> Tensor")

    def keys(self) -> list[str]:
        """The keys ``register`` accepts."""
        return self.supported_keys

    def register(self, dispatchKeys) -> None:  # noqa: N803 (PyTorch's name)
        """A kernel ``fn_<key>`` at each key; duplicates and CIA together with CEA are refused."""
        if len(set(dispatchKeys)) != len(dispatchKeys):
            raise RuntimeError(f"Overridden is not allowed but found duplicates in {dispatchKeys}.")
        if "CompositeImplicitAutograd" in dispatchKeys and "CompositeExplicitAutograd" in (
            dispatchKeys
        ):
            raise RuntimeError(
                "Registration to both CompositeImplicitAutograd and CompositeExplicitAutograd "
                "is not allowed."
            )
        for key in dispatchKeys:
            if key not in self.supported_keys:
                raise RuntimeError(
                    f"{key} is not supported, please select a dispatch key in "
                    f"{self.supported_keys}."
                )
            self.ref.impl_t_t("foo", dispatch=key, debug="fn_" + key)

    # -- the texts ------------------------------------------------------------------------
    @staticmethod
    def _format_line(key: str, kernel: str) -> str:
        return f"{key:<15} {kernel}\n"

    def _format_header(self, header: str) -> str:
        return f"\n{header}\n" + self._format_line("key", "kernel") + "-" * 27 + "\n"

    def rawRegistrations(self) -> str:  # noqa: N802 (PyTorch's name)
        """The operator's ``_dispatch_dump``."""
        return _C._dispatch_dump(f"{self.namespace}::{self.name}")

    def rawDispatchTable(self) -> str:  # noqa: N802 (PyTorch's name)
        """The operator's ``_dispatch_dump_table``."""
        return _C._dispatch_dump_table(f"{self.namespace}::{self.name}")

    def registrations(self) -> str:
        """Each registered kernel's key (alias keys marked) and name."""
        text = self._format_header("Registered Kernels")
        for line in self.rawRegistrations().split("\n"):
            key = line.split(":")[0]
            if any(key.startswith(supported) for supported in self.supported_keys):
                text += self._format_line(key, line.split("::")[0].split(" ")[1])
        return text

    def dispatchTable(self) -> str:  # noqa: N802 (PyTorch's name)
        """The computed entry of each chosen runtime key, with how it was chosen."""
        text = self._format_header("Computed Dispatch Table")
        for line in self.rawDispatchTable().split("\n"):
            key = line.split(":")[0]
            if key in self.runtime_keys:
                text += self._format_line(key, _FRAMEWORK_FALLBACK.sub("", line).split(": ")[1])
        return text
