"""The one definition of CI (`conformance.pipeline`) and the engine manifests it reads (`conformance.manifest`):
tox.ini is generated from it, every step `./dev test` ran before still runs in its order, each engine's step
selects tests that exist, and a manifest that breaks its format is refused with one line naming the file."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from conformance import pipeline
from conformance.manifest import ManifestError, ci_engines, engines
from conformance.pipeline import ENGINE_SUITE, Step, _groups, dev_test_command, engine_step, steps, tox_ini
from conformance.prefetch.recordings import drawing_features
from window_contract.registry import catalogue, load_implementation

ROOT = Path(__file__).resolve().parents[1]


def test_tox_ini_is_generated_from_the_pipeline():
    assert (ROOT / "tox.ini").read_text(encoding="utf-8") == tox_ini(), \
        "tox.ini is out of date: python -m conformance.pipeline tox > tox.ini"


#: The steps of `./dev test` when its steps were first made of the manifests, the engines' in their order.
ENGINE_STEPS = ("reference", "spark", "flink", "pyflink-python", "spark-streaming", "beam", "kafka-streams", "bytewax",
                "hazelcast-jet", "flink-sql", "flink-1.20", "quix-streams", "pathway")


def test_every_step_runs_in_its_order_lint_first_and_the_mutation_checks_last():
    """Every step `./dev test` ran before still runs: the engines' in their order among the steps of their kind (the
    suites that draw, then those of one core), the engine mutants and the census sample first among those of one core;
    an engine added since has its step among the engines'."""
    ordered = steps()
    names = [step.name for step in ordered]
    assert names[:2] == ["lint", "unit tests"]
    assert names[-2:] == ["mutation check", "machine mutation sample"]
    engine_steps = [name for name in names[2:-2] if name not in ("engine mutants", "census sample")]
    for beside in (False, True):
        kind = {step.name for step in ordered if step.beside == beside}
        assert [name for name in engine_steps if name.removeprefix("suite ") in ENGINE_STEPS and name in kind] == \
            [f"suite {name}" for name in ENGINE_STEPS if f"suite {name}" in kind]
    assert {f"suite {name}" for name in ENGINE_STEPS} <= set(engine_steps)
    assert all(name.startswith("suite ") for name in engine_steps)
    assert names.index("engine mutants") + 1 == names.index("census sample") == \
        next(i for i, step in enumerate(ordered) if step.beside) + 1
    assert len({step.env for step in ordered}) == len(names)


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
    assert sampled == [("flink-sql-legacy", "150", "7"), ("pyflink-python", "1000", "7"), ("kafka-streams", "500", "7"),
                       ("bytewax", "300", "7"), ("flink-sql", "150", "7")]


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


def test_the_steps_of_one_core_run_beside_each_other():
    """The engine mutants and the census sample (one process each), the engines' steps that run their test file
    (each holds one conversation with its engine at a time) and a suite that replays the reference's drawing (in one
    process), then the mutation checks: they run two at a time, in one group."""
    beside = [step.name for step in steps() if step.beside]
    one_core = [e for e in ci_engines() if e.ci.test or engine_step(e).drawing == "replays"]
    assert beside == ["engine mutants", "census sample", *(f"suite {e.name}" for e in one_core),
                      "mutation check", "machine mutation sample"]
    assert "suite spark" in beside
    assert len(beside) >= 12
    assert beside in [[step.name for step in group] for group in _groups(steps())]


def _python_step(name: str, code: str, beside: bool = True) -> Step:
    return Step(name, name, name, (("python", "-c", code),), beside=beside)


def test_steps_beside_each_other_run_at_once_and_a_failure_stops_those_not_started(tmp_path, monkeypatch, capfd):
    """Two steps beside each other wait for each other (they deadlock unless they run at once); when one fails, the
    other ends and shows its output, and no later step starts; the run exits with the failure's status."""
    def meets(mine: str, other: str, then: str) -> str:
        """Python that leaves its pid in `mine`, waits for `other`'s, and runs `then`."""
        return (f"import os, pathlib, time; d = pathlib.Path({str(tmp_path)!r})\n"
                f"(d / {mine!r}).write_text(str(os.getpid()))\n"
                f"for _ in range(600):\n    if (d / {other!r}).exists(): break\n    time.sleep(0.05)\n"
                f"else: raise SystemExit('never ran beside its neighbour')\n{then}")

    # `left` ends once `right` has failed and been reaped: the step after them would otherwise start in its place
    left_ends = ("while pathlib.Path('/proc', (d / 'right').read_text()).exists(): time.sleep(0.05)\n"
                 "print('left ran')")
    monkeypatch.setattr(pipeline, "steps", lambda: [
        _python_step("first", "print('first ran')", beside=False),
        _python_step("left", meets("left", "right", left_ends)),
        _python_step("right", meets("right", "left", "print('right failed'); raise SystemExit(3)")),
        _python_step("after", f"open({str(tmp_path / 'after')!r}, 'w')"),
        _python_step("last", f"open({str(tmp_path / 'last')!r}, 'w')", beside=False),
    ])
    assert pipeline.run([]) == 3
    out, err = capfd.readouterr()
    assert ("first ran" in out, "left ran" in out, "right failed" in out) == (True, True, True)
    assert "step left: " in err and "step right failed (exit status 3)" in err
    assert not (tmp_path / "after").exists() and not (tmp_path / "last").exists()


