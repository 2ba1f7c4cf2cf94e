"""The `beam` implementation as the suite loads it: `engines/beam.py` in Beam's own environment, as a process.

Apache Beam pins `pyarrow<26`, `protobuf` and `grpcio`, which the Spark environment has no reason to
follow, so `./dev setup` installs it into `.venv-beam` beside `.venv`, and the adapter runs there as a
process speaking `window-process/1` (docs/protocol.md), exactly as `--impl 'exec:COMMAND'` would run it.
`WINDOW_CONFORMANCE_BEAM_PYTHON` names another interpreter that has `apache-beam` and this project.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from window_contract.implementation import ImplementationFailure
from window_contract.process import ProcessImplementation

ROOT = Path(__file__).resolve().parent.parent

#: The interpreter of Beam's environment, as `./dev setup` makes it.
BEAM_PYTHON = ROOT / ".venv-beam" / "bin" / "python"


def beam_python() -> str:
    python = os.environ.get("WINDOW_CONFORMANCE_BEAM_PYTHON", str(BEAM_PYTHON))
    if not Path(python).is_file():
        raise ImplementationFailure(f"Beam's environment is missing ({python} does not exist): ./dev setup makes "
                                    f".venv-beam with apache-beam, or set WINDOW_CONFORMANCE_BEAM_PYTHON")
    return python


def beam() -> ProcessImplementation:
    """The `beam` engine: `python -m engines.beam` in Beam's environment, run from the project's root."""
    return ProcessImplementation(f"{shlex.quote(beam_python())} -m engines.beam")
