"""Recordings shared between the runs of one `python -m conformance run`.

A prefetched implementation's run first records what each test sends (`harness.Suite.recording`):
it runs the test with the reference answering, which is exactly what the reference's own run of the
suite does when both declare the same features (the `ci` profile is derandomized, and the examples
Hypothesis draws depend only on the features and on the answers). When `run` runs the reference
before or beside such implementations, the reference's run writes, test by test, the cases and
requests it sent (`--recordings-out DIR`), and their runs read them (`--recordings-in DIR`) instead
of recording again: their recording pass, as long as the reference's whole run, is gone.

A recording is only a list of cases to fetch ahead. Correctness never depends on it: a case the
implementation's real pass sends that the recording lacks costs a real call, as with its own
recording. A recording made for other features is not used; a test the reference's run does not
record (it ended, or never ran the test) is recorded by the implementation's run itself.

Files: `<test>.json` per test (written whole, then renamed into place), and `ENDED`, which `run`
writes when the reference's run has ended, however it ended.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from conformance.case import Case
from conformance.case_json import case_from_json, case_to_json

#: The pytest options `run` gives the runs (declared by its plug-in, `conformance.runner.collector`).
RECORDINGS_OUT, RECORDINGS_IN = "--recordings-out", "--recordings-in"
#: Written by `run` when the reading runs need wait no longer.
ENDED = "ENDED"
#: How often a run waiting for a recording looks for it.
POLL = 0.1
#: The process that started this one: `run`, for a run that reads recordings.
_RUN = os.getppid()


@dataclass(frozen=True)
class Recording:
    """What one test sent: its cases, and for a test of real batches its requests, round by round."""

    features: frozenset[str]
    cases: tuple[Case, ...]
    rounds: tuple[tuple[tuple[Case, ...], ...], ...]


def recording_file(folder: Path, nodeid: str) -> Path:
    return folder / f"{hashlib.sha256(nodeid.encode()).hexdigest()[:24]}.json"


def write_recording(folder: Path, nodeid: str, recording: Recording) -> None:
    doc = {
        "test": nodeid,
        "features": sorted(recording.features),
        "cases": [case_to_json(c) for c in recording.cases],
        "rounds": [[[case_to_json(c) for c in request] for request in round_] for round_ in recording.rounds],
    }
    path = recording_file(folder, nodeid)
    part = path.with_suffix(".part")
    part.write_text(json.dumps(doc), encoding="utf-8")
    os.replace(part, path)


def read_recording(folder: Path, nodeid: str) -> Recording | None:
    """The test's recording, if the reference's run has written it."""
    try:
        doc = json.loads(recording_file(folder, nodeid).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    return Recording(
        features=frozenset(doc["features"]),
        cases=tuple(case_from_json(c) for c in doc["cases"]),
        rounds=tuple(tuple(tuple(case_from_json(c) for c in request) for request in round_)
                     for round_ in doc["rounds"]),
    )


def wait_for_recording(folder: Path, nodeid: str) -> Recording | None:
    """The test's recording, waiting for it while the reference's run goes on; `None` once that run
    has ended without it, or once `run` (this process's parent, which marks the end) is gone."""
    while True:
        ended = (folder / ENDED).exists() or os.getppid() != _RUN
        recording = read_recording(folder, nodeid)  # after: a recording written before the end is found
        if recording is not None or ended:
            return recording
        time.sleep(POLL)
