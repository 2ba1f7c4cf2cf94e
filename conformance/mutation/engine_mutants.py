"""The catalogue of engine mutants: bugs injected into what an engine under test answers.

The reference's mutants (`catalogue`) prove that the property suite catches a wrong model; these prove that an
engine's divergence list (`cases/engines/<engine>/divergences.toml`) explains nothing but what it lists. An engine
is stood in for by the reference in its dialect (every switch its list names: `Engine.dialect`), so no engine
runs; each mutant injects one bug into that dialect's observation of a case, as a faulty adapter or engine would
give it, and `conformance.mutation.engines` asks the list to explain the difference. A bug that no listed
divergence is must stay unexplained.

A mutant fits the engines it can say something about: the bugs of timing only those that tell when they emit
(not position-free), the crashes only those that list a crash (a `fails` explainer), and so on. Where a mutant's
bug is the rule a divergence lists, the pairing is excluded (`listed`), with that divergence named.
"""

from __future__ import annotations

import re
import re._parser as regex_parser  # the parsed form of a pattern, to write a text each of its alternatives matches
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from conformance.divergences import Divergence, dialect_of, event_times, parameters
from reference.dialects import Dialect
from reference.implementation import simulate
from window_contract.case import Case, CountTrigger, Kind, Record, Session, Sliding, Tumbling, Watermark
from window_contract.case_json import load_cases
from window_contract.facts import LONG_MAX
from window_contract.observation import Error, GlobalWindow, LateRecord, Observation, TimeWindow


@dataclass(frozen=True)
class Engine:
    """An engine under test as its mutants see it: its list, the parameters of its explainers by divergence id
    (`kind` and the rest of the list's `explains`), whether it tells when it emits, and the features it declares."""

    name: str
    divergences: tuple[Divergence, ...]
    explains: Mapping[str, Mapping[str, Any]]
    positions: bool
    features: frozenset[str]

    @cached_property
    def dialect(self) -> Dialect:
        """The engine without a bug: the dialect of every switch its list names."""
        return dialect_of(d for d in self.divergences if d.is_switch)

    def texts(self, kind: str) -> tuple[str, ...]:
        """A text for each alternative of the `message` of each of the list's `kind` explainers."""
        return tuple(text for params in self.explains.values() if params["kind"] == kind
                     for text in texts_matching(params["message"]))

    def flink_rejections(self) -> tuple[str, ...]:
        """Flink's words for the rules the engine accepts: its rejections of the cases of the `accepts` entries."""
        return tuple(dict.fromkeys(
            case.expected.error.message for d in self.divergences if d.accepted for case in load_cases(d.case_file)
            if case.expected.error is not None and case.expected.error.kind == "invalid_spec"))


#: A bug: the observation the engine gives for the `n`-th case of the sample, from the one it gives without it.
Inject = Callable[[Case, Observation, Engine, int], Observation]


@dataclass(frozen=True)
class EngineMutant:
    name: str
    bug: str
    inject: Inject
    #: The engines the bug can be told on.
    fits: Callable[[Engine], bool] = lambda engine: True
    #: The job the engine is given for a drawn case, where the bug is in how it runs another job than the one drawn
    #: (`None` from it: none for this case).
    job: Callable[[Case], Case | None] = lambda case: case
    #: The divergence of an engine's list that names the bug itself (its pairing is not judged), or None.
    listed: Callable[[Engine], str | None] = lambda engine: None


# --- texts an engine's list names ------------------------------------------------------------------


def texts_matching(pattern: str) -> tuple[str, ...]:
    """Texts that `pattern` (a list's `message` or `flink`) finds, at least one for each of its alternatives: the
    words a mutant gives an engine when it fails or rejects as the list says it does."""
    texts = tuple(dict.fromkeys(t for t in _texts(list(regex_parser.parse(pattern))) if re.search(pattern, t)))
    if not texts:
        raise ValueError(f"no text written for the pattern {pattern!r}")
    return texts


def _texts(items: list) -> list[str]:
    """One text for each alternative of a parsed sequence: its parts' alternatives taken side by side."""
    parts = [_item_texts(op, value) for op, value in items]
    return ["".join(p[min(i, len(p) - 1)] for p in parts)
            for i in range(max((len(p) for p in parts), default=1))]


