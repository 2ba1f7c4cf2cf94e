"""The rare families of cases the strategies draw on purpose, named from a case's own values.

Most generated cases are small: a few keys, tiny windows, a short stream. Bugs also live where they
are not: near the `long` range's `extreme_values` threshold, in large counts, many windows per
element, look-alike keys, huge values, long streams and far watermarks. `families(case)` names the
families a case belongs to (without running it, unlike the situations of its trace), and the case
strategies report them with `hypothesis.event()`, so `--hypothesis-show-statistics` shows how often
each is reached.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterator

from strategies.specs import time_unit
from window_contract.case import (
    Case,
    ContinuousEventTimeTrigger,
    ContinuousProcessingTimeTrigger,
    Count,
    CountEvictor,
    CountTrigger,
    Global,
    PurgingTrigger,
    Record,
    Session,
    Sliding,
    TimeEvictor,
    Tumbling,
    Watermark,
    nested_triggers,
)
from window_contract.facts import EXTREME, LONG_MAX

#: Below the `extreme_values` threshold by at most this much is "just inside" it.
BAND_WIDTH = 2**61

#: The window sizes most cases use (`specs.small_sizes`).
USUAL_SIZES = frozenset(range(1, 11)) | {15, 60, 1000}


def _window_parameters(case: Case) -> list[int]:
    return [getattr(case.window, name) for name in ("size", "slide", "gap") if getattr(case.window, name, None)]


def _times(case: Case) -> list[int]:
    return [e.ts for e in case.records] + [e.timestamp for e in case.events
                                           if isinstance(e, Watermark) and e.timestamp != LONG_MAX]


def near_the_band(case: Case) -> bool:
    """A time or window parameter within `BAND_WIDTH` below `2^62` in magnitude (`extreme_values`
    starts at `2^62`)."""
    return any(EXTREME - BAND_WIDTH <= abs(v) < EXTREME for v in _times(case) + _window_parameters(case))


def continuous_on_global(case: Case) -> bool:
    """A continuous event-time trigger on the global window, which count windows are too."""
    return isinstance(case.window, Global | Count) and any(
        isinstance(t, ContinuousEventTimeTrigger) for t in nested_triggers(case.trigger))


def nested_purging(case: Case) -> bool:
    return isinstance(case.trigger, PurgingTrigger) and isinstance(case.trigger.inner, PurgingTrigger)


def large_count_window(case: Case) -> bool:
    w = case.window
    return isinstance(w, Count) and (w.size > 5 or (w.slide is not None and w.slide > w.size + 1))


def large_counts(case: Case) -> bool:
    return (any(isinstance(t, CountTrigger) and t.count > 4 for t in nested_triggers(case.trigger))
            or isinstance(case.evictor, CountEvictor) and case.evictor.max_count > 4)


def not_positive_counts(case: Case) -> bool:
    """A count of 0 or below (a count window's size or slide, `CountTrigger`), or a negative evictor
    size: Flink checks none of them."""
    w, e = case.window, case.evictor
    return (isinstance(w, Count) and (w.size <= 0 or (w.slide is not None and w.slide <= 0))
            or any(isinstance(t, CountTrigger) and t.count <= 0 for t in nested_triggers(case.trigger))
            or isinstance(e, CountEvictor) and e.max_count < 0
            or isinstance(e, TimeEvictor) and e.size < 0)


def zero_interval(case: Case) -> bool:
    """A continuous trigger with interval 0: Flink fails with "/ by zero"."""
    return any(isinstance(t, ContinuousEventTimeTrigger | ContinuousProcessingTimeTrigger) and t.interval == 0
               for t in nested_triggers(case.trigger))


def many_windows_per_element(case: Case) -> bool:
    w = case.window
    return isinstance(w, Sliding) and w.slide > 0 and w.size > 4 * w.slide


def unusual_sizes(case: Case) -> bool:
    """A time window whose size, slide or gap (the one a sliding size is a few of) is not one of the
    usual few."""
    return isinstance(case.window, Tumbling | Sliding | Session) and time_unit(case.window) not in USUAL_SIZES


def _keys(case: Case) -> set[str]:
    return {r.key for r in case.records}


def many_keys(case: Case) -> bool:
    return len(_keys(case)) > 3


def look_alike_keys(case: Case) -> bool:
    """Two keys that differ only in case, trailing spaces, accent composition or a NUL."""
    def plain(key: str) -> str:
        return unicodedata.normalize("NFC", key).casefold().rstrip().replace("\x00", "")
    keys = _keys(case)
    return len({plain(k) for k in keys}) < len(keys)


def values_beyond_doubles(case: Case) -> bool:
    """A record value a double cannot hold exactly (beyond `2^53`)."""
    return any(abs(r.value) > 2**53 for r in case.records)


def long_stream(case: Case) -> bool:
    return len(case.events) > 50


def _watermark_steps(case: Case) -> Iterator[tuple[int, int, int]]:
    """For every watermark below `Long.MAX_VALUE`: the previous watermark, the newest record time
    before it, and the watermark."""
    previous = newest = None
    for e in case.events:
        if isinstance(e, Record):
            newest = e.ts if newest is None else max(newest, e.ts)
        elif isinstance(e, Watermark) and e.timestamp != LONG_MAX:
            yield previous, newest, e.timestamp
            previous = e.timestamp if previous is None else max(previous, e.timestamp)


def lagging_watermark(case: Case) -> bool:
    """A watermark more than ten windows behind the newest record."""
    far = 10 * time_unit(case.window)
    return any(newest is not None and newest - w > far for _, newest, w in _watermark_steps(case))


def far_jump(case: Case) -> bool:
    """A watermark more than ten windows past the one before it."""
    far = 10 * time_unit(case.window)
    return any(previous is not None and w - previous > far for previous, _, w in _watermark_steps(case))


def end_of_time_midway(case: Case) -> bool:
    """`Watermark(Long.MAX_VALUE)` with events after it."""
    return any(isinstance(e, Watermark) and e.timestamp == LONG_MAX for e in case.events[:-1])


def huge_lateness(case: Case) -> bool:
    return 10**6 <= case.allowed_lateness < LONG_MAX


#: Each family's label (as the statistics show it) and its test.
FAMILIES: dict[str, Callable[[Case], bool]] = {
    "family: times or window parameters just inside +-2^62": near_the_band,
    "family: ContinuousEventTimeTrigger on the global window": continuous_on_global,
    "family: nested PurgingTrigger": nested_purging,
    "family: count window larger than 5 or slide > size + 1": large_count_window,
    "family: CountTrigger or CountEvictor above 4": large_counts,
    "family: count or evictor size of 0 or below": not_positive_counts,
    "family: continuous trigger interval 0 (/ by zero)": zero_interval,
    "family: sliding element in more than 4 windows": many_windows_per_element,
    "family: window size outside the usual few": unusual_sizes,
    "family: more than 3 keys": many_keys,
    "family: look-alike keys": look_alike_keys,
    "family: record values beyond 2^53": values_beyond_doubles,
    "family: more than 50 events": long_stream,
    "family: watermark lagging more than 10 windows": lagging_watermark,
    "family: watermark jumping more than 10 windows": far_jump,
    "family: Long.MAX_VALUE watermark midway": end_of_time_midway,
    "family: allowed lateness from 10^6 below Long.MAX_VALUE": huge_lateness,
}


def families(case: Case) -> list[str]:
    """The labels of the families `case` belongs to."""
    return [name for name, belongs in FAMILIES.items() if belongs(case)]
