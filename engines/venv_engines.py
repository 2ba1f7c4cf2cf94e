"""The engines under test that run in environments of their own, as the suite loads them: each adapter, in its
engine's virtual environment, is a process speaking `window-process/1` (docs/protocol.md), exactly as
`--impl 'exec:COMMAND'` would run it.

An engine's manifest (`cases/engines/<name>/engine.toml`, `runs = "venv"`) names its environment and its module;
`./dev setup VENV` makes the environment beside `.venv` (`.venv-VENV`) from the pinned extra VENV of
`pyproject.toml` (with this project installed, without extras), as `./dev conformance --impl NAME` does when it is
missing; the environment variable `WINDOW_CONFORMANCE_<VENV>_PYTHON` names another interpreter that has the engine
and this project.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from window_contract.implementation import ImplementationFailure
from window_contract.process import ProcessImplementation

ROOT = Path(__file__).resolve().parent.parent


def python_variable(venv: str) -> str:
    """The environment variable that names another interpreter for the environment `venv`."""
    return f"WINDOW_CONFORMANCE_{venv.upper().replace('-', '_')}_PYTHON"


def engine_process(module: str, venv: str) -> ProcessImplementation:
    """`python -m <module>` in the environment `.venv-<venv>` (or the interpreter its variable names), run from
    the project's root."""
    variable = python_variable(venv)
    python = os.environ.get(variable, str(ROOT / f".venv-{venv}" / "bin" / "python"))
    if not Path(python).is_file():
        raise ImplementationFailure(f"the engine's environment is missing ({python} does not exist): "
                                    f"`./dev setup {venv}` makes .venv-{venv}, or set {variable}")
    return ProcessImplementation(f"{shlex.quote(python)} -m {module}")
