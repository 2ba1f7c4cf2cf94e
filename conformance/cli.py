"""python -m conformance: replay case files through an implementation, check them, explain them, or
run the property suite.

Exit status: 0 all well; 1 a case or a property differs; 2 a usage error or a malformed file;
3 could not run (an engine missing or dead, a run call that timed out, nothing to check).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from conformance.census import add_census_command
from conformance.corpus import add_corpus_command, is_corpus_index
from conformance.divergences import DEFAULT_LIST, attribute, divergence_list, explained
from conformance.runner.command import add_run_command
from conformance.runner.feature_summary import feature_summary
from conformance.runner.verdict import EXIT_STATUS, USAGE_ERROR
from conformance.usage import UsageError
from window_contract.case import Case
from window_contract.case_json import case_files, load_cases
from window_contract.difference import difference
from window_contract.features import required_features
from window_contract.implementation import (
    REQUEST_TIMEOUT,
    Implementation,
    ImplementationFailure,
    ImplementationNotFound,
    failure_to_run,
    run_within,
)
from window_contract.observation import Observation
from window_contract.observation_json import observation_to_json
from window_contract.registry import load_implementation, registered_names
from window_contract.validation import CaseFormatError

COULD_NOT_RUN = EXIT_STATUS["could_not_run"]
#: Lines `explain` prints per case unless told otherwise (one endless case traced 1.5 million).
EXPLAIN_LINES = 200

FILES_HELP = ("case files (window-case/1 JSON: one case, or {\"cases\": [...]}), or folders, searched "
              "for *.json files")
EPILOG = """\
exit status:
  0  every case (or property) agrees
  1  a case or a property differs
  2  usage error or malformed case file (each problem named with its JSON path and rule)
  3  could not run: the engine is missing or died, a run call timed out, or --check had nothing
     to check

examples:
  python -m conformance replay cases/ --impl spark --check
  python -m conformance replay my_case.json --impl my_windows:MyWindows > observations.jsonl
  python -m conformance explain cases/seeds/seed_004_w4_w9.json
  python -m conformance run --impl my_windows:MyWindows --out my-report
