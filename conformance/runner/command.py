"""`python -m conformance run`: the property suite against each implementation, and the report.

For each implementation the suite runs in its own pytest process (`session.py`), up to `--jobs`
of them at once, while the terminal shows the property and the examples so far (`progress.py`),
one implementation after the other. Then the counterexamples
are saved as case files (`counterexamples.py`), the verdict is decided (`verdict.py`) and
`reports` renders `report.json`, `index.html`, `report.md` and `junit.xml` in the output folder
(`output.py`).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from conformance.manifest import REFERENCE
from conformance.profiles import PROFILES
from conformance.runner.counterexamples import save_counterexamples, slug
from conformance.runner.drawing import DrawingCache, drawing_key
from conformance.runner.events import CollectError, Finished, ProcessExited, RunEvent, Started
from conformance.runner.matrix import conformance_matrix
from conformance.runner.output import OutputError, OutputFolder
from conformance.runner.progress import Progress, counted
from conformance.runner.results import MESSAGE_LIMIT, ImplementationResult, Report, SuiteError, to_json
from conformance.runner.session import DEFAULT_SUITE, SuiteOptions, SuiteRun
from conformance.runner.verdict import USAGE_ERROR, implementation_outcome, verdict
from conformance.usage import UsageError, add_guard_options, seconds
from reports.difference import account
from reports.words import properties_counted
from window_contract.features import FEATURES
from window_contract.implementation import (
    REQUEST_TIMEOUT,
    Implementation,
    ImplementationFailure,
    ImplementationNotFound,
)
from window_contract.process import ProcessImplementation
from window_contract.registry import load_implementation, registered_names

DEFAULT_IMPLEMENTATIONS = (REFERENCE, "spark")
DEFAULT_OUT = Path("reports/out")
DEFAULT_PROFILE = "ci"
REPORT_FORMAT = "window-conformance-report/1"

EPILOG = f"""\
exit status:
  0  every implementation conforms: every property held on every feature it declares
  1  an implementation differs: a property was violated (the minimal case is saved and replays)
  2  usage error: an unknown implementation or profile, a plug-in that does not import, an
     output folder that cannot be used
  3  could not run: an engine was missing or died, a run call timed out, a plug-in answered
     with the wrong types or ended the process, the suite did not load; nothing differed in
     what did run
  128+N  stopped by signal N (130: Ctrl-C, 143: SIGTERM); nothing left running

examples:
  python -m conformance run --impl reference --impl spark
  python -m conformance run --impl my_windows:MyWindows --out my-report
  python -m conformance run --impl 'exec:java -cp build NaiveWindows'   (a process: docs/protocol.md)
  python -m conformance run --impl flink --property matches_reference --out out/flink --force

