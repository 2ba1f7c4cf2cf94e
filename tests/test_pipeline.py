"""The one definition of CI (`conformance.pipeline`) and the engine manifests it reads (`conformance.manifest`):
tox.ini is generated from it, every step `./dev test` ran before still runs in its order, each engine's step
selects tests that exist, and a manifest that breaks its format is refused with one line naming the file."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.manifest import ManifestError, ci_engines, engines
from conformance.pipeline import ENGINE_SUITE, steps, tox_ini
from window_contract.registry import catalogue

ROOT = Path(__file__).resolve().parents[1]


def test_tox_ini_is_generated_from_the_pipeline():
    assert (ROOT / "tox.ini").read_text(encoding="utf-8") == tox_ini(), \
        "tox.ini is out of date: python -m conformance.pipeline tox > tox.ini"


#: The steps of `./dev test` when its steps were first made of the manifests, the engines' in their order.
ENGINE_STEPS = ("reference", "spark", "flink", "pyflink-python", "spark-streaming", "beam", "kafka-streams", "bytewax",
                "hazelcast-jet", "flink-sql", "flink-1.20", "quix-streams", "pathway")


def test_every_step_runs_in_its_order_lint_first_and_the_mutation_checks_last():
    """Every step `./dev test` ran before still runs, in its order; an engine added since has its step among the
    engines'."""
    names = [step.name for step in steps()]
    assert names[:2] == ["lint", "unit tests"]
    assert names[-4:] == ["census sample", "mutation check", "engine mutants", "machine mutation sample"]
    assert [name for name in names[2:-4] if name.removeprefix("suite ") in ENGINE_STEPS] == \
        [f"suite {name}" for name in ENGINE_STEPS]
    assert all(name.startswith("suite ") for name in names[2:-4])
    assert len({step.env for step in steps()}) == len(names)


def test_the_unit_tests_leave_out_exactly_what_the_engine_steps_run():
    [unit] = [step for step in steps() if step.name == "unit tests"]
    assert unit.commands[0][-2:] == ("-m", f"not {ENGINE_SUITE}")
    files = [e.ci.test for e in ci_engines() if e.ci.test]
    collected = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                                "-m", ENGINE_SUITE, *files], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert collected.returncode == 0, collected.stdout[-2000:]
    selected = {line.split("::", 1)[0] for line in collected.stdout.splitlines() if "::" in line}
    assert selected == set(files)


def test_the_census_sample_is_todays():
    [census] = [step for step in steps() if step.name == "census sample"]
    sampled = [(c[c.index("--impl") + 1], c[c.index("--cases") + 1], c[c.index("--seed") + 1]) for c in census.commands]
    assert sampled == [("pyflink-python", "1000", "7"), ("kafka-streams", "500", "7"), ("bytewax", "300", "7")]


def test_every_manifest_registers_an_implementation_whose_module_exists():
    registered = catalogue()
    assert set(registered) == set(engines()) and set(ENGINE_STEPS) < set(registered)
    for name, entry in registered.items():
        module = entry.factory.partition(":")[0]
        assert importlib.util.find_spec(module) is not None, (name, module)
        if engines()[name].module:
            assert importlib.util.find_spec(engines()[name].module) is not None, name


@pytest.mark.parametrize(("text", "message"), [
    ('factory = "a:b"\nrun = "venv"\n', "unknown key 'run'"),
    ('runs = "docker"\nfactory = "a:b"\n', "runs must be one of in-process, maven, venv, not 'docker'"),
    ('runs = "venv"\nvenv = "x"\n', "an engine that runs venv needs 'module' (a string)"),
    ('factory = "a:b"\n[ci]\nsuite = "properties"\ntest = "t.py"\n', "[ci] has suite = \"properties\" or a test"),
    ('factory = "a:b"\n[ci]\nbudget = 3\n', "unknown key 'budget'"),
])
def test_a_manifest_that_breaks_its_format_is_refused_naming_its_file(tmp_path, text, message):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "engine.toml").write_text(text)
    with pytest.raises(ManifestError, match=r"engine.toml: .*") as refused:
        engines(tmp_path)
    assert message in str(refused.value) and "\n" not in str(refused.value)
