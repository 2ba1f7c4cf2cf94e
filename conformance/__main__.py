"""`python -m conformance`, in a child process whose status is the command's (`supervisor.py`), and
which a signal stops in order (`exits.py`).

The project's root goes on `sys.path` (after the current folder, where a user's
`package.module:factory` is found). Installed in editable mode, the project's packages are found
by an import hook that Python asks only after `sys.path`; a plain folder in the current folder
named like one of them (the run's own default output `reports/out`) would then be taken for the
package `reports`. On `sys.path`, a real package wins over a plain folder of the same name.
"""

import sys

from conformance.exits import interrupt_on_signals, stop_when_orphaned
from conformance.runner.session import PROJECT_ROOT
from conformance.supervisor import supervised

if str(PROJECT_ROOT) not in sys.path:
    sys.path.append(str(PROJECT_ROOT))


def command() -> int:
    interrupt_on_signals()
    stop_when_orphaned()
    from conformance.cli import main  # after the path is set

    return main()


sys.exit(supervised(command))
