"""The `window-case/1` JSON format (docs/format.md): validated loading. (The canonical dump stands
beside the classes it writes, in `window_contract.case`.)

Loading reports every problem by JSON path and rule (`CaseFormatError`). It checks the format, not
Flink's job-time preconditions: a tumbling window with `size: 0` loads, and every implementation
must answer it with an `invalid_spec` observation carrying Flink's message.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, get_args, get_type_hints

from window_contract.case import (
    ALIGNED_ASSIGNERS,
    ASSIGNERS,
    CASE_FORMAT,
    EVENTS,
    EVICTORS,
    GENERATORS,
    MERGING_ASSIGNERS,
    TRIGGERS,
    AfterEndOfWindowTrigger,
    Case,
    Count,
    CountEvictor,
    DeltaEvictor,
    DeltaFunction,
    EndOfChannel,
    Event,
    EventTimeTrigger,
    EvictorSpec,
    GapExtractor,
    Global,
    Kind,
    NeverTrigger,
    ProcessingTime,
    ProcessingTimeTrigger,
    Session,
    Sliding,
    Time,
    TriggerSpec,
    Tumbling,
    Violates,
    Vocabulary,
    Watermark,
    WindowSpec,
    innermost_trigger,
    nested_triggers,
)
from window_contract.facts import LONG_MIN
from window_contract.observation_json import observation_from_json
from window_contract.validation import MISSING, CaseFormatError, Fields, Problems, parse_json

BYTE_ORDER_MARK = "\ufeff"

#: How deeply `purging` triggers may nest: far beyond any real job, far below Python's recursion limit.
MAX_TRIGGER_NESTING = 64


# --- loading ----------------------------------------------------------------------------------


def case_from_json(doc: Any, path: str = "$", source: str | None = None) -> Case:
    """One case from parsed JSON; raises `CaseFormatError` listing every problem."""
    problems = Problems()
    case = _read_case(doc, path, problems)
    problems.raise_if_any(source)
    return case


def violates_from_json(doc: Any, path: str = "$.violates") -> Violates:
    """A case's `violates` from parsed JSON; raises `CaseFormatError` listing every problem."""
    problems = Problems()
    violates = _read_violates(doc, path, problems)
    problems.raise_if_any(None)
    return violates


def cases_from_json(doc: Any, source: str | None = None) -> list[Case]:
    """A file's cases: one case, or `{"cases": [...]}`."""
    return read_cases(doc, _read_case, source)


def read_cases(doc: Any, read: Callable[[Any, str, Problems], Any], source: str | None = None) -> list:
    """A file's cases, each read by `read(doc, path, problems)`: one case, or `{"cases": [...]}`; raises
    `CaseFormatError` listing every problem."""
    problems = Problems()
    if isinstance(doc, dict) and "cases" in doc and "format" not in doc:
        f = Fields(doc, "$", problems)
        cases = f.take_list("cases", lambda item, p: read(item, p, problems))
        f.done()
    else:
        cases = [read(doc, "$", problems)]
    problems.raise_if_any(source)
    return cases


def load_cases(path: str | Path) -> list[Case]:
    """The cases of one file; a malformed file raises `CaseFormatError` naming the file."""
    return cases_from_json(parse_json(read_case_file(path), str(path)), str(path))


