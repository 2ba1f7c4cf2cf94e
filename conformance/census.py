"""`python -m conformance census --impl NAME`: hunt an engine's unlisted divergences from Flink.

A census draws many cases the engine declares (from the suite's strategies, weighted toward the families
where engines differ: merges, lateness boundaries, gaps, watermarks that Flink makes, the ends of the `long`
range, rejected specifications), runs them through the engine and the reference, and attributes each
difference to the engine's listed divergences (`conformance.divergences`). What no listed divergence
explains is shrunk to a minimal case (events removed and parts of the specification dropped while the
difference stays unexplained), confirmed on real Flink, and saved in the census's folder: a new divergence
to list, an adapter's bug, or the engine's own (a crash or a stall is its bug report).

An engine that declares joins of two streams (`join.window`, `join.cogroup`, `join.interval`, `join.sql_window`,
`join.sql_interval`) is sent join cases too (`--join-cases`, a quarter of `--cases` unless told), drawn from the
join strategies (`strategies.joins`) of the kinds it declares only, each attributed to the list's join divergences;
a minimal unexplained join case is saved as a join case file (`unexplained-N.join.json`).

The folder keeps every case's attribution as it is made (`census.jsonl`), so a census of a slow engine
stopped half-way goes on from there when run again with the same options; the cases left unexplained are run
again then, against the list as it is by now (one that has grown since explains them).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import json
import re
import sys
import time
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.divergences import Attribution, attribute, engine_divergences, model_of, read_divergences
from conformance.profiles import without_local_constants
from conformance.simplest import join_simplifications, simplifications
from conformance.usage import UsageError
from window_contract.case import Case, case_to_json
from window_contract.features import (
    JOIN_COGROUP,
    JOIN_INTERVAL,
    JOIN_SQL_INTERVAL,
    JOIN_SQL_WINDOW,
    JOIN_WINDOW,
    needed_features,
)
from window_contract.implementation import Implementation, RunJoins, failure_to_run, run_within
from window_contract.join_case import JoinCase, join_case_to_json
from window_contract.join_observation import JoinObservation, join_observation_to_json
from window_contract.observation import Observation
from window_contract.observation_json import observation_to_json
from window_contract.registry import load_implementation

RESULTS = "census.jsonl"
SUMMARY = "census.json"
DEFAULT_CASES = 2000
BATCH = 100
#: Seconds one batch of the engine may take before its cases are run one by one.
TIMEOUT = 600.0


def drawn_cases(features: frozenset[str], count: int, seed: int) -> list[Case]:
    """`count` cases that need only `features`, drawn by Hypothesis from `seed` (the same arguments draw
    the same cases): a case of the general strategy mostly; one with watermarks that Flink makes, and one
    at the ends of the `long` range, where the engine declares them."""
    from strategies import cases, extreme_cases
    from strategies.watermarks import generated_watermark_cases
    from strategies.weights import weighted

    branches = [(6, cases(features, report=False))]
    if any(f.startswith("watermark.") for f in features) or "channels" in features:
        branches.append((2, generated_watermark_cases(features)))
    if "extreme_values" in features:
        branches.append((1, extreme_cases(features)))
    return _drawn(weighted(*branches) if len(branches) > 1 else branches[0][1], features, count,
                  seed ^ zlib.crc32(b"census"))


def drawn_join_cases(features: frozenset[str], count: int, seed: int) -> list[JoinCase]:
    """`count` join cases of the kinds of join among `features` that need only `features`, drawn by Hypothesis from
    `seed` as `drawn_cases` draws (none for an engine that declares no join)."""
    from hypothesis import strategies as st

    from strategies.joins import interval_joins, join_cases, sql_interval_joins, sql_window_joins, window_joins

    kinds = {JOIN_INTERVAL.name: interval_joins(), JOIN_WINDOW.name: window_joins().filter(lambda j: not j.cogroup),
             JOIN_COGROUP.name: window_joins().filter(lambda j: j.cogroup),
             JOIN_SQL_WINDOW.name: sql_window_joins(), JOIN_SQL_INTERVAL.name: sql_interval_joins()}
    specs = [spec for name, spec in kinds.items() if name in features]
    if not specs or count < 1:
        return []
    return _drawn(join_cases(specs=st.one_of(specs)), features, count, seed ^ zlib.crc32(b"census joins"))


def _drawn(strategy, features: frozenset[str], count: int, seed: int) -> list:
    """The first `count` examples of `strategy` that need only `features`, drawn from `seed`."""
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis import seed as hypothesis_seed

    found: list = []

    @settings(database=None, max_examples=count * 4, phases=[Phase.generate], deadline=None, derandomize=False,
              suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet)
    @hypothesis_seed(seed)
    @given(strategy)
    def collect(case) -> None:
        if len(found) < count and needed_features(case) <= features:
            found.append(case)
        if len(found) >= count:
            raise _Enough

    with contextlib.suppress(_Enough), without_local_constants():
        collect()
    return found


class _Enough(Exception):
    pass


def case_json(case: Case | JoinCase) -> dict[str, Any]:
    return join_case_to_json(case) if isinstance(case, JoinCase) else case_to_json(case)


def digest(case: Case | JoinCase) -> str:
    return hashlib.sha256(json.dumps(case_json(case), sort_keys=True).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Outcome:
    """What the census found for one case: its attribution, or why the engine could not run it."""

    index: int
    digest: str
    explained_by: tuple[str, ...] | None
    unexplained: dict[str, Any] | None = None
    could_not_run: str | None = None
    #: The cause that held for the explainer among `explained_by`, in words.
    cause: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "digest": self.digest,
                "explained_by": None if self.explained_by is None else list(self.explained_by),
                "cause": self.cause, "unexplained": self.unexplained, "could_not_run": self.could_not_run}

    @staticmethod
    def from_json(doc: dict[str, Any]) -> Outcome:
        explained = doc["explained_by"]
        return Outcome(doc["index"], doc["digest"], None if explained is None else tuple(explained),
                       doc["unexplained"], doc["could_not_run"], doc.get("cause"))

    @property
    def is_unexplained(self) -> bool:
        return self.explained_by is None and self.could_not_run is None


class Census:
    """One engine's census: its divergences, the reference as Flink, and how cases are run through it."""

    def __init__(self, impl: Implementation, divergences, timeout: float = TIMEOUT) -> None:
        from reference.implementation import ReferenceImplementation

        self.impl, self.divergences, self.timeout = impl, divergences, timeout
        self.reference = ReferenceImplementation()
        self.positions = not impl.position_free

    def observe(self, cases: Sequence[Case] | Sequence[JoinCase]) -> list[Observation | JoinObservation | str]:
        """The engine's observation of each case (window cases, or join cases through `run_joins`), or why it could
        not run it (a batch that fails is run case by case, so one crash or stall costs only its own case)."""
        joins = bool(cases) and isinstance(cases[0], JoinCase)
        try:
            observations = run_within(RunJoins(self.impl) if joins else self.impl, list(cases), self.timeout)
            if len(observations) == len(cases):
                return list(observations)
        except Exception as e:  # noqa: BLE001 - the engine's own failure: each case alone tells which
            if len(cases) == 1:
                return [failure_to_run(e) or f"run raised {type(e).__name__}: {e}"]
        if len(cases) == 1:
            return [f"{len(observations)} observations for one case"]
        return [answer for case in cases for answer in self.observe([case])]

    def attribute(self, case: Case | JoinCase, answer: Observation | JoinObservation | str) -> Attribution | str:
        if isinstance(answer, str):
            return answer
        return attribute(case, self.flink([case])[0], answer, self.divergences, self.positions)

    def flink(self, cases: Sequence[Case] | Sequence[JoinCase]) -> list[Observation] | list[JoinObservation]:
        """The reference's observations (Flink's) of window cases, or of join cases."""
        joins = bool(cases) and isinstance(cases[0], JoinCase)
        return (self.reference.run_joins if joins else self.reference.run)(list(cases))

    def unexplained(self, case: Case | JoinCase) -> bool:
        [answer] = self.observe([case])
        found = self.attribute(case, answer)
        return not isinstance(found, str) and found.explained_by is None

    def shrink(self, case: Case | JoinCase) -> Case | JoinCase:
        """A smaller case whose difference stays unexplained: events removed (the engine runs every
        candidate of a round in one batch), then parts of the specification back to their defaults."""
        simpler = join_simplifications if isinstance(case, JoinCase) else simplifications
        while True:
            smaller = [c for c in simpler(case) if needed_features(c) <= self.impl.features]
            if not smaller:
                return case
            answers = self.observe(smaller)
            for candidate, answer in zip(smaller, answers, strict=True):
                found = self.attribute(candidate, answer)
                if not isinstance(found, str) and found.explained_by is None:
                    case = candidate
                    break
            else:
                return case


