"""The generated files are what the generator writes today, and everything they name exists."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import ember  # imports every generated module: a missing kernel fails here
from ember.aten import meta, native, ufunc
from ember.codegen.model import load_native_functions
from ember.codegen.outputs import generated_files

ROOT = Path(__file__).resolve().parent.parent


def test_generated_files_are_fresh():
    stale = [
        str(path.relative_to(ROOT))
        for path, text in generated_files().items()
        if not path.exists() or path.read_text() != text
    ]
    assert stale == [], f"stale generated files (run `make generate`): {stale}"


_DIGEST = (
    "import hashlib; from ember.codegen.outputs import generated_files; "
    "print(hashlib.sha256(repr(sorted((str(k), v) for k, v in generated_files().items()))"
    ".encode()).hexdigest())"
)


def test_generator_is_deterministic():
    """Two runs with different hash seeds write byte-identical files."""
    digests = []
    for seed in ("1", "2"):
        env = dict(os.environ, EMBER_CODEGEN="1", PYTHONHASHSEED=seed)
        run = subprocess.run(
            [sys.executable, "-c", _DIGEST], env=env, capture_output=True, text=True
        )
        assert run.returncode == 0, run.stderr
        digests.append(run.stdout)
    assert digests[0] == digests[1]


def test_every_name_the_generated_code_uses_exists():
    modules = {"N": native, "M": meta, "U": ufunc}
    missing = []
    for path in generated_files():
        for prefix, name in re.findall(r"\b([NMU])\.(\w+)", path.read_text()):
            if name == "_requires_grad":  # an argument named U (svd's out), not the module
                continue
            if not hasattr(modules[prefix], name):
                missing.append(f"{prefix}.{name}")
    assert missing == []


def test_every_yaml_schema_prints_as_pytorchs():
    """`str(ember.ops.aten.X.overload._schema)` equals PyTorch's for every operator in the yaml."""
    torch = pytest.importorskip("torch")
    different = []
    for f in load_native_functions():
        name, _, overload = f.name.partition(".")
        ours = str(getattr(getattr(ember.ops.aten, name), overload or "default")._schema)
        theirs = str(getattr(getattr(torch.ops.aten, name), overload or "default")._schema)
        if ours != theirs:
            different.append((ours, theirs))
    assert different == []
