"""The Hypothesis profiles: a derandomized test draws the same examples whatever was imported before it."""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.profiles import register_profiles

ROOT = Path(__file__).resolve().parents[1]


def examples_drawn() -> list[int]:
    """What a derandomized test of integers draws in 300 examples."""
    seen: list[int] = []

    @settings(derandomize=True, max_examples=300, database=None)
    @given(st.integers())
    def collect(n: int) -> None:
        seen.append(n)

    collect()
    return seen


def test_a_module_imported_between_two_runs_does_not_change_what_a_test_draws(tmp_path, monkeypatch):
    """Hypothesis harvests constants from the local modules loaded: after `register_profiles` (which every
    conftest of the project calls) they are not drawn, so a module loaded between two runs of a test (in
    CI, another test's or an implementation's) changes nothing."""
    register_profiles()
    before = examples_drawn()
    (tmp_path / "integers_galore.py").write_text(f"NUMBERS = [{', '.join(str(3**n + 7) for n in range(60))}]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("integers_galore")
    assert examples_drawn() == before


def test_under_ci_the_dev_and_thorough_profiles_are_still_random():
    """Under the CI environment variable Hypothesis loads its own derandomized `ci` profile, and a
    `settings` inherits the loaded profile: ours name Hypothesis's `default` as their parent, so `dev`
    and `thorough` draw new examples (and keep a database) on a CI machine as on a laptop."""
    script = ("from conformance.profiles import PROFILES\n"
              "print({n: (p.derandomize, p.database is None) for n, p in PROFILES.items()})")
    shown = subprocess.run([sys.executable, "-c", script], env={**os.environ, "CI": "true"},
                           capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert ast.literal_eval(shown) == {"dev": (False, False), "ci": (True, True), "ci-slow": (True, True),
                                       "thorough": (False, False)}



def test_a_profile_chosen_on_the_command_line_is_the_one_the_suite_runs_under_ci(tmp_path):
    """pytest loads `--hypothesis-profile` at configuration time, and the suite's modules call
    `register_profiles` as they are imported, some after it: the chosen profile stays (under CI it was replaced
    by `ci`, so the mutation check shrank every failure it found), and without a choice the environment's is
    loaded."""
    (tmp_path / "loaded_profile.py").write_text(
        "from hypothesis import settings\n\n"
        "def pytest_collection_finish(session):\n"
        "    print('loaded profile:', settings.get_current_profile_name())\n")

    def loaded(*arguments: str, **environment: str) -> str:
        env = {name: value for name, value in os.environ.items() if name not in ("CI", "HYPOTHESIS_PROFILE")}
        env.update(PYTHONPATH=os.pathsep.join((str(ROOT), str(tmp_path))), **environment)
        shown = subprocess.run([sys.executable, "-m", "pytest", "conformance/properties", "-k", "no_such_test", "-q",
                                "-s", "-p", "no:cacheprovider", "-p", "loaded_profile", *arguments],
                               env=env, capture_output=True, text=True, cwd=ROOT).stdout
        return shown.split("loaded profile: ")[1].split()[0]

    mutation = ("-p", "conformance.mutation.plugin", "--hypothesis-profile", "mutation-ci",
                "--window-impl", "conformance.mutation.implementations:window_late_strictly")
    assert loaded(*mutation, CI="true") == "mutation-ci"
    assert loaded("--hypothesis-profile", "thorough", HYPOTHESIS_PROFILE="ci") == "thorough"
    assert loaded(CI="true") == "ci"
    assert loaded(HYPOTHESIS_PROFILE="thorough") == "thorough"
    assert loaded(CI="true", HYPOTHESIS_PROFILE="dev") == "dev"  # Hypothesis loads its own `ci` under CI first
