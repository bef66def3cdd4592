"""The model of native_functions.yaml: one NativeFunction per entry, grouped.

Layer: codegen (reads yaml, writes Python; imports only the schema parser).
Mirrors torchgen/model.py: NativeFunction, NativeFunctionsGroup, the rules
that fill in what an entry leaves unsaid (no dispatch section means a
CompositeImplicitAutograd kernel named after the overload; a
structured_delegate borrows the kernels of its structured out= overload).
"""

from __future__ import annotations

import dataclasses
import keyword
import re
from pathlib import Path

import yaml

from ember._dispatch.schema import FunctionSchema
from ember._dispatch.schema_parser import parse_schema

NATIVE_FUNCTIONS = Path(__file__).resolve().parent.parent / "aten" / "native_functions.yaml"


def kernel_name(func_name: str) -> str:
    """``add_.Scalar`` -> ``add__Scalar``: the Python name of an overload's kernel."""
    return func_name.replace(".", "_")


@dataclasses.dataclass(frozen=True)
class NativeFunction:
    func: FunctionSchema
    line: int
    variants: frozenset[str]
    structured: bool
    structured_delegate: str | None
    structured_inherits: str | None
    ufunc_inner_loop: dict[str, str]
    dispatch: dict[str, str]  # dispatch key name -> kernel name
    tags: tuple[str, ...]
    device_check: str | None
    python_module: str | None
    # PyTorch's `autogen:` (the overloads torchgen writes from this one). ember's yaml
    # spells those out with kernels of their own; autograd treats them as torchgen does:
    # no derivative entry reaches them (See Note [Operators without a derivative formula]).
    autogen: tuple[str, ...] = ()
    # (argument, default) of each float argument as the yaml writes it: torchgen's Python
    # signatures print that text (`float base = 10.0`), the schema prints the double (`10.`)
    float_defaults: tuple[tuple[str, str], ...] = ()

    @property
    def name(self) -> str:
        """``add.Tensor``, ``mm``: the overload name as native_functions.yaml writes it."""
        return self.func.qualified_name.removeprefix("aten::")

    @property
    def base_name(self) -> str:
        return self.func.name.removeprefix("aten::")

    @property
    def kernel(self) -> str:
        return kernel_name(self.name)

    @property
    def is_out(self) -> bool:
        return any(a.is_out for a in self.func.arguments)

    @property
    def is_inplace(self) -> bool:
        return self.base_name.endswith("_") and not self.base_name.endswith("__")

    @property
    def is_view(self) -> bool:
        annotated = [a.alias_info for a in self.func.arguments if a.alias_info is not None]
        return bool(annotated) and not any(info.is_write for info in annotated)

    @property
    def is_composite_implicit(self) -> bool:
        return "CompositeImplicitAutograd" in self.dispatch

    @property
    def is_factory(self) -> bool:
        """No tensor argument, but a device: BackendSelect picks the backend."""
        names = {a.name for a in self.func.arguments}
        return not self.func.dispatch_arguments() and "device" in names


def _parse_dispatch(entry: dict) -> dict[str, str]:
    dispatch = {}
    for keys, kernel in (entry.get("dispatch") or {}).items():
        for key in keys.split(","):
            dispatch[key.strip()] = kernel
    no_kernels = not dispatch and not entry.get("structured")
    if no_kernels and not entry.get("structured_delegate"):
        dispatch["CompositeImplicitAutograd"] = kernel_name(entry["func"].split("(")[0])
    return dispatch


def _parse_ufunc(entry: dict) -> dict[str, str]:
    loops = {}
    for kind, spec in (entry.get("ufunc_inner_loop") or {}).items():
        loops[kind] = spec.split("(")[0].strip()
    return loops


def _as_tuple(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(","))
    return tuple(value)


def _entry_lines(text: str) -> list[int]:
    return [i for i, line in enumerate(text.splitlines(), start=1) if line.startswith("- func:")]


def with_python_names(functions: list[NativeFunction]) -> list[NativeFunction]:
    """The functions with every argument a Python keyword names renamed (`from` -> `from_`),
    for the generated kernels, whose parameters are Python names. The definitions and the
    Python signatures keep the schema's names (`x.random_(from=2, to=5)` as in PyTorch)."""
    renamed = []
    for f in functions:
        if not any(keyword.iskeyword(a.name) for a in f.func.arguments):
            renamed.append(f)
            continue
        arguments = tuple(
            dataclasses.replace(a, name=a.name + "_") if keyword.iskeyword(a.name) else a
            for a in f.func.arguments
        )
        renamed.append(
            dataclasses.replace(f, func=dataclasses.replace(f.func, arguments=arguments))
        )
    return renamed


def load_native_functions(path: Path = NATIVE_FUNCTIONS) -> list[NativeFunction]:
    text = path.read_text()
    entries = yaml.safe_load(text)
    functions = []
    for entry, line in zip(entries, _entry_lines(text), strict=True):
        functions.append(
            NativeFunction(
                func=parse_schema("aten::" + entry["func"]),
                line=line,
                variants=frozenset(_as_tuple(entry.get("variants", "function"))),
                structured=bool(entry.get("structured", False)),
                structured_delegate=entry.get("structured_delegate"),
                structured_inherits=entry.get("structured_inherits"),
                ufunc_inner_loop=_parse_ufunc(entry),
                dispatch=_parse_dispatch(entry),
                tags=_as_tuple(entry.get("tags")),
                device_check=entry.get("device_check"),
                python_module=entry.get("python_module"),
                autogen=tuple(n.strip() for n in str(entry.get("autogen", "")).split(",") if n),
                float_defaults=tuple(_FLOAT_DEFAULT.findall(entry["func"])),
            )
        )
    return functions


_FLOAT_DEFAULT = re.compile(r"\bfloat\?? (\w+)=([^,)]+)")


@dataclasses.dataclass(frozen=True)
class StructuredGroup:
    """A structured out= overload and the functional / in-place overloads delegating to it."""

    out: NativeFunction
    functional: NativeFunction | None
    inplace: NativeFunction | None

    @property
    def meta_name(self) -> str:
        """The shared meta function: ``add`` for add.out, ``sum_dim_IntList`` style otherwise."""
        return self.functional.kernel if self.functional else self.out.kernel

    @property
    def members(self) -> tuple[NativeFunction, ...]:
        return tuple(f for f in (self.functional, self.inplace, self.out) if f is not None)


def structured_groups(functions: list[NativeFunction]) -> list[StructuredGroup]:
    by_name = {f.name: f for f in functions}
    delegates: dict[str, list[NativeFunction]] = {}
    for f in functions:
        if f.structured_delegate:
            if f.structured_delegate not in by_name:
                raise ValueError(f"{f.name}: structured_delegate {f.structured_delegate} not found")
            delegates.setdefault(f.structured_delegate, []).append(f)
    groups = []
    for f in functions:
        if not f.structured:
            continue
        members = delegates.get(f.name, [])
        functional = next((m for m in members if not m.is_inplace), None)
        inplace = next((m for m in members if m.is_inplace), None)
        groups.append(StructuredGroup(out=f, functional=functional, inplace=inplace))
    return groups