def read_case_file(path: str | Path) -> str:
    """The text of a case file; one that cannot be read, or starts with a byte order mark, raises `CaseFormatError`
    naming the file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise CaseFormatError([], f"{path}: cannot read: {e}") from None
    if text.startswith(BYTE_ORDER_MARK):
        raise CaseFormatError([], f"{path}: starts with a byte order mark (U+FEFF); a case file is UTF-8 "
                                  "without one, as JSON is written: save the file without it")
    return text


#: How a file of join cases (`join-case/1`, `window_contract.join_case_json`) is named: a folder's window cases
#: are its other `.json` files.
JOIN_CASES_SUFFIX = ".join.json"


def case_files(paths: list[str | Path]) -> Iterator[Path]:
    """The `.json` files named, and those found (sorted) in the folders named, but for files of join cases."""
    for p in map(Path, paths):
        if p.is_dir():
            yield from sorted(f for f in p.rglob("*.json") if not f.name.endswith(JOIN_CASES_SUFFIX))
        elif not p.name.endswith(JOIN_CASES_SUFFIX):
            yield p


def join_case_files(paths: list[str | Path]) -> list[Path]:
    """The files of join cases named, and those found (sorted) in the folders named."""
    found: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found += sorted(p.rglob(f"*{JOIN_CASES_SUFFIX}"))
        elif p.name.endswith(JOIN_CASES_SUFFIX):
            found.append(p)
    return found


def _read_case(doc: Any, path: str, problems: Problems) -> Case:
    f = Fields(doc, path, problems)
    fmt = f.take("format")
    if fmt not in (MISSING, CASE_FORMAT):
        problems.add(f.at("format"), f"must be {CASE_FORMAT!r}, not {fmt!r}")
    name = f.take_str("name", None, nullable=True)
    window = _read_kind(ASSIGNERS, f.take("window"), f.at("window"), problems) if f.ok else None
    trigger = _read_kind(TRIGGERS, f.take("trigger", None), f.at("trigger"), problems, optional=True)
    evictor = _read_kind(EVICTORS, f.take("evictor", None), f.at("evictor"), problems, optional=True)
    lateness = f.take_long("allowed_lateness", 0)
    side_output = f.take_bool("late_side_output", False)
    events = f.take_list("events", lambda item, p: _read_event(item, p, problems))
    end_of_input = f.take_bool("end_of_input", True)
    channels = f.take_long("channels", 1, minimum=1)
    generator = _read_kind(GENERATORS, f.take("watermark_generator", None), f.at("watermark_generator"), problems,
                           optional=True)
    expected_doc = f.take("expected", None)
    violates = _read_violates(f.take("violates", None), f.at("violates"), problems)
    f.done()
    expected = None
    if expected_doc is not None:
        try:
            expected = observation_from_json(expected_doc, f.at("expected"))
        except CaseFormatError as e:
            problems.found.extend(e.problems)
    if window is not None:
        _check_fit(window, trigger, evictor, path, problems)
    _check_clock(events, f.at("events"), problems)
    _check_channels(f, events, channels, generator is not None, problems)
    return Case(window=window or Global(), events=tuple(e for e in events if e is not None),
                trigger=trigger, evictor=evictor, allowed_lateness=lateness,
                late_side_output=side_output, end_of_input=end_of_input, channels=channels,
                watermark_generator=generator, name=name,
                expected=expected, violates=violates)


def _read_violates(doc: Any, path: str, problems: Problems) -> Violates | None:
    """The property a saved counterexample breaks, and the cases its rule compares it with."""
    if doc is None:
        return None
    f = Fields(doc, path, problems)
    name = f.take_str("property")
    batch = f.take_list("batch", lambda item, p: _read_case(item, p, problems), [])
    original = f.take("original", None)
    f.done()
    return Violates(name or "", tuple(batch),
                    None if original is None else _read_case(original, f.at("original"), problems))


def _read_kind(vocabulary: Vocabulary, doc: Any, path: str, problems: Problems, optional: bool = False,
               depth: int = 0) -> Any:
    """A kind of `vocabulary` (`{"<field>": tag, ...parameters}`), its fields read by their types."""
    if doc is None and optional:
        return None
    f = Fields(doc, path, problems)
    if not f.ok:
        return None
    tag = f.take_choice(vocabulary.field, vocabulary.tags)
    if tag is None:
        return None
    kind = vocabulary.by_tag[tag]
    found = len(problems.found)
    values = {name: _read_field(f, name, hint, default, problems, depth)
              for name, hint, default, _ in _parameters(kind)}
    f.done()
    return kind(**values) if len(problems.found) == found else None


def _read_field(f: Fields, name: str, hint: Any, default: Any, problems: Problems, depth: int) -> Any:
    """One parameter of a kind, read by its type: a long, a boolean, a time, a nested trigger."""
    if hint is bool:
        return f.take_bool(name, default)
    if hint == Time:
        return f.take_choice(name, get_args(Time), default)
    if hint == GapExtractor:
        return f.take_choice(name, get_args(GapExtractor), default)
    if hint == DeltaFunction:
        return f.take_choice(name, get_args(DeltaFunction), default)
    if hint is float:
        return f.take_double(name, default)
    if hint == TriggerSpec:
        if depth >= MAX_TRIGGER_NESTING:
            f.take(name)  # read, not unknown: too deep
            problems.add(f.at(name), f"triggers may nest at most {MAX_TRIGGER_NESTING} deep")
            return None
        return _read_kind(TRIGGERS, f.take(name), f.at(name), problems, depth=depth + 1)
    if hint == int | None:
        return None if f.take(name, None) is None else f.take_long(name)
    return f.take_long(name, default)


@functools.cache
def _parameters(kind: type[Kind]) -> list[tuple[str, Any, Any, int]]:
    """`(name, type, default, minimum)` of each field of `kind`; `MISSING` where the field is required."""
    hints = get_type_hints(kind)
    return [(f.name, hints[f.name], MISSING if f.default is dataclasses.MISSING else f.default,
             f.metadata.get("minimum", LONG_MIN)) for f in dataclasses.fields(kind)]


def _read_event(doc: Any, path: str, problems: Problems) -> Event | None:
    """An object with one event tag among its fields: `{"record": {...}}`, `{"watermark": t, "channel": n}`."""
    tags = [tag for tag in EVENTS.tags if isinstance(doc, dict) and tag in doc]
    if len(tags) != 1:
        problems.add(path, "must be an object with exactly one of the fields " + ", ".join(map(repr, EVENTS.tags)))
        return None
    kind = EVENTS.by_tag[tags[0]]
    found = len(problems.found)
    outer = Fields(doc, path, problems)
    inner = outer if kind.holds else Fields(outer.take(kind.tag), outer.at(kind.tag), problems)
    values = {}
    for name, hint, default, minimum in _parameters(kind):
        if name == kind.holds:
            values[name] = outer.take_long(kind.tag, minimum=minimum)
        elif hint is str:
            values[name] = inner.take_str(name)
        elif hint is bool:
            values[name] = inner.take_bool(name, default)
        else:
            values[name] = inner.take_long(name, default, minimum=minimum)
    inner.done()
    outer.done()
    return kind(**values) if len(problems.found) == found else None


def _check_channels(case_fields: Fields, events: list[Event | None], channels: int, generated: bool,
                    problems: Problems) -> None:
    """Every event names one of the case's channels, and none after its channel ended; with a
    watermark generator the watermarks are the generator's, so the case lists none (docs/format.md)."""
    ended: dict[int, int] = {}
    for i, event in enumerate(events):
        at = f"{case_fields.at('events')}[{i}]"
        channel = getattr(event, "channel", None)
        if channel is None:
            continue
        if channel >= channels:
            problems.add(at, f"names channel {channel}, but the case has {channels} (channels are 0 to "
                             f"{channels - 1})")
        elif channel in ended:
            problems.add(at, f"comes after channel {channel} ended (event {ended[channel]})")
        if isinstance(event, EndOfChannel):
            ended.setdefault(channel, i)
        if isinstance(event, Watermark) and generated:
            problems.add(at, "a case with a watermark_generator gets its watermarks from the generator, "
                             "not from watermark events")


