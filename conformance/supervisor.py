"""The exit status of `python -m conformance` is the one its command decided, or 3 (could not run).

Python code can end a process without returning: a plug-in that calls `os._exit(0)` in its `run`, or one
that crashes the interpreter, ends `replay --check` with a status of its own choosing, and 0 would read
as "every case agrees" though nothing was checked. So the command runs in a child process (a fork, as
it starts) that reports the status it decided on a pipe before it exits. The parent exits with that
status; a child that ended without reporting one decided nothing: the parent says so in one line and
exits 3, or 128 + the signal that killed it.

The parent passes on the signals that stop a command (`conformance.exits.STOPPING`) to the child, which
ends its own processes; it waits for the child, so that when it exits nothing the command started
runs on. An exception that escapes the command is a bug of this tool, not a verdict: its traceback is
printed and the status is 3, not Python's 1, which would read as "differs".
"""

from __future__ import annotations

import os
import signal
import sys
import traceback
from collections.abc import Callable

from conformance.exits import STOPPING, describe, exit_status

#: The status of a command that decided nothing (`runner.verdict.EXIT_STATUS["could_not_run"]`; this
#: module imports nothing heavy, as it runs before the command is loaded).
COULD_NOT_RUN = 3


def supervised(command: Callable[[], int]) -> int:
    """`command()` in a child process; its status when it returned one, else `COULD_NOT_RUN` or the
    status of the signal that killed it (module docstring)."""
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(read_end)
        status = _decided(command)
        os.write(write_end, bytes([status]))
        return status
    os.close(write_end)
    for signum in STOPPING:
        signal.signal(signum, lambda signum, frame: _pass_on(child, signum))
    _, wait_status = os.waitpid(child, 0)
    with os.fdopen(read_end, "rb") as reported:
        decided = reported.read(1)
    if decided:
        return decided[0]
    if os.WIFSIGNALED(wait_status):
        killed = signal.Signals(os.WTERMSIG(wait_status))
        print(f"error: python -m conformance was killed by {killed.name} before it finished; nothing was "
              "concluded", file=sys.stderr)
        return 128 + killed
    print(f"error: something the command ran ended its process (exit status {os.WEXITSTATUS(wait_status)}) "
          "before it finished, as a plug-in that calls sys.exit or os._exit, or a crash, does: nothing was "
          "concluded", file=sys.stderr)
    return COULD_NOT_RUN


def _decided(command: Callable[[], int]) -> int:
    """The status `command` returns; `COULD_NOT_RUN` when it raises instead (a `SystemExit` from a plug-in
    ends nothing it decided; any other exception is a bug of the tool, whose traceback is printed)."""
    try:
        status = command()
    except KeyboardInterrupt as e:  # before the command could take it
        print(f"error: {describe(e)}; nothing was concluded", file=sys.stderr)
        return exit_status(e)
    except SystemExit as e:
        print(f"error: something the command ran called sys.exit({e.code!r}) before it finished; nothing was "
              "concluded", file=sys.stderr)
        return COULD_NOT_RUN
    except Exception:
        traceback.print_exc()
        print("error: an internal error of window-conformance (the traceback above); nothing was concluded",
              file=sys.stderr)
        return COULD_NOT_RUN
    return status if isinstance(status, int) and 0 <= status <= 255 else COULD_NOT_RUN


def _pass_on(child: int, signum: int) -> None:
    try:
        os.kill(child, signum)
    except ProcessLookupError:
        pass
