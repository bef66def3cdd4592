"""`ember run SCRIPT.py`: a program written for PyTorch, unchanged, with ember answering `torch`.

Layer: tools (imported by the command line only). In: a script path and its
arguments. Out: the script's own output and exit status, as `python SCRIPT.py`
gives them (CPython's Modules/main.c, `pymain_run_file`): ``sys.argv`` is the
script and its arguments, ``sys.path[0]`` its folder, it runs as ``__main__``,
an uncaught exception prints its traceback (from the script's frame down, not
ember's) through ``sys.excepthook`` and exits 1, and ``SystemExit`` exits as
Python does.

`import torch`, `import torch.X` and `from torch.X import Y` are answered by an
import hook (a ``MetaPathFinder`` placed first on ``sys.meta_path``), not by
rewriting the program's text: the name ``torch.X`` is bound to the module
``ember.X`` itself, so ``torch.nn is ember.nn`` and a program's objects are
ember's. A module ember does not have fails as Python fails for a missing one
(``ModuleNotFoundError``), never by falling through to an installed PyTorch.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import signal
import sys
from collections.abc import Iterator
from types import ModuleType, TracebackType

ALIAS, TARGET = "torch", "ember"


def _aliased(name: str) -> bool:
    return name == ALIAS or name.startswith(ALIAS + ".")


class TorchIsEmber(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers ``torch`` and ``torch.X`` with the modules ``ember`` and ``ember.X``."""

    def find_spec(self, name: str, path=None, target=None):
        if not _aliased(name):
            return None
        real = TARGET + name[len(ALIAS) :]
        try:
            found = importlib.util.find_spec(real)
        except ModuleNotFoundError:
            found = None
        if found is None:
            raise ModuleNotFoundError(f"No module named '{name}' (ember has no {real})", name=name)
        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec) -> ModuleType:
        return importlib.import_module(TARGET + spec.name[len(ALIAS) :])

    def exec_module(self, module: ModuleType) -> None:
        """The module is ember's, already executed; nothing more to run."""


@contextlib.contextmanager
def torch_is_ember() -> Iterator[None]:
    """While active, `import torch[.X]` gives ember[.X]; on exit the hook and the ``torch``
    names it bound are removed, and any ``torch`` modules imported before are put back."""
    hidden = {name: sys.modules.pop(name) for name in list(sys.modules) if _aliased(name)}
    finder = TorchIsEmber()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for name in [name for name in sys.modules if _aliased(name)]:
            del sys.modules[name]
        sys.modules.update(hidden)


def _script_traceback(tb: TracebackType | None, filename: str) -> TracebackType | None:
    """The traceback from the script's own frame on: what `python SCRIPT.py` prints."""
    walk = tb
    while walk is not None:
        if walk.tb_frame.f_code.co_filename == filename:
            return walk
        walk = walk.tb_next
    return None  # it failed before running (a SyntaxError): python prints no frames then


def _exit_status(stop: SystemExit) -> int:
    """What Python's interpreter does with an uncaught ``SystemExit`` (pymain_exit_err_print)."""
    code = stop.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _main_module(filename: str) -> ModuleType:
    """A fresh ``__main__`` with the attributes python gives a script's (run_file in pythonrun.c)."""
    main = ModuleType("__main__")
    main.__file__, main.__cached__, main.__package__, main.__spec__ = filename, None, None, None
    main.__loader__ = importlib.machinery.SourceFileLoader("__main__", filename)
    main.__builtins__ = builtins
    return main


def run_script(path: str, args: list[str], *, as_given: bool = False) -> int:
    """Run the file at `path` as ``__main__`` with ``sys.argv = [path, *args]``; its exit status.

    The script's ``__file__`` (and so its frames' file names) is the absolute path, as
    python gives it; `as_given` keeps `path` as typed instead (the trace names callers so).
    Call it inside :func:`torch_is_ember` for a PyTorch program. ``KeyboardInterrupt`` ends
    the process by SIGINT after its traceback, as Python's own interpreter does."""
    script = os.path.abspath(path)
    filename = path if as_given else script
    saved = sys.argv, sys.path[:1], sys.modules.get("__main__")
    sys.argv = [path, *args]
    sys.path[:1] = [os.path.dirname(script)]
    main = sys.modules["__main__"] = _main_module(filename)
    try:
        with open(script, "rb") as source:
            code = compile(source.read(), filename, "exec", dont_inherit=True)
        exec(code, main.__dict__)
        return 0
    except SystemExit as stop:
        return _exit_status(stop)
    except BaseException as error:  # the script's failure: its traceback, as python prints it
        error.with_traceback(_script_traceback(error.__traceback__, filename))
        sys.excepthook(type(error), error, error.__traceback__)
        if isinstance(error, KeyboardInterrupt):
            sys.stdout.flush()
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        return 1
    finally:
        sys.argv, sys.path[:1], previous = saved
        if previous is not None:
            sys.modules["__main__"] = previous
