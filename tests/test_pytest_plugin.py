"""`pytest --window-impl NAME` in another project, as pytest's conventions have it: a NAME that names no
implementation is a usage error before any test, in one line (exit 4); a property that sent the implementation no
case ends as skipped (`s`) with the reason, never as passed; the terminal summary ends with the outcome, the
properties that do not apply, each counterexample and its file, and the verdict, with or without `--window-out`
(the report then goes to pytest's cache, or nowhere when the cache is off)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.evidence import NO_CASE_SENT
from conformance.runner.command import NOT_SAVED

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
#: A plug-in with a bug the committed cases show at once (no shrinking): a firing stamped with its window's end.
ONE_LATE = '''
import dataclasses

from reference.implementation import ReferenceImplementation


class OneLate(ReferenceImplementation):
    def __init__(self):
        super().__init__(name="one-late")
        self.features = frozenset({"assigner.tumbling"})

    def run(self, cases):
        return [dataclasses.replace(o, firings=tuple(dataclasses.replace(f, timestamp=f.timestamp + 1)
                                                     for f in o.firings)) for o in super().run(cases)]


def failing_factory():
    raise ValueError("no engine configured")
'''
#: The rules the tests below run: one every tumbling implementation is held to, and one about watermark generators,
#: of which such an implementation declares none.
RULES = ("-k", "committed_cases or generated_watermark_follows")
SKIPPED = f"test_watermarks.py:76: {NO_CASE_SENT}"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "one_late.py").write_text(ONE_LATE, encoding="utf-8")
    (tmp_path / "broken.py").write_text("def run(:\n", encoding="utf-8")
    return tmp_path


def pytest_in(folder: Path, *args: str, pythonpath: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """The project's own pytest, with this checkout's suite."""
    env = os.environ | {"PYTHONPATH": os.pathsep.join([*pythonpath, str(ROOT)])}
    return subprocess.run([sys.executable, "-m", "pytest", *args], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=600)


@pytest.mark.parametrize("spec, message", [
    ("my_windws:MyWindows", "'my_windws:MyWindows': cannot import 'my_windws': No module named 'my_windws'"),
    ("broken:Windows", "'broken:Windows': importing 'broken' failed: SyntaxError: invalid syntax (broken.py, line 1)"),
    ("one_late:Nope", "'one_late:Nope': module 'one_late' has no 'Nope'"),
    ("one_late:failing_factory",
     "'one_late:failing_factory': creating the implementation failed: ValueError: no engine configured"),
    ("one_late:dataclasses", "'one_late:dataclasses' is neither an implementation nor a factory of one"),
    ("referenc", "no implementation 'referenc' (did you mean 'reference'?)"),
])
def test_a_name_that_names_no_implementation_is_a_usage_error_in_one_line(project, spec, message):
    done = pytest_in(project, "--window-impl", spec, "-n", "2", "-p", "no:cacheprovider")
    assert done.returncode == 4, done.stdout + done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"ERROR: {message}")
    assert done.stdout == ""


def test_the_summary_without_window_out_names_the_verdict_what_does_not_apply_and_the_saved_case(project):
    done = pytest_in(project, "--window-impl", "one_late:OneLate", *RULES, "-rs")
    assert done.returncode == 1, done.stdout + done.stderr
    # the rule that sent no case is no pass
    assert re.search(r"= 1 failed, 1 skipped, \d+ deselected in ", done.stdout), done.stdout
    assert "SKIPPED [1] " in done.stdout and SKIPPED in done.stdout
    summary = done.stdout.split(" window-conformance ")[1]
    saved = project / ".pytest_cache/d/window-conformance/counterexamples"
    case = saved / "one-late--committed_cases_give_their_expected_observations.json"
    for line in ("one-late: DOES NOT CONFORM (1 property (1 more not applicable), ",
                 "  not applicable (no example had a case within the implementation's features): "
                 "generated_watermark_follows_its_generators_formula",
                 "    committed_cases_give_their_expected_observations: a committed case gives the observation its "
                 "file expects (Flink's)",
                 f"      minimal case: {case}",
                 "Does not conform: one-late (committed_cases_give_their_expected_observations fails).",
                 f"Report: {saved.parent / 'index.html'} (and report.md, report.json, junit.xml)"):
        assert any(shown.startswith(line) for shown in summary.splitlines()), (line, summary)
    assert case.is_file()
    replayed = subprocess.run([sys.executable, "-m", "conformance", "replay", str(case), "--impl", "one_late:OneLate",
                               "--check"], cwd=project, capture_output=True, text=True, timeout=300,
                              env=os.environ | {"PYTHONPATH": str(ROOT)})
    assert replayed.returncode == 1, replayed.stdout + replayed.stderr


def test_without_the_cache_the_summary_says_where_a_case_would_be_saved(project):
    done = pytest_in(project, "--window-impl", "one_late:OneLate", *RULES, "-p", "no:cacheprovider")
    assert done.returncode == 1, done.stdout + done.stderr
    summary = done.stdout.split(" window-conformance ")[1]
    assert f"      minimal case: {NOT_SAVED}" in summary.splitlines()
    assert "Does not conform: one-late" in summary and "Report:" not in summary
    assert not (project / ".pytest_cache").exists()


def test_under_xdist_each_tests_outcome_is_its_own(project):
    # the rule that does not apply ends in one worker while the other's test goes on: the passing one stays passed
    done = pytest_in(project, "--window-impl", "fixture_impls:TumblingOnly", "-k",
                     "firing_timestamp or generated_watermark_follows", "--hypothesis-profile", "ci-slow", "-n", "2",
                     "-p", "no:cacheprovider", pythonpath=(str(HERE / "report_fixture_suite"),))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 1 skipped" in done.stdout
    assert "tumbling-only: conforms (1 property (1 more not applicable), " in done.stdout
