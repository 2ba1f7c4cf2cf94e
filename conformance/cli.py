"""python -m conformance: replay case files through an implementation, check them, explain them, or
run the property suite.

Exit status: 0 all well; 1 a case or a property differs; 2 a usage error or a malformed file;
3 could not run (an engine missing or dead, a run call that timed out, a plug-in that did not answer,
nothing to check); 128 + N stopped by signal N.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from conformance.census import add_census_command
from conformance.corpus import add_corpus_command, is_corpus_index
from conformance.divergences import DEFAULT_LIST, attribute, divergence_list, explained
from conformance.exits import describe, exit_status
from conformance.runner.command import add_run_command
from conformance.runner.feature_summary import OUTCOMES, WITH_DIVERGENCES, feature_summary
from conformance.runner.output import is_run_file
from conformance.runner.progress import counted
from conformance.runner.verdict import EXIT_STATUS, USAGE_ERROR
from conformance.usage import UsageError, add_guard_options, guard_limits, seconds
from window_contract.answers import checked_observations
from window_contract.case import Case
from window_contract.case_json import JOIN_CASES_SUFFIX, case_files, join_case_files, load_cases
from window_contract.difference import difference
from window_contract.features import needed_features
from window_contract.implementation import (
    REQUEST_TIMEOUT,
    Implementation,
    ImplementationFailure,
    ImplementationNotFound,
    RunJoins,
    failure_to_run,
    run_within,
)
from window_contract.join_case import JoinCase
from window_contract.join_case_json import load_join_cases
from window_contract.join_observation import JoinObservation, join_difference, join_observation_to_json
from window_contract.observation import Observation
from window_contract.observation_json import observation_to_json
from window_contract.registry import load_implementation, registered_names
from window_contract.validation import CaseFormatError

COULD_NOT_RUN = EXIT_STATUS["could_not_run"]
#: Lines `explain` prints per case unless told otherwise (one endless case traced 1.5 million).
EXPLAIN_LINES = 200

FILES_HELP = ("case files (window-case/1 JSON: one case, or {\"cases\": [...]}; join-case/1 in files named "
              "*.join.json), or folders, searched for *.json files")
EPILOG = """\
exit status:
  0  every case (or property) agrees
  1  a case or a property differs
  2  usage error or malformed case file (each problem named with its JSON path and rule)
  3  could not run: the engine is missing or died, a run call timed out, the plug-in answered
     with the wrong types or ended the process, or --check had nothing to check
  128+N  stopped by signal N (130: Ctrl-C, 143: SIGTERM); nothing left running

examples:
  python -m conformance replay cases/ --impl spark --check
  python -m conformance replay my_case.json --impl my_windows:MyWindows > observations.jsonl
  python -m conformance explain cases/seeds/seed_004_w4_w9.json
  python -m conformance run --impl my_windows:MyWindows --out my-report
