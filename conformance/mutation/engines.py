"""`python -m conformance.mutation.engines [--engine NAME ...] [--mutant NAME ...] [--cases N] [--seed S] [--list]`

Every mutant of the engine catalogue (`engine_mutants`) against the divergence list of every engine it fits, on a
census sample of that engine: cases drawn as `census` draws them (the features the engine declares, a fixed
seed). The engine is stood in for by the reference in its dialect; of the cases a mutant changes, at least 9 of
10 must stay unexplained by the engine's list. Prints a table mutant x engine (cases changed, explained,
unexplained, the divergences that explained them); exit status 1 when a mutant is explained on more than a
tenth of the cases it changes on an engine, or changes no case of any engine it fits.
"""

from __future__ import annotations

import argparse
import sys
import time
import tomllib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.census import drawn_cases
from conformance.divergences import ENGINES, LIST, Attribution, attribute, read_divergences
from conformance.mutation.engine_mutants import CATALOGUE, MUTANTS, Engine, EngineMutant
from reference.dialects import Dialect
from reference.implementation import simulate
from window_contract.case import Case
from window_contract.equivalence import equivalent, without_positions
from window_contract.observation import Observation
from window_contract.registry import load_implementation

#: The engines with a list.
LISTED = sorted(path.parent.name for path in ENGINES.glob(f"*/{LIST}"))
DEFAULT_CASES = 100
#: A seed of the census's drawing (the census sample of `./dev test` draws with 7).
DEFAULT_SEED = 44
#: A list may explain at most one in this many of the cases a mutant changes.
ONE_IN = 10


def listed_explanations(path: Path) -> dict[str, dict[str, Any]]:
    """Each explainer's parameters (its `kind` among them) as the list states them, by divergence id."""
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    return {entry["id"]: dict(entry["explains"]) for entry in doc.get("divergence", []) if "explains" in entry}


def declared_engine(name: str) -> Engine:
    """The engine `name` as its mutants see it: its list, and what it declares when it starts (the features it
    takes, whether it is position-free); it runs no case."""
    impl = load_implementation(name)
    try:
        features, positions = impl.features, not impl.position_free
    finally:
        getattr(impl, "close", lambda: None)()
    path = ENGINES / name / LIST
    windows = tuple(d for d in read_divergences(path) if not d.is_join)  # the mutants are bugs of its windows
    explains = {id: params for id, params in listed_explanations(path).items() if any(d.id == id for d in windows)}
    return Engine(name, windows, explains, positions, frozenset(features))


def reported(observed: Observation, engine: Engine) -> Observation:
    """`observed` as the engine reports it: without positions, nor the watermarks it cannot tell, if it is
    position-free."""
    return observed if engine.positions else without_positions(observed, firing_watermarks=False, watermarks=False)


@dataclass
class Score:
    """How one mutant fared against one engine's list: the cases it changed, and of those, the ones a set of
    divergences explained (by that set, with the first case of each)."""

    mutant: str
    engine: str
    #: The divergence whose rule the bug is, when the pairing is not judged.
    listed: str | None = None
    changed: int = 0
    explained: Counter[str] = field(default_factory=Counter)
    example: dict[str, int] = field(default_factory=dict)

    @property
    def unexplained(self) -> int:
        return self.changed - self.explained.total()

    @property
    def holds(self) -> bool:
        return self.listed is not None or ONE_IN * self.explained.total() <= self.changed


@dataclass
class Judged:
    """One engine's sample: the mutants' scores, and the jobs left out because the engine's list does not explain
    its dialect there (two of its divergences set one switch apart)."""

    engine: str
    cases: int
    scores: list[Score]
    left_out: int
    seconds: float


@dataclass
class Run:
    """A job as the engine's dialect runs it, beside Flink's observation, with the dialects' observations of it
    that attributing it needs (kept for each mutant's)."""

    job: Case
    engine: Engine

    def __post_init__(self) -> None:
        self.flink, self.modelled = simulate(self.job), simulate(self.job, dialect=self.engine.dialect)
        self.clean = reported(self.modelled, self.engine)
        self.predicted: dict[tuple[str, ...], tuple[Dialect, Observation]] = {}
        self.explained = self.attribute(self.clean).explained_by is not None

    def attribute(self, actual: Observation) -> Attribution:
        return attribute(self.job, self.flink, actual, self.engine.divergences, self.engine.positions,
                         predicted=self.predicted)