def _check_clock(events: list[Event | None], path: str, problems: Problems) -> None:
    """Processing time starts at 0 and only moves forward (docs/format.md)."""
    now = 0
    for i, event in enumerate(events):
        if isinstance(event, ProcessingTime):
            if event.time < now:
                problems.add(f"{path}[{i}].processing_time",
                             f"processing time only moves forward: {event.time} < {now}")
            now = max(now, event.time)


def _check_fit(window: WindowSpec, trigger: TriggerSpec | None, evictor: EvictorSpec | None,
               path: str, problems: Problems) -> None:
    """Combinations the format cannot state meaningfully, or Java's types forbid: `EventTimeTrigger`
    and `ProcessingTimeTrigger` are `Trigger<Object, TimeWindow>`, `NeverTrigger` is
    `Trigger<Object, GlobalWindow>`, and `WindowedStream.trigger` only takes a trigger for its own
    window type. (Flink's own job-time rejections, such as `NeverTrigger` on merging session
    windows, are observations, not format errors.)"""
    inner = innermost_trigger(trigger)  # a wrapper takes its nested trigger's window type
    if isinstance(window, Global | Count) and isinstance(inner, EventTimeTrigger | ProcessingTimeTrigger):
        problems.add(f"{path}.trigger", "EventTimeTrigger and ProcessingTimeTrigger need time windows; "
                                        "the global window (and countWindow's) is not one")
    if isinstance(window, ALIGNED_ASSIGNERS) and isinstance(inner, NeverTrigger):
        problems.add(f"{path}.trigger", "NeverTrigger is GlobalWindows' trigger; it does not fit time windows")
    if isinstance(trigger, AfterEndOfWindowTrigger) and (not isinstance(window, Tumbling | Sliding | Session)
                                                          or evictor is not None):
        problems.add(f"{path}.trigger", "after_end_of_window is the emit strategy of Flink SQL's legacy group "
                                        "windows (TUMBLE, HOP, SESSION): tumbling, sliding or session windows, "
                                        "no evictor")
    if any(isinstance(nested, AfterEndOfWindowTrigger) for nested in list(nested_triggers(trigger))[1:]):
        problems.add(f"{path}.trigger", "after_end_of_window is a whole emit strategy: no trigger wraps it")
    if isinstance(window, MERGING_ASSIGNERS) and isinstance(evictor, DeltaEvictor):
        problems.add(f"{path}.evictor", "a delta evictor on merging (session) windows compares with the "
                                        "last element of the merged contents, whose order Flink's state "
                                        "backend leaves unspecified")
    if isinstance(window, MERGING_ASSIGNERS) and isinstance(evictor, CountEvictor):
        problems.add(f"{path}.evictor", "a count evictor on merging (session) windows depends on the "
                                        "order in which Flink's state backend merges window contents, "
                                        "which Flink leaves unspecified")
