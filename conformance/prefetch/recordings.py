"""Recordings shared between the runs of one `python -m conformance run`.

A prefetched implementation's run first records what each test sends (`harness.Suite.recording`):
it runs the test with the reference answering, which is exactly what the reference's own run of the
suite does when both declare the same features (the `ci` profile is derandomized, `run` gives the
other profiles one seed, and the examples Hypothesis draws depend only on the features and on the
answers). So the runs `run` starts with the reference or after it (`--window-recordings DIR`) share the
drawing: each test is drawn once, by the run that claims it first, which writes its recording (the
cases and requests it sent and, when the test passed, its examples: `replay.py`); the others wait
for it, fetch its cases and replay its examples instead of drawing them again. The reference's run
takes the tests in order; a prefetched run first claims what is left from the last test backwards,
while its engine starts, so two runs draw about half the tests each, on two cores.

Correctness never depends on a recording: a case a prefetched run's real pass sends that the
recording lacks costs a real call, and a replayed example that fails hands the test to Hypothesis.
A recording already in the folder when a run starts (the drawing cache, `conformance/runner/drawing.py`,
put it there) is never claimed: every run replays it.
Runs whose drawing depends on other features share nothing: a recording is kept by test and by the
features the test's drawing depends on (`drawing_features`), the window features (this plug-in's tests
draw window cases, which no join feature changes); a join property's, on none (`plugin.JOIN_DRAWING`:
it draws its join cases, then keeps those the implementation declares). A test whose claimant ends
without writing it is drawn by whoever waited for it.

Files: `<test and features>.claim` (the claimant's process id, created whole or not at all),
`<test and features>.pickle` (written whole, then renamed into place; read only by the runs of the
same `run`, so of the same code), and `<process id>.alive`, which each taking part locks for as long
as it lives (the operating system lets go of the lock when the process ends, however it ends).
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import os
import pickle
import time
from dataclasses import dataclass
from pathlib import Path

from conformance.prefetch.replay import Example
from window_contract.case import Case
from window_contract.features import ALL_JOIN_NAMES

#: How often a run waiting for a recording looks for it.
POLL = 0.1


@dataclass(frozen=True)
class Recording:
    """What one test sent, for the features it was drawn for: its cases, and for a test of real
    batches its requests, round by round; and its examples, when it passed (`None` otherwise)."""

    features: frozenset[str]
    cases: tuple[Case, ...]
    rounds: tuple[tuple[tuple[Case, ...], ...], ...]
    examples: tuple[Example, ...] | None = None


def drawing_features(features: frozenset[str]) -> frozenset[str]:
    """The features a window test's drawing depends on: the strategies draw no window case differently for a
    join feature (`strategies.features.supported` leaves them out), so an implementation with the reference's
    window features replays its drawing whatever joins either declares."""
    return features - ALL_JOIN_NAMES


def _key(nodeid: str, features: frozenset[str]) -> str:
    return hashlib.sha256(repr((nodeid, sorted(features))).encode()).hexdigest()[:24]


def recording_file(folder: Path, nodeid: str, features: frozenset[str]) -> Path:
    return folder / f"{_key(nodeid, features)}.pickle"


def _claim_file(folder: Path, nodeid: str, features: frozenset[str]) -> Path:
    return folder / f"{_key(nodeid, features)}.claim"


def write_recording(folder: Path, nodeid: str, recording: Recording) -> None:
    path = recording_file(folder, nodeid, recording.features)
    part = path.with_suffix(f".{os.getpid()}.part")
    part.write_bytes(pickle.dumps(recording))
    os.replace(part, path)


def read_recording(folder: Path, nodeid: str, features: frozenset[str]) -> Recording | None:
    """The test's recording for `features`, if a run has written it."""
    try:
        return pickle.loads(recording_file(folder, nodeid, features).read_bytes())
    except FileNotFoundError:
        return None


def claim(folder: Path, nodeid: str, features: frozenset[str]) -> bool:
    """Whether this run draws the test: it is the first to claim it, and no run before this one left its
    recording (`conformance/runner/drawing.py`, the drawing cache)."""
    _stay_alive(folder)
    if recording_file(folder, nodeid, features).exists():
        return False
    path = _claim_file(folder, nodeid, features)
    part = path.with_suffix(f".{os.getpid()}.claiming")
    part.write_text(str(os.getpid()), encoding="utf-8")
    try:
        os.link(part, path)
        return True
    except FileExistsError:
        return False
    finally:
        part.unlink()


def claimed(folder: Path, nodeid: str, features: frozenset[str]) -> bool:
    """Whether a run has claimed the test, or its recording is there."""
    return _claim_file(folder, nodeid, features).exists() or recording_file(folder, nodeid, features).exists()


def wait_for_recording(folder: Path, nodeid: str, features: frozenset[str]) -> Recording | None:
    """The test's recording, waiting for it while the run that claimed it lives; `None` once that
    run has ended without it."""
    recording = read_recording(folder, nodeid, features)
    if recording is not None:  # drawn before this run (the drawing cache), or just now
        return recording
    claimant = int(_claim_file(folder, nodeid, features).read_text(encoding="utf-8"))
    while True:
        gone = not _alive(folder, claimant)
        recording = read_recording(folder, nodeid, features)  # after: a recording written before the end is found
        if recording is not None or gone:
            return recording
        time.sleep(POLL)


@functools.cache
def _stay_alive(folder: Path) -> int:
    """Lock this process's `.alive` file for as long as it lives (the cache keeps the descriptor)."""
    fd = os.open(folder / f"{os.getpid()}.alive", os.O_CREAT | os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def _alive(folder: Path, pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        fd = os.open(folder / f"{pid}.alive", os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # and with it a lock taken on a gone process's file
    return False
