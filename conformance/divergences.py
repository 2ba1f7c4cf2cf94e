"""Every listed way an engine departs from Flink, as rules the suite applies.

An engine under test lists its divergences in `cases/engines/<engine>/divergences.toml`, each with a stable
`id`, a `title`, its minimal `case` file (beside it, its `expected` observation Flink's) and its executable
form: a switch of a dialect of the reference model (`switches`, fields of `reference.dialects.Dialect`), or an
explainer that can fail (`explains`, one of `EXPLAINERS`). An engine's expected behaviour is then Flink's
semantics plus its listed divergences: a difference between the engine's observation of a case and Flink's is
*explained* when the engine agrees with the dialect made of some of them (or an explainer accounts for what the
dialect leaves), where the list's other switches change nothing on the case (the engine runs all its rules at
once, so a bug that looks like the engine less one of them is no divergence of it), and `attribute` reports the
smallest such set, or the part left unexplained, as a delta.

A list holds the engine's joins of two streams beside its windows: an entry whose `case` is a file of join cases
(`<name>.join.json`, `join-case/1`) is a *join divergence*. A join case is attributed to the list's join
divergences, a window case to its window divergences: an engine's join is an operator of its own, whose rules the
list states on join cases. A join divergence's switches make the dialect the join model runs in
(`reference.joins.simulate_join`): those of `reference.dialects.joins` change the two-input operators (the interval
join's, Flink SQL's), the others the window operator a window join or coGroup runs over the union of its inputs.
Its explainer is `accepts`, `rejects`, `message` or `fails`, over the join's observations (`join-observation/1`),
with a cause of `conformance.join_causes`.

The explainers, each over the case, the observation a dialect predicts (Flink's, with no switch), the engine's
and the dialect, each checking a cause on the case before it explains anything, and answering with that cause in
words (`None` where it does not explain):

- `accepts` (`rules`): Flink rejects the job for these rules (`window_contract.rules`: the preconditions that
  fail, as the model names them, not Flink's words, which several rules share), each of them one that this entry
  or another `accepts` of the list names; the engine runs it.
- `rejects` (`message`, `cause`): the engine rejects a job, with a message matching it, for a reason of its own
  (`conformance.causes`) that holds on the case: a job Flink runs, or one Flink rejects for another rule.
- `message` (`message`, `rules`): both fail the same way (the same error kind) for one of these rules, in the
  engine's words, which match `message`.
- `fails` (`message`, `cause`): the engine fails at run time with a message matching it (a crash or a stall of
  the engine, or an adapter's stop), where Flink does not fail so, and the cause holds on the case.
- `beyond` (`limit`, `listed_end_of_time`): the engine's time ends at `limit`: the case holds a time of larger
  magnitude, and the observations agree on everything that involves no time beyond it (the windows, records and
  watermarks past it are left out; a lateness is no time the engine holds, and a listed `Watermark(Long.MAX_VALUE)`
  is the end of input unless `listed_end_of_time`); or the engine fails at the first event whose time lies
  beyond, having emitted nothing Flink does not emit before it; or it rejects a job whose own parameters (a
  size, a slide, a bound) lie beyond, in the words `rejects` matches.
- `days_wrap`: the engine's firings are the dialect's with each window's start and end read back as a
  `LocalDateTime` with an `int` count of days (`TimestampData.toLocalDateTime`, Flink SQL's `TIMESTAMP(3)`), which
  wraps beyond 2^31 days; some bound wraps.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
import tomllib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from conformance.causes import CAUSES, Cause
from conformance.committed import committed
from conformance.join_causes import JOIN_CAUSES, JoinCause, on_union
from conformance.usage import UsageError
from reference.dialects import FLINK, Dialect
from reference.implementation import simulate
from reference.javalong import l2i, ldiv, lrem
from reference.joins import simulate_join
from window_contract.case import Case, Kind, ProcessingTime, Record, Watermark
from window_contract.case_json import JOIN_CASES_SUFFIX, load_cases
from window_contract.delta import delta, join_delta
from window_contract.equivalence import OUTPUTS, as_compared, comparable, equivalent
from window_contract.facts import LONG_MAX
from window_contract.join_case import JoinCase
from window_contract.join_case_json import load_join_cases
from window_contract.join_observation import JoinObservation, join_equivalent
from window_contract.observation import Observation, TimeWindow
from window_contract.rules import RULES

ENGINES = committed("cases/engines")
LIST = "divergences.toml"
#: What `--divergences` without a file means: the engine's own list.
DEFAULT_LIST = Path(LIST)


@dataclass(frozen=True)
class Difference:
    """What an engine observed of `case` (`actual`) beside what a dialect of the model predicts (`expected`);
    `positions`: whether the engine tells when it emits (not position-free). A join divergence's explainer is
    given a join case and its observations."""

    case: Case | JoinCase
    expected: Observation | JoinObservation
    actual: Observation | JoinObservation
    dialect: Dialect = FLINK
    positions: bool = True
    #: Every rule of Flink's that the engine's list says it accepts (its `accepts` entries together).
    accepted: frozenset[str] = frozenset()


#: An explainer: the cause, in words, by which it accounts for the whole of a difference, or None.
Explainer = Callable[[Difference], str | None]


def _error_of(kind: str, pattern: str, observation: Observation) -> bool:
    error = observation.error
    return error is not None and error.kind == kind and re.search(pattern, error.message) is not None


def _rejected(observation: Observation) -> bool:
    return observation.error is not None and observation.error.kind == "invalid_spec"


def accepts(rules: Sequence[str]) -> Explainer:
    def explains(d: Difference) -> str | None:
        broken = d.expected.error.rules if _rejected(d.expected) else ()
        if set(broken) & set(rules) and set(broken) <= set(rules) | d.accepted and not _rejected(d.actual):
            return f"Flink rejects the job for {', '.join(broken)}"
        return None
    return explains


def rejects(message: str, cause: Cause) -> Explainer:
    def explains(d: Difference) -> str | None:
        if _error_of("invalid_spec", message, d.actual):
            return cause(d.case, d.dialect)
        return None
    return explains


def message(message: str, rules: Sequence[str]) -> Explainer:
    def explains(d: Difference) -> str | None:
        expected, actual = d.expected.error, d.actual.error
        if expected is not None and actual is not None and expected.kind == actual.kind \
                and _error_of(actual.kind, message, d.actual):
            broken = [rule for rule in expected.rules if rule in rules]
            return f"both fail for {', '.join(broken)}" if broken else None
        return None
    return explains


def fails(message: str, cause: Cause) -> Explainer:
    def explains(d: Difference) -> str | None:
        if _error_of("runtime", message, d.actual) and (
                d.expected.error is None or d.expected.error.message != d.actual.error.message):
            return cause(d.case, d.dialect)
        return None
    return explains


def beyond(limit: int, listed_end_of_time: bool = False, rejects: str | None = None) -> Explainer:
    def explains(d: Difference) -> str | None:
        if _rejected(d.actual) and not _rejected(d.expected):  # the job itself names a time the engine lacks
            if rejects is None or not _error_of("invalid_spec", rejects, d.actual):
                return None
            far = [v for v in parameters(d.case) if abs(v) > limit]
            return f"the job's parameter {far[0]:,} lies beyond {limit:,}" if far else None
        events = [i for i, t in event_times(d.case, listed_end_of_time) if abs(t) > limit]
        if not events and all(abs(v) <= limit for v in parameters(d.case)):
            return None
        expected, actual = within(d.expected, limit), within(d.actual, limit)
        if events and d.actual.error is not None and d.actual.error.kind == "runtime" \
                and d.expected.error != d.actual.error:
            # the engine stops at the first time it cannot hold: what it emitted, Flink emits before that event
            expected, actual = as_compared(comparable(expected, events[0]) if d.positions else expected, actual,
                                           d.positions)
            if all(Counter(getattr(actual, part)) <= Counter(getattr(expected, part)) for part in OUTPUTS):
                return f"the engine fails at event {events[0]}, whose time lies beyond {limit:,}"
            return None
        if equivalent(expected, actual, d.positions):
            return f"what differs lies beyond {limit:,}"
        return None
    return explains


def within(observation: Observation, limit: int) -> Observation:
    """What of `observation` involves no time beyond `limit`: the firings of time windows whose bounds are within
    it (the global window's timestamp is its own), and the late and dropped records whose timestamps are, with
    no failure at run time (an engine whose time ends fails on what lies beyond it); a rejection stays."""
    def inside(*values: int) -> bool:
        return all(abs(v) <= limit for v in values)
    error = observation.error
    return replace(
        observation, error=error if error is not None and error.kind == "invalid_spec" else None, watermarks=None,
        firings=tuple(f for f in observation.firings
                      if not isinstance(f.window, TimeWindow) or inside(f.window.start, f.window.end, f.timestamp)),
        late=tuple(r for r in observation.late if inside(r.ts)),
        dropped=tuple(r for r in observation.dropped if inside(r.ts)))


DAY = 86_400_000


def as_local_date_time(millis: int) -> int:
    """`millis` as `TimestampData.fromEpochMillis(millis).toLocalDateTime()` reads it back (in UTC): an `int`
    count of days (`(int) (millis / DAY)`, which wraps) and a time of day (a negative one borrowing a day)."""
    date, time = l2i(ldiv(millis, DAY)), l2i(lrem(millis, DAY))
    if time < 0:
        date, time = l2i(date - 1), time + DAY
    return date * DAY + time


#: Strictly within this many milliseconds of 0 a time's count of days, and the day before it, fit an `int`:
#: `as_local_date_time` reads it back unchanged.
DAYS_FIT = (2**31 - 1) * DAY


def read_as_days(observation: Observation) -> Observation:
    """`observation` with each time window's bounds read back as `as_local_date_time` reads them (itself when no bound
    leaves `DAYS_FIT`, as nearly none does)."""
    if all(not isinstance(f.window, TimeWindow) or (abs(f.window.start) < DAYS_FIT and abs(f.window.end) < DAYS_FIT)
           for f in observation.firings):
        return observation
    return replace(observation, firings=tuple(
        replace(f, window=TimeWindow(as_local_date_time(f.window.start), as_local_date_time(f.window.end)))
        if isinstance(f.window, TimeWindow) else f for f in observation.firings))


def days_wrap() -> Explainer:
    def explains(d: Difference) -> str | None:
        read = read_as_days(d.expected)
        wrapped = sum(a.window != b.window for a, b in zip(read.firings, d.expected.firings, strict=True))
        return f"{wrapped} window bounds wrap past 2^31 days" if wrapped and equivalent(read, d.actual) else None
    return explains


#: The explainers a list may name, by `kind`, with the parameters each takes.
EXPLAINERS: dict[str, Callable[..., Explainer]] = {
    "accepts": accepts, "rejects": rejects, "message": message, "fails": fails, "beyond": beyond}
EXPLAINERS["days_wrap"] = days_wrap
#: Those a join divergence may name: the ones that read only the observations' errors (and a cause on the case).
JOIN_EXPLAINERS = ("accepts", "rejects", "message", "fails")


def parameters(case: Case) -> Iterable[int]:
    """Every time the job's specification holds: its window's, trigger's, evictor's and watermark generator's."""
    for part in (case.window, case.trigger, case.evictor, case.watermark_generator):
        if isinstance(part, Kind):
            yield from part.parameters()