def _item_texts(op, value) -> list[str]:
    c = regex_parser
    if op is c.LITERAL:
        return [chr(value)]
    if op is c.AT:
        return [""]
    if op is c.ANY:
        return ["x"]
    if op is c.SUBPATTERN:
        return _texts(list(value[-1]))
    if op is c.BRANCH:
        return [t for alternative in value[1] for t in _texts(list(alternative))]
    if op in (c.MAX_REPEAT, c.MIN_REPEAT):
        least, _, sub = value
        return [t * least for t in _texts(list(sub))]
    if op is c.IN:
        return [_one_of(value)]
    raise ValueError(f"a pattern with {op} has no text written for it")


def _one_of(items: list) -> str:
    """A character of a class `[...]`: its first literal, range or category."""
    c = regex_parser
    for op, value in items:
        if op is c.LITERAL:
            return chr(value)
        if op is c.RANGE:
            return chr(value[0])
        if op is c.CATEGORY:
            return {c.CATEGORY_DIGIT: "0", c.CATEGORY_SPACE: " "}.get(value, "a")
    raise ValueError(f"a character class {items} has no character written for it")


# --- what a case holds ---------------------------------------------------------------------------


def records(case: Case) -> Iterator[tuple[int, Record]]:
    return ((at, e) for at, e in enumerate(case.events) if isinstance(e, Record))


def holds(window, ts: int) -> bool:
    return isinstance(window, GlobalWindow) or window.start <= ts < window.end


def fired(record: Record, observed: Observation) -> bool:
    return any(f.key == record.key and record.value in f.values and holds(f.window, record.ts)
               for f in observed.firings)


def reported_late(record: Record, observed: Observation) -> bool:
    return any((r.key, r.value, r.ts) == (record.key, record.value, record.ts)
               for r in observed.late + observed.dropped)


#: Times a case that plainly runs stays within: far from the ends of any engine's time.
SMALL = 2**31
#: The window ends a case that plainly runs may span, and the windows its records may be in.
FEW_WINDOWS = 1_000