def test_the_steps_write_pythons_bytecode_caches_whatever_the_environment_says(tmp_path, monkeypatch):
    """A machine whose environment tells Python not to write bytecode (those here do) would have every pytest process
    of the run compile and rewrite its modules again: the steps run without `PYTHONDONTWRITEBYTECODE`."""
    monkeypatch.setenv(pipeline.NO_BYTECODE, "1")
    seen = tmp_path / "seen"
    monkeypatch.setattr(pipeline, "steps", lambda: [
        _python_step("writes", f"import sys; open({str(seen)!r}, 'w').write(str(sys.dont_write_bytecode))")])
    assert pipeline.run([]) == 0
    assert seen.read_text() == "False"


def test_under_dev_test_the_suites_share_their_drawing_and_a_suite_that_replays_all_of_it_runs_in_one_process():
    """The reference's step draws each test and writes its recording; a later suite of the reference's features finds
    every one and draws none, in one process (one fetch of every test's cases); a suite of other features draws its
    own; the machine mutation sample records the cases the suite sends the reference on the reference's drawing, and
    the mutation check's mutants replay it. tox's steps, which have no folder to share, draw their own."""
    sharing = [step for step in steps() if step.drawing]
    mutation = {"machine mutation sample", "mutation check"}
    suites = [step for step in sharing if step.name not in mutation]
    assert sorted(step.name for step in suites) == sorted(f"suite {e.name}" for e in ci_engines() if e.ci.suite)
    names = [step.name for step in steps()]  # a step that replays comes after the reference's, which draws
    assert all(names.index(step.name) > names.index("suite reference") for step in sharing if step.drawing == "replays")
    assert {step.name for step in sharing if step not in suites} == mutation
    for replaying in (step for step in sharing if step not in suites):
        [command] = replaying.commands
        assert replaying.drawing == "replays"
        assert dev_test_command(replaying, command, "/tmp/r") == (*command, "--window-recordings", "/tmp/r")
    reference = drawing_features(load_implementation("reference").features)
    for step in suites:
        name = step.name.removeprefix("suite ")
        replays = name != "reference" and drawing_features(load_implementation(name).features) == reference
        [command] = step.commands
        ran = dev_test_command(step, command, "/tmp/r")
        assert ran[-2:] == ("--window-recordings", "/tmp/r")
        assert ran[ran.index("-n") + 1] == ("0" if replays else "2") and command[command.index("-n") + 1] == "2"
        assert step.drawing == ("replays" if replays else "draws")
    # Spark declares every window feature of the reference's (not Flink SQL's joins): its suite replays the
    # reference's drawing of the window tests.
    assert "suite spark" in [step.name for step in suites if step.drawing == "replays"]
    assert "--window-recordings" not in tox_ini()


def test_the_unit_tests_that_may_start_a_jvm_of_a_kind_run_on_one_worker_and_the_others_a_module_at_a_time(tmp_path):
    """`tests/conftest.py`'s scheduler: with `--dist loadgroup`, every test whose id says `spark` runs on one worker,
    every one that says `flink` on one worker, and the others on one worker a module."""
    conftest = (ROOT / "tests" / "conftest.py").read_text(encoding="utf-8")
    (tmp_path / "conftest.py").write_text(conftest, encoding="utf-8")
    ran = ("import os, pathlib, time\nimport pytest\n\n"
           "def ran(name):\n"
           "    time.sleep(0.05)\n"
           "    with open(pathlib.Path(__file__).parent / 'workers.txt', 'a') as out:\n"
           "        out.write(f\"{name} {os.environ['PYTEST_XDIST_WORKER']}\\n\")\n\n")
    modules = {"kinds": [f"test_{kind}_{i}" for kind in ("spark", "flink", "plain") for i in range(4)],
               **{f"plain{m}": [f"test_plain{m}_{i}" for i in range(4)] for m in range(3)}}
    for module, names in modules.items():
        (tmp_path / f"test_{module}.py").write_text(
            ran + "".join(f"def {name}():\n    ran('{name}')\n\n" for name in names)
            + ("@pytest.mark.parametrize('impl', ['spark-live'])\ndef test_x(impl):\n    ran('test_x[spark-live]')\n"
               if module == "kinds" else ""), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-q", "-p",
                           "no:cacheprovider", str(tmp_path)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    worker = dict(line.split() for line in (tmp_path / "workers.txt").read_text(encoding="utf-8").splitlines())
    assert sorted(worker) == sorted([*(name for names in modules.values() for name in names), "test_x[spark-live]"])
    for kind in ("spark", "flink", *(f"plain{m}_" for m in range(3)), "plain_"):
        assert len({w for name, w in worker.items() if kind in name}) == 1, (kind, worker)
    assert len(set(worker.values())) == 2, worker
