"""The one definition of the project's CI: the steps `./dev test` runs, in order, and the tox environments made of
them (`tox.ini` is generated from this module: `python -m conformance.pipeline tox > tox.ini`; a test fails when
it is out of date).

The steps: ruff (early: it takes seconds); the unit tests (every test but those marked `engine_suite`); a step an
engine whose manifest has one (`conformance.manifest`, `[ci]`), in its `order`: the property suite under the `ci`
profile for the implementations the suite is written against (reference, Spark, real Flink, which replay the
committed cases and the corpus they declare the features of), and for each engine under test its test file's
`engine_suite` tests (the suite against the engine with the budget of its manifest, held to its divergence list),
the steps of one core (a test file's, a suite that replays the reference's drawing) beside each other and the engine
mutants (bugs injected into each engine's dialect of the reference on a census sample: no list
may explain one on more than a tenth of the cases it changes, docs/mutation.md) and a census sample on the engines
whose manifests give one (cases drawn with another seed, each difference attributed to the listed divergences:
anything unexplained fails); then, beside the last of those, the mutation check (every mutant of the reference must
die with the ci profile, on the examples the reference's step drew) and a fixed sample of the machine's mutants of
reference/ (the whole run, which holds the 97% target, is tox's `mutation-machine`).

A command is an argument list whose `python` is the interpreter that runs the step (`./dev test`'s `.venv`, tox's
environment's), and whose `{out}` is a fresh folder of the step's own.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import IO

from conformance.manifest import CENSUS_SEED, REFERENCE, Engine, ci_engines, engines
from conformance.prefetch.recordings import drawing_features
from engines.venv_engines import python_variable
from window_contract.registry import load_implementation

#: The marker of the tests that are an engine's own step (pyproject.toml registers it).
ENGINE_SUITE = "engine_suite"
PYTEST = ("python", "-m", "pytest")
#: tox's environments beyond `./dev test`'s steps, and those of them that tox runs by default (the whole machine
#: mutation run, instead of `./dev test`'s sample of it).
TOX_DEFAULT = ("mutation-machine",)
TOX_ONLY = """\
[testenv:mutation-machine]
description = every mutant the standard operators make of reference/, on the suite's recorded ci corpus
extras = mutation
commands = python -m conformance.mutation.machine {posargs}