def census(args: argparse.Namespace) -> int:
    if args.cases < 1:
        raise UsageError("--cases must be at least 1")
    if args.join_cases is not None and args.join_cases < 0:
        raise UsageError("--join-cases must be at least 0")
    impl = load_implementation(args.impl, limits=None)  # engines under test; a plug-in runs here unguarded
    divergences = read_divergences(args.divergences) if args.divergences else engine_divergences(args.impl)
    out: Path = args.out or Path("census") / args.impl.replace("/", "-").replace(":", "-")
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    joins = args.cases // 4 if args.join_cases is None else args.join_cases
    say(f"census of {impl.name}: {len(divergences)} listed divergences; drawing {args.cases} cases (seed {args.seed})")
    cases: list[Case | JoinCase] = [*drawn_cases(impl.features, args.cases, args.seed),
                                    *drawn_join_cases(impl.features, joins, args.seed)]
    if len(cases) > args.cases:
        say(f"census: and {len(cases) - args.cases} join cases of the joins it declares")
    done = _resumed(out / RESULTS, cases)
    if done:
        say(f"census: {len(done)} cases attributed before, going on from there")
    engine = Census(impl, divergences, args.request_timeout)
    todo = [i for i in range(len(cases)) if i not in done]
    # a batch is of one kind: window cases go through `run`, join cases through `run_joins`
    kinds = [[i for i in todo if isinstance(cases[i], JoinCase) == joined] for joined in (False, True)]
    batches = [kind[start:start + args.batch] for kind in kinds for start in range(0, len(kind), args.batch)]
    with (out / RESULTS).open("a", encoding="utf-8") as results:
        for chunk in batches:
            for i, answer in zip(chunk, engine.observe([cases[i] for i in chunk]), strict=True):
                found = engine.attribute(cases[i], answer)
                outcome = (Outcome(i, digest(cases[i]), None, could_not_run=found) if isinstance(found, str)
                           else Outcome(i, digest(cases[i]), found.explained_by, found.unexplained,
                                        cause=found.cause))
                done[i] = outcome
                results.write(json.dumps(outcome.to_json()) + "\n")
            results.flush()
            say(f"census: {len(done)} of {len(cases)} cases, {sum(o.is_unexplained for o in done.values())} "
                f"unexplained ({time.monotonic() - started:.0f} s)")
    minimal = _shrunk(engine, cases, done, out, args.shrink, args.confirm)
    summary = _summary(impl.name, cases, done, minimal, time.monotonic() - started)
    (out / SUMMARY).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    print("\n".join(table(summary)))
    return 1 if summary["unexplained"]["cases"] else 0


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _resumed(path: Path, cases: Sequence[Case | JoinCase]) -> dict[int, Outcome]:
    """The outcomes an earlier run of the same census wrote (a line of another case is ignored), but those
    unexplained: the engine runs them again, and the divergences listed now attribute them."""
    done: dict[int, Outcome] = {}
    if not path.is_file():
        return done
    for line in path.read_text(encoding="utf-8").splitlines():
        with contextlib.suppress(ValueError, KeyError):
            outcome = Outcome.from_json(json.loads(line))
            if outcome.index < len(cases) and outcome.digest == digest(cases[outcome.index]):
                done[outcome.index] = outcome
    for i in [i for i, o in done.items() if o.is_unexplained]:
        del done[i]
    return done


