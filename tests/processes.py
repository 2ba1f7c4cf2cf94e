"""Starting `python -m conformance` as a user does, stopping it as a terminal or `kill` does, and finding the
processes it leaves (issue 32: every exit path ends the children and the plug-in's process group)."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from report_fixture_suite.running import ROOT

PEER = Path(__file__).resolve().parent / "peers" / "python_peer.py"


def busy_peer(marker: Path) -> str:
    """`exec:` of a peer that, asked to run, starts a process of its own and then neither answers nor
    reads; both name `marker` in their command lines."""
    return "exec:" + shlex.join([sys.executable, str(PEER), "busy", str(marker)])


def started(*args: str, pythonpath: tuple[str, ...] = ()) -> subprocess.Popen:
    """`python -m conformance ARGS` in a process group (a terminal's job) of its own."""
    env = os.environ | {"PYTHONPATH": os.pathsep.join([*pythonpath, str(ROOT)])}
    return subprocess.Popen([sys.executable, "-m", "conformance", *args], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def living(marker: Path | str, *also: str) -> list[int]:
    """The processes whose command line names `marker` (and each of `also`) and that have not ended (zombies
    have)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            named = all(text.encode() in cmdline for text in (str(marker), *also))
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if named and state not in ("Z", "X"):
            found.append(int(entry.name))
    return found


def busy(marker: Path) -> None:
    """Wait until the busy peer has its request, and has started its process (`busy_peer`)."""
    wait_for(lambda: living(marker, "time.sleep(3600)"))


def wait_for(condition, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.2)


def stopped(process: subprocess.Popen, signum: int, group: bool = False, timeout: float = 60.0) -> tuple[int, str]:
    """Send `signum` to `process` (to its whole group, as a terminal's Ctrl-C does, when `group`); its exit
    status and stderr once it has ended."""
    (os.killpg if group else os.kill)(process.pid, signum)
    _, err = process.communicate(timeout=timeout)
    return process.returncode, err


def kill_all(marker: Path | str) -> None:
    """Clean up after a failing test: what it left behind."""
    for pid in living(marker):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
