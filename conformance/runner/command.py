"""`python -m conformance run`: the property suite against each implementation, and the report.

    python -m conformance run [--impl NAME ...] [--profile ci|dev|thorough] [--out DIR]

For each implementation the suite runs in its own pytest process (`session.py`) while the
terminal shows the property and the examples so far (`progress.py`). Then the counterexamples
are saved as case files (`counterexamples.py`) and `reports` writes `report.json`, `index.html`,
`report.md` and `junit.xml` in `--out`.

Exit status: 0 when every implementation satisfies every property on every feature it declares,
1 otherwise, 2 for a usage error (an unknown implementation, a bad profile or output folder).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from conformance.features import FEATURES
from conformance.implementation import Implementation, ImplementationNotFound, load_implementation
from conformance.profiles import PROFILES
from conformance.runner.counterexamples import FOLDER as COUNTEREXAMPLES
from conformance.runner.counterexamples import save_counterexamples, slug
from conformance.runner.progress import Progress
from conformance.runner.session import DEFAULT_SUITE, run_suite

DEFAULT_IMPLEMENTATIONS = ("reference", "spark")
DEFAULT_OUT = Path("reports/out")
REPORT_FORMAT = "window-conformance-report/1"
USAGE_ERROR = 2
#: How much of a test's own error output (not a property violation) the report keeps.
MESSAGE_LIMIT = 4000


class RunUsageError(Exception):
    pass


def add_run_command(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "run",
        help="run the property suite against implementations and write a report",
        description="Run the property suite against each implementation and write the report.",
    )
    p.add_argument(
        "--impl",
        action="append",
        metavar="NAME",
        help="a registered name or package.module:factory; repeat for several "
        f"(default: {' and '.join(DEFAULT_IMPLEMENTATIONS)})",
    )
    p.add_argument(
        "--profile",
        choices=sorted(PROFILES),
        default="ci",
        help="the Hypothesis profile: how many examples per property (default: ci)",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        metavar="DIR",
        help=f"where the report goes (default: {DEFAULT_OUT}/)",
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
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        specs = list(dict.fromkeys(args.impl or DEFAULT_IMPLEMENTATIONS))
        implementations = [(spec, load_implementation(spec)) for spec in specs]
        suite = check_suite(args.suite or [DEFAULT_SUITE])
        out = prepare_out(args.out)
    except (RunUsageError, ImplementationNotFound) as e:
        print(f"error: {e}", file=sys.stderr)
        return USAGE_ERROR
    progress = Progress(sys.stderr)
    results = [
        run_implementation(spec, impl, suite, args.profile, out, args.property, progress)
        for spec, impl in implementations
    ]
    save_counterexamples(results, out)
    document = build_document(results, args.profile, suite, out)

    from reports import write_reports  # the renderers are needed only once there is something to render

    write_reports(document, out)
    print_summary(document, out)
    return 0 if document["verdict"]["conforms"] else 1


def check_suite(paths: list[Path]) -> list[Path]:
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise RunUsageError(f"--suite: no property suite at {', '.join(missing)}")
    return paths


def prepare_out(out: Path) -> Path:
    """The output folder, created, with what an earlier run left in it removed."""
    if out.exists() and not out.is_dir():
        raise RunUsageError(f"--out {out}: exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise RunUsageError(f"--out {out}: cannot create the folder ({e.strerror})") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise RunUsageError(f"--out {out}: the folder is not writable")
    # Only the subfolders this command writes: --out may be a folder that holds other things.
    for owned in (COUNTEREXAMPLES, "logs"):
        shutil.rmtree(out / owned, ignore_errors=True)
    return out


def run_implementation(
    spec: str,
    impl: Implementation,
    suite: list[Path],
    profile: str,
    out: Path,
    properties: list[str],
    progress: Progress,
) -> dict[str, Any]:
    """The results of one implementation, as `report.json` holds them."""
    from reports.matrix import problems

    progress.implementation(impl.name, spec)
    log = f"logs/{slug(impl.name)}.log"
    result: dict[str, Any] = {
        "name": impl.name,
        "spec": spec,
        "features": sorted(impl.features),
        "properties": [],
        "errors": [],
        "exit_status": None,
        "log": log,
    }
    started, running = time.monotonic(), None
    for event in run_suite(spec, suite, profile, out / log, properties):
        progress.event(event)
        match event["event"]:
            case "start":
                running = event["nodeid"]
            case "result":
                result["properties"].append(property_result(event))
                running = None
            case "collect_error":
                result["errors"].append(
                    {"nodeid": event["nodeid"], "message": event["message"][-MESSAGE_LIMIT:]}
                )
            case "exit":
                result["exit_status"] = event["status"]
    if running is not None:
        result["errors"].append(
            {
                "nodeid": running,
                "message": f"the test process ended during this test "
                f"(exit status {result['exit_status']}); see {log}",
            }
        )
    result["duration"] = round(time.monotonic() - started, 3)
    result["problems"] = problems(result)
    result["conforms"] = not result["problems"]
    return result


def property_result(event: dict[str, Any]) -> dict[str, Any]:
    failures = event["violations"]
    return {
        "property": event["property"],
        "nodeid": event["nodeid"],
        "outcome": event["outcome"],
        "duration": round(event["duration"], 3),
        "examples": event["examples"],
        "invalid_examples": event["invalid_examples"],
        "shrinks": event["shrinks"],
        "statistics": event["statistics"],
        "features": event["features"],
        "failures": failures,
        # A violation explains itself; anything else (an exception in the implementation) needs the traceback.
        "message": "" if failures else event["message"][-MESSAGE_LIMIT:],
    }


def build_document(
    results: list[dict[str, Any]], profile: str, suite: list[Path], out: Path
) -> dict[str, Any]:
    from reports.matrix import conformance_matrix, verdict

    return {
        "format": REPORT_FORMAT,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "profile": profile,
        "suite": [str(p) for p in suite],
        "out": str(out),
        "verdict": verdict(results),
        "features": FEATURES,
        "implementations": results,
        "matrix": conformance_matrix(FEATURES, results),
    }


def print_summary(document: dict[str, Any], out: Path) -> None:
    print()
    for impl in document["implementations"]:
        examples = sum(p["examples"] for p in impl["properties"])
        head = f"{impl['name']}: {'conforms' if impl['conforms'] else 'DOES NOT CONFORM'}"
        print(f"{head} ({len(impl['properties'])} properties, {examples} examples, {impl['duration']:.1f}s)")
        for problem in impl["problems"]:
            print(f"  - {problem}")
        for prop in impl["properties"]:
            for failure in prop["failures"]:
                print(
                    f"    {prop['property']}: {failure['rule']}\n"
                    f"      minimal case: {out / failure['case_file']}"
                )
    print(f"\n{document['verdict']['text']}")
    print(f"Report: {out / 'index.html'} (and report.md, report.json, junit.xml)")