def _shrunk(engine: Census, cases: Sequence[Case | JoinCase], done: dict[int, Outcome], out: Path, most: int,
            confirm: str) -> list[dict[str, Any]]:
    """Each of the first `most` unexplained cases shrunk, the distinct minimal cases saved with their
    expected observation (confirmed on `confirm`, unless `none`); a join case as a join case file."""
    kinds: dict[str, list[int]] = {}
    for i, o in sorted(done.items()):
        if o.is_unexplained:
            joined = "join " if isinstance(cases[i], JoinCase) else ""
            kinds.setdefault(joined + signature(o.unexplained), []).append(i)
    minimal: dict[str, tuple[Case | JoinCase, list[int]]] = {}
    for origins in list(kinds.values())[:most]:
        say(f"census: shrinking case {origins[0]} (and {len(origins) - 1} more unexplained the same way)")
        small = engine.shrink(cases[origins[0]])
        minimal.setdefault(digest(small), (small, []))[1].extend(origins)
    saved = []
    for n, (small, origins) in enumerate(minimal.values()):
        observation, note = _confirmed(engine, small, confirm)
        joined = isinstance(small, JoinCase)
        name = f"unexplained-{n + 1}" + (".join.json" if joined else ".json")
        named = dataclasses.replace(small, name=f"census of {engine.impl.name}: unexplained #{n + 1}",
                                    expected=observation)
        (out / name).write_text(json.dumps(case_json(named), indent=2) + "\n", encoding="utf-8")
        [answer] = engine.observe([small])
        saved.append({"file": name, "from_cases": origins, "note": note,
                      "engine": answer if isinstance(answer, str)
                      else (join_observation_to_json if joined else observation_to_json)(answer)})
    return saved