"""


class NothingChecked(Exception):
    pass


def _load_all(paths: Sequence[str]) -> list[tuple[Path, int, Case]]:
    """Every case of every file, with where it came from; all format problems reported at once."""
    loaded, errors = [], []
    files = [path for path in case_files(list(paths)) if not is_corpus_index(path)]
    if not files:
        raise UsageError("no case files found in " + ", ".join(paths))
    for path in files:
        if not path.exists():
            errors.append(f"{path}: no such file")
            continue
        try:
            loaded += [(path, i, case) for i, case in enumerate(load_cases(path))]
        except CaseFormatError as e:
            errors.append(str(e))
    if errors:
        raise UsageError("\n".join(errors))
    return loaded


def _label(path: Path, index: int, case: Case) -> str:
    return f"{path}#{index}" + (f" ({case.name})" if case.name else "")


def _observe(impl: Implementation, cases: list[Case], timeout: float) -> list[Observation | Exception]:
    """An observation per case, or the exception `run` raised for that case alone (a bug of the
    plug-in: it differs). A failure to run raises `ImplementationFailure`."""

    def call(batch: list[Case]) -> list[Observation]:
        try:
            return run_within(impl, batch, timeout)
        except Exception as e:
            reason = failure_to_run(e)
            if reason is not None:
                raise ImplementationFailure(f"{impl.name} could not run: {reason}") from e
            raise

    if not cases:
        return []
    try:
        observations = call(cases)
        if len(observations) == len(cases):
            return list(observations)
    except ImplementationFailure:
        raise
    except Exception:
        pass  # which case raised? each alone tells
    answers: list[Observation | Exception] = []
    for case in cases:
        try:
            [observation] = call([case])
            answers.append(observation)
        except ImplementationFailure:
            raise
        except Exception as e:
            answers.append(e)
    return answers


def replay(args: argparse.Namespace) -> int:
    if len(args.impl or []) > 1:
        raise UsageError("replay takes one --impl: run it once per implementation (run checks several at once)")
    if args.divergences is not None and not args.check:
        raise UsageError("--divergences goes with --check")
    loaded = _load_all(args.files)
    divergences = (None if args.divergences is None
                   else divergence_list(args.divergences, (args.impl or ["reference"])[0]))
    # A plug-in's prints go to stderr: replay's stdout is JSON lines (or the check's verdict).
    with contextlib.redirect_stdout(sys.stderr):
        impl = load_implementation((args.impl or ["reference"])[0])
        supported = [(p, i, c) for p, i, c in loaded if required_features(c) <= impl.features]
        answers = _observe(impl, [c for _, _, c in supported], args.request_timeout)
    by_case = {id(c): o for (_, _, c), o in zip(supported, answers, strict=True)}
    differing: set[int] = set()
    for path, index, case in loaded:
        label = _label(path, index, case)
        answer = by_case.get(id(case))
        if answer is None:
            missing = sorted(required_features(case) - impl.features)
            print(f"{label}: unsupported by {impl.name} (needs {', '.join(missing)})", file=sys.stderr)
            continue
        if isinstance(answer, Exception):
            differing.add(id(case))
            print(f"DIFFERS {label}: run raised {type(answer).__name__}: {answer} "
                  "(run gives an observation for every case)")
            continue
        if not args.check:
            print(json.dumps({"case": label, "observation": observation_to_json(answer)}))
            continue
        if case.expected is None:
            differing.add(id(case))
            print(f"DIFFERS {label}: the case has no expected observation to check against")
            continue
        diff = difference(case.expected, answer, len(case.events), positions=not impl.position_free)
        if diff and divergences is not None:
            found = attribute(case, case.expected, answer, divergences, positions=not impl.position_free)
            if found.explained_by is None:
                differing.add(id(case))
            print(json.dumps(found.to_json(label)) if args.json else explained(label, found))
        elif diff:
            differing.add(id(case))
            print(f"DIFFERS {label}:\n  " + diff.replace("\n", "\n  "))
    if args.check:
        checked = len(supported)
        outcomes = [(required_features(c), "unsupported" if id(c) not in by_case
                     else "differ" if id(c) in differing else "agree") for _, _, c in loaded]
        if loaded:  # the table feature by feature, then the verdict as the last line
            print("\n".join(feature_summary(outcomes)))
        agreeing = ("agree with their expected observation" if divergences is None
                    else "agree with their expected observation or differ only as listed divergences explain")
        print(f"{impl.name}: {checked - len(differing)} of {checked} cases {agreeing}"
              + (f", {len(loaded) - checked} unsupported" if len(loaded) > checked else ""))
        if not checked and not args.allow_empty:
            raise NothingChecked(f"nothing was checked: {impl.name} supports none of the {len(loaded)} cases "
                                 "(give --allow-empty to accept that)")
    return 1 if differing else 0


def explain(args: argparse.Namespace) -> int:
    from reference.explain import explain_case  # the reference is loaded only for this command

    for path, index, case in _load_all(args.files):
        print(f"== {_label(path, index, case)}")
        lines = (line for step in explain_case(case) for line in step.splitlines())
        for n, line in enumerate(lines):
            if args.max_lines and n >= args.max_lines:
                rest = 1 + sum(1 for _ in lines)
                print(f"... {rest} more lines (--max-lines 0 shows every line)")
                break
            print(line)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m conformance", description=__doc__.split("\n\n")[0].split(": ", 1)[1],
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    impl_help = (f"a registered name ({', '.join(registered_names())}), package.module:factory "
                 "found from the current folder, or exec:COMMAND (a process: docs/protocol.md)")
    p = sub.add_parser(
        "replay", help="run the cases of files or folders through an implementation",
        description="Run every case of the files through one implementation and print one JSON line per\n"
        "case (case label and observation), or with --check compare each with its expected observation.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+", metavar="FILE", help=FILES_HELP)
    p.add_argument("--impl", action="append", metavar="NAME",
                   help=f"{impl_help} (default: reference); one only")
    p.add_argument("--check", action="store_true", help="compare each case with its expected observation")
    p.add_argument("--allow-empty", action="store_true",
                   help="with --check, exit 0 even when no case could be checked (all unsupported)")
    p.add_argument("--divergences", nargs="?", const=DEFAULT_LIST, default=None, metavar="FILE", type=Path,
                   help="with --check, say of each case that differs which of the engine's listed divergences "
                        "explain it, or what is left unexplained (exit 1 then); the list is "
                        "cases/engines/<impl>/divergences.toml unless FILE names another")
    p.add_argument("--json", action="store_true",
                   help="with --divergences, write the attributions as JSON lines ({case, explained_by, "
                        "unexplained}) instead of words")
    p.add_argument("--request-timeout", type=float, default=REQUEST_TIMEOUT, metavar="SECONDS",
                   help=f"how long the run call may take before its cases count as not run "
                        f"(default: {REQUEST_TIMEOUT:g})")
    p.set_defaults(func=replay)
    e = sub.add_parser(
        "explain", help="a step-by-step trace of what the reference does with a case",
        description="Run the reference model on each case and print step by step what Flink's\n"
        "WindowOperator does: elements assigned to windows, timers, firings, cleanup, late records,\n"
        "then the observation.", formatter_class=argparse.RawDescriptionHelpFormatter)
    e.add_argument("files", nargs="+", metavar="FILE", help=FILES_HELP)
    e.add_argument("--max-lines", type=int, default=EXPLAIN_LINES, metavar="N",
                   help=f"print at most N trace lines per case (default: {EXPLAIN_LINES}; 0 prints all)")
    e.set_defaults(func=explain)
    add_run_command(sub)
    add_corpus_command(sub)
    add_census_command(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse exits 2 on usage errors, 0 on --help
        return int(e.code or 0)
    try:
        return args.func(args)
    except (UsageError, ImplementationNotFound) as e:
        print(f"error: {e}", file=sys.stderr)
        return USAGE_ERROR
    except (ImplementationFailure, NothingChecked) as e:
        print(f"error: {e}", file=sys.stderr)
        return COULD_NOT_RUN
