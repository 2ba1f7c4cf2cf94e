"""Recordings shared between the runs of one `run` (`conformance/properties/recordings.py`)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

from conformance.prefetch.plugin import LEFT_TO_THE_OTHERS, leaves_to_the_others
from conformance.prefetch.recordings import (
    Recording,
    claim,
    claimed,
    read_recording,
    wait_for_recording,
    write_recording,
)
from conformance.runner.command import shared_recordings
from window_contract import Case, record, session, tumbling, watermark
from window_contract.features import ALL_FEATURES

ROOT = Path(__file__).resolve().parents[1]
A = Case(window=tumbling(10), events=(record("k", 1, ts=-3), watermark(9)))
B = Case(window=session(4), allowed_lateness=2, events=(record("j", 2, ts=5),), end_of_input=False)
RECORDING = Recording(ALL_FEATURES, (A, B), (((A,), (A, B)), ((A,),)))


def test_a_recording_reads_back_as_it_was_written_for_its_features(tmp_path):
    write_recording(tmp_path, "suite.py::test_x", RECORDING)
    assert read_recording(tmp_path, "suite.py::test_x", ALL_FEATURES) == RECORDING
    assert read_recording(tmp_path, "suite.py::test_y", ALL_FEATURES) is None
    assert read_recording(tmp_path, "suite.py::test_x", ALL_FEATURES - {"trigger.count"}) is None
    assert [p.suffix for p in tmp_path.iterdir()] == [".pickle"]  # written whole, then renamed


def test_the_first_run_to_claim_a_test_draws_it(tmp_path):
    assert claim(tmp_path, "t", ALL_FEATURES)
    assert not claim(tmp_path, "t", ALL_FEATURES)
    assert claim(tmp_path, "t", ALL_FEATURES - {"trigger.count"})  # for other features: another test


def claimant(folder: Path, writes: bool) -> subprocess.Popen:
    """Another run: it claims test `t`, and a moment later writes its recording or ends without it."""
    script = (f"import pickle, sys, time; from pathlib import Path\n"
              f"from conformance.prefetch.recordings import claim, write_recording\n"
              f"folder = Path(sys.argv[1]); recording = pickle.loads(bytes.fromhex(sys.argv[2]))\n"
              f"assert claim(folder, 't', recording.features); print('claimed', flush=True)\n"
              f"time.sleep(0.5)\n"
              f"if {writes}: write_recording(folder, 't', recording)\n")
    other = subprocess.Popen([sys.executable, "-c", script, str(folder), pickle.dumps(RECORDING).hex()],
                             cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert other.stdout.readline() == "claimed\n"
    return other


def test_a_test_is_claimed_once_a_run_claimed_it_or_its_recording_is_there(tmp_path):
    assert not claimed(tmp_path, "t", ALL_FEATURES)
    assert claim(tmp_path, "t", ALL_FEATURES) and claimed(tmp_path, "t", ALL_FEATURES)
    write_recording(tmp_path, "u", RECORDING)  # the drawing cache put it there
    assert claimed(tmp_path, "u", ALL_FEATURES) and not claimed(tmp_path, "u", frozenset())


def test_a_run_drawing_backwards_leaves_the_last_few_tests_to_a_run_drawing_from_the_first():
    left = LEFT_TO_THE_OTHERS
    assert not leaves_to_the_others(unclaimed=10, before=10)  # no other run draws: it draws them all
    assert not leaves_to_the_others(unclaimed=left, before=10)
    assert leaves_to_the_others(unclaimed=left - 1, before=10)
    assert leaves_to_the_others(unclaimed=0, before=1)
    assert not leaves_to_the_others(unclaimed=0, before=0)  # the first test, and no other run drew it


def test_waiting_ends_with_the_recording_or_with_the_claimants_end(tmp_path):
    writer = claimant(tmp_path, writes=True)
    assert not claim(tmp_path, "t", ALL_FEATURES)
    assert wait_for_recording(tmp_path, "t", ALL_FEATURES) == RECORDING
    writer.wait()
    (tmp_path / "t").mkdir()
    quitter = claimant(tmp_path / "t", writes=False)
    started = time.monotonic()
    assert wait_for_recording(tmp_path / "t", "t", ALL_FEATURES) is None
    assert time.monotonic() - started >= 0.3  # not before the claimant ended
    assert quitter.poll() is not None or quitter.wait(timeout=5) == 0


def test_the_reference_and_the_runs_after_it_share_the_drawing():
    folder = Path("recordings")
    assert shared_recordings(["spark", "reference", "flink"], folder) == [None, folder, folder]
    assert shared_recordings(["spark", "flink"], folder) == [None, None]


def pytest_on_the_suite(*options: str, profile: str) -> subprocess.CompletedProcess:
    """Plain pytest on the property suite, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "conformance/properties", *options, "-q", "-p", "no:cacheprovider",
         "-p", "no:xdist", "-p", "no:randomly"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        env=os.environ | {"HYPOTHESIS_PROFILE": profile, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'tests'}"})


