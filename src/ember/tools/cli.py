"""The `ember` command line: run, trace, table, explain, keys, demo.

Layer: tools (the only importer of ember.tools). In: argv. Out: text on stdout
(coloured by rich when the terminal supports it; NO_COLOR is honoured), files
(--json, --html, route.html), and exit codes scripts can rely on:
0 ok, 1 the traced script failed, 2 usage (bad arguments, unknown operator).
`ember run` exits with the script's own status, as `python SCRIPT.py` would.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import sys

OK, SCRIPT_FAILED, USAGE = 0, 1, 2


class _PlainConsole:
    """Stands in for rich's Console when rich is not installed: no colour, markup removed."""

    is_terminal = False

    def print(self, text: object = "", markup: bool = True) -> None:
        text = str(text)
        print(re.sub(r"\[/?[a-z ]*\]", "", text) if markup else text)


def _console():
    try:
        from rich.console import Console
    except ImportError:
        return _PlainConsole()
    console = Console(highlight=False, soft_wrap=True)
    if not console.is_terminal:  # piped: never crop a tree's lines at 80 columns
        console = Console(highlight=False, soft_wrap=True, width=1000)
    return console


def _usage_error(message: str) -> int:
    print(f"ember: error: {message}", file=sys.stderr)
    return USAGE


# -- ember run -------------------------------------------------------------------------------
def cmd_run(args: argparse.Namespace) -> int:
    from .run import run_script, torch_is_ember

    if not os.path.isfile(args.script):
        return _usage_error(f"no such script: {args.script}")
    with torch_is_ember():
        return run_script(args.script, args.script_args)


# -- ember trace ---------------------------------------------------------------------------
def cmd_trace(args: argparse.Namespace) -> int:
    import ember

    from .run import run_script, torch_is_ember

    if not os.path.isfile(args.script):
        return _usage_error(f"no such script: {args.script}")
    recorded = ember.dispatch.trace()
    with torch_is_ember(), recorded:  # the partial trace is kept when the script fails
        status = run_script(args.script, args.script_args, as_given=True)
    status = OK if status == 0 else SCRIPT_FAILED
    data = recorded.to_dict()
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=1)
    if args.html and data["events"]:
        from ember._trace_views.route import trace_page

        with open(args.html, "w", encoding="utf-8") as out:
            out.write(trace_page(data, f"ember trace {os.path.basename(args.script)}"))
    if args.tree:
        from ember._trace_views.render import trace_tree

        _console().print(trace_tree(data, f"ember trace {args.script}"))
    elif args.text or not (args.json or args.html):
        sys.stdout.write(recorded.text())
    return status


# -- ember table -----------------------------------------------------------------------------
def _unknown_operator(name: str, known: list[str]) -> str:
    """The usage error for an operator name no table has, with what it was likely meant to be:
    the name in a namespace (``mm`` -> ``aten::mm``), the overloads of a name given without
    one (``add`` or ``aten::add`` -> ``aten::add.Tensor``, ...), or close spellings of either."""
    exact: dict[str, list[str]] = {}  # the name as typed (without the namespace if the user
    overloads: dict[str, list[str]] = {}  # left it out) -> operators; the same without overload
    for op in known:
        short = op if "::" in name else op.partition("::")[2]
        exact.setdefault(short, []).append(op)
        if "." in short:
            overloads.setdefault(short.partition(".")[0], []).append(op)

    def meant(spelling: str) -> list[str]:
        return exact.get(spelling) or overloads.get(spelling, [])

    guesses = meant(name)
    if not guesses:
        close = difflib.get_close_matches(name, list({**exact, **overloads}), n=3, cutoff=0.75)
        guesses = list(dict.fromkeys(op for match in close for op in meant(match)))
    message = f"unknown operator '{name}'"
    if not guesses:
        return f"{message} (operators are named like aten::mm or aten::add.Tensor)"
    if len(guesses) > 4:
        guesses = [*guesses[:4], "..."]
    listed = " or ".join([", ".join(guesses[:-1]), guesses[-1]] if len(guesses) > 1 else guesses)
    return f"{message}; did you mean {listed}?"