def _confirmed(engine: Census, case: Case | JoinCase, confirm: str) -> tuple[Observation | JoinObservation, str]:
    """Flink's observation of a minimal case: `confirm`'s (real Flink by default), with a note where the reference
    differs from it; the reference's where `confirm` is `none` or does not run the case (a join it does not
    declare: `flink` runs no Flink SQL join, `flink-sql` those)."""
    [ours] = engine.flink([case])
    if confirm == "none":
        return ours, ""
    confirming = load_implementation(confirm)
    if not needed_features(case) <= confirming.features:
        return ours, f"not confirmed: {confirm} does not run this case; the reference's observation is expected"
    [theirs] = confirming.run_joins([case]) if isinstance(case, JoinCase) else confirming.run([case])
    model = model_of(case)
    same = model.same(ours, theirs)
    return theirs, "" if same else f"the reference differs from {confirm} here: {confirm}'s observation is expected"


def signature(delta: dict[str, Any]) -> str:
    """How an unexplained difference looks, without its numbers: the error the engine failed with, in its words,
    or else the kinds of change and the fields they touch (`root['firings'][3]['window']` is `firings.window`);
    cases alike are shrunk once."""
    shapes, errors = set(), set()
    for change, paths in delta.items():
        for path, value in (paths.items() if isinstance(paths, dict) else ()):
            shapes.add((change, ".".join(re.findall(r"\['(\w+)'\]", path))))
            new = value.get("new_value") if isinstance(value, dict) else None
            if isinstance(new, dict) and isinstance(new.get("message"), str):
                errors.add(re.sub(r"-?\d+", "N", new["message"]))
    return json.dumps(sorted(errors) if errors else sorted(shapes))