def test_a_recordings_folder_that_cannot_be_used_does_not_fail_the_references_test(tmp_path):
    """The reference's run only reports on the reference: a folder it cannot use costs the other runs
    its recordings (they record the tests themselves), not the reference its verdict."""
    done = pytest_on_the_suite("-p", "conformance.runner.collector", f"--window-recordings={tmp_path / 'gone'}",
                               "-k", "rejected_specification", profile="ci")
    assert done.returncode == 0, done.stdout[-3000:]
    assert "1 passed" in done.stdout and not (tmp_path / "gone").exists()


def test_plain_pytest_under_dev_draws_both_passes_of_a_prefetched_test_with_one_seed():
    """Without `run`'s seed, a prefetched test under `dev` drew new examples in its real pass and
    nearly every case cost a call of its own: the session now draws one seed and prints it. (The real
    pass now replays the recording pass's examples; the seed still serves a test handed back to
    Hypothesis, whose first examples are then the recorded ones, and a test that was not replayed.)"""
    done = pytest_on_the_suite("--window-impl", "report_fixture_suite.fixture_impls:Costly",
                               "-k", "rejected_specification or same_observation_when_run_twice", profile="dev")
    assert done.returncode == 0, done.stdout[-3000:]
    lines = done.stdout.splitlines()
    [summary] = [line for line in lines if line.startswith("prefetch: ") and "fetched" in line]
    assert summary.endswith(" 0 missed (0 real calls)"), summary
    assert "replay: 2 tests ran on examples drawn before, 0 of them handed back" in done.stdout
    [seeded] = [line for line in lines if line.startswith("prefetch: examples drawn with seed ")]
    chosen = seeded.split()[5]
    assert f"(--hypothesis-seed={chosen} draws them again)" in seeded


def test_a_suite_run_after_the_references_ended_replays_its_recordings_and_draws_nothing(tmp_path):
    """`./dev test`'s steps share the drawing one after another: the reference's step has ended when Spark's begins,
    and Spark's finds every test's recording (its claimant gone, its recording written), fetches their cases and
    replays their examples instead of drawing them again."""
    tests = ("-k", "rejected_specification or same_observation_when_run_twice")
    folder = f"--window-recordings={tmp_path}"
    drew = pytest_on_the_suite("--window-impl", "reference", folder, *tests, profile="ci")
    assert drew.returncode == 0 and "2 passed" in drew.stdout, drew.stdout[-3000:]
    replayed = pytest_on_the_suite("--window-impl", "report_fixture_suite.fixture_impls:Costly", folder, *tests,
                                   profile="ci")
    assert replayed.returncode == 0 and "2 passed" in replayed.stdout, replayed.stdout[-3000:]
    [summary] = [line for line in replayed.stdout.splitlines() if line.startswith("prefetch: ") and "fetched" in line]
    assert summary.startswith("prefetch: 0 tests recorded ") and "the cases of 2 tests as another run recorded" in \
        summary and summary.endswith(" 0 missed (0 real calls)"), summary
    assert "replay: 2 tests ran on examples drawn before, 0 of them handed back" in replayed.stdout


def test_the_join_properties_are_drawn_once_whichever_run_comes_first(tmp_path):
    """A join property's examples depend on no feature (`joins.SharedDrawing`): the run that claims it first draws it
    and writes them, and the other replays them, a prefetched run in its prefetching pass and the reference's in its
    only one, instead of drawing the property again."""
    tests = ("-k", "joins_match_reference or cogroup_emits_every_window")
    for first, then in (("reference", "report_fixture_suite.fixture_impls:Costly"),
                        ("report_fixture_suite.fixture_impls:Costly", "reference")):
        folder = tmp_path / first.rsplit(":", 1)[-1]
        folder.mkdir()
        drew = pytest_on_the_suite("--window-impl", first, f"--window-recordings={folder}", *tests, profile="ci")
        assert drew.returncode == 0 and "2 passed" in drew.stdout, drew.stdout[-3000:]
        written = {path: path.stat().st_mtime_ns for path in folder.glob("*.pickle")}
        claims = sorted(folder.glob("*.claim"))
        assert len(written) == len(claims) == 2
        replayed = pytest_on_the_suite("--window-impl", then, f"--window-recordings={folder}", *tests, profile="ci")
        assert replayed.returncode == 0 and "2 passed" in replayed.stdout, replayed.stdout[-3000:]
        assert "replay: 2 tests ran on examples drawn before, 0 of them handed back" in replayed.stdout
        assert sorted(folder.glob("*.claim")) == claims  # claimed nothing: drew nothing
        assert {path: path.stat().st_mtime_ns for path in folder.glob("*.pickle")} == written