The output folder (default {DEFAULT_OUT}/) must be empty, or hold only what an earlier run wrote
there: --force replaces the files listed in that run's manifest and nothing else, once the new
report is complete (a run that is stopped leaves the earlier report as it was).
"""


def add_run_command(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "run",
        help="run the property suite against implementations and write a report",
        description="Run the property suite against each implementation and write the report:\n"
        "report.json, index.html, report.md, junit.xml, and every minimal counterexample as a case\n"
        "file that replay --check reproduces.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--impl",
        action="append",
        metavar="NAME",
        help=f"a registered name ({', '.join(registered_names())}), package.module:factory "
        "found from the current folder, or exec:COMMAND (a process: docs/protocol.md); "
        f"repeat for several (default: {' and '.join(DEFAULT_IMPLEMENTATIONS)})",
    )
    p.add_argument(
        "--profile",
        choices=sorted(PROFILES),
        default=DEFAULT_PROFILE,
        help=f"the Hypothesis profile: how many examples per property (default: {DEFAULT_PROFILE})",
    )
    p.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="the Hypothesis seed of the dev and thorough profiles, given to every implementation's run "
        "(default: a new one each run, printed at the end)",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        metavar="DIR",
        help=f"the folder the report goes to, empty or an earlier run's (default: {DEFAULT_OUT}/)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="replace an earlier run's report in --out (only the files its manifest lists)",
    )
    p.add_argument(
        "--property",
        action="append",
        default=[],
        metavar="RULE",
        help="run only the properties whose name contains RULE (pytest -k); repeat for several",
    )
    p.add_argument(
        "--suite",
        action="append",
        type=Path,
        metavar="PATH",
        help=f"the property suite's folder or modules (default: {DEFAULT_SUITE})",
    )
    p.add_argument(
        "--jobs",
        type=positive,
        default=1,
        metavar="N",
        help="how many implementations' suites run at once, each in its own process (default: 1; "
        "./dev conformance runs as many as there are CPUs); the terminal shows them one after the other",
    )
    p.add_argument(
        "--fresh-drawing",
        action="store_true",
        help="draw every example anew, not from the drawing cache: under a derandomized profile (ci) a run "
        "with the reference replays the examples the last run of the same code drew, in "
        "~/.cache/window-conformance/drawing/ (the same examples; each implementation answers and each rule "
        "checks them afresh)",
    )
    p.add_argument(
        "--request-timeout",
        type=seconds,
        metavar="SECONDS",
        help="how long one run call of an implementation may take before its cases count as not run "
        "(default: the suite's, 600)",
    )
    add_guard_options(p.add_argument)
    p.set_defaults(func=run)


def positive(text: str) -> int:
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {n}")
    return n


def run(args: argparse.Namespace) -> int:
    """The run (the module's docstring). The output folder is taken before any suite runs, and the earlier
    report in it stays until the new one is complete (`OutputFolder`); an implementation that cannot start
    is in the report as could not run, and the others run. However the run ends, its test processes end
    with it."""
    try:
        suite = check_suite(args.suite or [DEFAULT_SUITE])
        options = SuiteOptions(tuple(suite), args.profile, tuple(args.property), args.request_timeout,
                               seed_of(args.profile, args.seed), args.case_timeout, args.memory_limit)
        implementations = load_all(list(dict.fromkeys(args.impl or DEFAULT_IMPLEMENTATIONS)), options.timeout)
        out = OutputFolder.claim(args.out, args.force)
    except (UsageError, ImplementationNotFound, OutputError) as e:
        print(f"error: {e}", file=sys.stderr)
        return USAGE_ERROR
    runs: dict[int, SuiteRun | None] = {}
    shared = tempfile.TemporaryDirectory(prefix="conformance-recordings-")
    try:
        progress = Progress(sys.stderr)
        recordings = shared_recordings([spec for spec, _ in implementations], Path(shared.name))
        drawing = drawing_cache(options, recordings)
        if drawing is not None and not args.fresh_drawing:
            replayed = drawing.restore(Path(shared.name))
            if replayed:
                print(f"replaying the drawing of an earlier run of this code ({counted(replayed, 'test')}, "
                      f"{drawing.folder}; --fresh-drawing draws anew)", file=sys.stderr)

        def start(i: int) -> SuiteRun | None:
            spec, impl = implementations[i]
            if isinstance(impl, Unstarted):
                return None
            return SuiteRun(spec, options, out.file(log_of(impl)), recordings[i])

        results = []
        for i, (spec, impl) in enumerate(implementations):
            # the runs of this implementation and the next jobs - 1 go on while this one is shown
            for j in range(i, min(i + args.jobs, len(implementations))):
                runs[j] = runs.get(j) or start(j)
            run_ = runs.pop(i)
            results.append(unstarted_result(spec, impl, out, progress) if run_ is None
                           else run_implementation(spec, impl, run_, progress))
        report = build_report(save_counterexamples(results, out), options, out.path)
        if drawing is not None:
            drawing.keep(Path(shared.name))

        from reports import write_reports  # the renderers are needed only once there is something to render

        out.note(write_reports(report.to_json(), out.staging))
        out.commit()
    except BaseException:
        for started in runs.values():
            if started is not None:
                started.stop()
        out.abandon()
        raise
    finally:
        shared.cleanup()
    print_summary(report, out.path)
    return report.verdict.exit_status


class Unstarted:
    """An implementation that could not start (`ImplementationFailure` as it was loaded: a command
    that does not start, a hello that breaks the protocol, an engine that is not installed)."""

    def __init__(self, spec: str, failure: ImplementationFailure) -> None:
        self.name, self.message = spec, str(failure)
        self.features: frozenset[str] = frozenset()


def load_all(specs: list[str], timeout: float | None) -> list[tuple[str, Implementation | Unstarted]]:
    """Each implementation, or what kept it from starting; `ImplementationNotFound` for a name that names
    none. A process only says hello here: each test session starts its own."""
    loaded: list[tuple[str, Implementation | Unstarted]] = []
    for spec in specs:
        try:
            impl = load_implementation(spec, timeout or REQUEST_TIMEOUT)
        except ImplementationFailure as e:
            loaded.append((spec, Unstarted(spec, e)))
            continue
        if isinstance(impl, ProcessImplementation):
            impl.close()
        loaded.append((spec, impl))
    return loaded


def unstarted_result(spec: str, impl: Unstarted, out: OutputFolder, progress: Progress) -> ImplementationResult:
    """An implementation that could not start: no property ran, and its log says why."""
    progress.implementation(impl.name, spec, costly=False)
    progress.could_not_start(impl.message)
    log = log_of(impl)
    out.file(log).write_text(impl.message + "\n", encoding="utf-8")
    errors = (SuiteError("", impl.message[-MESSAGE_LIMIT:]),)
    return ImplementationResult(name=impl.name, spec=spec, features=(), properties=(), errors=errors,
                                exit_status=None, log=log, duration=0.0, outcome="could_not_run",
                                problems=(impl.message.splitlines()[0],))


def seed_of(profile: str, seed: int | None) -> int | None:
    """The Hypothesis seed every implementation's run gets: none for a derandomized profile (`ci`
    draws the same examples every run), else `--seed` or a new one. One seed for all makes them meet
    the same examples, and a prefetched run's passes (and the reference's recordings) draw alike."""
    if PROFILES[profile].derandomize:
        if seed is not None:
            raise UsageError(f"--seed: the {profile} profile draws the same examples every run; "
                                "a seed is for dev and thorough")
        return None
    return seed if seed is not None else random.randrange(2**32)


def shared_recordings(specs: list[str], folder: Path) -> list[Path | None]:
    """The recordings folder of each run (`conformance/properties/recordings.py`): the reference's run
    and the runs after it, which start once it has started, share the drawing of the tests."""
    if REFERENCE not in specs:
        return [None] * len(specs)
    first = specs.index(REFERENCE)
    return [None if i < first else folder for i in range(len(specs))]


def drawing_cache(options: SuiteOptions, recordings: list[Path | None]) -> DrawingCache | None:
    """The drawing cache of this run (`drawing.py`): only where the runs share their drawing (the reference is
    among them) and the profile draws the same examples every run. `--fresh-drawing` does not read it, but the run
    keeps what it draws there all the same."""
    if not any(recordings) or not PROFILES[options.profile].derandomize:
        return None
    return DrawingCache(drawing_key(options.suite, options.profile))


def check_suite(paths: list[Path]) -> list[Path]:
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise UsageError(f"--suite: no property suite at {', '.join(missing)}")
    return [p.resolve() for p in paths]


def log_of(impl: Implementation) -> str:
    return f"logs/{slug(impl.name)}.log"


def run_implementation(spec: str, impl: Implementation, run: SuiteRun, progress: Progress) -> ImplementationResult:
    """What the suite found for one implementation, as its run's events come."""
    progress.implementation(impl.name, spec, impl.costly_calls)

    def shown() -> Iterator[RunEvent]:
        for event in run.events():
            progress.event(event)
            yield event

    return implementation_result(spec, impl, shown(), lambda: run.duration, log_of(impl))


