"""Copy ember's operators out of PyTorch's own native_functions.yaml.

Layer: codegen (a maintenance tool; not run by the build). In: the yaml that
ships in the torch 2.13 wheel (torchgen/packaged/ATen/native/). Out: the
entries ember implements, with their schema, structured fields, variants,
tags and device_check copied as they are, and the `dispatch:` section
narrowed to the keys ember has (CPU, Meta and the composite aliases).

The result is committed as src/ember/aten/native_functions.yaml and edited
by hand from then on (kernel names are ember's); rerun this only to pull a
new operator in:

    python -m ember.codegen.import_native_functions OVERLOAD [OVERLOAD ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

KEPT_FIELDS = (
    "func",
    "device_check",
    "structured",
    "structured_delegate",
    "structured_inherits",
    "ufunc_inner_loop",
    "variants",
    "dispatch",
    "tags",
    "python_module",
)
EMBER_KEYS = (
    "CPU",
    "Meta",
    "CompositeExplicitAutograd",
    "CompositeExplicitAutogradNonFunctional",
    "CompositeImplicitAutograd",
)


def torch_native_functions() -> list[dict]:
    import torchgen  # shipped with torch

    path = Path(torchgen.__file__).parent / "packaged/ATen/native/native_functions.yaml"
    return yaml.safe_load(path.read_text())


def kernel_name(func: str) -> str:
    """ember's kernel for an overload: ``add_.Scalar`` -> ``add__Scalar``, ``mm`` -> ``mm``."""
    return func.split("(")[0].replace(".", "_")


def narrow_dispatch(entry: dict) -> dict[str, str]:
    """Keep ember's keys; a CPU kernel also serves Meta (ember kernels are device-generic)."""
    keys = set()
    for group in entry.get("dispatch", {}):
        keys |= {k.strip() for k in group.split(",") if k.strip() in EMBER_KEYS}
    if "structured_delegate" in entry:
        return {}
    if entry.get("structured"):
        # Meta comes from the structured meta function; ufunc ops get CPU from the formula.
        keys = {"CPU"} if "CPU" in keys and "ufunc_inner_loop" not in entry else set()
    elif "CPU" in keys:
        keys.add("Meta")
    ordered = [k for k in EMBER_KEYS if k in keys]
    if not ordered:
        return {}
    backend = [k for k in ordered if k in ("CPU", "Meta")]
    composite = [k for k in ordered if k not in ("CPU", "Meta")]
    name = kernel_name(entry["func"])
    return {", ".join(group): name for group in (backend, composite) if group}


def emit(entries: list[dict]) -> str:
    """Write entries in the layout of PyTorch's own yaml (flow lists, one blank line between)."""
    lines = []
    for entry in entries:
        lines.append(f"- func: {entry['func']}")
        for field in KEPT_FIELDS[1:]:
            if field not in entry:
                continue
            value = entry[field]
            if isinstance(value, dict):
                lines.append(f"  {field}:")
                lines.extend(f"    {k}: {v}" for k, v in value.items())
            elif isinstance(value, list):
                lines.append(f"  {field}: [{', '.join(value)}]")
            elif isinstance(value, bool):
                lines.append(f"  {field}: {'True' if value else 'False'}")
            else:
                lines.append(f"  {field}: {value}")
        lines.append("")
    return "\n".join(lines)


def import_entries(overloads: list[str]) -> list[dict]:
    wanted = set(overloads)
    entries = []
    for entry in torch_native_functions():
        name = entry["func"].split("(")[0]
        if name not in wanted:
            continue
        kept = {field: entry[field] for field in KEPT_FIELDS if field in entry}
        kept.pop("dispatch", None)
        dispatch = narrow_dispatch(entry)
        if dispatch:
            kept["dispatch"] = dispatch
        entries.append(kept)
    return entries


if __name__ == "__main__":
    sys.stdout.write(emit(import_entries(sys.argv[1:])))