"""


class NothingChecked(Exception):
    pass


def _load_all(paths: Sequence[str]) -> list[tuple[Path, int, Case | JoinCase]]:
    """Every case of every file, window cases and join cases (a `.join.json` file's), with where it came from; all
    format problems reported at once."""
    loaded, errors = [], []
    files = [path for path in case_files(list(paths)) if not is_corpus_index(path) and not is_run_file(path)]
    files += join_case_files(list(paths))
    if not files:
        raise UsageError("no case files found in " + ", ".join(paths))
    for path in files:
        missing = _missing(path)
        if missing:
            errors.append(f"{path}: {missing}")
            continue
        load = load_join_cases if path.name.endswith(JOIN_CASES_SUFFIX) else load_cases
        try:
            loaded += [(path, i, case) for i, case in enumerate(load(path))]
        except CaseFormatError as e:
            errors.append(str(e))
    if errors:
        raise UsageError("\n".join(errors))
    return loaded


def _missing(path: Path) -> str | None:
    """Why there is no file at `path` to read, or `None` when there is one."""
    if path.exists():
        return None
    if not path.is_symlink():
        return "no such file"
    try:
        path.resolve(strict=True)
    except (RuntimeError, OSError) as e:  # Python 3.11 raises RuntimeError for a loop, later ones ELOOP
        if isinstance(e, RuntimeError) or e.errno == errno.ELOOP:
            return "a symbolic link that leads back to itself (a loop): no file at its end"
    return f"a symbolic link to {os.readlink(path)}, which does not exist"


def _label(path: Path, index: int, case: Case | JoinCase) -> str:
    return f"{path}#{index}" + (f" ({case.name})" if case.name else "")


class Unanswered(Exception):
    """A case `run` gave no observation for: it raised (for this case alone), or it gave the wrong number
    of observations. The plug-in broke the interface on this case: it differs."""

    def __init__(self, what: str, rule: str) -> None:
        super().__init__(f"{what} ({rule})")


def _call(impl: Implementation, batch: list[Case], timeout: float) -> list[Observation]:
    """One `run` call within `timeout`, its answer held to the observation's types; a failure to run (a
    timeout, a dead engine, an answer of the wrong types) raises `ImplementationFailure`."""
    try:
        return checked_observations(run_within(impl, batch, timeout), impl.position_free)
    except Exception as e:
        reason = failure_to_run(e)
        if reason is not None:
            raise ImplementationFailure(f"{impl.name} could not run: {reason}") from e
        raise


def _observe(impl: Implementation, cases: list, timeout: float, call=_call) -> list:
    """An observation per case, or what `run` (`call`: `_call`, or `_call_joins` for join cases) did instead for
    that case alone (a bug of the plug-in: it differs). A failure to run raises `ImplementationFailure`."""
    if not cases:
        return []
    try:
        observations = call(impl, cases, timeout)
        if len(observations) == len(cases):
            return observations
    except ImplementationFailure:
        raise
    except Exception:
        pass  # which case raised? each alone tells
    answers: list[Observation | Unanswered] = []
    for case in cases:
        try:
            observations = call(impl, [case], timeout)
        except ImplementationFailure:
            raise
        except Exception as e:
            answers.append(Unanswered(f"run raised {type(e).__name__}: {e}",
                                      "run gives an observation for every case"))
            continue
        answers.append(observations[0] if len(observations) == 1 else Unanswered(
            f"run gave {len(observations)} observations for 1 case", "one observation per case, in order"))
    return answers


def _call_joins(impl: Implementation, batch: list[JoinCase], timeout: float) -> list[JoinObservation]:
    """One `run_joins` call within `timeout`, its answer held to the join observation's type, as `_call`."""
    try:
        answer = run_within(RunJoins(impl), batch, timeout)
    except Exception as e:
        reason = failure_to_run(e)
        if reason is not None:
            raise ImplementationFailure(f"{impl.name} could not run: {reason}") from e
        raise
    if not isinstance(answer, list | tuple) or not all(isinstance(o, JoinObservation) for o in answer):
        raise ImplementationFailure(f"{impl.name} could not run: run_joins answered {answer!r:.200}, not a list of "
                                    "join observations")
    return list(answer)


