"""Every listed way an engine departs from Flink, as rules the suite applies.

An engine under test lists its divergences in `cases/engines/<engine>/divergences.toml`, each with a stable
`id`, a `title`, its minimal `case` file (beside it, its `expected` observation Flink's) and its executable
form: a switch of a dialect of the reference model (`switches`, fields of `reference.dialects.Dialect`), or an
explainer that can fail (`explains`, one of `EXPLAINERS`). An engine's expected behaviour is then Flink's
semantics plus its listed divergences: a difference between the engine's observation of a case and Flink's is
*explained* when the engine agrees with the dialect made of some of them (or an explainer accounts for what the
dialect leaves), and `attribute` reports the smallest such set, or the part left unexplained, as a delta.

The explainers, each over the case, the observation a dialect predicts (Flink's, with no switch) and the
engine's:

- `accepts` (`flink`: a pattern): Flink rejects the job with a message matching it; the engine runs it.
- `rejects` (`message`): the engine rejects, with a message matching it, a job Flink runs.
- `message` (`message`): both fail the same way (the same error kind) in other words; the engine's match it.
- `fails` (`message`): the engine fails at run time with a message matching it (a crash or a stall of the
  engine, or an adapter's stop), where Flink does not fail so.
- `beyond` (`limit`): the case holds a time or a window parameter of magnitude above `limit`, past which the
  engine's time ends.
- `days_wrap`: the engine's firings are the dialect's with each window's start and end read back as a
  `LocalDateTime` with an `int` count of days (`TimestampData.toLocalDateTime`, Flink SQL's `TIMESTAMP(3)`), which
  wraps beyond 2^31 days; some bound wraps.
"""

from __future__ import annotations

import itertools
import json
import re
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from conformance.committed import committed
from conformance.usage import UsageError
from reference.dialects import Dialect
from reference.implementation import simulate
from reference.javalong import l2i, ldiv, lrem
from window_contract.case import Case, Kind, ProcessingTime, Record, Watermark
from window_contract.delta import delta
from window_contract.equivalence import equivalent
from window_contract.observation import Observation, TimeWindow

ENGINES = committed("cases/engines")
LIST = "divergences.toml"
#: What `--divergences` without a file means: the engine's own list.
DEFAULT_LIST = Path(LIST)

#: An explainer: whether it accounts for the whole difference between what a dialect predicts and what the
#: engine observed for the case.
Explainer = Callable[[Case, Observation, Observation], bool]


def _error_of(kind: str, pattern: str, observation: Observation) -> bool:
    error = observation.error
    return error is not None and error.kind == kind and re.search(pattern, error.message) is not None


def accepts(flink: str) -> Explainer:
    return lambda case, expected, actual: (_error_of("invalid_spec", flink, expected)
                                           and (actual.error is None or actual.error.kind != "invalid_spec"))


def rejects(message: str) -> Explainer:
    return lambda case, expected, actual: (_error_of("invalid_spec", message, actual)
                                           and (expected.error is None or expected.error.kind != "invalid_spec"))


def message(message: str) -> Explainer:
    return lambda case, expected, actual: (expected.error is not None and actual.error is not None
                                           and expected.error.kind == actual.error.kind
                                           and _error_of(actual.error.kind, message, actual))


def fails(message: str) -> Explainer:
    return lambda case, expected, actual: (_error_of("runtime", message, actual) and (
        expected.error is None or expected.error.message != actual.error.message))


def beyond(limit: int) -> Explainer:
    return lambda case, expected, actual: any(abs(v) > limit for v in magnitudes(case))


DAY = 86_400_000


def as_local_date_time(millis: int) -> int:
    """`millis` as `TimestampData.fromEpochMillis(millis).toLocalDateTime()` reads it back (in UTC): an `int`
    count of days (`(int) (millis / DAY)`, which wraps) and a time of day (a negative one borrowing a day)."""
    date, time = l2i(ldiv(millis, DAY)), l2i(lrem(millis, DAY))
    if time < 0:
        date, time = l2i(date - 1), time + DAY
    return date * DAY + time


def days_wrap() -> Explainer:
    def explains(case: Case, expected: Observation, actual: Observation) -> bool:
        read = replace(expected, firings=tuple(
            replace(f, window=TimeWindow(as_local_date_time(f.window.start), as_local_date_time(f.window.end)))
            if isinstance(f.window, TimeWindow) else f for f in expected.firings))
        return read != expected and equivalent(read, actual)
    return explains


#: The explainers a list may name, by `kind`, with the parameters each takes.
EXPLAINERS: dict[str, Callable[..., Explainer]] = {
    "accepts": accepts, "rejects": rejects, "message": message, "fails": fails, "beyond": beyond}
EXPLAINERS["days_wrap"] = days_wrap


def magnitudes(case: Case) -> Iterable[int]:
    """Every time and window parameter of `case`."""
    for part in (case.window, case.trigger, case.evictor, case.watermark_generator):
        if isinstance(part, Kind):
            yield from part.parameters()
    yield case.allowed_lateness
    for event in case.events:
        if isinstance(event, Record):
            yield event.ts
        elif isinstance(event, Watermark):
            yield event.timestamp
        elif isinstance(event, ProcessingTime):
            yield event.time


@dataclass(frozen=True)
class Divergence:
    """One listed way an engine departs from Flink."""

    id: str
    title: str
    case_file: Path
    switches: dict[str, Any] = field(default_factory=dict)
    explainer: Explainer | None = None

    @property
    def is_switch(self) -> bool:
        return bool(self.switches)


class DivergenceListError(UsageError):
    """A divergence list that does not follow its format, naming the entry and the rule."""


