"""The command line's entry (`python -m conformance` and the installed `window-conformance`): the command
(`conformance.cli`) in a child process whose status is the command's (`supervisor.py`), and which a signal
stops in order (`exits.py`).

The project's root goes on `sys.path`, and a user's module that would hide one of the project's packages is
refused, before the command is imported (`conformance.installation.prepare`): installed in editable mode, the
project's packages are found by an import hook that Python asks only after `sys.path`, and a plain folder in
the current folder named like one of them (the run's own default output `reports/out`) would be taken for the
package `reports`.
"""

import sys
from pathlib import Path

from conformance.exits import interrupt_on_signals, stop_when_orphaned
from conformance.installation import PackageClash, prepare
from conformance.runner.verdict import USAGE_ERROR
from conformance.supervisor import supervised


def main() -> int:
    try:
        prepare(Path.cwd())
    except PackageClash as e:
        print(f"error: {e}", file=sys.stderr)
        return USAGE_ERROR
    return supervised(_command)


def _command() -> int:
    interrupt_on_signals()
    stop_when_orphaned()
    from conformance.cli import main as command  # once the path is set

    return command()
