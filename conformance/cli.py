"""`python -m conformance`: replay case files, check them, explain what the reference does.

Exit status: 0 all well, 1 a case differs from its expected observation (or the suite failed),
2 a usage error or a malformed file.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from conformance.case import Case
from conformance.case_json import case_files, load_cases
from conformance.equivalence import difference
from conformance.features import required_features
from conformance.implementation import ImplementationNotFound, load_implementation
from conformance.observation_json import observation_to_json
from conformance.runner.command import add_run_command
from conformance.validation import CaseFormatError

USAGE_ERROR = 2


class UsageError(Exception):
    pass


def _load_all(paths: Sequence[str]) -> list[tuple[Path, int, Case]]:
    """Every case of every file, with where it came from; all format problems reported at once."""
    loaded, errors = [], []
    files = list(case_files(list(paths)))
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


def replay(args: argparse.Namespace) -> int:
    loaded = _load_all(args.files)
    impl = load_implementation(args.impl)
    supported = [(p, i, c) for p, i, c in loaded if required_features(c) <= impl.features]
    observations = impl.run([c for _, _, c in supported]) if supported else []
    by_case = {id(c): o for (_, _, c), o in zip(supported, observations, strict=True)}
    differing = 0
    for path, index, case in loaded:
        label = _label(path, index, case)
        observation = by_case.get(id(case))
        if observation is None:
            missing = sorted(required_features(case) - impl.features)
            print(f"{label}: unsupported by {impl.name} (needs {', '.join(missing)})", file=sys.stderr)
            continue
        if not args.check:
            print(json.dumps({"case": label, "observation": observation_to_json(observation)}))
            continue
        if case.expected is None:
            differing += 1
            print(f"DIFFERS {label}: the case has no expected observation to check against")
            continue
        diff = difference(case.expected, observation)
        if diff:
            differing += 1
            print(f"DIFFERS {label}:\n  " + diff.replace("\n", "\n  "))
    if args.check:
        checked = len(supported)
        print(f"{impl.name}: {checked - differing} of {checked} cases agree with their expected observation"
              + (f", {len(loaded) - checked} unsupported" if len(loaded) > checked else ""))
    return 1 if differing else 0


def explain(args: argparse.Namespace) -> int:
    from reference.explain import explain_case  # the reference is loaded only for this command

    for path, index, case in _load_all([args.file]):
        print(f"== {_label(path, index, case)}")
        for line in explain_case(case):
            print(line)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m conformance", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("replay", help="run the cases of files or folders through an implementation")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--impl", default="reference", help="a registered name or package.module:factory")
    p.add_argument("--check", action="store_true", help="compare each case with its expected observation")
    p.set_defaults(func=replay)
    e = sub.add_parser("explain", help="a step-by-step trace of what the reference does with a case")
    e.add_argument("file", metavar="FILE")
    e.set_defaults(func=explain)
    add_run_command(sub)
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