def engine_divergences(engine: str, folder: Path = ENGINES) -> list[Divergence]:
    """The divergences `engine` lists (none when it has no list)."""
    path = folder / engine / LIST
    if not path.is_file():
        return []
    return read_divergences(path)


def divergence_list(path: Path, engine: str) -> list[Divergence]:
    """The list `path` names, or the engine's own (`DEFAULT_LIST`); a list that cannot be read is a usage error."""
    if path == DEFAULT_LIST:
        path = ENGINES / engine / LIST
    if not path.is_file():
        raise DivergenceListError(f"no divergence list at {path}")
    return read_divergences(path)


def read_divergences(path: Path) -> list[Divergence]:
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    switches = {f.name for f in fields(Dialect)}
    found, ids = [], set()
    for n, entry in enumerate(doc.get("divergence", [])):
        where = f"{path}: divergence {n + 1} ({entry.get('id', 'without id')})"
        unknown = set(entry) - {"id", "title", "case", "switches", "explains"}
        if unknown or not {"id", "title", "case"} <= set(entry):
            raise DivergenceListError(f"{where}: takes id, title, case and one of switches or explains"
                                      + (f"; unknown: {', '.join(sorted(unknown))}" if unknown else ""))
        if ("switches" in entry) == ("explains" in entry):
            raise DivergenceListError(f"{where}: needs exactly one of switches (a dialect) or explains (an explainer)")
        if entry["id"] in ids:
            raise DivergenceListError(f"{where}: the id is listed twice")
        ids.add(entry["id"])
        bad = set(entry.get("switches", {})) - switches
        if bad:
            raise DivergenceListError(f"{where}: {', '.join(sorted(bad))} is no switch of reference.dialects.Dialect")
        explainer = None
        if "explains" in entry:
            params = dict(entry["explains"])
            kind = params.pop("kind", None)
            if kind not in EXPLAINERS:
                raise DivergenceListError(f"{where}: explains.kind must be one of {', '.join(EXPLAINERS)}")
            try:
                explainer = EXPLAINERS[kind](**params)
            except TypeError as e:
                raise DivergenceListError(f"{where}: explains: {e}") from None
        found.append(Divergence(entry["id"], entry["title"], path.parent / entry["case"],
                                dict(entry.get("switches", {})), explainer))
    return found


@dataclass(frozen=True)
class Attribution:
    """Which listed divergences explain how the engine's observation of `case` differs from Flink's: the
    smallest set (`()` when they agree), or `None` and what is left (`unexplained`, a delta from Flink's)."""

    case: Case
    explained_by: tuple[str, ...] | None
    unexplained: dict[str, Any] | None = None

    @property
    def agrees(self) -> bool:
        return self.explained_by == ()

    def to_json(self, label: str) -> dict[str, Any]:
        return {"case": label, "explained_by": None if self.explained_by is None else list(self.explained_by),
                "unexplained": self.unexplained}


def explained(label: str, found: Attribution) -> str:
    """One line for a case that differs: the divergences that explain it, or what is left, in words."""
    if found.explained_by is not None:
        return f"EXPLAINED {label}: {', '.join(found.explained_by) or 'agrees'}"
    return f"UNEXPLAINED {label}: {json.dumps(found.unexplained)}"


def candidates(divergences: Sequence[Divergence], prefer: str | None = None) -> Iterable[tuple[Divergence, ...]]:
    """Sets of divergences from the smallest: dialects of 0, 1, 2, ... switch divergences, each alone and with
    one explainer (an explainer stands for what the dialect leaves), without two that set one switch apart;
    of sets of one size, those with the divergence `prefer` first."""
    switch_divergences = [d for d in divergences if d.is_switch]
    explainers = [d for d in divergences if d.explainer is not None]
    for size in range(0, len(switch_divergences) + 2):
        sized = [c for c in itertools.combinations(switch_divergences, size) if _consistent(c)]
        if size >= 1:
            sized += [(*c, e) for c in itertools.combinations(switch_divergences, size - 1) if _consistent(c)
                      for e in explainers]
        yield from sorted(sized, key=lambda chosen: all(d.id != prefer for d in chosen))


def _consistent(chosen: Sequence[Divergence]) -> bool:
    seen: dict[str, Any] = {}
    for d in chosen:
        for name, value in d.switches.items():
            if seen.setdefault(name, value) != value:
                return False
    return True


def dialect_of(chosen: Iterable[Divergence]) -> Dialect:
    return Dialect(**{name: value for d in chosen for name, value in d.switches.items()})


def attribute(case: Case, flink: Observation, actual: Observation, divergences: Sequence[Divergence],
              positions: bool = True, prefer: str | None = None) -> Attribution:
    """The smallest set of `divergences` that explains `actual` (the engine's observation of `case`), where
    `flink` is Flink's; `positions`: whether the engine tells when it emits (not position-free). Of sets of
    one size, one with the divergence `prefer` (a divergence's own case: the one it documents) is chosen."""
    if equivalent(flink, actual, positions):
        return Attribution(case, ())
    predicted: dict[tuple[str, ...], Observation] = {(): flink}
    for chosen in candidates(divergences, prefer):
        switches = tuple(d.id for d in chosen if d.is_switch)
        if switches not in predicted:
            predicted[switches] = simulate(case, dialect=dialect_of(chosen))
        expected = predicted[switches]
        explainer = next((d for d in chosen if d.explainer is not None), None)
        if (explainer.explainer(case, expected, actual) if explainer is not None
                else equivalent(expected, actual, positions)):
            return Attribution(case, tuple(d.id for d in chosen))
    return Attribution(case, None, delta(flink, actual, positions))
