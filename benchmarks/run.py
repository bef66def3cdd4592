"""`make bench`: run every benchmarks/bench_*.py module's main(), in name order.

Benchmarks print; they are not tests. Each module owns one section. NumPy's
BLAS and PyTorch run single-threaded (unless the environment says otherwise):
the figures compare per-operator costs, and on a small shared machine
multi-threaded BLAS mostly measures thread contention.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import sys

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # before NumPy or PyTorch is imported


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