def plainly_runs(case: Case, observed: Observation) -> bool:
    """Whether the engine's dialect runs `case` to its end with none of the causes its crashes are listed for:
    no error, every record fired or reported late (none left in a window no trigger fires, none in no window),
    small times and few windows (no time near the end of the range, no walk over thousands of window ends)."""
    times = [*parameters(case), case.allowed_lateness, *(t for _, t in event_times(case, listed_end_of_time=True))]
    if observed.error is not None or any(abs(v) >= SMALL for v in times):
        return False
    if not all(fired(r, observed) or reported_late(r, observed) for _, r in records(case)):
        return False
    step = {Tumbling: "size", Sliding: "slide", Session: "gap"}.get(type(case.window))
    if step is None:
        return True
    times = [e.ts if isinstance(e, Record) else e.timestamp for e in case.events if isinstance(e, Record | Watermark)]
    per_record = -(-case.window.size // case.window.slide) if isinstance(case.window, Sliding) else 1
    return ((max(times, default=0) - min(times, default=0)) // getattr(case.window, step) <= FEW_WINDOWS
            and per_record * sum(1 for _ in records(case)) <= FEW_WINDOWS)


def watermark_positions(case: Case, observed: Observation) -> list[tuple[int, int]]:
    """Where the operator receives a watermark, and which: the observed ones where the case observes them, else
    its listed watermarks and the end of input's `Long.MAX_VALUE`."""
    if observed.watermarks is not None:
        return [(w.at, w.watermark) for w in observed.watermarks]
    listed = [(at, e.timestamp) for at, e in enumerate(case.events) if isinstance(e, Watermark)]
    return listed + ([(len(case.events), LONG_MAX)] if case.end_of_input else [])


# --- the bugs ------------------------------------------------------------------------------------


def last_firing_dropped(case: Case, observed: Observation, engine: Engine, n: int) -> Observation:
    return replace(observed, firings=observed.firings[:-1])


def window_end_one_later(case: Case, observed: Observation, engine: Engine, n: int) -> Observation:
    return replace(observed, firings=tuple(
        replace(f, window=TimeWindow(f.window.start, f.window.end + 1)) if isinstance(f.window, TimeWindow) else f
        for f in observed.firings))


def firing_duplicated(case: Case, observed: Observation, engine: Engine, n: int) -> Observation:
    return replace(observed, firings=observed.firings + observed.firings[:1])


def value_changed(case: Case, observed: Observation, engine: Engine, n: int) -> Observation:
    if not observed.firings:
        return observed
    first = observed.firings[0]
    return replace(observed, firings=(replace(first, values=(first.values[0] + 1, *first.values[1:])),
                                      *observed.firings[1:]))


def on_time_record_late(case: Case, observed: Observation, engine: Engine, n: int) -> Observation:
    """The first record that fired leaves every firing of its key whose window holds it, and is reported late."""
    found = next(((at, r) for at, r in records(case) if fired(r, observed)), None)
    if found is None:
        return observed
    at, record = found
    firings = []
    for f in observed.firings:
        if f.key == record.key and record.value in f.values and holds(f.window, record.ts):
            values = list(f.values)
            values.remove(record.value)
            f = replace(f, values=tuple(values))
        if f.values:
            firings.append(f)
    part = "late" if case.late_side_output else "dropped"
    return replace(observed, firings=tuple(firings),
                   **{part: getattr(observed, part) + (LateRecord(at, record.key, record.value, record.ts),)})


def firing_one_watermark_later(case: Case, observed: Observation, engine: Engine, n: int) -> Observation:
    """The first firing that a later watermark could bring comes at that watermark instead."""
    received = watermark_positions(case, observed)
    for i, f in enumerate(observed.firings):
        later = next(((at, w) for at, w in received if at > f.at), None)
        if later is not None:
            at, w = later
            moved = replace(f, at=at, watermark=w if f.watermark is None else max(f.watermark, w))
            return replace(observed, firings=(*observed.firings[:i], *observed.firings[i + 1:], moved))
    return observed


def late_record_lost(case: Case, observed: Observation, engine: Engine, n: int) -> Observation:
    """The first record Flink reports late (side output, else dropped) is neither output nor counted."""
    if observed.late:
        return replace(observed, late=observed.late[1:])
    return replace(observed, dropped=observed.dropped[1:])


def late_record_kept(case: Case, observed: Observation, engine: Engine, n: int) -> Observation:
    """The first late record joins the last firing of its key whose window holds it, instead of being late."""
    for part in ("late", "dropped"):
        for i, r in enumerate(getattr(observed, part)):
            last = max((j for j, f in enumerate(observed.firings) if f.key == r.key and holds(f.window, r.ts)),
                       default=None)
            if last is not None:
                firings = list(observed.firings)
                firings[last] = replace(firings[last], values=(*firings[last].values, r.value))
                return replace(observed, firings=tuple(firings),
                               **{part: getattr(observed, part)[:i] + getattr(observed, part)[i + 1:]})
    return observed


def crash_without_cause(case: Case, observed: Observation, engine: Engine, n: int) -> Observation:
    """A case that plainly runs fails at the end of input with one of the texts of the engine's listed crashes
    (the `n`-th in turn); what it emitted before stays."""
    if not plainly_runs(case, observed):
        return observed
    texts = engine.texts("fails")
    end = len(case.events)
    return Observation(*(tuple(o for o in getattr(observed, part) if o.at < end)
                         for part in ("firings", "late", "dropped")),
                       Error("runtime", texts[n % len(texts)]),
                       None if observed.watermarks is None else tuple(w for w in observed.watermarks if w.at < end))


def plain_job(case: Case) -> bool:
    """Whether `case` is a job none of the engines' own rules rejects: a tumbling or session window (their rules
    hold a sliding window's size and slide against each other) and no count trigger below 1."""
    return isinstance(case.window, Tumbling | Session) and all(
        t.count >= 1 for t in nested(case.trigger) if isinstance(t, CountTrigger))


def nested(kind: Kind | None) -> Iterator[Kind]:
    """`kind` and every kind within it (a purging trigger's inner trigger)."""
    if kind is not None:
        yield kind
        for part in kind.parts():
            yield from nested(part)


def rejected(texts: Callable[[Engine], tuple[str, ...]], jobs: Callable[[Case], bool]) -> Inject:
    """Every job of `jobs` that the engine runs is rejected with one of `texts` (the `n`-th in turn)."""
    def inject(case: Case, observed: Observation, engine: Engine, n: int) -> Observation:
        if not jobs(case) or observed.error is not None and observed.error.kind == "invalid_spec":
            return observed
        words = texts(engine)
        return Observation.invalid_spec(words[n % len(words)])
    return inject


def slide_negated(case: Case) -> Case | None:
    """A drawn sliding window's job with its slide negated, which Flink rejects in the words it rejects an offset
    out of range with (`SlidingEventTimeWindows`: "abs(offset) < slide and size > 0")."""
    w = case.window
    return replace(case, window=replace(w, slide=-w.slide)) if isinstance(w, Sliding) and w.slide > 0 else None


def negative_slide_runs(case: Case, observed: Observation, engine: Engine, n: int) -> Observation:
    """A sliding window with a negative slide runs as if the slide were positive (where the engine runs that)."""
    w = case.window
    positive = simulate(replace(case, window=replace(w, slide=-w.slide)), dialect=engine.dialect)
    return observed if positive.error is not None else positive


def time_ends_at_last_record(case: Case, observed: Observation, engine: Engine, n: int) -> Observation:
    """The engine's time ends at the case's largest record timestamp: a window that ends later never fires (the
    engine's time limit, hit on small times)."""
    last = max((r.ts for _, r in records(case)), default=None)
    if last is None:
        return observed
    return replace(observed, firings=tuple(f for f in observed.firings
                                           if not isinstance(f.window, TimeWindow) or f.window.end <= last))


def lists(kind: str) -> Callable[[Engine], bool]:
    return lambda engine: any(params["kind"] == kind for params in engine.explains.values())


CATALOGUE = [
    EngineMutant("last_firing_dropped", "the last firing of the case is lost", last_firing_dropped),
    EngineMutant("window_end_one_later", "every firing's window ends one millisecond later", window_end_one_later),
    EngineMutant("firing_duplicated", "the first firing is emitted twice", firing_duplicated),
    EngineMutant("value_changed", "the first firing's smallest value is one more", value_changed),
    EngineMutant("on_time_record_late", "the first record that fired is reported late instead", on_time_record_late),
    EngineMutant("firing_one_watermark_later", "the first firing comes at the next watermark instead",
                 firing_one_watermark_later, fits=lambda engine: engine.positions),
    EngineMutant("late_record_lost", "the first late record is neither output nor counted as dropped",
                 late_record_lost),
    EngineMutant("late_record_kept", "the first late record joins its window's last firing instead",
                 late_record_kept),
    EngineMutant("crash_without_cause", "a case that plainly runs fails with the text of a listed crash",
                 crash_without_cause, fits=lists("fails")),
    EngineMutant("rejected_with_listed_rejection", "every plain job (tumbling or session windows) is rejected with "
                 "the text of a listed rejection", rejected(lambda engine: engine.texts("rejects"), plain_job),
                 fits=lists("rejects")),
    EngineMutant("rejected_with_accepted_rule", "every job is rejected with Flink's text of a rule listed as "
                 "accepted", rejected(Engine.flink_rejections, lambda case: True), fits=lists("accepts")),
    EngineMutant("negative_slide_runs", "a sliding window with a negative slide runs as if it were positive (Flink "
                 "rejects it in the words of the offset's rule)", negative_slide_runs, job=slide_negated,
                 fits=lambda engine: lists("accepts")(engine) and "assigner.sliding" in engine.features,
                 listed=lambda engine: next((d.id for d in engine.divergences if "sliding.slide" in d.accepted), None)),
    EngineMutant("time_ends_at_last_record", "the engine's time ends at the largest record timestamp: a window "
                 "that ends later never fires", time_ends_at_last_record, fits=lists("beyond")),
]

MUTANTS = {m.name: m for m in CATALOGUE}