def _summary(name: str, cases: Sequence[Case | JoinCase], done: dict[int, Outcome], minimal: list[dict[str, Any]],
             seconds: float) -> dict[str, Any]:
    total = len(cases)
    joins = [i for i, case in enumerate(cases) if isinstance(case, JoinCase)]
    by_divergence: Counter[str] = Counter()
    example: dict[str, int] = {}
    causes: Counter[str] = Counter()
    for i, o in sorted(done.items()):
        for d in o.explained_by or ():
            by_divergence[d] += 1
            example.setdefault(d, i)
        if o.cause is not None:
            causes[o.explained_by[-1]] += 1  # the explainer is the last of a set
    return {
        "engine": name, "cases": total, "seconds": round(seconds, 1),
        "join_cases": {"cases": len(joins), "agree": sum(done[i].explained_by == () for i in joins if i in done),
                       "unexplained": sum(done[i].is_unexplained for i in joins if i in done)},
        "agree": sum(o.explained_by == () for o in done.values()),
        "unexplained": {"cases": sum(o.is_unexplained for o in done.values()), "minimal": minimal},
        "could_not_run": {"cases": sum(o.could_not_run is not None for o in done.values()),
                          "examples": sorted({o.could_not_run for o in done.values() if o.could_not_run})[:5]},
        "divergences": {d: {"cases": n, "cause_held": causes[d], "example_case": example[d]}
                        for d, n in by_divergence.most_common()},
    }


def table(summary: dict[str, Any]) -> list[str]:
    """The census as a table: unexplained first, then each divergence by the cases it explains."""
    total = summary["cases"]

    def row(label: str, count: int, note: str = "") -> str:
        return f"{label:<46} {count:>6} {count / total:>7.1%}  {note}"

    lines = [f"{'':<46} {'cases':>6} {'share':>7}", row("unexplained", summary["unexplained"]["cases"],
                                                      " ".join(m["file"] for m in summary["unexplained"]["minimal"]))]
    lines.append(row("could not run", summary["could_not_run"]["cases"],
                     "; ".join(summary["could_not_run"]["examples"])))
    lines += [row(d, v["cases"], f"e.g. case {v['example_case']}"
                  + (f"; its cause held on {v['cause_held']}" if v.get("cause_held") else "")
                  + ("; MORE THAN A FIFTH of the cases: it may hide several divergences" if v["cases"] * 5 > total
                     else "")) for d, v in summary["divergences"].items()]
    lines.append(row("agree with Flink", summary["agree"]))
    joins = summary["join_cases"]
    if joins["cases"]:
        lines.append(row("of them join cases", joins["cases"],
                         f"{joins['agree']} agree, {joins['unexplained']} unexplained"))
    lines.append(f"{summary['engine']}: {total} cases in {summary['seconds']:.0f} s")
    return lines


def add_census_command(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser("census", help="hunt an engine's unlisted divergences from Flink",
                       description=__doc__.split("\n\n")[0].split(": ", 1)[1],
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("--impl", required=True, metavar="NAME",
                   help="the engine: a registered name, module:factory or exec:COMMAND")
    c.add_argument("--cases", type=int, default=DEFAULT_CASES, metavar="N",
                   help=f"cases to draw (default {DEFAULT_CASES})")
    c.add_argument("--join-cases", type=int, default=None, metavar="N",
                   help="join cases to draw besides, of the joins the engine declares (default a quarter of --cases; "
                        "none for an engine that declares no join)")
    c.add_argument("--seed", type=int, default=0, metavar="S", help="the drawing's seed (default 0)")
    c.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="where the census keeps its results and minimal cases (default census/<impl>); run again "
                        "with the same options, it goes on where it stopped")
    c.add_argument("--divergences", type=Path, default=None, metavar="FILE",
                   help="the engine's divergence list (default cases/engines/<impl>/divergences.toml)")
    c.add_argument("--batch", type=int, default=BATCH, metavar="N", help=f"cases per run call (default {BATCH})")
    c.add_argument("--shrink", type=int, default=10, metavar="N",
                   help="shrink one unexplained case of each of at most N kinds (cases whose differences look "
                        "alike are one kind; default 10)")
    c.add_argument("--confirm", default="flink", metavar="NAME",
                   help="the implementation that confirms each minimal case's expected observation (default "
                        "flink, real Flink; none: the reference's)")
    c.add_argument("--request-timeout", type=float, default=TIMEOUT, metavar="SECONDS",
                   help=f"how long one run call may take (default {TIMEOUT:g})")
    c.set_defaults(func=census)