[testenv:conformance]
description = the main job: a conformance run with a report in reports/out/
commands = python -m conformance run {posargs:--impl reference --impl spark --force}
"""


@dataclass(frozen=True)
class Step:
    """One step: its `name` (printed with its time), its tox environment `env`, its `commands`, the setup `parts`
    it needs (`./dev setup`'s), whether tox's `{posargs}` go to its commands (`takes_arguments`; `./dev test`'s
    own arguments go to the unit tests' alone), and tox's `description`, `extras` (None: the environment's
    parts'), `skip_install` and `deps`, and whether tox runs it by default."""

    name: str
    env: str
    description: str
    commands: tuple[tuple[str, ...], ...]
    parts: tuple[str, ...] = ()
    extras: tuple[str, ...] | None = None
    takes_arguments: bool = False
    skip_install: bool = False
    deps: tuple[str, ...] = ()
    in_tox_env_list: bool = True
    #: A step that runs the property suite and shares the drawing of its tests (`docs/prefetch.md`): `draws` (each
    #: test it claims first, writing its recording) or `replays` (an implementation with the reference's features
    #: after the reference's step: every test's recording is there, so it draws none; a suite's step in one process
    #: that fetches every test's cases in a few calls). `./dev test` alone gives the steps their folder; tox's steps
    #: draw their own.
    drawing: str | None = None
    #: It keeps about one core busy (one process, or processes holding one conversation with an engine at a time, each
    #: side waiting on the other), or it comes last among such steps and fills the cores their ends leave: it runs
    #: beside the steps of this kind next to it, `BESIDE` at a time, its output shown whole when it ends.
    beside: bool = False


#: The variable that keeps Python from writing its bytecode caches, which `./dev test` takes out of its steps'
#: environment (the machines here set it): each pytest process would compile again every module it imports and rewrite
#: the asserts of every module of a pytest plug-in's distribution (Hypothesis's, this project's), 2.5 CPU-s a process
#: before its first test (a collection of the suite: 3.9 -> 1.4 CPU-s; `benchmarks/README.md`), and the run starts
#: hundreds (a mutant each, the unit tests' runs of the suite).
NO_BYTECODE = "PYTHONDONTWRITEBYTECODE"
#: The step `./dev test`'s arguments go to (pytest's, as `./dev test -k x`).
UNIT_TESTS = "unit tests"
#: How many `beside` steps run at a time: one a core of the CI machine.
BESIDE = 2


def _parts(chosen: list[Engine]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(part for e in chosen for part in e.setup))


def engine_step(engine: Engine) -> Step:
    """An engine's own step (its manifest's `[ci]`)."""
    drawing = None
    if engine.ci.suite is not None:
        command = (*PYTEST, "conformance/properties", "-p", "no:cacheprovider", "-q", "-n", "2",
                   "--window-impl", engine.name)
        description = f"the property suite against {engine.title}"
        drawing = "replays" if _replays_the_references_drawing(engine) else "draws"
    else:
        command = (*PYTEST, engine.ci.test, "-n", "0", "-m", ENGINE_SUITE)
        description = engine.ci.description or f"the property suite against {engine.title}, and its divergences"
    # A suite that replays every test runs in one process (`dev_test_command`): one core, as a test file's step.
    return Step(f"suite {engine.name}", "suite-" + engine.name.replace(".", "-"), description, (command,),
                _parts([engine]), takes_arguments=True, beside=engine.ci.suite is None or drawing == "replays",
                drawing=drawing)


def _replays_the_references_drawing(engine: Engine) -> bool:
    """Whether the engine's suite step finds every test drawn by the reference's (whose recordings are kept by the
    features their drawing depends on, `drawing_features`): it comes after it, and its implementation declares the
    reference's window features."""
    reference = engines()[REFERENCE]
    return ((engine.ci.order, engine.name) > (reference.ci.order, reference.name)
            and drawing_features(load_implementation(engine.name).features)
            == drawing_features(load_implementation(REFERENCE).features))


def dev_test_command(step: Step, command: tuple[str, ...], recordings: str) -> tuple[str, ...]:
    """A command of `step` as `./dev test` runs it: a property suite's step shares the drawing through the folder
    `recordings`, and one that replays every test does it in one process (`drawing`)."""
    if step.drawing is None:
        return command
    if step.drawing == "replays" and "-n" in command:
        workers = command.index("-n") + 1
        command = (*command[:workers], "0", *command[workers + 1:])
    return (*command, "--window-recordings", recordings)


def census_step() -> Step:
    sampled = sorted((e for e in engines().values() if e.ci.census), key=lambda e: (e.ci.order, e.name))
    return Step("census sample", "census-sample",
                "a census sample of the engines that answer fastest: every difference attributed to their lists",
                tuple(("python", "-m", "conformance", "census", "--impl", e.name, "--cases", str(e.ci.census),
                       "--seed", str(CENSUS_SEED), "--out", f"{{out}}/{e.name}") for e in sampled),
                _parts(sampled), beside=True)


def steps() -> list[Step]:
    """Every step of `./dev test`, in order: the suites that draw (two processes each), then the engines' steps of one
    core each (a suite that replays the reference's drawing, a test file's), the census sample and the engine
    mutants run two at a time, the longest (the engine mutants) first, so that the two end together, and the two
    mutation checks last, beside them: each runs two mutants at a time, and begun as the last engine's step runs they
    fill the core it leaves (one of the two lanes ended about 15 s before the other) and each other's idle spells
    (alone, the machine sample kept 1.5 cores busy: 111 CPU-seconds in 73 s). (Spark's suite ran alone between the
    reference's and Flink's, the cores 60% busy.)"""
    engine_steps = [engine_step(engine) for engine in ci_engines()]
    return [
        Step("lint", "lint", "ruff", (("python", "-m", "ruff", "check", "."),), skip_install=True,
             deps=("ruff>=0.5",)),
        # Three pytest-xdist workers on the CI machine's two cores, each with its own Spark session and Flink runner
        # (this also keeps `pytest -n` working): with two, the unit tests kept the cores busy two thirds of the time
        # (CPU 1,167 s in 892 s), the rest waiting on JVMs, jobs and timeouts. The slowest tests are listed, so that a
        # slow one is seen.
        Step(UNIT_TESTS, "tests", "unit tests of every package, the case files, the report in a browser",
             ((*PYTEST, "tests", "-n", "3", "--dist", "loadgroup", "--durations=25", "-m", f"not {ENGINE_SUITE}"),),
             _parts(list(engines().values())), takes_arguments=True),
        *(step for step in engine_steps if not step.beside),
        Step("engine mutants", "mutation-engines",
             "bugs injected into each engine's dialect of the reference must stay unexplained by its divergence list",
             (("python", "-m", "conformance.mutation.engines"),), _parts(list(engines().values())),
             takes_arguments=True, beside=True),
        census_step(),
        *(step for step in engine_steps if step.beside),
        Step("mutation check", "mutation", "every mutant of the reference must be killed by the suite "
             "(its generated cases or its committed ones)",
             (("python", "-m", "conformance.mutation", "--profile", "ci"),), takes_arguments=True,
             drawing="replays", beside=True),
        Step("machine mutation sample", "mutation-machine-sample",
             "a fixed sample of the machine's mutants of reference/ (tox -e mutation-machine runs them all)",
             (("python", "-m", "conformance.mutation.machine", "--sample", "200", "--target", "0.9"),),
             extras=("mutation",), in_tox_env_list=False, drawing="replays", beside=True),
    ]


def shown(command: tuple[str, ...]) -> str:
    """A command as a shell (and tox) reads it."""
    return " ".join(arg if arg and " " not in arg else repr(arg) for arg in command)


def run(arguments: list[str]) -> int:
    """Run every step with this interpreter, `arguments` passed to the unit tests' pytest; stop at the first that
    fails, with its exit status (the `beside` steps already running end first). Each step's line gives its wall
    time and its processes' CPU time: a step whose CPU time is far below twice its wall time waits (on JVMs, jobs,
    timeouts), one near it is bound by the cores. The steps write Python's bytecode caches (`NO_BYTECODE`)."""
    os.environ.setdefault("HYPOTHESIS_PROFILE", "ci")
    os.environ.pop(NO_BYTECODE, None)
    start, failed = time.monotonic(), threading.Event()
    with tempfile.TemporaryDirectory(prefix="dev-test-recordings-") as recordings:
        for group in _groups(steps()):
            with ThreadPoolExecutor(BESIDE) as pool:
                codes = list(pool.map(functools.partial(_run_step, arguments=arguments, recordings=recordings,
                                                        failed=failed, shown_at_end=len(group) > 1), group))
            if failed.is_set():
                return next(code for code in codes if code)
    minutes, seconds = divmod(round(time.monotonic() - start), 60)
    print(f"./dev test: every step passed in {minutes} min {seconds} s", file=sys.stderr)
    return 0


def _groups(ordered: list[Step]) -> list[list[Step]]:
    """The steps in their order, those `beside` each other in one group, every other step alone."""
    groups: list[list[Step]] = []
    for step in ordered:
        if step.beside and groups and groups[-1][-1].beside:
            groups[-1].append(step)
        else:
            groups.append([step])
    return groups


def _run_step(step: Step, arguments: list[str], recordings: str, failed: threading.Event, shown_at_end: bool) -> int:
    """Run `step`'s commands (none once `failed` is set: another step has failed; the suites' drawing shared through
    `recordings`), its output shown as it comes or, `shown_at_end`, whole when it ends; set `failed` if it fails. Its
    exit status."""
    if failed.is_set():
        return 0
    began, cpu, code = time.monotonic(), 0.0, 0
    with tempfile.TemporaryDirectory() as out, tempfile.TemporaryFile("w+", errors="replace") as output:
        for command in step.commands:
            argv = [sys.executable if arg == "python" else arg.replace("{out}", out)
                    for arg in dev_test_command(step, command, recordings)]
            if step.name == UNIT_TESTS:
                argv += arguments
            code, seconds = _call(argv, output if shown_at_end else None)
            cpu += seconds
            if code != 0:
                failed.set()
                break
        with _SHOWING:
            if shown_at_end:
                output.seek(0)
                sys.stdout.write(output.read())
                sys.stdout.flush()
            if code != 0:
                print(f"step {step.name} failed (exit status {code}): {shown(tuple(argv))}", file=sys.stderr)
            else:
                print(f"step {step.name}: {round(time.monotonic() - began)}s (CPU {round(cpu)}s)", file=sys.stderr)
    return code


#: One step's output and line are shown at a time.
_SHOWING = threading.Lock()


def _call(argv: list[str], output: IO[str] | None) -> tuple[int, float]:
    """Run `argv` (its output and errors to `output`, or this process's own), and give its exit status and its CPU
    time, its children's included."""
    process = subprocess.Popen(argv, stdout=output, stderr=subprocess.STDOUT if output else None)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, usage.ru_utime + usage.ru_stime


# --- tox.ini -------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ToxPart:
    """What a setup part of `./dev` is in a tox environment: the extras it installs (besides the environment's),
    the variables it sets, the commands it runs beforehand, and the outside ones among them."""

    extras: tuple[str, ...] = ()
    set_env: tuple[str, ...] = ()
    commands_pre: tuple[str, ...] = ()
    allowlist: tuple[str, ...] = ()


#: The extras in the order tox.ini lists them.
EXTRAS = ("spark", "flink", "pyflink", "dev")
TOX_PARTS = {
    # apache-flink's declared dependencies clash with PySpark's: the package goes in without them (`./dev setup`)
    "flink": ToxPart(("spark", "flink", "pyflink", "dev"),
                     commands_pre=("python -m pip install --quiet --no-deps apache-flink==2.3.0",)),
    "jvm": ToxPart(commands_pre=("mvn -q -f {tox_root}{/}engines{/}jvm{/}pom.xml compile",), allowlist=("mvn",)),
    "flink-1.20": ToxPart(commands_pre=("mvn -q -f {tox_root}{/}flink_impl{/}flink-1.20{/}pom.xml "
                                        "dependency:build-classpath -Dmdep.outputFile={envtmpdir}{/}classpath.txt",),
                          allowlist=("mvn",)),
}


def tox_part(part: str) -> ToxPart:
    """A part of `TOX_PARTS`, or an engine's own environment, made inside tox's and named by its variable."""
    if part in TOX_PARTS:
        return TOX_PARTS[part]
    python = f"{{envdir}}{{/}}{part}{{/}}bin{{/}}python"
    made = (f"python -m venv {{envdir}}{{/}}{part}", f"{python} -m pip install --quiet -e {{tox_root}}[{part}]")
    return ToxPart(("dev",), (f"{python_variable(part)} = {python}",), made, (python,))


def tox_env(step: Step) -> str:
    """The section of `step` in tox.ini."""
    parts = [tox_part(part) for part in step.parts]

    def union(field_name: str) -> list[str]:
        return list(dict.fromkeys(value for part in parts for value in getattr(part, field_name)))

    lines = [f"[testenv:{step.env}]", f"description = {step.description}"]
    if step.skip_install:
        lines += ["skip_install = true", *(["deps = " + ", ".join(step.deps)] if step.deps else [])]
    extras = step.extras or sorted(union("extras"), key=EXTRAS.index)
    if extras:
        lines.append("extras = " + ", ".join(extras))
    if union("set_env"):
        lines += ["set_env =", "    {[testenv]set_env}", *(f"    {line}" for line in union("set_env"))]
    lines += _listed("allowlist_externals", union("allowlist"))
    lines += _listed("commands_pre", union("commands_pre"))
    commands = [shown(c).replace("{out}", "{envtmpdir}{/}census") + (" {posargs}" if step.takes_arguments else "")
                for c in step.commands]
    lines += _listed("commands", [c.replace("python -m pytest", "pytest", 1) for c in commands])
    return "\n".join(lines) + "\n"


def _listed(key: str, values: list[str]) -> list[str]:
    if len(values) == 1:
        return [f"{key} = {values[0]}"]
    return [f"{key} =", *(f"    {value}" for value in values)] if values else []


def tox_ini() -> str:
    """tox.ini: an environment a step of `./dev test`, in its order, and tox's own."""
    ci = steps()
    return "\n".join([
        "# Generated by `python -m conformance.pipeline tox > tox.ini` from conformance/pipeline.py and the engine",
        "# manifests (cases/engines/<name>/engine.toml): edit those, not this file. An environment a step of",
        "# `./dev test`, which runs the same steps without tox.",
        "[tox]",
        "env_list = " + ", ".join([*(step.env for step in ci if step.in_tox_env_list), *TOX_DEFAULT]),
        "requires = tox>=4",
        "",
        "[testenv]",
        "package = editable",
        "extras = spark, flink, dev",
        "pass_env = JAVA_HOME, CI, HYPOTHESIS_PROFILE",
        "set_env =",
        "    HYPOTHESIS_PROFILE = {env:HYPOTHESIS_PROFILE:ci}",
        "",
        *(tox_env(step) for step in ci),
        TOX_ONLY,
    ]).rstrip("\n") + "\n"


def main(argv: list[str]) -> int:
    """`run [PYTEST ARGS]` (every step), `--list` (the steps and their commands, one a line) or `tox` (tox.ini)."""
    command, *rest = argv or ["run"]
    if command == "run":
        return run(rest)
    if command == "--list":
        for step in steps():
            print(f"{step.name}: " + "; ".join(shown(dev_test_command(step, c, "{recordings}")) for c in step.commands))
        return 0
    if command == "tox":
        sys.stdout.write(tox_ini())
        return 0
    print("usage: python -m conformance.pipeline [run [PYTEST ARGS] | --list | tox]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