def event_times(case: Case, listed_end_of_time: bool) -> Iterable[tuple[int, int]]:
    """The times of `case`'s events by position: its records' timestamps, its listed watermarks and its clock. A
    listed `Watermark(Long.MAX_VALUE)` only where the engine takes it as a time (`listed_end_of_time`), not as the
    end of input. Not the allowed lateness: no engine whose time ends adds it to a time (Beam's Python integers
    do not overflow, and the others declare no lateness)."""
    for i, event in enumerate(case.events):
        if isinstance(event, Record):
            yield i, event.ts
        elif isinstance(event, Watermark) and (event.timestamp != LONG_MAX or listed_end_of_time):
            yield i, event.timestamp
        elif isinstance(event, ProcessingTime):
            yield i, event.time


@dataclass(frozen=True)
class Divergence:
    """One listed way an engine departs from Flink."""

    id: str
    title: str
    case_file: Path
    switches: dict[str, Any] = field(default_factory=dict)
    explainer: Explainer | None = None
    #: The rules of an `accepts` entry.
    accepted: frozenset[str] = frozenset()
    #: The explainer as the list writes it (`kind` and its parameters), for the porting pages to describe.
    explains: dict[str, Any] = field(default_factory=dict)

    @property
    def is_switch(self) -> bool:
        return bool(self.switches)

    @property
    def is_join(self) -> bool:
        """Whether its case is a file of join cases: a divergence of the engine's joins."""
        return self.case_file.name.endswith(JOIN_CASES_SUFFIX)

    def cases(self) -> list[Case] | list[JoinCase]:
        """The cases of its file: join cases for a join divergence."""
        return load_join_cases(self.case_file) if self.is_join else load_cases(self.case_file)


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
        join = str(entry["case"]).endswith(JOIN_CASES_SUFFIX)
        explainer, kind = None, None
        if "explains" in entry:
            params = dict(entry["explains"])
            kind = params.pop("kind", None)
            kinds = JOIN_EXPLAINERS if join else tuple(EXPLAINERS)
            if kind not in kinds:
                raise DivergenceListError(f"{where}: explains.kind must be one of {', '.join(kinds)}"
                                          + (" (a join divergence's, its case a join case file)" if join else ""))
            try:
                explainer = EXPLAINERS[kind](**_parameters(params, where, join))
            except TypeError as e:
                raise DivergenceListError(f"{where}: explains: {e}") from None
        found.append(Divergence(entry["id"], entry["title"], path.parent / entry["case"],
                                dict(entry.get("switches", {})), explainer,
                                frozenset(entry["explains"].get("rules", ()) if kind == "accepts" else ()),
                                dict(entry.get("explains", {}))))
    return found


