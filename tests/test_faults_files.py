"""The files a user keeps (issue 32): `run --force` swaps the new report in only once it is complete, a lock
whose process is dead is taken over, `corpus --out` follows `run --out`'s rules and checks the folder before
it draws anything, a missing engine could not run, and an implementation that cannot start is in a report."""

from __future__ import annotations

import json
import os
import signal
import time

import pytest
from processes import busy_peer, kill_all, started, stopped, wait_for
from report_fixture_suite.running import AGREES, HERE, conformance

from conformance.cli import main
from conformance.runner.output import LOCK, MANIFEST, STAGING


@pytest.fixture
def earlier(tmp_path):
    """A folder with an earlier run's report, and what it holds, byte for byte."""
    out = tmp_path / "out"
    done = conformance("run", "--impl", "reference", *AGREES, "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out, snapshot(out)


def snapshot(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_force_interrupted_keeps_the_earlier_report_whole(earlier, tmp_path):
    out, before = earlier
    marker = tmp_path / "busy-marker"
    try:
        run = started("run", "--impl", busy_peer(marker), *AGREES, "--out", str(out), "--force")
        wait_for(lambda: (out / STAGING / "logs").exists())
        time.sleep(0.5)
        code, err = stopped(run, signal.SIGINT, group=True)
    finally:
        kill_all(marker)
    assert code == 130, err
    assert snapshot(out) == before  # nothing of the unfinished run, nothing of the earlier one missing


def test_a_run_killed_outright_keeps_the_earlier_report_and_the_next_force_takes_the_folder(earlier):
    out, before = earlier
    run = started("run", "--impl", "fixture_impls:Hanging", "--profile", "dev", "--property", "fired_values_lie",
                  "--out", str(out), "--force", pythonpath=(str(HERE),))
    wait_for(lambda: (out / STAGING / "logs").exists())
    code, _ = stopped(run, signal.SIGKILL, group=True)  # the whole job, at once: nothing cleans up
    assert code == -signal.SIGKILL
    assert (out / LOCK).exists() and (out / STAGING).exists()
    assert {k: v for k, v in snapshot(out).items() if not k.startswith((STAGING, LOCK))} == before
    again = conformance("run", "--impl", "reference-flink-1.12", *AGREES, "--out", str(out), "--force")
    assert again.returncode == 1, again.stderr
    assert not (out / LOCK).exists() and not (out / STAGING).exists()
    assert json.loads((out / "report.json").read_text())["implementations"][0]["name"] == "reference-flink-1.12"


def test_corpus_refuses_a_folder_with_the_users_files_before_drawing_and_keeps_them(tmp_path):
    (tmp_path / "package.json").write_text('{"name": "mine"}')
    (tmp_path / "my_case.json").write_text("{}")
    begun = time.monotonic()
    done = conformance("corpus", "--out", str(tmp_path))  # all features, confirmed on Flink: minutes, if it ran
    assert done.returncode == 2 and "the folder is not empty; give --force" in done.stderr
    forced = conformance("corpus", "--out", str(tmp_path), "--force")
    assert forced.returncode == 2 and "has none: choose another folder" in forced.stderr
    assert time.monotonic() - begun < 60 and "corpus: " not in done.stderr + forced.stderr
    assert sorted(os.listdir(tmp_path)) == ["my_case.json", "package.json"]


def test_corpus_force_replaces_only_the_files_of_the_earlier_corpus(tmp_path):
    written = ("corpus", "--out", str(tmp_path), "--features", "assigner.tumbling", "--per-feature", "2",
               "--confirm", "none")
    assert conformance(*written).returncode == 0
    assert json.loads((tmp_path / MANIFEST).read_text())["files"] == ["assigner.tumbling.json", "index.json"]
    (tmp_path / "my_case.json").write_text("{}")
    assert conformance(*written).returncode == 2
    assert conformance(*written, "--force").returncode == 0
    assert (tmp_path / "my_case.json").read_text() == "{}"
    assert sorted(os.listdir(tmp_path)) == [MANIFEST, "assigner.tumbling.json", "index.json", "my_case.json"]


@pytest.mark.parametrize("out, said", [
    ("README.md", "--out README.md: exists and is not a folder"),
    ("/proc", "--out /proc: cannot write there"),
    ("/proc/no/such", "--out /proc/no/such: cannot create the folder"),
])
def test_corpus_to_a_folder_it_cannot_use_is_one_line_before_anything_is_drawn(out, said):
    begun = time.monotonic()
    done = conformance("corpus", "--out", out)
    assert done.returncode == 2 and done.stderr.startswith(f"error: {said}") and done.stderr.count("\n") == 1
    assert time.monotonic() - begun < 60


def test_a_registered_engine_that_is_not_installed_could_not_run_and_names_its_extra(tmp_path):
    (tmp_path / "pyspark.py").write_text('raise ModuleNotFoundError("No module named \'pyspark\'", name="pyspark")\n')
    done = conformance("replay", "cases/seeds", "--impl", "spark", pythonpath=(str(tmp_path),))
    assert done.returncode == 3, done.stderr
    assert done.stderr == ("error: spark could not run: its engine is missing (No module named 'pyspark'): "
                           "pip install 'window-conformance[spark]' installs it; ./dev setup installs every engine\n")


def test_an_engine_whose_environment_is_missing_could_not_run_and_names_the_command_that_makes_it(tmp_path):
    gone = tmp_path / "no-venv" / "bin" / "python"
    done = conformance("replay", "cases/seeds", "--impl", "beam", env=(("WINDOW_CONFORMANCE_BEAM_PYTHON", str(gone)),))
    assert done.returncode == 3, done.stderr
    assert done.stderr == (f"error: 'beam' could not start: the engine's environment is missing ({gone} does not "
                           "exist): `./dev setup beam` makes .venv-beam, or set WINDOW_CONFORMANCE_BEAM_PYTHON\n")


def test_an_unknown_name_suggests_the_nearest(capsys):
    assert main(["replay", "cases/seeds", "--impl", "refrence"]) == 2
    assert "no implementation 'refrence' (did you mean 'reference'?)" in capsys.readouterr().err


def test_an_exec_command_that_cannot_start_is_in_the_report_and_the_others_run(tmp_path):
    out = tmp_path / "out"
    done = conformance("run", "--impl", "exec:no-such-engine --serve", "--impl", "reference", *AGREES,
                       "--out", str(out))
    assert done.returncode == 3, done.stderr
    report = json.loads((out / "report.json").read_text())
    failed, reference = report["implementations"]
    assert (failed["spec"], failed["outcome"], failed["properties"]) == ("exec:no-such-engine --serve",
                                                                         "could_not_run", [])
    assert "cannot start 'no-such-engine'" in failed["errors"][0]["message"]
    assert "cannot start 'no-such-engine'" in (out / failed["log"]).read_text()
    assert reference["outcome"] == "conforms"
    assert "exec:no-such-engine --serve: COULD NOT RUN" in done.stdout
