"""The drawing cache (`conformance/runner/drawing.py`): a derandomized run with the reference replays the examples
the last run of the same code drew, and draws anew when the code, the profile or `--fresh-drawing` says so."""

from __future__ import annotations

import json
import os
import pickle
import time

from conformance.prefetch.recordings import Recording, claim, recording_file, wait_for_recording, write_recording
from conformance.runner import drawing
from conformance.runner.drawing import KEPT, DrawingCache, drawing_key
from tests.report_fixture_suite.running import conformance

SUITE_ONLY = ("--property", "same_observation_when_run_twice")


def test_the_key_changes_with_the_suites_code_and_the_profile(tmp_path):
    suite = tmp_path / "props.py"
    suite.write_text("RULE = 1\n", encoding="utf-8")
    first = drawing_key((suite,), "ci")
    assert drawing_key((suite,), "ci") == first
    assert drawing_key((suite,), "ci-slow") != first
    suite.write_text("RULE = 2\n", encoding="utf-8")
    assert drawing_key((suite,), "ci") != first


def test_the_key_covers_the_packages_the_drawing_runs():
    names = {package.__name__ for package in drawing.DRAWING_PACKAGES}
    assert names == {"conformance", "strategies", "reference", "window_contract"}


def test_a_run_keeps_its_recordings_and_the_newest_keys_stay(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "a.pickle").write_bytes(b"a")
    (run / "a.claim").write_text("1", encoding="utf-8")
    (run / "1.alive").write_text("", encoding="utf-8")
    caches = [DrawingCache(f"key{i}", tmp_path / "cache") for i in range(KEPT + 1)]
    for i, cache in enumerate(caches):
        cache.keep(run)
        os.utime(cache.folder, (time.time() + i, time.time() + i))  # each newer than the one before
    caches[-1].keep(run)
    assert [p.name for p in caches[-1].folder.iterdir()] == ["a.pickle"]
    assert not caches[0].folder.exists() and all(c.folder.is_dir() for c in caches[1:])
    later = tmp_path / "later"
    later.mkdir()
    assert caches[-1].restore(later) == 1 and (later / "a.pickle").read_bytes() == b"a"


def test_a_recording_there_before_the_run_is_replayed_never_claimed(tmp_path):
    features = frozenset({"tumbling"})
    recording = Recording(features, (), ())
    write_recording(tmp_path, "test_x", recording)
    assert not claim(tmp_path, "test_x", features)
    assert wait_for_recording(tmp_path, "test_x", features) == recording
    assert claim(tmp_path, "test_y", features)  # a test without one is drawn by the run that claims it
    assert pickle.loads(recording_file(tmp_path, "test_x", features).read_bytes()) == recording


def run(cache, *args):
    done = conformance("run", "--impl", "reference", *SUITE_ONLY, "--out", str(cache / "out"), "--force", *args,
                       env=(("XDG_CACHE_HOME", str(cache)),))
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def examples(cache):
    report = json.loads((cache / "out" / "report.json").read_text(encoding="utf-8"))
    return [(p["property"], p["examples"]) for impl in report["implementations"] for p in impl["properties"]]


def test_the_second_run_replays_the_first_runs_drawing_and_fresh_drawing_draws_anew(tmp_path):
    first = run(tmp_path)
    assert "replaying the drawing" not in first.stderr
    drawn = examples(tmp_path)
    [kept] = (tmp_path / "window-conformance" / "drawing").iterdir()
    assert len(list(kept.glob("*.pickle"))) == 1
    second = run(tmp_path)
    assert f"replaying the drawing of an earlier run of this code (1 test, {kept}" in second.stderr
    assert examples(tmp_path) == drawn
    fresh = run(tmp_path, "--fresh-drawing")
    assert "replaying the drawing" not in fresh.stderr and examples(tmp_path) == drawn


def test_a_profile_that_draws_other_examples_each_run_keeps_no_drawing(tmp_path):
    run(tmp_path, "--profile", "dev", "--seed", "3")
    assert not (tmp_path / "window-conformance" / "drawing").exists()
