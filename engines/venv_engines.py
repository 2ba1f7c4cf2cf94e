"""The engines under test that run in environments of their own, as the suite loads them: each adapter, in its
engine's virtual environment, is a process speaking `window-process/1` (docs/protocol.md), exactly as
`--impl 'exec:COMMAND'` would run it.

`./dev setup EXTRA` makes each environment beside `.venv` (`.venv-EXTRA`) from the pinned extra of `pyproject.toml`
(with this project installed, without extras), as `./dev conformance --impl NAME` does when it is missing; an
environment variable names another interpreter that has the engine and this project.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from window_contract.implementation import ImplementationFailure
from window_contract.process import ProcessImplementation

ROOT = Path(__file__).resolve().parent.parent


def engine_process(module: str, extra: str, variable: str) -> ProcessImplementation:
    """`python -m <module>` in the environment of `extra`, `.venv-<extra>` (or `$variable`), run from the project's
    root."""
    venv = f".venv-{extra}"
    python = os.environ.get(variable, str(ROOT / venv / "bin" / "python"))
    if not Path(python).is_file():
        raise ImplementationFailure(f"the engine's environment is missing ({python} does not exist): "
                                    f"`./dev setup {extra}` makes {venv}, or set {variable}")
    return ProcessImplementation(f"{shlex.quote(python)} -m {module}")


def bytewax() -> ProcessImplementation:
    """`bytewax`: Bytewax 0.21 (`engines/bytewax.py`) in `.venv-bytewax`."""
    return engine_process("engines.bytewax", "bytewax", "WINDOW_CONFORMANCE_BYTEWAX_PYTHON")


def quix_streams() -> ProcessImplementation:
    """`quix-streams`: Quix Streams 3.28 on librdkafka's mock cluster (`engines/quix_streams.py`) in `.venv-quix`."""
    return engine_process("engines.quix_streams", "quix", "WINDOW_CONFORMANCE_QUIX_PYTHON")


def pathway() -> ProcessImplementation:
    """`pathway`: Pathway 0.33's temporal windows (`engines/pathway.py`) in `.venv-pathway`."""
    return engine_process("engines.pathway", "pathway", "WINDOW_CONFORMANCE_PATHWAY_PYTHON")



def beam() -> ProcessImplementation:
    """`beam`: Apache Beam 2.77's Python SDK on its direct runner (`engines/beam.py`) in `.venv-beam`."""
    return engine_process("engines.beam", "beam", "WINDOW_CONFORMANCE_BEAM_PYTHON")
