"""`./dev`: what `./dev conformance --impl NAME` sets up for each registered implementation before it runs, and a
part it does not know."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from window_contract.registry import BUILTIN

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = (ROOT / "dev").read_text(encoding="utf-8")
#: What `.venv` alone runs: the suite and PySpark.
IN_VENV = {"reference", "reference-flink-1.12", "spark", "spark-streaming"}


def parts_for(name: str) -> list[str]:
    """The script's own `parts_for NAME`, run alone."""
    start = SCRIPT.index("parts_for() {")
    function = SCRIPT[start:SCRIPT.index("\n}\n", start) + 3]
    done = subprocess.run(["bash", "-c", f'{function}\nparts_for "$1"', "parts_for", name],
                          capture_output=True, text=True, check=True)
    return done.stdout.split()


def test_every_registered_implementation_beyond_the_venv_has_its_parts_set_up_when_asked_for():
    parts = re.search(r'^PARTS="([^"]*)"', SCRIPT, re.MULTILINE).group(1).split()
    for name in BUILTIN:
        needed = parts_for(name)
        assert (needed == []) == (name in IN_VENV), (name, needed)
        assert set(needed) <= set(parts), (name, needed)


def test_an_unknown_part_is_refused_with_the_list_of_parts():
    done = subprocess.run([str(ROOT / "dev"), "setup", "no-such-part"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1].startswith("error: no part 'no-such-part' to set up (parts: flink tools jvm")