def _find_operator(text: str):
    """The dispatcher's handle for an operator name as a user types it, or a usage error."""
    from ember._dispatch.dispatcher import dispatcher

    name = text.removesuffix(".default")
    handle = dispatcher.find_op(name)
    if handle is None:
        return name, None, _unknown_operator(name, dispatcher.all_op_names())
    return name, handle, None


def cmd_table(args: argparse.Namespace) -> int:
    import ember

    name, _, problem = _find_operator(args.op)
    if problem:
        return _usage_error(problem)
    if args.registrations:
        sys.stdout.write(ember._C._dispatch_dump(name))
    else:
        sys.stdout.write(ember._C._dispatch_dump_table(name))
    return OK


# -- ember explain ---------------------------------------------------------------------------
def _placeholder(type_text: str, device: str, requires_grad: bool):
    """A value of a schema type (as ``str(type)`` prints it, e.g. ``List[Tensor]``):
    tensors are [2, 2] ones, lists of tensors two of them, other types a neutral value."""
    import ember

    if type_text.startswith("Optional["):
        return None
    if "Tensor" in type_text:
        tensor = ember.ones(2, 2, device=device)
        if requires_grad:
            tensor.requires_grad_(True)
        return (
            [tensor, ember.ones(2, 2, device=device)] if type_text.startswith("List[") else tensor
        )
    neutral = {"List[int]": [2], "int": 0, "float": 1.0, "bool": False, "number": 1, "str": "",
               "Device": device, "List[bool]": [True, True, True], "List[number]": [1]}  # fmt: skip
    return neutral.get(type_text)


def cmd_explain(args: argparse.Namespace) -> int:
    import ember
    from ember._dispatch.schema import NO_DEFAULT

    name, handle, problem = _find_operator(args.op)
    if problem:
        return _usage_error(problem)
    if handle.schema is None:
        return _usage_error(f"operator '{name}' has kernels but no schema: nothing to explain")
    from .demo import _context

    with _context(args.mode):
        values, keywords, first = [], {}, True
        for argument in handle.schema.arguments:  # the required ones; binding fills defaults
            if argument.default is not NO_DEFAULT:
                continue
            type_text = str(argument.type)
            value = _placeholder(type_text, args.device, args.requires_grad and first)
            first = first and "Tensor" not in type_text
            if argument.kwarg_only:
                keywords[argument.name] = value
            else:
                values.append(value)
        explanation = ember.dispatch.explain(name, *values, **keywords)
    if args.json:
        print(json.dumps(explanation.to_dict(), indent=1))
        return OK
    console = _console()
    if not console.is_terminal:
        console.print(str(explanation), markup=False)
        return OK
    from rich.markup import escape

    for line in str(explanation).splitlines():  # labels bold, the chosen key in yellow
        labelled = re.match(r"([a-z ]+:)(\s+)(.*)", line)
        if labelled:
            label, space, rest = labelled.groups()
            rest = escape(rest).replace(explanation.key, f"[yellow]{explanation.key}[/]", 1)
            console.print(f"[bold]{label}[/]{space}{rest}")
        else:
            console.print(escape(line))
    return OK


# -- ember keys ------------------------------------------------------------------------------
def cmd_keys(args: argparse.Namespace) -> int:
    from .keys import key_rows

    console = _console()
    console.print("[bold]DispatchKey order[/] (higher value = dispatched first; facts §1)")
    for value, name, kind, used in key_rows(all_backends=args.all):
        style = "" if used else "[dim]"
        end = "" if used else "[/]"
        console.print(f"{style}{value:>4}  {name:<38} {kind:<25} {used or '-'}{end}")
    return OK