def judge(engine: Engine, mutants: Iterable[EngineMutant], cases: Sequence[Case]) -> Judged:
    """Each mutant that fits `engine` on each case: whether it changes the dialect's observation of the job, and
    whether the engine's list then explains the difference from Flink's. A job whose unchanged observation the
    list does not explain is left out."""
    started = time.monotonic()
    fitting = [(m, Score(m.name, engine.name, m.listed(engine))) for m in mutants if m.fits(engine)]
    judged = [(m, score) for m, score in fitting if score.listed is None]
    left_out: set[Case] = set()
    for n, case in enumerate(cases):
        runs: dict[Case, Run] = {}
        for mutant, score in judged:
            job = mutant.job(case)
            if job is None:
                continue
            if job not in runs:
                runs[job] = Run(job, engine)
            run = runs[job]
            if not run.explained:
                left_out.add(job)
                continue
            mutated = reported(mutant.inject(job, run.modelled, engine, n), engine)
            if equivalent(mutated, run.clean, engine.positions):
                continue
            score.changed += 1
            found = run.attribute(mutated)
            if found.explained_by is not None:
                by = ", ".join(found.explained_by) or "(agrees with Flink)"
                score.explained[by] += 1
                score.example.setdefault(by, n)
    return Judged(engine.name, len(cases), [score for _, score in fitting], len(left_out), time.monotonic() - started)


def table(judged: Sequence[Judged]) -> list[str]:
    lines = [f"{'mutant':<32} {'engine':<22} {'changed':>7} {'explained':>9} {'unexpl.':>7}  verdict  explained by"]
    for j in judged:
        for s in j.scores:
            if s.listed is not None:
                lines.append(f"{s.mutant:<32} {s.engine:<22} {'':>7} {'':>9} {'':>7}  listed   {s.listed}")
                continue
            verdict = "ok" if s.holds else "EXPLAINED"
            by = "; ".join(f"{d} {k} (e.g. case {s.example[d]})" for d, k in s.explained.most_common())
            lines.append(f"{s.mutant:<32} {s.engine:<22} {s.changed:>7} {s.explained.total():>9} {s.unexplained:>7}  "
                         f"{verdict:<8} {by}")
    lines.append("")
    lines += [f"{j.engine}: {j.cases} cases ({j.left_out} jobs left out: its list does not explain its dialect there), "
              f"{j.seconds:.1f} s" for j in judged]
    return lines


def inert(judged: Sequence[Judged]) -> list[str]:
    """The mutants judged on some engine that changed no case of any."""
    changed: Counter[str] = Counter()
    for j in judged:
        for s in j.scores:
            if s.listed is None:
                changed[s.mutant] += s.changed
    return [m for m, n in changed.items() if n == 0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.mutation.engines",
                                     description=__doc__.split("\n\n")[1])
    parser.add_argument("--engine", action="append", choices=LISTED, metavar="NAME",
                        help="judge only this engine's list (repeatable)")
    parser.add_argument("--mutant", action="append", choices=sorted(MUTANTS), metavar="NAME",
                        help="run only this mutant (repeatable)")
    parser.add_argument("--cases", type=int, default=DEFAULT_CASES, metavar="N",
                        help=f"cases drawn for each engine (default {DEFAULT_CASES})")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, metavar="S",
                        help=f"the drawing's seed (default {DEFAULT_SEED})")
    parser.add_argument("--list", action="store_true", help="list the catalogue and exit")
    args = parser.parse_args(argv)
    if args.list:
        for m in CATALOGUE:
            print(f"{m.name:32} {m.bug}")
        return 0
    if args.cases < 1:
        parser.error("--cases must be at least 1")
    mutants = [MUTANTS[n] for n in args.mutant] if args.mutant else CATALOGUE
    started = time.monotonic()
    judged = []
    for name in args.engine or LISTED:
        engine = declared_engine(name)
        judged.append(judge(engine, mutants, drawn_cases(engine.features, args.cases, args.seed)))
    print("\n".join(table(judged)))
    explained = [s for j in judged for s in j.scores if not s.holds]
    idle = inert(judged)
    print(f"\n{sum(len(j.scores) for j in judged)} pairings of {len(mutants)} mutants and {len(judged)} engines in "
          f"{time.monotonic() - started:.0f} s: {len(explained)} explained on more than one in {ONE_IN} of the cases "
          f"they change" + (f"; changing no case: {', '.join(idle)}" if idle else ""))
    return 1 if explained or idle else 0


if __name__ == "__main__":
    sys.exit(main())
