"""`make agreement`: how often ember does what PyTorch 2.13 does, on bad input and on edge cases.

Every case of the corpora in benchmarks/agreement/ (a small program; see
agreement/harness.py) runs once under real PyTorch and once under ember, in
this process, with ``torch`` bound to the library under test. Each pair of
outcomes gets one verdict:

    same      both returned equal results, or both raised the same exception
              type with the same (normalised) message
    message   both raised the same exception type, with different messages
    type      both raised, exceptions of different types
    accepted  PyTorch raised, ember returned (accepted where torch refuses)
    refused   PyTorch returned, ember raised (refused where torch accepts)
    value     both returned, results differ (value, dtype, shape, strides,
              requires_grad or grad_fn name)

Figures, all over the corpus's tries:

    same type     % of tries whose outcome kind agrees: the same exception
                  type, or both returned (verdicts same, message, value)
    same message  % of tries with verdict `same`
    internal      tries where ember raised an *internal* error: its type
                  differs from what PyTorch raised (or PyTorch returned), and
                  it was not raised on purpose: an exception class of NumPy /
                  ml_dtypes / SciPy; or raised with its innermost frame outside
                  ember's package and outside the case's own code (inside NumPy,
                  the standard library); or raised inside ember implicitly (by
                  the interpreter or a C function such as NumPy's, not by a
                  raise statement: a leaked IndexError, ValueError, TypeError,
                  OverflowError, MemoryError); or an AssertionError,
                  AttributeError, KeyError, NameError, RecursionError,
                  StopIteration or SystemError from anywhere but the case's own
                  code. Missing API is counted apart.
    missing API   ember raised AttributeError "module/object has no attribute
                  'X'" where PyTorch did not raise AttributeError
    accepted      verdict `accepted`;  refused: verdict `refused`
    agreement     (edge cases) % of tries with verdict `same`

Values of uninitialised memory (empty, a growing resize_) and of random draws
(ember's generator is not PyTorch's) are not compared; everything else about
such results is. Runs are deterministic (both RNGs seeded before each case; the
corpora hold no randomness). Usage: python benchmarks/agreement.py [--corpus bad|edge]
[--category PREFIX] [--list] (``--list`` prints every disagreement, grouped
by category, with both outcomes).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch  # noqa: E402 (after the thread settings)
import torch.nn.functional  # noqa: E402
from agreement import load  # noqa: E402
from agreement.harness import compile_case, run_case, same_summary  # noqa: E402

import ember  # noqa: E402
import ember.nn.functional  # noqa: E402

VERDICTS = ("same", "message", "type", "accepted", "refused", "value")
EMBER_DIR = str(Path(ember.__file__).resolve().parent) + os.sep


def verdict(case, theirs, ours) -> str:
    if theirs.raised and ours.raised:
        if theirs.type_name != ours.type_name:
            return "type"
        return "same" if theirs.message == ours.message else "message"
    if theirs.raised:
        return "accepted"
    if ours.raised:
        return "refused"
    same = same_summary(theirs.summary, ours.summary, case.compares_values)
    return "same" if same else "value"


def is_internal(theirs, ours) -> bool:
    if not ours.raised or ours.missing_api or not ours.internal:
        return False
    return not (theirs.raised and theirs.type_name == ours.type_name)


def is_missing_api(theirs, ours) -> bool:
    if not (ours.raised and ours.missing_api):
        return False
    return not (theirs.raised and theirs.type_name == "AttributeError")


def run(cases):
    """Every case under both libraries: a list of (case, torch outcome, ember outcome, verdict)."""
    torch_dir = str(Path(torch.__file__).resolve().parent) + os.sep
    results = []
    for index, case in enumerate(cases):
        compiled = compile_case(case, index)
        torch.manual_seed(0)
        theirs = run_case(compiled, torch, torch.nn.functional, torch_dir)
        ember.manual_seed(0)
        ours = run_case(compiled, ember, ember.nn.functional, EMBER_DIR)
        results.append((case, theirs, ours, verdict(case, theirs, ours)))
    return results


def figures(results) -> dict:
    tries = len(results)
    counts = Counter(v for _, _, _, v in results)
    same_type = counts["same"] + counts["message"] + counts["value"]
    return {
        "tries": tries,
        "same type": 100.0 * same_type / tries if tries else 0.0,
        "same message": 100.0 * counts["same"] / tries if tries else 0.0,
        "internal": sum(is_internal(t, o) for _, t, o, _ in results),
        "missing API": sum(is_missing_api(t, o) for _, t, o, _ in results),
        "accepted": counts["accepted"],
        "refused": counts["refused"],
        "value": counts["value"],
    }


def print_table(title: str, results, by_category: bool) -> None:
    columns = ("tries", "same type", "same message", "internal", "accepted", "refused", "value",
               "missing API")  # fmt: skip
    print(f"{title:<28}" + "".join(f"{c:>13}" for c in columns))
    rows = [("ALL", results)]
    if by_category:
        groups = defaultdict(list)
        for entry in results:
            groups[entry[0].category.split(".")[0]].append(entry)
        rows += sorted(groups.items())
    for name, entries in rows:
        f = figures(entries)
        cells = [f"{f[c]:.1f}%" if c.startswith("same") else str(f[c]) for c in columns]
        print(f"  {name:<26}" + "".join(f"{cell:>13}" for cell in cells))
    print()


def print_listing(title: str, results) -> None:
    print(f"==== disagreements: {title} ====")
    groups = defaultdict(list)
    for entry in results:
        if entry[3] != "same":
            groups[entry[0].category].append(entry)
    for category in sorted(groups):
        entries = groups[category]
        print(f"\n## {category} ({len(entries)})")
        for case, theirs, ours, kind in sorted(entries, key=lambda e: VERDICTS.index(e[3])):
            tags = [kind]
            if is_internal(theirs, ours):
                tags.append(f"INTERNAL at {ours.origin}")
            if is_missing_api(theirs, ours):
                tags.append("missing API")
            print(f"- [{', '.join(tags)}] {case.label}")
            print("    torch: " + theirs.short().replace("\n", "\n           "))
            print("    ember: " + ours.short().replace("\n", "\n           "))
    print()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=("bad", "edge", "all"), default="all")
    parser.add_argument("--category", default="", help="only cases whose category starts so")
    parser.add_argument("--list", action="store_true", help="print every disagreement")
    args = parser.parse_args(argv)
    corpora = ("bad", "edge") if args.corpus == "all" else (args.corpus,)
    titles = {"bad": "bad input", "edge": "edge cases"}
    started = time.perf_counter()
    outcomes = {}
    for corpus in corpora:
        cases = [c for c in load(corpus) if c.category.startswith(args.category)]
        outcomes[corpus] = run(cases)
    for corpus, results in outcomes.items():
        print_table(titles[corpus], results, by_category=True)
        if corpus == "edge":
            print(
                f"edge-case agreement: {figures(results)['same message']:.1f}% of {len(results)}\n"
            )
    if args.list:
        for corpus, results in outcomes.items():
            print_listing(titles[corpus], results)
    print(f"({time.perf_counter() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
