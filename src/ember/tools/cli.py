"""The `ember` command line.

Layer: tools. `ember demo` registers an operator through ember.library, calls
it, and prints the dispatch table the registration computed.
"""

from __future__ import annotations

import argparse
import sys


def demo(args: argparse.Namespace) -> int:
    import ember

    lib = ember.library.Library("ember_demo", "DEF")
    lib.define("twice(Tensor x) -> Tensor")
    lib.impl("twice", lambda x: x * 2, "CPU")
    x = ember.tensor([1.0, 3.0])
    print(">>> ember.ops.ember_demo.twice(ember.tensor([1.0, 3.0]))")
    print(ember.ops.ember_demo.twice(x))
    print()
    print(">>> print(ember._C._dispatch_dump_table('ember_demo::twice'))")
    print(ember._C._dispatch_dump_table("ember_demo::twice"))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="ember", description="ember: PyTorch's dispatcher, in Python"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("demo", help="register an operator, call it, print its dispatch table")
    args = parser.parse_args(argv)
    return {"demo": demo}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
