"""The engine manifests: every implementation the project registers by name, each described once, as data, in
its own folder: `cases/engines/<name>/engine.toml`, beside its divergence list (an implementation without a list,
such as the reference, has a folder holding its manifest alone). docs/development.md shows one and says how to add
an engine.

A manifest says (every key but `factory` or `venv` is optional):

- `title`: the engine in words (`./dev setup`'s line, the docs);
- where the engine runs, `runs`: `in-process` (the adapter `factory`, `module:factory`, runs in the suite's process,
  and may start its engine's JVM, as Spark and Flink do), `maven` (the adapter `factory` starts a Java program
  whose jars a Maven module resolves), or `venv` (a process in a virtual environment of its own, `.venv-<venv>`,
  into which ./dev installs this project with the extra `venv` of pyproject.toml, running `python -m <module>`);
- `extra`: the extra of pyproject.toml that installs what an in-process adapter imports (named when it is missing);
- `setup`: the parts of `./dev setup` it needs beyond `.venv` (a `venv` engine needs its own, `venv`);
- `[ci]`, what `./dev test` runs for it (`conformance.pipeline`), in the step `order` (ties by name): `suite =
  "properties"` (the property suite under the `ci` profile, `--window-impl <name>`) or `test` (a test file whose
  tests marked `engine_suite` are the step: the suite against the engine, held to its divergence list); the budget
  of that test's suite run, `profile`, `properties` (all when absent), `timeout` (seconds) and `request_timeout`
  (`--request-timeout`, seconds); `census`, the number of cases of its census sample; and `description`, what the
  step checks (tox's description of its environment).

This module reads them for the registry (`catalogue`, which `conformance.catalogue`, the project's entry point in
the group `window_contract.registry.CATALOGUE_GROUP`, gives), for `./dev` (`python -m conformance.manifest`), for
the pipeline and for the tests. It imports no implementation.
"""

from __future__ import annotations

import sys
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from conformance.committed import committed

#: The folder of the engines' folders, and each one's manifest.
ENGINES = committed("cases/engines")
MANIFEST = "engine.toml"
#: The model's name: the implementation every other is compared with, whose suite draws the tests the suites after
#: it replay (in one `run`, `conformance.runner.command`, and in `./dev test`'s steps, `conformance.pipeline`).
REFERENCE = "reference"
#: Where an engine runs (see the module's docstring).
RUNS = ("in-process", "maven", "venv")
#: The adapter that starts a `venv` engine: `python -m <module>` in `.venv-<venv>`, a process.
VENV_FACTORY = "engines.venv_engines:engine_process"
#: The randomness of every census sample (`./dev test`'s step "census sample").
CENSUS_SEED = 7


class ManifestError(ValueError):
    """A manifest that does not follow its format, naming the file, the key and the rule."""


@dataclass(frozen=True)
class CiBudget:
    """What `./dev test` runs for an engine (see the module's docstring)."""

    order: int = 0
    suite: str | None = None
    test: str | None = None
    profile: str = "ci-slow"
    properties: tuple[str, ...] = ()
    timeout: int | None = None
    request_timeout: int | None = None
    census: int | None = None
    description: str = ""

    @property
    def step(self) -> bool:
        """Whether the engine has a step of its own."""
        return self.suite is not None or self.test is not None


@dataclass(frozen=True)
class Engine:
    """One manifest: an implementation registered by `name`."""

    name: str
    title: str
    runs: str
    factory: str
    extra: str | None = None
    venv: str | None = None
    module: str | None = None
    setup: tuple[str, ...] = ()
    ci: CiBudget = field(default_factory=CiBudget)

    @property
    def arguments(self) -> dict[str, str]:
        """What the factory is called with: a `venv` engine's module and environment."""
        return {"module": self.module, "venv": self.venv} if self.runs == "venv" else {}

    @property
    def install_hint(self) -> str:
        """What a user whose installation lacks what the engine imports is told."""
        extra = f"pip install 'window-conformance[{self.extra}]' installs it; " if self.extra else ""
        return extra + "./dev setup installs every engine"


def _read(path: Path) -> Engine:
    """The manifest at `path`; a `ManifestError` names the file and the rule it breaks."""
    where = path.relative_to(ENGINES.parent.parent) if path.is_relative_to(ENGINES.parent.parent) else path
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise ManifestError(f"{where}: not TOML: {e}") from None
    ci = data.pop("ci", {})
    known = {"title", "runs", "factory", "extra", "venv", "module", "setup"}
    unknown = sorted(set(data) - known) or sorted(set(ci) - {f for f in CiBudget.__dataclass_fields__})
    if unknown:
        raise ManifestError(f"{where}: unknown key {unknown[0]!r} (a manifest has {', '.join(sorted(known))} "
                            f"and [ci]: {', '.join(CiBudget.__dataclass_fields__)})")
    runs = data.get("runs", "in-process")
    if runs not in RUNS:
        raise ManifestError(f"{where}: runs must be one of {', '.join(RUNS)}, not {runs!r}")
    needed = ("venv", "module") if runs == "venv" else ("factory",)
    missing = [key for key in needed if not isinstance(data.get(key), str)]
    if missing:
        raise ManifestError(f"{where}: an engine that runs {runs} needs {missing[0]!r} (a string)")
    if ci.get("suite", "properties") != "properties" or ("suite" in ci and "test" in ci):
        raise ManifestError(f"{where}: [ci] has suite = \"properties\" or a test file, not both")
    venv = data.get("venv") if runs == "venv" else None
    return Engine(name=path.parent.name, title=data.get("title", path.parent.name), runs=runs,
                  factory=VENV_FACTORY if venv else data["factory"], extra=data.get("extra"), venv=venv,
                  module=data.get("module"),
                  setup=tuple(data.get("setup", [venv] if venv else [])),
                  ci=CiBudget(**{**ci, "properties": tuple(ci.get("properties", ()))}))


@cache
def engines(folder: Path = ENGINES) -> dict[str, Engine]:
    """Every manifest under `folder`, by name."""
    return {path.parent.name: _read(path) for path in sorted(folder.glob(f"*/{MANIFEST}"))}


def engine(name: str) -> Engine:
    return engines()[name]


def ci_engines() -> list[Engine]:
    """The engines with a step of their own in `./dev test`, in the steps' order."""
    return sorted((e for e in engines().values() if e.ci.step), key=lambda e: (e.ci.order, e.name))


def venv_engines() -> list[Engine]:
    """The engines that run in environments of their own, one each, in the steps' order."""
    return [e for e in sorted(engines().values(), key=lambda e: (e.ci.order, e.name)) if e.venv]


def catalogue() -> dict:
    """The project's implementations by name, for the registry (`window_contract.registry.Registered`)."""
    from window_contract.registry import Registered

    return {e.name: Registered(e.factory, e.arguments, e.install_hint) for e in engines().values()}


def main(argv: list[str]) -> int:
    """What `./dev` asks, one answer a line: `parts NAME...` (the setup parts of the implementations named, each
    once, in order) and `venvs` (each engine environment's part and title, a tab between)."""
    command, *names = argv or [""]
    if command == "parts":
        known = engines()
        parts = [part for name in names if name in known for part in known[name].setup]
        print("\n".join(dict.fromkeys(parts)))
    elif command == "venvs":
        print("\n".join(f"{e.venv}\t{e.title}" for e in venv_engines()))
    else:
        print("usage: python -m conformance.manifest parts NAME... | venvs", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