def _parameters(params: dict[str, Any], where: str, join: bool = False) -> dict[str, Any]:
    """An explainer's parameters as the list writes them, its `cause` made a `conformance.causes.Cause` (for a join
    divergence, one of `conformance.join_causes`, or a window cause on a window join's union) and its `rules`
    checked against `window_contract.rules`."""
    unknown = [rule for rule in params.get("rules", ()) if rule not in RULES]
    if unknown:
        raise DivergenceListError(f"{where}: explains.rules: {', '.join(unknown)} is no rule of window_contract.rules")
    if "cause" in params:
        try:
            params = {**params, "cause": listed_cause(params["cause"], join)}
        except LookupError as e:
            raise DivergenceListError(f"{where}: explains.cause must name one of {e.args[0]}") from None
        except TypeError as e:
            raise DivergenceListError(f"{where}: explains.cause: {e}") from None
    return params


def listed_cause(cause: str | dict[str, Any], join: bool = False) -> Cause | JoinCause:
    """The cause a list names (`name` or `{ name = ..., parameters }`): a window divergence's of
    `conformance.causes`, a join divergence's of `conformance.join_causes` or a window cause on a window join's
    union. An unknown name raises `LookupError` with the names known, wrong parameters `TypeError`."""
    params = dict(cause) if isinstance(cause, dict) else {"name": cause}
    name = params.pop("name", None)
    known = {**JOIN_CAUSES, **CAUSES} if join else CAUSES
    if name not in known:
        raise LookupError(", ".join(known))
    made = known[name](**params)
    return on_union(made) if join and name not in JOIN_CAUSES else made


