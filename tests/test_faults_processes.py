"""Nothing is left running on any exit path (issue 32, "Orphans"): SIGTERM, Ctrl-C and `timeout` end `run`'s
test process and an `exec:` plug-in busy in a session of its own, with what it started in its group; the
exit status is the shell's for the signal."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest
from processes import ROOT, busy, busy_peer, kill_all, living, started, stopped, wait_for

SUITE = ("--profile", "dev", "--property", "fired_values_lie")


@pytest.fixture
def marker(tmp_path):
    """A path that every process of the test names: the busy peer, what it started, the test process."""
    path = tmp_path / "busy-marker"
    yield path
    kill_all(path)


@pytest.mark.parametrize("signum, group, status", [
    (signal.SIGTERM, False, 143),  # kill PID
    (signal.SIGINT, True, 130),    # Ctrl-C in a terminal: the whole job
    (signal.SIGHUP, False, 129),   # the terminal closed
])
def test_a_run_stopped_while_an_exec_plugin_is_busy_leaves_nothing_running(marker, tmp_path, signum, group, status):
    run = started("run", "--impl", busy_peer(marker), *SUITE, "--out", str(tmp_path / "out"))
    busy(marker)
    code, err = stopped(run, signum, group)
    assert code == status, err
    assert f"stopped by {signal.Signals(signum).name}" in err and "Traceback" not in err
    wait_for(lambda: not living(marker), timeout=15)


def test_replay_stopped_while_an_exec_plugin_is_busy_leaves_nothing_running(marker):
    replay = started("replay", str(ROOT / "cases" / "seeds"), "--impl", busy_peer(marker))
    busy(marker)
    code, err = stopped(replay, signal.SIGTERM)
    assert code == 143 and "stopped by SIGTERM" in err, err
    wait_for(lambda: not living(marker), timeout=15)


def test_timeout_on_a_run_with_a_busy_plugin_leaves_nothing_running(marker, tmp_path):
    command = ["timeout", "600", sys.executable, "-m", "conformance", "run", "--impl", busy_peer(marker), *SUITE,
               "--out", str(tmp_path / "out")]
    timed = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
    busy(marker)
    code, err = stopped(timed, signal.SIGALRM)  # timeout's own alarm: its time is up now
    assert code == 124, err  # timeout's status: it stopped the command
    wait_for(lambda: not living(marker), timeout=15)


def test_a_run_killed_outright_leaves_no_test_process_behind(marker, tmp_path):
    run = started("run", "--impl", busy_peer(marker), *SUITE, "--out", str(tmp_path / "out"))
    busy(marker)
    code, _ = stopped(run, signal.SIGKILL)  # the supervising process: its command dies with nothing to say
    assert code == -signal.SIGKILL
    wait_for(lambda: not living(marker), timeout=30)
