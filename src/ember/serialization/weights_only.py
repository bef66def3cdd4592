"""weights_only loading: PyTorch's allowlist, the user's safe globals, PyTorch's messages.

Layer: serialization. In: a (module, name) a checkpoint's pickle names; out: the
object it may load as, or PyTorch's UnpicklingError. Mirrors the allowlist and
errors of torch/_weights_only_unpickler.py and torch.load's _get_wo_message, and
add_safe_globals / get_safe_globals / clear_safe_globals / safe_globals of
torch/serialization.py.
"""

from __future__ import annotations

import codecs
import collections
import pickle
import re

from ember._c10.naming import prefix

__all__ = ["add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals"]

UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will "
    "likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
    "file from a trusted source."
)
_DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default "
    "with weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
)
_BLOCKED_MODULES = ("sys", "os", "posix", "nt")


_BUILTIN_ALLOWED = {
    "collections.OrderedDict": collections.OrderedDict,
    "collections.Counter": collections.Counter,
    "_codecs.encode": codecs.encode,
    "builtins.bytearray": bytearray,
    "builtins.set": set,
    "builtins.complex": complex,
}
_USER_ALLOWED: dict = {}  # add_safe_globals / safe_globals


def _path_of(obj) -> str:
    return f"{obj.__module__}.{obj.__qualname__}"


def add_safe_globals(safe_globals: list) -> None:
    """Mark globals (or (global, "module.name") pairs) as safe for weights_only loads."""
    for entry in safe_globals:
        if isinstance(entry, tuple):
            obj, path = entry
        else:
            obj, path = entry, _path_of(entry)
        _USER_ALLOWED[path] = obj


def get_safe_globals() -> list:
    return list(_USER_ALLOWED.values())


def clear_safe_globals() -> None:
    _USER_ALLOWED.clear()


class safe_globals:  # noqa: N801 (PyTorch's name)
    """Context manager: the given globals are safe for weights_only loads inside it."""

    def __init__(self, safe_globals: list) -> None:
        self.safe_globals = safe_globals

    def __enter__(self) -> None:
        self._saved = dict(_USER_ALLOWED)
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc) -> None:
        _USER_ALLOWED.clear()
        _USER_ALLOWED.update(self._saved)


def _unsupported_global(module: str, name: str) -> pickle.UnpicklingError:
    full_path = f"{module}.{name}"
    if full_path.startswith("builtins."):
        full_path = full_path[len("builtins.") :]
    api = f"{prefix()}.serialization"
    return pickle.UnpicklingError(
        f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. "
        f"Please use `{api}.add_safe_globals([{full_path}])` or the "
        f"`{api}.safe_globals([{full_path}])` context manager to allowlist this global "
        "if you trust this class/function."
    )


def weights_only_message(message: str) -> str:
    """torch.load's _get_wo_message: the advice wrapped around the unpickler's error."""
    if re.search(r"GLOBAL (\S+) was not an allowed global by default.", message):
        return (
            "Weights only load failed. This file can still be loaded, to do so you have two "
            "options, \033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
            f"\n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` "
            "please check the recommended steps in the following error message.\n\t"
            "WeightsUnpickler error: " + message + _DOCS_MESSAGE
        )
    text = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
    if not re.search(r"whose module (\S+) is blocked", message):
        text += (
            "Please file an issue with the following so that we can make `weights_only=True` "
            "compatible with your use case: WeightsUnpickler error: "
        )
    return text + "\n\n" + message + _DOCS_MESSAGE


def weights_only_global(module: str, name: str):
    """What a weights_only load admits for GLOBAL module.name, or PyTorch's error."""
    path = f"{module}.{name}"
    if module in _BLOCKED_MODULES:
        raise pickle.UnpicklingError(
            f"Trying to load unsupported GLOBAL {path} whose module {module} is blocked."
        )
    for table in (_BUILTIN_ALLOWED, _USER_ALLOWED):
        if path in table:
            return table[path]
    raise _unsupported_global(module, name)