def implementation_result(spec: str, impl: Implementation, events: Iterable[RunEvent], duration: Callable[[], float],
                          log: str) -> ImplementationResult:
    """What the suite found for one implementation, from its run's events (`duration` is asked once they end)."""
    properties, errors = [], []
    exit_status, running = None, None
    for event in events:
        match event:
            case Started(nodeid=nodeid):
                running = nodeid
            case Finished(result=result):
                properties.append(result)
                running = None
            case CollectError(nodeid=nodeid, message=message):
                errors.append(SuiteError(nodeid, message[-MESSAGE_LIMIT:]))
            case ProcessExited(status=status):
                exit_status = status
    if running is not None:
        errors.append(SuiteError(running, f"the test process ended during this test (exit status "
                                         f"{exit_status}); see {log}"))
    outcome, problems = implementation_outcome(properties, errors, exit_status)
    return ImplementationResult(
        name=impl.name, spec=spec, features=tuple(sorted(impl.features)), properties=tuple(properties),
        errors=tuple(errors), exit_status=exit_status, log=log,
        duration=round(duration(), 3), outcome=outcome, problems=problems,
    )


def build_report(results: list[ImplementationResult], options: SuiteOptions, out: Path) -> Report:
    return Report(
        format=REPORT_FORMAT,
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        profile=options.profile,
        seed=options.seed,
        suite=tuple(str(p) for p in options.suite),
        out=str(out),
        verdict=verdict(results),
        features=FEATURES,
        implementations=tuple(results),
        matrix=conformance_matrix(FEATURES, results),
    )