@dataclass(frozen=True)
class Attribution:
    """Which listed divergences explain how the engine's observation of `case` differs from Flink's: the
    smallest set (`()` when they agree), or `None` and what is left (`unexplained`, a delta from Flink's)."""

    case: Case | JoinCase
    explained_by: tuple[str, ...] | None
    #: Makes what is left unexplained (`unexplained`) when it is asked for: a delta costs more than finding that
    #: nothing explains the case (the engine mutants ask whether thousands are explained, never what is left).
    leftover: Callable[[], dict[str, Any]] | None = field(default=None, repr=False, compare=False)
    #: The cause that held on the case, in words, for the explainer among `explained_by` (none for switches).
    cause: str | None = None

    @property
    def agrees(self) -> bool:
        return self.explained_by == ()

    @functools.cached_property
    def unexplained(self) -> dict[str, Any] | None:
        """What no divergence explains: the delta of the engine's observation from Flink's (`None` if explained)."""
        return None if self.leftover is None else self.leftover()

    def to_json(self, label: str) -> dict[str, Any]:
        return {"case": label, "explained_by": None if self.explained_by is None else list(self.explained_by),
                "cause": self.cause, "unexplained": self.unexplained}


def explained(label: str, found: Attribution) -> str:
    """One line for a case that differs: the divergences that explain it, or what is left, in words."""
    if found.explained_by is not None:
        because = f" ({found.cause})" if found.cause else ""
        return f"EXPLAINED {label}: {', '.join(found.explained_by) or 'agrees'}{because}"
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


