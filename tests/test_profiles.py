"""The Hypothesis profiles: a derandomized test draws the same examples whatever was imported before it."""

from __future__ import annotations

import importlib

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.profiles import register_profiles


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
