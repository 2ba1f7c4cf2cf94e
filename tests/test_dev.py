"""`./dev`: what `./dev conformance --impl NAME` sets up for each registered implementation before it runs (its
manifest's parts), a part it does not know, and the steps of `./dev test` it prints without running them."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

from conformance.manifest import engines
from conformance.pipeline import steps

ROOT = Path(__file__).resolve().parents[1]
def dev(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(ROOT / "dev"), *args], capture_output=True, text=True, timeout=600,
                          env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "PYTHON": sys.executable})


def parts_for(name: str) -> list[str]:
    """What `./dev` asks the manifests for a conformance run of `name` alone."""
    done = subprocess.run([sys.executable, "-m", "conformance.manifest", "parts", name], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    return done.stdout.split()


def dev_parts() -> list[str]:
    """Every part `./dev setup` knows, as its refusal of an unknown part lists them."""
    refused = dev("setup", "no-such-part")
    assert refused.returncode == 2
    return refused.stderr.splitlines()[-1].split("(parts: ", 1)[1].rstrip(")").split()


def test_every_registered_implementation_beyond_the_venv_has_its_parts_set_up_when_asked_for():
    """An engine in its own environment has it set up, a Java engine its Maven part; only an engine in the suite's
    process may need nothing beyond .venv."""
    parts = dev_parts()
    for name, engine in engines().items():
        needed = parts_for(name)
        assert set(needed) <= set(parts), (name, needed)
        assert needed or engine.runs == "in-process", name
        assert engine.venv is None or needed == [engine.venv], (name, needed)
        assert engine.runs != "maven" or {"jvm", "flink-1.20"} & set(needed), (name, needed)
    assert parts_for("reference") == parts_for("spark") == [] and parts_for("bytewax") == ["bytewax"]


def test_an_unknown_part_is_refused_with_the_list_of_parts():
    assert dev_parts()[:4] == ["flink", "tools", "jvm", "flink-1.20"]
    assert {"beam", "bytewax", "quix", "pathway"} <= set(dev_parts())


def test_dev_test_lists_its_steps_without_running_them():
    listed = dev("test", "--list")
    assert listed.returncode == 0, listed.stderr
    assert [line.split(":", 1)[0] for line in listed.stdout.splitlines()] == [step.name for step in steps()]


def test_a_conformance_run_sets_up_the_parts_of_the_implementations_it_names_each_once():
    """`./dev conformance`'s `setup_for`, run alone with a `setup_part` that only says what it would set up: each
    part once, an engine's own environment and Maven's parts in the background, the core in the foreground beside
    them."""
    script = (ROOT / "dev").read_text(encoding="utf-8")
    functions = [script[script.index(f"{name}() {{"):script.index("\n}\n", script.index(f"{name}() {{")) + 3]
                 for name in ("manifest", "setup_parts", "setup_for")]
    says = ['setup_part() { if [ "$BASHPID" = "$$" ]; then echo "$1"; else echo "$1 in the background"; fi; }',
            'maven_part() { setup_part "$@"; }', 'setup_core() { setup_part core; }']
    done = subprocess.run(["bash", "-c", "\n".join([f"PYTHON={sys.executable}", *functions, "VENVS=$(manifest venvs)",
                                                    *says, 'setup_for "$@"']), "dev",
                           "--impl", "flink-sql", "--impl=kafka-streams", "--profile", "ci", "--impl", "flink",
                           "--impl", "quix-streams", "--impl", "flink-1.20", "--impl", "exec:./mine",
                           "--impl", "mine:Factory"],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    assert sorted(done.stdout.splitlines()) == ["core", "flink", "flink-1.20 in the background",
                                                  "jvm in the background", "quix in the background"]
    assert done.stderr == ""


def test_the_installer_dev_uses_is_the_one_the_dev_extra_pins():
    """`./dev` installs uv before anything else, so it pins it itself; the `dev` extra declares the same pin."""
    pinned = re.search(r'^UV_PIN="(uv==[^"]+)"$', (ROOT / "dev").read_text(encoding="utf-8"), re.M)
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert pinned and pinned.group(1) in extras["dev"]
