"""`python -m conformance.mutation [--profile ci] [--mutant NAME ...] [--jobs N] [--window-recordings DIR] [--list]`

Runs the property suite against every mutant of the catalogue (or the ones named) and prints, per
mutant, the property that killed it and how long that took. Exit status 1 if a mutant survives.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from conformance.mutation.catalogue import CATALOGUE, MUTANTS
from conformance.mutation.loader import PatchError, check_patches
from conformance.mutation.runner import Result, run_all
from conformance.profiles import PROFILES


def _line(result: Result) -> str:
    verdict = (f"killed by {result.killed_by}" if result.killed
               else f"NOT KILLED: {result.killed_by} failed without a violation" if result.killed_by else "SURVIVED")
    return (f"{result.mutant.name:40} {verdict:72} {result.seconds:6.1f}s wall "
            f"{result.cpu_seconds:6.1f}s CPU")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.mutation", description=__doc__.split("\n\n")[1])
    parser.add_argument("--profile", default="ci", choices=sorted(PROFILES), help="Hypothesis profile (default ci)")
    parser.add_argument("--mutant", action="append", choices=sorted(MUTANTS), metavar="NAME",
                        help="run only this mutant (repeatable)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="mutants run at a time")
    parser.add_argument("--window-recordings", type=Path, metavar="DIR",
                        help="replay the examples a run of the suite with the reference's features drew into this "
                             "folder (./dev test gives its own): the first that fails kills the mutant")
    parser.add_argument("--list", action="store_true", help="list the catalogue and exit")
    args = parser.parse_args(argv)
    if args.list:
        for m in CATALOGUE:
            print(f"{m.name:42} {m.bug}")
        return 0
    mutants = [MUTANTS[n] for n in args.mutant] if args.mutant else CATALOGUE
    try:
        for m in mutants:
            check_patches(m)  # a mutant that cannot be made would fail every test: never a kill
    except PatchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    started = time.monotonic()
    results = run_all(mutants, args.profile, args.jobs, on_result=lambda r: print(_line(r), flush=True),
                      recordings=args.window_recordings)
    survivors = [r for r in results if not r.killed]
    cpu = sum(r.cpu_seconds for r in results)
    print(f"\n{len(results) - len(survivors)} of {len(results)} mutants killed in "
          f"{time.monotonic() - started:.0f}s wall, {cpu:.0f}s CPU (profile {args.profile}, {args.jobs} at a time)")
    for r in survivors:
        print(f"not killed: {r.mutant.name}: {r.mutant.bug}\n{r.detail}".rstrip())
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