def _observe_all(impl: Implementation, cases: list[Case | JoinCase],
                 timeout: float) -> list[Observation | JoinObservation | Unanswered]:
    """`_observe` of the window cases through `run`, and of the join cases through `run_joins`, in `cases`' order."""
    windows = [c for c in cases if not isinstance(c, JoinCase)]
    joins = [c for c in cases if isinstance(c, JoinCase)]
    answers = dict(zip(map(id, windows), _observe(impl, windows, timeout, _call), strict=True))
    answers |= zip(map(id, joins), _observe(impl, joins, timeout, _call_joins), strict=True)
    return [answers[id(c)] for c in cases]


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
        impl = load_implementation((args.impl or ["reference"])[0], args.request_timeout,
                                   guard_limits(args.case_timeout, args.memory_limit))
        supported = [(p, i, c) for p, i, c in loaded if needed_features(c) <= impl.features]
        if impl.costly_calls:  # an engine that starts a job (Spark, Flink) is silent for a while: say what it does
            print(f"replay: {impl.name} starts its engine and runs {counted(len(supported), 'case')} in one run "
                  "call", file=sys.stderr, flush=True)
        answers = _observe_all(impl, [c for _, _, c in supported], args.request_timeout)
    by_case = {id(c): o for (_, _, c), o in zip(supported, answers, strict=True)}
    unsupported = [c for _, _, c in loaded if id(c) not in by_case]
    if unsupported:
        print(_unsupported(impl, unsupported), file=sys.stderr)
    differing: set[int] = set()
    explained_ones: set[int] = set()  # differ as the divergence list explains
    for path, index, case in loaded:
        label = _label(path, index, case)
        answer = by_case.get(id(case))
        if answer is None:
            continue
        if isinstance(answer, Unanswered):
            differing.add(id(case))
            print(f"DIFFERS {label}: {answer}")
            continue
        joined = isinstance(case, JoinCase)
        if not args.check:
            print(json.dumps({"case": label, "observation": (join_observation_to_json if joined
                                                             else observation_to_json)(answer)}))
            continue
        broken = None if joined else _property_broken(impl, case, answer, args.request_timeout, label)
        if broken:
            differing.add(id(case))
            print(f"DIFFERS {label}: {case.violates.property}: " + broken.replace("\n", "\n  "))
            continue
        if case.expected is None:
            differing.add(id(case))
            print(f"DIFFERS {label}: the case has no expected observation to check against")
            continue
        diff = (join_difference(case.expected, answer) if joined
                else difference(case.expected, answer, len(case.events), positions=not impl.position_free))
        if diff and divergences is not None:
            found = attribute(case, case.expected, answer, divergences, positions=not impl.position_free)
            (differing if found.explained_by is None else explained_ones).add(id(case))
            print(json.dumps(found.to_json(label)) if args.json else explained(label, found))
        elif diff:
            differing.add(id(case))
            print(f"DIFFERS {label}:\n  " + diff.replace("\n", "\n  "))
    if args.check:
        checked = len(supported)
        differ = "differ" if divergences is None else "unexplained"
        outcomes = [(needed_features(c), "unsupported" if id(c) not in by_case else differ if id(c) in differing
                     else "explained" if id(c) in explained_ones else "agree") for _, _, c in loaded]
        if loaded:  # the table feature by feature, then the verdict as the last line
            print("\n".join(feature_summary(outcomes, OUTCOMES if divergences is None else WITH_DIVERGENCES)))
        agreeing = ("agree with their expected observation" if divergences is None
                    else "agree with their expected observation or differ only as listed divergences explain")
        print(f"{impl.name}: {checked - len(differing)} of {checked} cases {agreeing}"
              + (f", {len(loaded) - checked} unsupported" if len(loaded) > checked else ""))
        if not checked and not args.allow_empty:
            raise NothingChecked(f"nothing was checked: {impl.name} supports none of the {len(loaded)} cases "
                                 "(give --allow-empty to accept that)")
    return 1 if differing else 0


def _unsupported(impl: Implementation, cases: list[Case | JoinCase]) -> str:
    """One line for the cases the implementation does not support, counted by the features they need."""
    missing = Counter(f for case in cases for f in needed_features(case) - impl.features)
    needs = ", ".join(f"{feature} ({n})" for feature, n in sorted(missing.items(), key=lambda item: -item[1]))
    return f"replay: {counted(len(cases), 'case')} unsupported by {impl.name}, not run; they need {needs}"


def _property_broken(impl: Implementation, case: Case, answer: Observation, timeout: float, label: str) -> str | None:
    """A saved counterexample's property checked again (`recheck`), or `None` for a case that names none."""
    if case.violates is None:
        return None
    from conformance.properties.recheck import IncompleteCounterexample, recheck  # the suite, when a case names it

    try:
        with contextlib.redirect_stdout(sys.stderr):
            return recheck(case, answer, lambda cases: _call(impl, cases, timeout))
    except IncompleteCounterexample as e:
        raise UsageError(f"{label}: {e}") from None
    except ImplementationFailure:
        raise
    except Exception as e:  # the plug-in's own exception: the rule "run gives an observation" is broken
        return f"run raised {type(e).__name__}: {e} (run gives an observation for every case)"


def explain(args: argparse.Namespace) -> int:
    from reference.explain import explain_case  # the reference is loaded only for this command

    loaded = _load_all(args.files)
    joins = [_label(path, index, case) for path, index, case in loaded if isinstance(case, JoinCase)]
    if joins:
        raise UsageError(f"explain narrates window cases; {joins[0]} is a join case (join-case/1): python -m "
                         "conformance replay FILE --impl reference gives Flink's observation of it")
    for path, index, case in loaded:
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
    p.add_argument("--request-timeout", type=seconds, default=REQUEST_TIMEOUT, metavar="SECONDS",
                   help=f"how long the run call may take before its cases count as not run "
                        f"(default: {REQUEST_TIMEOUT:g})")
    add_guard_options(p.add_argument)
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
    """The command, in the process that runs it (`conformance.console` starts and supervises it)."""
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
    except KeyboardInterrupt as e:  # Ctrl-C, or a signal that stops the command (conformance.exits)
        print(f"error: {describe(e)}; nothing was concluded", file=sys.stderr)
        return exit_status(e)