def failure_lines(impl: ImplementationResult, out: Path | None) -> list[str]:
    """For each counterexample: the property and its rule, what differs first, and the saved case (none without
    an output folder)."""
    lines = []
    for prop in impl.properties:
        for failure in prop.failures:
            lines += [f"{prop.property}: {failure.rule}", f"  first difference: {account(to_json(failure)).headline}",
                      f"  minimal case: {out / failure.case_file if out else NOT_SAVED}"]
    return lines


HEADS = {"conforms": "conforms", "differs": "DOES NOT CONFORM", "could_not_run": "COULD NOT RUN"}
#: Where a minimal case is when no output folder kept it (a pytest session without `--window-out` or a cache).
NOT_SAVED = "not saved (--window-out DIR saves it as a case file)"


def summary_lines(report: Report, out: Path | None) -> list[str]:
    """What the terminal shows at the end: each implementation's outcome, its problems, the properties that do not
    apply to it and its counterexamples; the seed, the verdict and where the report is (`out`, if written)."""
    lines = [""]
    for impl in report.implementations:
        examples = sum(p.examples for p in impl.properties if p.ran)
        lines.append(f"{impl.name}: {HEADS[impl.outcome]} ({properties_counted([p.outcome for p in impl.properties])}, "
                     f"{counted(examples, 'example')}, {impl.duration:.1f}s)")
        lines += [f"  - {problem}" for problem in impl.problems]
        lines += [f"  {line}" for line in not_applicable_lines(impl)]
        lines += [f"    {line}" for line in failure_lines(impl, out)]
    if report.seed is not None:
        lines.append(f"Examples drawn with seed {report.seed} (--seed {report.seed} draws them again)")
    lines += ["", report.verdict.text]
    if out is not None:
        lines.append(f"Report: {out / 'index.html'} (and report.md, report.json, junit.xml)")
    return lines


def not_applicable_lines(impl: ImplementationResult) -> list[str]:
    """The properties that do not apply to the implementation, one line for each reason."""
    reasons: dict[str, list[str]] = {}
    for prop in impl.properties:
        if prop.outcome == "not_applicable":
            reasons.setdefault(prop.message, []).append(prop.property)
    return [f"not applicable ({reason.removeprefix('not applicable: ')}): {', '.join(names)}"
            for reason, names in reasons.items()]


def print_summary(report: Report, out: Path) -> None:
    print("\n".join(summary_lines(report, out)))
