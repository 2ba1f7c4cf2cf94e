"""Recordings shared between the runs of one `python -m conformance run`.

A prefetched implementation's run first records what each test sends (`harness.Suite.recording`):
it runs the test with the reference answering, which is exactly what the reference's own run of the
suite does when both declare the same features (the `ci` profile is derandomized, and the examples
Hypothesis draws depend only on the features and on the answers). When `run` runs the reference
before or beside such implementations, the reference's run writes, test by test, the cases and
requests it sent and, when the test passed, its examples (`replay.py`) (`--recordings-out DIR`), and
their runs read them (`--recordings-in DIR`) instead of recording again: their recording pass, as
long as the reference's whole run, is gone, and their real pass replays the examples instead of
drawing them again.

Correctness never depends on a recording: a case the implementation's real pass sends that the
recording lacks costs a real call, as with its own recording, and a replayed example that fails
hands the test to Hypothesis. A recording made for other features is not used; a test the
reference's run does not record (it ended, or never ran the test) is recorded by the
implementation's run itself.

Files: `<test>.pickle` per test (written whole, then renamed into place; read only by the runs of
the same `run`, so of the same code), and `ENDED`, which `run` writes when the reference's run has
ended, however it ended.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import time
from dataclasses import dataclass
from pathlib import Path

from conformance.case import Case
from conformance.properties.replay import Example

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
    """What one test sent: its cases, and for a test of real batches its requests, round by round;
    and its examples, when it passed (`None` otherwise)."""

    features: frozenset[str]
    cases: tuple[Case, ...]
    rounds: tuple[tuple[tuple[Case, ...], ...], ...]
    examples: tuple[Example, ...] | None = None


def recording_file(folder: Path, nodeid: str) -> Path:
    return folder / f"{hashlib.sha256(nodeid.encode()).hexdigest()[:24]}.pickle"


def write_recording(folder: Path, nodeid: str, recording: Recording) -> None:
    path = recording_file(folder, nodeid)
    part = path.with_suffix(".part")
    part.write_bytes(pickle.dumps(recording))
    os.replace(part, path)


def read_recording(folder: Path, nodeid: str) -> Recording | None:
    """The test's recording, if the reference's run has written it."""
    try:
        return pickle.loads(recording_file(folder, nodeid).read_bytes())
    except FileNotFoundError:
        return None


def wait_for_recording(folder: Path, nodeid: str) -> Recording | None:
    """The test's recording, waiting for it while the reference's run goes on; `None` once that run
    has ended without it, or once `run` (this process's parent, which marks the end) is gone."""
    while True:
        ended = (folder / ENDED).exists() or os.getppid() != _RUN
        recording = read_recording(folder, nodeid)  # after: a recording written before the end is found
        if recording is not None or ended:
            return recording
        time.sleep(POLL)