# -- ember demo ------------------------------------------------------------------------------
def cmd_demo(args: argparse.Namespace) -> int:
    from . import demo

    console = _console()
    if console.is_terminal:
        with console.status("recording torch.mm(a, b) under each condition..."):
            variants = demo.record_all()
    else:
        variants = demo.record_all()
    for variant in variants:
        lines = demo.summary_lines(variant)
        console.print(f"[bold cyan]{lines[0]}[/]")
        for line in lines[1:]:
            console.print(line, markup=False)
    demo.write_page(args.output, variants)
    console.print(f"wrote {args.output} (open it in a browser; it needs no network)")
    return OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ember",
        description="ember: PyTorch's dispatcher in Python. See which kernel runs, and why.",
        epilog="Exit status: 0 ok, 1 the traced script failed, 2 usage error.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = commands.add_parser(
        "run",
        help="run a PyTorch script unchanged, its `import torch` answered by ember",
        usage="ember run [-h] SCRIPT [ARGS...]",
        description="Run SCRIPT as `python SCRIPT ARGS...` would, with `import torch`, "
        "`import torch.X` and `from torch.X import Y` answered by ember (an import hook; the "
        "script is not rewritten). Exits with the script's own status.",
    )
    run.add_argument("script", help="the Python script to run (written for PyTorch)")
    run.add_argument("script_args", nargs=argparse.REMAINDER, metavar="ARGS",
                     help="arguments passed to the script as sys.argv[1:]")  # fmt: skip
    run.set_defaults(run=cmd_run)

    trace = commands.add_parser(
        "trace",
        help="run a script under ember.dispatch.trace()",
        usage="ember trace [-h] [--json FILE] [--html FILE] [--tree] [--text] SCRIPT [-- ARGS...]",
        description="Run SCRIPT (arguments after -- go to it) and report every dispatch it made: "
        "the debug-build text by default, a tree with --tree, files with --json / --html.",
    )
    trace.add_argument(
        "script", help="the Python script to run (`import torch` is answered by ember)"
    )
    trace.add_argument("--json", metavar="FILE", help="write the trace as JSON (trace.schema.json)")
    trace.add_argument(
        "--html", metavar="FILE", help="write the route view of every top-level call"
    )
    trace.add_argument("--tree", action="store_true", help="print the trace as a tree")
    trace.add_argument("--text", action="store_true", help="print the debug-build text lines")
    trace.set_defaults(run=cmd_trace)

    table = commands.add_parser("table", help="an operator's computed dispatch table")
    table.add_argument("op", help="e.g. aten::mm or aten::add.Tensor")
    table.add_argument("--registrations", action="store_true",
                       help="the registrations (torch._C._dispatch_dump) instead")  # fmt: skip
    table.set_defaults(run=cmd_table)

    explain = commands.add_parser("explain", help="why a call reaches its kernel (runs nothing)")
    explain.add_argument("op", help="e.g. aten::mm")
    explain.add_argument("--device", choices=("cpu", "meta"), default="cpu")
    explain.add_argument("--requires-grad", action="store_true",
                         help="the first tensor argument requires grad")  # fmt: skip
    explain.add_argument("--mode", choices=("grad", "no_grad", "inference_mode"), default="grad",
                         help="tensors are made and the call explained inside this mode")  # fmt: skip
    explain.add_argument("--json", action="store_true", help="print the facts as JSON")
    explain.set_defaults(run=cmd_explain)

    keys = commands.add_parser("keys", help="the dispatch key order, with what ember implements")
    keys.add_argument("--all", action="store_true", help="list every per-backend runtime key")
    keys.set_defaults(run=cmd_keys)

    demo = commands.add_parser(
        "demo", help="the mm program of examples/01 in four modes; writes route.html"
    )
    demo.add_argument("--output", "-o", default="route.html", metavar="FILE")
    demo.set_defaults(run=cmd_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    script_args: list[str] = []
    if argv[:1] == ["trace"] and "--" in argv:
        split = argv.index("--")
        argv, script_args = argv[:split], argv[split + 1 :]
    args = build_parser().parse_args(argv)
    if args.command != "run":
        args.script_args = script_args
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
