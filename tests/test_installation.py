"""The suite installed into another project, as an engine author uses it: the wheel holds nothing generated and
carries the committed cases; a fresh virtual environment with the wheel (and its dependencies from PyPI) runs the
suite from the project's own pytest against a plug-in of the project's folder, writes the report and the
counterexamples, and replays one; another, with the wheel alone, replays the committed cases against the reference
and finds a correct plug-in of the project's folder conforming; the installed command finds plug-ins in the
current folder; a project's own package named like one of the suite's is refused with a message naming it.

Every command of an installation runs without `PYTHONPATH` (`OUTSIDE`): a checkout on it would stand in for the
installed packages."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from test_counterexample_property import README_PLUGIN

from conformance.installation import OWN_PACKAGES

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
#: What the distribution is built from: its configuration, its packages and the committed files it carries.
SOURCES = ("pyproject.toml", "setup.py", "README.md", *OWN_PACKAGES, "cases", "corpus", "docs/schemas")
#: The environment of a command of an installation: nothing of the checkout on the path.
OUTSIDE = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
#: What a checkout holds once the suite, Maven and Python have run in it.
GENERATED = ("reports/out/index.html", "reports/out/counterexamples/x--y.json", "engines/jvm/protocol/target/x.json",
             "reports/__pycache__/words.cpython-311.json")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from a checkout where the suite, Maven and Python have left their outputs."""
    checkout = tmp_path_factory.mktemp("checkout")
    tracked = subprocess.run(["git", "ls-files", "-z", *SOURCES], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.split("\0")
    for name in filter(None, tracked):
        (checkout / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, checkout / name)
    for name in GENERATED:
        (checkout / name).parent.mkdir(parents=True, exist_ok=True)
        (checkout / name).write_text("{}", encoding="utf-8")
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(checkout)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    [built] = out.glob("*.whl")
    return built


def test_the_wheel_holds_no_generated_file(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert "conformance/properties/test_firings.py" in names and "reports/report.css" in names
    assert not [n for n in names if "reports/out/" in n or "/target/" in n or "__pycache__" in n], names


def test_the_wheel_carries_the_committed_files_as_they_are_in_the_repository(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    committed = subprocess.run(["git", "ls-files", "-z", "cases", "corpus", "docs/schemas"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.split("\0")
    assert len(committed) > 200 and "cases/engines/beam/divergences.toml" in committed
    assert {f"conformance/data/{name}" for name in filter(None, committed)} <= names
    # and what the Java engines are built from: Maven's projects and Flink 1.20's shim
    assert {"engines/jvm/pom.xml", "flink_impl/flink-1.20/pom.xml", "conformance/mutation/equivalent.toml",
            "flink_impl/shims/flink-1.20/windowconformance/OutputShim.java"} <= names


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """A fresh virtual environment with the wheel and its dependencies: another project's."""
    folder = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, timeout=300)
    done = subprocess.run([str(folder / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)],
                          capture_output=True, text=True, timeout=900, env=OUTSIDE)
    assert done.returncode == 0, done.stderr
    return folder / "bin"


def project(tmp_path: Path) -> Path:
    """A project with the README's plug-in, its own tests and a pytest configuration that collects only those."""
    (tmp_path / "my_windows.py").write_text(README_PLUGIN, encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\ntestpaths = tests\npython_files = check_*.py\n", encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "check_mine.py").write_text("def test_mine():\n    assert False\n", encoding="utf-8")
    return tmp_path


def test_another_project_runs_the_suite_from_its_own_pytest_and_replays_what_it_saved(venv, tmp_path):
    folder = project(tmp_path)
    done = subprocess.run([str(venv / "pytest"), "--window-impl", "my_windows:MyWindows", "--window-out", "out",
                           "-k", "timers_fire or generated_watermark_follows", "-n", "2", "--hypothesis-profile", "ci",
                           "-p", "no:cacheprovider"], cwd=folder, capture_output=True, text=True, timeout=900,
                          env=OUTSIDE)
    assert done.returncode == 1, done.stdout + done.stderr  # the property the plug-in breaks, not the project's test
    assert "1 failed, 1 skipped" in done.stdout and "check_mine" not in done.stdout
    report = json.loads((folder / "out" / "report.json").read_text(encoding="utf-8"))
    outcomes = {p["property"]: p["outcome"] for p in report["implementations"][0]["properties"]}
    assert outcomes == {"timers_fire_in_timestamp_order": "failed",
                        "generated_watermark_follows_its_generators_formula": "not_applicable"}
    saved = "out/counterexamples/my-windows--timers_fire_in_timestamp_order.json"
    assert f"minimal case: {saved}" in done.stdout
    replayed = subprocess.run([str(venv / "window-conformance"), "replay", saved, "--impl", "my_windows:MyWindows",
                               "--check"], cwd=folder, capture_output=True, text=True, timeout=300, env=OUTSIDE)
    assert replayed.returncode == 1 and "timers_fire_in_timestamp_order: the timers fired" in replayed.stdout


def test_a_projects_own_package_named_like_one_of_the_suites_is_refused(venv, tmp_path):
    folder = project(tmp_path)
    (folder / "strategies").mkdir()
    (folder / "strategies" / "__init__.py").write_text("", encoding="utf-8")
    command = subprocess.run([str(venv / "window-conformance"), "replay", "my_windows.py"], cwd=folder,
                             capture_output=True, text=True, timeout=300, env=OUTSIDE)
    assert command.returncode == 2
    assert f"the module 'strategies' at {folder / 'strategies'} hides window-conformance's own" in command.stderr
    suite = subprocess.run([str(venv / "pytest"), "--window-impl", "my_windows:MyWindows", "-p", "no:cacheprovider"],
                           cwd=folder, capture_output=True, text=True, timeout=300, env=OUTSIDE)
    assert suite.returncode == 4 and "hides window-conformance's own package 'strategies'" in suite.stderr


def test_the_installed_command_finds_a_plugin_in_the_current_folder(tmp_path):
    folder = project(tmp_path)
    case = ROOT / "cases" / "tumbling"
    done = subprocess.run([str(BIN / "window-conformance"), "replay", str(case), "--impl", "my_windows:MyWindows",
                           "--check"], cwd=folder, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "my-windows: " in done.stdout


def test_the_packages_the_clash_check_knows_are_those_the_distribution_installs(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert {name.split("/")[0] for name in names if ".dist-info/" not in name} == set(OWN_PACKAGES)


def test_window_out_never_writes_over_a_users_files(tmp_path):
    folder = project(tmp_path)
    (folder / "out").mkdir()
    (folder / "out" / "notes.txt").write_text("mine", encoding="utf-8")
    done = subprocess.run([str(BIN / "pytest"), "--window-impl", "my_windows:MyWindows", "--window-out", "out",
                           "-p", "no:cacheprovider"], cwd=folder, capture_output=True, text=True, timeout=300)
    assert done.returncode == 4, done.stdout + done.stderr
    assert ("--window-out out: a report replaces only the files an earlier run listed in its .conformance-run.json, "
            "and the folder has none: choose another folder") in done.stderr
    assert (folder / "out" / "notes.txt").read_text(encoding="utf-8") == "mine"


#: A correct plug-in of tumbling event-time windows, written from Flink's documentation and nothing of the suite's.
TUMBLING = """
from window_contract.case import Record, Watermark
from window_contract.observation import Firing, LateRecord, Observation, TimeWindow


class MyWindows:
    name = "my-windows"
    features = frozenset({"assigner.tumbling"})

    def run(self, cases):
        return [self.run_case(case) for case in cases]

    def run_case(self, case):
        size = case.window.size
        if size <= 0:
            return Observation.invalid_spec("TumblingEventTimeWindows parameters must satisfy abs(offset) < size")
        panes, firings, dropped, watermark = {}, [], [], -2**63

        def fire(at):
            for start, key in sorted(w for w in panes if w[0] + size - 1 <= watermark):
                values = tuple(sorted(panes.pop((start, key))))
                firings.append(Firing(at, key, TimeWindow(start, start + size), start + size - 1, values, watermark))

        for at, event in enumerate(case.events):
            if isinstance(event, Record):
                start = event.ts - event.ts % size
                if start + size - 1 <= watermark:  # past the window's cleanup time: dropped
                    dropped.append(LateRecord(at, event.key, event.value, event.ts))
                else:
                    panes.setdefault((start, event.key), []).append(event.value)
            elif isinstance(event, Watermark) and event.timestamp > watermark:
                watermark = event.timestamp
                fire(at)
        if case.end_of_input:
            watermark = 2**63 - 1
            fire(len(case.events))
        return Observation(tuple(firings), dropped=tuple(dropped))
"""


def site_packages(python: Path) -> Path:
    return Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True, env=OUTSIDE).stdout.strip())


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """A fresh virtual environment outside the repository with the wheel alone (`--no-deps`, offline). The
    suite's dependencies come from this interpreter's site-packages through a `.pth` line, which puts that folder on
    the path without running its own `.pth` files (the checkout's editable installation among them)."""
    folder = tmp_path_factory.mktemp("installed")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=300)
    python = folder / "bin" / "python"
    (site_packages(python) / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
                           "-q", str(wheel)], capture_output=True, text=True, timeout=300, env=OUTSIDE)
    assert done.returncode == 0, done.stderr
    return folder / "bin"


def test_an_installed_suite_replays_its_committed_cases_and_a_correct_plugin_conforms(installed, tmp_path):
    where = subprocess.run([str(installed / "python"), "-c", "import conformance.committed as c; print(c.root())"],
                           cwd=tmp_path, capture_output=True, text=True, env=OUTSIDE)
    assert where.stdout.strip() == str(site_packages(installed / "python") / "conformance" / "data"), where.stderr
    # plain pytest collects the installed suite: the committed cases hold against the reference
    suite = subprocess.run([str(installed / "python"), "-m", "pytest", "--window-impl", "reference", "-k",
                            "committed_cases", "-p", "no:cacheprovider"], cwd=tmp_path, capture_output=True,
                           text=True, timeout=300, env=OUTSIDE)
    assert suite.returncode == 0, suite.stdout + suite.stderr
    assert re.search(r"= 1 passed, \d+ deselected in ", suite.stdout), suite.stdout
    # a plug-in of the project's folder conforms, the committed cases of its one feature among what it passes
    (tmp_path / "my_windows.py").write_text(TUMBLING, encoding="utf-8")
    run = subprocess.run([str(installed / "window-conformance"), "run", "--impl", "my_windows:MyWindows", "--profile",
                          "ci-slow", "--property", "committed_cases", "--property", "matches_reference",
                          "--property", "every_record", "--property", "generated_watermark", "--out", "out"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300, env=OUTSIDE)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "my-windows: conforms (3 properties (3 more not applicable)" in run.stdout  # SQL joins among them
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    outcomes = {p["property"]: p for p in report["implementations"][0]["properties"]}
    committed = outcomes["committed_cases_give_their_expected_observations"]
    assert committed["outcome"] == "passed" and committed["features"]["cases"] > 20
    [tumbling] = [row for row in report["matrix"] if row["feature"] == "assigner.tumbling"]
    assert tumbling["cells"]["my-windows"]["status"] == "pass"
