"""`run --out`: a run never deletes what it did not write, and two runs never share a folder."""

from __future__ import annotations

import fcntl
import json
import os

from report_fixture_suite.running import AGREES, conformance

from conformance.runner.output import LOCK, MANIFEST


def run(out, *args):
    return conformance("run", "--impl", "reference", *AGREES, "--out", str(out), *args)


def test_a_folder_with_the_users_files_is_refused_and_kept(tmp_path):
    important = tmp_path / "logs" / "important.log"
    important.parent.mkdir()
    important.write_text("keep me")
    done = run(tmp_path)
    assert done.returncode == 2 and "the folder is not empty; give --force" in done.stderr
    forced = run(tmp_path, "--force")
    assert forced.returncode == 2 and "--force removes only the files an earlier run listed" in forced.stderr
    assert important.read_text() == "keep me" and sorted(os.listdir(tmp_path)) == ["logs"]


def test_force_replaces_only_what_the_earlier_run_wrote(tmp_path):
    failing = conformance("run", "--impl", "reference-flink-1.12", *AGREES, "--out", str(tmp_path))
    assert failing.returncode == 1, failing.stderr
    stale = tmp_path / "timelines" / "reference-flink-1.12--agrees_with_reference.svg"
    assert stale.exists() and (tmp_path / "counterexamples").exists()
    listed = json.loads((tmp_path / MANIFEST).read_text())["files"]
    assert "report.json" in listed and "timelines/reference-flink-1.12--agrees_with_reference.svg" in listed
    (tmp_path / "notes.txt").write_text("mine")
    passing = run(tmp_path, "--force")
    assert passing.returncode == 0, passing.stderr
    assert not stale.exists() and not (tmp_path / "timelines").exists()
    assert not (tmp_path / "counterexamples").exists()
    assert (tmp_path / "notes.txt").read_text() == "mine"
    assert json.loads((tmp_path / "report.json").read_text())["verdict"]["conforms"]
    assert not (tmp_path / LOCK).exists()


def test_a_second_run_on_a_folder_being_written_is_refused(tmp_path):
    (tmp_path / LOCK).write_text(str(os.getpid()))
    with open(tmp_path / LOCK) as held:  # a live run holds the folder's lock
        fcntl.flock(held, fcntl.LOCK_EX)
        done = run(tmp_path)
    assert done.returncode == 2
    assert f"another run (process {os.getpid()}) is writing there" in done.stderr
    # left by a run that died, though its process id lives on (a zombie, or reused): nobody holds it
    assert run(tmp_path).returncode == 0
    assert not (tmp_path / LOCK).exists() and (tmp_path / "report.json").exists()
