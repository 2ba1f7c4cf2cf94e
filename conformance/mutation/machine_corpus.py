"""The corpus of the machine mutation run: every case the property suite sends with a profile, plus
every case of `cases/`, drawn once.

The suite runs (in a `pytest` process) against `RecordingReference`, the reference that also writes each
case it is asked about to a JSON-lines file: window cases to `cases-<pid>.jsonl`, the join properties' join cases
(`join-case/1`) to `joins-<pid>.jsonl`; the join cases of `cases/**/*.join.json` join them. With a derandomized
profile (`ci`) Hypothesis draws the examples from each property test's source, so a run against any
implementation that agrees with the reference sends exactly these cases: a mutant the corpus does not kill is one
the suite would not kill by a difference of observations either (a property that checks an invariant on its own
may still).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from conformance.committed import committed
from window_contract.case import Case, case_to_json
from window_contract.case_json import JOIN_CASES_SUFFIX, case_files, case_from_json, load_cases
from window_contract.join_case import JoinCase, join_case_to_json
from window_contract.join_case_json import join_cases_from_json, load_join_cases
from window_contract.join_observation import JoinObservation
from window_contract.observation import Observation
from window_contract.validation import CaseFormatError

ROOT = Path(__file__).resolve().parent.parent.parent
SUITE = ROOT / "conformance" / "properties"
CASE_FILES = committed("cases")
#: The folder a recording reference writes its cases to (one file per process, so xdist workers can).
RECORD_TO = "WINDOW_CONFORMANCE_RECORD_TO"


class RecordingReference:
    """The reference, noting every case it runs in `$WINDOW_CONFORMANCE_RECORD_TO/cases-<pid>.jsonl`."""

    def __init__(self) -> None:
        from reference.implementation import ReferenceImplementation

        self._reference = ReferenceImplementation()
        self.name, self.features = "reference", self._reference.features
        self._folder = Path(os.environ[RECORD_TO])

    def run(self, cases: Sequence[Case]) -> list[Observation]:
        self._note("cases", [case_to_json(c) for c in cases])
        return self._reference.run(cases)

    def run_joins(self, cases: Sequence[JoinCase]) -> list[JoinObservation]:
        self._note("joins", [join_case_to_json(c) for c in cases])
        return self._reference.run_joins(cases)

    def _note(self, kind: str, documents: list[dict]) -> None:
        with (self._folder / f"{kind}-{os.getpid()}.jsonl").open("a", encoding="utf-8") as out:
            out.writelines(json.dumps(d) + "\n" for d in documents)


def record_suite_cases(directory: Path, profile: str = "ci", workers: int = 2, recordings: Path | None = None) -> None:
    """Run the property suite against `RecordingReference` with `profile`, into `directory`; with the `recordings`
    folder of a run of the suite that drew its tests with the reference's features (`./dev test`'s, after the
    reference's step: docs/prefetch.md), each test replays the examples drawn there instead of drawing them again:
    the same examples under a derandomized profile, so the same cases."""
    directory.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pytest", str(SUITE), "-q", "--no-header", "--tb=short",
               "-p", "no:cacheprovider", "-n", str(workers),
               "--window-impl", "conformance.mutation.machine_corpus:RecordingReference",
               "--hypothesis-profile", profile,
               *(("--window-recordings", str(recordings)) if recordings is not None else ())]
    done = subprocess.run(command, cwd=ROOT, env={**os.environ, RECORD_TO: str(directory)},
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"the property suite failed against the reference while recording its cases:\n"
                           f"{done.stdout[-3000:]}{done.stderr[-2000:]}")


def read_corpus(directory: Path) -> list[Case | JoinCase]:
    """The recorded cases, then every case of `cases/`, then the recorded join cases and every join case of
    `cases/`, each once, in a fixed order."""
    recorded = [case_from_json(json.loads(line)) for line in _lines(directory, "cases")]
    joins = [join_cases_from_json(json.loads(line))[0] for line in _lines(directory, "joins")]
    files: list[Case | JoinCase] = []
    for f in sorted(case_files([CASE_FILES])) + sorted(CASE_FILES.rglob(f"*{JOIN_CASES_SUFFIX}")):
        try:
            files += load_join_cases(f) if f.name.endswith(JOIN_CASES_SUFFIX) else load_cases(f)
        except CaseFormatError as e:  # the case-file tests fail on it; the corpus goes on without it
            print(f"corpus: left out {f.relative_to(CASE_FILES.parent)}: {str(e)[:200]}", file=sys.stderr)
    return list(dict.fromkeys(recorded + joins + files))


def _lines(directory: Path, kind: str) -> list[str]:
    """The recorded documents of `kind` (`cases`, `joins`), each once, sorted."""
    return sorted({line for f in directory.glob(f"{kind}-*.jsonl")
                   for line in f.read_text(encoding="utf-8").splitlines()})
