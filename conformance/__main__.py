"""`python -m conformance`: the command line (`conformance.cli`).

The project's root goes on `sys.path`, and a user's module that would hide one of the project's packages is
refused, before anything of the project is imported (`conformance.installation.prepare`): installed in
editable mode, the project's packages are found by an import hook that Python asks only after `sys.path`, and
a plain folder in the current folder named like one of them (the run's own default output `reports/out`)
would be taken for the package `reports`.
"""

import sys
from pathlib import Path

from conformance.installation import PackageClash, prepare

try:
    prepare(Path.cwd())
except PackageClash as e:
    print(f"error: {e}", file=sys.stderr)
    sys.exit(2)

from conformance.cli import main  # noqa: E402 (after the path is set)

sys.exit(main())
