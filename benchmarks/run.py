"""`make bench`: run every benchmarks/bench_*.py module's main(), in name order.

Benchmarks print; they are not tests. Each module owns one section.
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys


def main() -> None:
    here = pathlib.Path(__file__).resolve().parent
    sys.path.insert(0, str(here))  # benchmarks share helpers (bench_trace uses bench_dispatch's)
    only = set(sys.argv[1:])
    for path in sorted(here.glob("bench_*.py")):
        if only and path.stem.removeprefix("bench_") not in only:
            continue
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        print(f"== {path.stem} ==", flush=True)
        module.main()
        print(flush=True)


if __name__ == "__main__":
    main()