def completions(chosen: Sequence[Divergence], switch_divergences: Sequence[Divergence]) -> list[tuple[Divergence, ...]]:
    """The largest consistent sets of the list's switch divergences that hold `chosen`: the dialects the engine
    really runs, all its rules at once (one value of a switch that two entries set apart, as Hazelcast Jet's
    `late_records` for sliding windows and for sessions: one completion each)."""
    rest = [d for d in switch_divergences if d not in chosen and _consistent((*chosen, d))]
    if _consistent(rest):
        return [(*chosen, *rest)]
    sets = [c for n in range(len(rest) + 1) for c in itertools.combinations(rest, n) if _consistent(c)]
    ids = [{d.id for d in c} for c in sets]
    return [(*chosen, *c) for c, own in zip(sets, ids, strict=True) if not any(own < other for other in ids)]


def dialect_of(chosen: Iterable[Divergence]) -> Dialect:
    return Dialect(**{name: value for d in chosen for name, value in d.switches.items()})


@dataclass(frozen=True)
class Model:
    """How a kind of case is predicted and compared: `predict(dialect)` the model's observation of the case in a
    dialect, `same` equivalence, `delta` what is left unexplained."""

    predict: Callable[[Dialect], Any]
    same: Callable[[Any, Any], bool]
    delta: Callable[[Any, Any], dict[str, Any]]


def model_of(case: Case | JoinCase, positions: bool = True) -> Model:
    """The window model for a window case (`simulate`, compared with or without positions), the join model for a
    join case (`simulate_join`; a position-free engine's join observation says so itself: no watermarks)."""
    if isinstance(case, JoinCase):
        return Model(lambda dialect: simulate_join(case, dialect), join_equivalent, join_delta)
    return Model(lambda dialect: simulate(case, dialect=dialect), lambda a, b: equivalent(a, b, positions),
                 lambda a, b: delta(a, b, positions))


def attribute(case: Case | JoinCase, flink: Observation | JoinObservation, actual: Observation | JoinObservation,
              divergences: Sequence[Divergence], positions: bool = True, prefer: str | None = None,
              predicted: dict[tuple[str, ...], tuple[Dialect, Observation]] | None = None) -> Attribution:
    """The smallest set of `divergences` that explains `actual` (the engine's observation of `case`), where
    `flink` is Flink's; `positions`: whether the engine tells when it emits (not position-free). A window case
    is attributed to the list's window divergences, a join case to its join divergences. Of sets of
    one size, one with the divergence `prefer` (a divergence's own case: the one it documents) is chosen.
    `predicted` keeps the dialects and their observations of `case` (by the ids of their switch divergences) for
    the next call on the same case and list, as the engine mutants make many (`conformance.mutation.engines`)."""
    model = model_of(case, positions)
    divergences = [d for d in divergences if d.is_join == isinstance(case, JoinCase)]
    accepted = frozenset(rule for d in divergences for rule in d.accepted)
    switch_divergences = [d for d in divergences if d.is_switch]
    # the model's own predictions, Flink's included: they name the rules an error comes from
    predicted = {} if predicted is None else predicted

    def prediction(chosen: Sequence[Divergence]) -> tuple[Dialect, Observation]:
        switches = tuple(sorted(d.id for d in chosen if d.is_switch))
        if switches not in predicted:
            dialect = dialect_of(chosen)
            predicted[switches] = dialect, model.predict(dialect)
        return predicted[switches]

    def whole(chosen: Sequence[Divergence]) -> bool:
        """Whether the engine's other switches change nothing on the case: it runs all its rules, not some. A
        completion that meets Flink's check of a merge behind the watermark (an `IllegalStateException` of
        Flink's merge function, which no engine under test has; its rules combined can reach it near
        `Long.MAX_VALUE`) tells nothing against the rules chosen."""
        own = prediction(chosen)[1]
        for every in completions(chosen, switch_divergences):
            theirs = prediction(every)[1]
            if model.same(own, theirs) or (
                    theirs.error is not None and "merge.behind_watermark" in theirs.error.rules
                    and (own.error is None or "merge.behind_watermark" not in own.error.rules)):
                return True
        return False

    if model.same(flink, actual) and whole(()):
        return Attribution(case, ())
    for chosen in candidates(divergences, prefer):
        dialect, expected = prediction(chosen)
        explainer = next((d for d in chosen if d.explainer is not None), None)
        if explainer is None:
            if model.same(expected, actual) and whole(chosen):
                return Attribution(case, tuple(d.id for d in chosen))
        elif cause := explainer.explainer(Difference(case, expected, actual, dialect, positions, accepted)):
            return Attribution(case, tuple(d.id for d in chosen), cause=cause)
    return Attribution(case, None, lambda: model.delta(flink, actual))
