"""The suite installed into another project, as an engine author uses it: the wheel holds nothing generated, a
fresh virtual environment with the wheel (and its dependencies from PyPI) runs the suite from the project's own
pytest against a plug-in of the project's folder, writes the report and the counterexamples, and replays one;
the installed command finds plug-ins in the current folder; a project's own package named like one of the
suite's is refused with a message naming it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_counterexample_property import README_PLUGIN

from conformance.installation import OWN_PACKAGES

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
#: What a checkout holds once the suite, Maven and Python have run in it.
GENERATED = ("reports/out/index.html", "reports/out/counterexamples/x--y.json", "engines/jvm/protocol/target/x.json",
             "reports/__pycache__/words.cpython-311.json")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from a checkout where the suite, Maven and Python have left their outputs."""
    checkout = tmp_path_factory.mktemp("checkout")
    tracked = subprocess.run(["git", "ls-files", "-z", "pyproject.toml", "README.md", *OWN_PACKAGES], cwd=ROOT,
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
    import zipfile

    names = zipfile.ZipFile(wheel).namelist()
    assert "conformance/properties/test_firings.py" in names and "reports/report.css" in names
    assert not [n for n in names if "reports/out/" in n or "/target/" in n or "__pycache__" in n], names


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """A fresh virtual environment with the wheel and its dependencies: another project's."""
    folder = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, timeout=300)
    done = subprocess.run([str(folder / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)],
                          capture_output=True, text=True, timeout=900)
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
                           "-p", "no:cacheprovider"], cwd=folder, capture_output=True, text=True, timeout=900)
    assert done.returncode == 1, done.stdout + done.stderr  # the property the plug-in breaks, not the project's test
    assert "1 failed, 1 passed" in done.stdout and "check_mine" not in done.stdout
    report = json.loads((folder / "out" / "report.json").read_text(encoding="utf-8"))
    outcomes = {p["property"]: p["outcome"] for p in report["implementations"][0]["properties"]}
    assert outcomes == {"timers_fire_in_timestamp_order": "failed",
                        "generated_watermark_follows_its_generators_formula": "not_applicable"}
    saved = "out/counterexamples/my-windows--timers_fire_in_timestamp_order.json"
    assert f"minimal case: {saved}" in done.stdout
    replayed = subprocess.run([str(venv / "window-conformance"), "replay", saved, "--impl", "my_windows:MyWindows",
                               "--check"], cwd=folder, capture_output=True, text=True, timeout=300)
    assert replayed.returncode == 1 and "timers_fire_in_timestamp_order: the timers fired" in replayed.stdout


def test_a_projects_own_package_named_like_one_of_the_suites_is_refused(venv, tmp_path):
    folder = project(tmp_path)
    (folder / "strategies").mkdir()
    (folder / "strategies" / "__init__.py").write_text("", encoding="utf-8")
    command = subprocess.run([str(venv / "window-conformance"), "replay", "my_windows.py"], cwd=folder,
                             capture_output=True, text=True, timeout=300)
    assert command.returncode == 2
    assert f"the module 'strategies' at {folder / 'strategies'} hides window-conformance's own" in command.stderr
    suite = subprocess.run([str(venv / "pytest"), "--window-impl", "my_windows:MyWindows", "-p", "no:cacheprovider"],
                           cwd=folder, capture_output=True, text=True, timeout=300)
    assert suite.returncode == 4 and "hides window-conformance's own package 'strategies'" in suite.stderr


def test_the_installed_command_finds_a_plugin_in_the_current_folder(tmp_path):
    folder = project(tmp_path)
    case = ROOT / "cases" / "tumbling"
    done = subprocess.run([str(BIN / "window-conformance"), "replay", str(case), "--impl", "my_windows:MyWindows",
                           "--check"], cwd=folder, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "my-windows: " in done.stdout


def test_the_packages_the_clash_check_knows_are_those_the_distribution_installs():
    import tomllib

    found = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"]
    assert {name.rstrip("*") for name in found["find"]["include"]} == set(OWN_PACKAGES)


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
