"""The README's plug-in section, walked exactly as written: `my_windows.py` from its text, in a scratch
folder, the command it gives, run from there as a user runs it; the report files exist where the
README says, and name the bugs the README says the example has, with their minimal cases.

The command runs the whole suite with its default profile (about 3 minutes on 2 cores): what the README
promises is what a user gets from that command, not from a shorter one.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SECTION = README.split("## Testing your own implementation (plug-ins)", 1)[1].split("\n## ", 1)[0]


@dataclass(frozen=True)
class Walkthrough:
    """What the README's plug-in section says, read from its text."""

    module: str  # my_windows.py
    command: list[str]  # python -m conformance run ...
    report: str  # the report's folder, relative to where the command runs
    bugs: frozenset[str]  # the properties the README says the example breaks


def walkthrough() -> Walkthrough:
    [module] = re.findall(r"```python\n(# my_windows\.py\n.*?)```", SECTION, re.S)
    command = next(line.strip() for line in SECTION.splitlines()
                   if line.strip().startswith("python -m conformance run"))
    [report] = re.findall(r"report \(`([\w./-]+)/index\.html`", SECTION)
    [finds] = [paragraph for paragraph in SECTION.split("\n\n") if paragraph.startswith("What the run finds")]
    bugs = frozenset(name for name in re.findall(r"`(\w+)`", finds) if "_" in name)
    return Walkthrough(module, shlex.split(command), report, bugs)


@dataclass(frozen=True)
class Walked:
    status: int
    stdout: str
    stderr: str
    report: Path


@functools.cache
def walk() -> Walked:
    """The README's steps in a fresh folder, with the project installed but not on `PYTHONPATH`."""
    steps = walkthrough()
    folder = Path(tempfile.mkdtemp(prefix="readme-walkthrough-"))
    (folder / "my_windows.py").write_text(steps.module, encoding="utf-8")
    assert steps.command[:3] == ["python", "-m", "conformance"], steps.command
    env = {name: value for name, value in os.environ.items() if name not in ("PYTHONPATH", "HYPOTHESIS_PROFILE")}
    done = subprocess.run([sys.executable, *steps.command[1:]], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=1800)
    return Walked(done.returncode, done.stdout, done.stderr, folder / steps.report)


def test_the_readme_states_the_walkthrough():
    steps = walkthrough()
    assert "class MyWindows" in steps.module and "Observation.invalid_spec(" in steps.module
    assert steps.command == ["python", "-m", "conformance", "run", "--impl", "my_windows:MyWindows"]
    assert len(steps.bugs) >= 2, steps.bugs


def test_the_walkthrough_writes_every_report_file():
    walked = walk()
    assert walked.status == 1, f"exit {walked.status}\n{walked.stdout[-3000:]}\n{walked.stderr[-3000:]}"
    for name in ("index.html", "report.md", "report.json", "junit.xml"):
        assert (walked.report / name).is_file(), f"{name} missing in {walked.report}: {walked.stderr[-3000:]}"
    assert "Traceback" not in walked.stderr, walked.stderr[-3000:]


def test_the_report_names_the_bugs_the_readme_says_the_example_has():
    walked = walk()
    [impl] = json.loads((walked.report / "report.json").read_text(encoding="utf-8"))["implementations"]
    assert impl["name"] == "my-windows" and impl["outcome"] == "differs"
    failing = {p["property"] for p in impl["properties"] if p["outcome"] == "failed"}
    # the rest held, or do not apply (the example declares no watermark generator, idleness or channels)
    assert {p["outcome"] for p in impl["properties"]} - {"failed"} <= {"passed", "not_applicable"}
    assert failing == walkthrough().bugs, "the README's 'What the run finds' is not what the run finds"
    for prop in impl["properties"]:
        for failure in prop["failures"]:
            assert (walked.report / failure["case_file"]).is_file()
            assert failure["actual"]["error"] is None  # a real bug, not a crash on a rejected specification
    md = (walked.report / "report.md").read_text(encoding="utf-8")
    for name in walkthrough().bugs:
        assert f"### my-windows fails {name}" in md
    # The example's lateness bug, in the report's own words.
    assert re.search(r"dropped record a=\d+ @ -?\d+ at position \d+ is missing", md), md[:3000]
