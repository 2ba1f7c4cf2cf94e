"""How `python -m conformance` ends when it is told to stop: Ctrl-C (SIGINT), SIGTERM (`kill`, `timeout`) or
SIGHUP (a closed terminal).

Each of them becomes an exception in the main thread (`Interrupted`, a `KeyboardInterrupt`), so that every
`finally` runs: the run's test processes are ended, an unfinished report is removed while the previous one
stays, and the processes of `exec:` implementations, which live in sessions of their own where no terminal
signal reaches them, are killed with their process groups (`window_contract.process.end_processes`) at once,
before anything else, since a busy one would not notice the end of its input. The exit status is the shell's
for the signal, 128 + its number (130 for Ctrl-C, 143 for SIGTERM).

A process whose parent is killed outright (SIGKILL, which nothing can catch) stops itself the same way
(`stop_when_orphaned`). Once stopping, the process ignores further signals: `timeout` signals the whole
process group, and a run ends its test processes with SIGTERM too, so they may get it twice while they
clean up.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from types import FrameType

from window_contract.process import end_processes

#: The signals that stop a command, each ending it as `Interrupted`.
STOPPING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Interrupted(KeyboardInterrupt):
    """The command was told to stop by `signum`; pytest, like Python, takes it for a Ctrl-C."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        self.signum = signal.Signals(signum)
        super().__init__(self.signum.name)


def interrupt_on_signals() -> None:
    """Make each of `STOPPING` raise `Interrupted` in the main thread (call it from the main thread)."""
    for signum in STOPPING:
        signal.signal(signum, _stop)


def _stop(signum: int, frame: FrameType | None) -> None:
    for other in STOPPING:
        signal.signal(other, signal.SIG_IGN)
    end_processes()
    raise Interrupted(signum)


def stop_when_orphaned(interval: float = 1.0) -> None:
    """SIGTERM to this process once its parent is gone (killed outright, it could not stop this one): a
    run's test process without its run, or a command without the process that supervises it."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="watching the parent", daemon=True).start()


def exit_status(interruption: KeyboardInterrupt) -> int:
    """128 + the signal's number, as a shell reports a process its signal ended."""
    return 128 + getattr(interruption, "signum", signal.SIGINT)


def describe(interruption: KeyboardInterrupt) -> str:
    return f"stopped by {getattr(interruption, 'signum', signal.SIGINT).name}"
