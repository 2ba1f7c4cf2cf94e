"""Pathway 0.33 as an engine under test (`pathway`), run as a process in its own environment.

`./dev setup` installs `pathway` into `.venv-pathway` (the `pathway` extra, about 1.6 GB); the suite starts this module
there (`engines/venv_engines.py`) and speaks `window-process/1` with it (`engines/serving.py`). Pathway's dataflow
runs in Rust (differential dataflow): a panic or a computation that never ends is stopped only with its process.

Each Flink case becomes the computation a Pathway user writes for the same job, over a stream table of the case's
rows (`pw.debug.table_from_rows(..., is_stream=True)`: the i-th event arrives alone, at processing time `2 * (i + 1)`,
as a Flink operator sees one record at a time):

    t.windowby(t.ts, window=pw.temporal.tumbling(duration=size, origin=offset), instance=t.key,
               behavior=pw.temporal.exactly_once_behavior(shift=lag))
     .reduce(key=pw.this._pw_instance, start=pw.this._pw_window_start, end=pw.this._pw_window_end,
             values=pw.reducers.tuple(pw.this.value))

- **Assigners** (`pathway.stdlib.temporal`): `TumblingEventTimeWindows.of(size, offset)` is `tumbling(duration=size,
  origin=offset)`, `SlidingEventTimeWindows.of(size, slide, offset)` is `sliding(hop=slide, duration=size,
  origin=offset)` (an offset of 0 is no `origin`: Pathway's default aligns at 0 and keeps windows before it),
  `EventTimeSessionWindows.withGap(gap)` is `session(max_gap=gap)`. What a window rejects when the
  computation is built is the case's `invalid_spec`, in Pathway's words; what fails while it runs is a `runtime`
  error. The window function is `pw.reducers.tuple` of the values.
- **Time**: Pathway has no watermark. Each temporal operator keeps its own time, the largest value of its time
  column so far, for every instance at once (as Flink's watermark reaches every key), and updates it after each
  batch of input (`common_behavior`'s docstring).
- **Trigger**: Flink's event-time trigger fires a window once, when the watermark passes its `maxTimestamp`:
  `exactly_once_behavior(shift)`, which emits a window once, when the operator's time reaches `end + shift`, and
  ignores what comes for it later. Without a behavior Pathway emits an update for every record (the record is
  never late); `common_behavior(delay, cutoff, keep_results)` emits updates until `end + cutoff`.
- **Watermarks that Flink makes** (punctuated generators) are the shift: `forBoundedOutOfOrderness(bound)` fires a
  window once the largest timestamp reaches `end + bound` (`max - bound - 1 >= end - 1`): a shift of `bound`;
  the legacy `BoundedOutOfOrdernessTimestampExtractor` (`max - bound`) a shift of `bound - 1`;
  `forMonotonousTimestamps()` and the legacy `AscendingTimestampExtractor` a shift of 0.
- **Watermarks a case lists**: the operator's time moves only with the time column, so a Pathway user moves it with
  a heartbeat row: Flink's `Watermark(w)` is a row at `w + 1` on an instance of the adapter's own (none of the
  case's keys; its windows are left out), which closes exactly the windows whose `maxTimestamp` is at most `w`.
  `Watermark(Long.MAX_VALUE)` is a heartbeat just late enough to close every window so far (the largest time so
  far, or 0, plus the window's size or gap, plus the shift): Pathway's time has no end, and records after it go on.
  Pathway's time is the largest time of the rows its windows hold: a heartbeat that no window holds (in a gap
  between sliding windows, or before the origin) goes at the next window's start (`in_a_window`). The case's own
  records move the operator's time too: that is Pathway's rule, not the adapter's.
- **End of input**: the stream table ends, and Pathway's time with it: every window still open is emitted.
- **Lateness**: Pathway drops what comes for a window it has emitted, silently; it has no late output. A record is
  **dropped** when Pathway windows it and no emitted window holds it: each row carries its event's index
  (`pw.reducers.tuple(pw.this.index)`). Tumbling and session windows hold every record; a sliding window shorter
  than its hop, and an `origin` (Pathway leaves out the windows that start before it), can leave one out, so there
  the same `windowby` without a behavior (which never drops) tells which records Pathway windows. A computation that
  failed reports no dropped record (its outputs stop where it failed).

What Pathway emits and how it is read, never corrected:

- a firing is a row that the result table inserts (`pw.io.subscribe`'s `is_addition`); a deletion withdraws an
  earlier one and is no firing; its window is `[_pw_window_start, _pw_window_end)`, except a session's, whose
  `_pw_window_end` is its last timestamp, `[first, last]`, read as the half-open `[first, last + 1)`;
- Pathway's rows carry no event timestamp: a firing's timestamp is the window's last millisecond, as the user's
  job computes it from the window's bounds;
- the adapter is position-free: Pathway does tell the processing time of each update (which would give the
  position), but no watermark of a firing;
- an exception of the computation fails the job: a `runtime` error with its message (cases computed together
  are then computed alone);
- a sliding assignment of more than `WINDOWS_PER_ELEMENT_LIMIT` windows to a row (a heartbeat too) stops the case
  before it, with no end of input (what Pathway emits when the shortened stream ends is left out, by its processing
  time): Pathway materializes every window of every row (a heartbeat in 10,000,001 windows of `size / slide`
  took 11 GB before it was stopped).

Not declared, so never sent here: the late side output (Pathway has none), allowed lateness (`cutoff` accepts late
records but emits on every update), triggers other than the event-time one, global and count windows, evictors,
processing time, input that does not end (a stream table ends), periodic watermark emission and idleness,
channels, extreme values.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from window_contract.case import (
    AscendingTimestampExtractor,
    BoundedOutOfOrdernessTimestampExtractor,
    BoundedOutOfOrdernessWatermarks,
    Case,
    MonotonousWatermarks,
    Record,
    Session,
    Sliding,
    Tumbling,
    Watermark,
    WindowSpec,
)
from window_contract.facts import LONG_MAX, TOO_MANY_WINDOWS, WINDOWS_PER_ELEMENT_LIMIT
from window_contract.observation import Error, Firing, LateRecord, Observation, TimeWindow

try:
    import pathway as pw
    from pathway.internals.parse_graph import G
except ImportError as missing:  # the engine's own environment, made by ./dev setup
    raise SystemExit(f"Pathway is not installed ({missing}): "
                     f"`./dev setup pathway` installs pathway into .venv-pathway") from missing

NAME = "pathway"

FEATURES = frozenset({
    "assigner.tumbling", "assigner.sliding", "assigner.session", "offset", "trigger.event_time",
    "negative_timestamps", "watermark.bounded_out_of_orderness", "watermark.monotonous",
    "watermark.legacy_bounded_out_of_orderness", "watermark.legacy_ascending", "watermark.punctuated",
})

#: The index a heartbeat row carries (no event of the case).
HEARTBEAT = -1


class Rows(pw.Schema):
    key: str
    value: int
    ts: int
    index: int


def shift(case: Case) -> int:
    """`exactly_once_behavior`'s shift for Flink's watermarks (module docstring)."""
    match case.watermark_generator:
        case None | MonotonousWatermarks() | AscendingTimestampExtractor():
            return 0
        case BoundedOutOfOrdernessWatermarks(bound):
            return bound
        case BoundedOutOfOrdernessTimestampExtractor(bound):
            return bound - 1
    raise TypeError(f"pathway does not declare the generator {case.watermark_generator!r}")


def window(spec: WindowSpec):
    """Pathway's window for Flink's assigner: Flink's offset is Pathway's `origin`, given only when it is not 0 (with
    an `origin`, Pathway leaves out every window that starts before it: `_assign_sliding_windows`)."""
    match spec:
        case Tumbling(size, offset):
            return pw.temporal.tumbling(duration=size, origin=offset or None)
        case Sliding(size, slide, offset):
            return pw.temporal.sliding(hop=slide, duration=size, origin=offset or None)
        case Session(gap):
            return pw.temporal.session(max_gap=gap)
    raise TypeError(f"pathway does not declare the assigner {spec!r}")


def windows_of(spec: WindowSpec, ts: int) -> int:
    """How many sliding windows hold `ts` (starts `origin + k * hop` in `(ts - size, ts]`)."""
    if not isinstance(spec, Sliding) or spec.slide <= 0:
        return 1
    since = ts - spec.offset
    return since // spec.slide - (since - spec.size) // spec.slide


def closing_time(case: Case, latest: int) -> int:
    """A heartbeat just late enough to close every window holding a time up to `latest` (a window `[start, end)`
    closes once the time reaches `end + shift`, and `end <= latest + size`)."""
    reach = case.window.gap if isinstance(case.window, Session) else case.window.size
    return latest + max(reach, 0) + max(shift(case), 0)


def in_a_window(spec: WindowSpec, at: int) -> int:
    """`at`, or where the next window starts when no window of `spec` holds `at` (a sliding window's gap, or before
    the origin): Pathway's time is the largest time of the rows its windows hold, so a heartbeat in no window would
    not move it; at the next window's start it closes exactly the windows that end at or before `at`."""
    if not isinstance(spec, (Tumbling, Sliding)) or spec.size <= 0:
        return at
    slide = spec.slide if isinstance(spec, Sliding) else spec.size
    if slide <= 0:
        return at
    start = at - (at - spec.offset) % slide  # the last window start at or before `at`
    if spec.offset and start < spec.offset:
        return spec.offset
    return at if at < start + spec.size else start + slide


def heartbeat_key(case: Case) -> str:
    keys, key = {r.key for r in case.records}, "heartbeat"
    while key in keys:
        key += "'"
    return key


def rows(case: Case, heartbeat: str) -> tuple[list[tuple], Error | None]:
    """The case's stream: (key, value, ts, index, processing time, diff) a row per record and per listed
    watermark, cut before the first row (a heartbeat too) that Pathway would put in too many windows."""
    out: list[tuple] = []
    latest = 0
    for index, event in enumerate(case.events):
        if isinstance(event, Record):
            row = (event.key, event.value, event.ts, index)
        elif isinstance(event, Watermark):
            at = in_a_window(case.window, closing_time(case, latest) if event.timestamp == LONG_MAX
                             else event.timestamp + 1)
            row = (heartbeat, 0, at, HEARTBEAT)
        else:
            continue
        if windows_of(case.window, row[2]) > WINDOWS_PER_ELEMENT_LIMIT:
            return out, Error("runtime", TOO_MANY_WINDOWS)
        latest = max(latest, row[2])
        out.append((*row, 2 * (index + 1), 1))
    return out, None


@dataclass
class CaseJob:
    """One case's computation in the graph, and what its result tables emitted."""

    case: Case
    heartbeat: str
    stop: Error | None
    emitted: list[tuple[int, str, int, int, tuple, tuple]]  # (processing time, key, start, end, values, indexes)
    windowed: set[int]
    last_time: int

    def observation(self, error: Error | None) -> Observation:
        """What the result table emitted; a record windowed and in no emitted window is dropped, unless the
        computation failed (then the outputs stop where it failed)."""
        session = isinstance(self.case.window, Session)
        firings, kept = [], set()
        for time, key, start, end, values, indexes in self.emitted:
            kept.update(indexes)
            if self.stop is None or time <= self.last_time:  # a stopped case has no end of input
                window = TimeWindow(start, end + 1 if session else end)
                firings.append(Firing(None, key, window, window.end - 1, values, None))
        records = {i: e for i, e in enumerate(self.case.events) if isinstance(e, Record)}
        dropped = tuple(LateRecord(None, records[i].key, records[i].value, records[i].ts)
                        for i in sorted(self.windowed - kept) if error is None)
        return Observation(tuple(firings), (), dropped, error or self.stop)


def build(case: Case) -> CaseJob:
    """The case's tables and subscriptions in the current graph (Pathway checks the window as it builds them)."""
    heartbeat = heartbeat_key(case)
    stream, stop = rows(case, heartbeat)
    times = [row[2] for row in stream]
    print(f"pathway: {case.window} {case.watermark_generator}, {len(stream)} rows, times "
          f"{min(times, default=None)} to {max(times, default=None)}", file=sys.stderr, flush=True)
    records = {row[3] for row in stream if row[3] != HEARTBEAT}
    leaves_out = isinstance(case.window, Sliding) or getattr(case.window, "offset", 0) != 0
    last_time = max((row[4] for row in stream), default=0)
    job = CaseJob(case, heartbeat, stop, [], set() if leaves_out else records, last_time)
    table = pw.debug.table_from_rows(Rows, stream, is_stream=True) if stream else pw.Table.empty(**Rows.typehints())
    result = table.windowby(table.ts, window=window(case.window), instance=table.key,
                            behavior=pw.temporal.exactly_once_behavior(shift=shift(case))).reduce(
        key=pw.this._pw_instance, start=pw.this._pw_window_start, end=pw.this._pw_window_end,
        values=pw.reducers.tuple(pw.this.value), indexes=pw.reducers.tuple(pw.this.index))

    def emitted(key, row, time, is_addition) -> None:
        if is_addition and row["key"] != heartbeat:
            job.emitted.append((time, row["key"], row["start"], row["end"], row["values"], row["indexes"]))

    pw.io.subscribe(result, on_change=emitted)
    if leaves_out:  # windows that can leave a record out: size < slide, or a start before the origin
        every = table.windowby(table.ts, window=window(case.window), instance=table.key).reduce(
            indexes=pw.reducers.tuple(pw.this.index))

        def windowed(key, row, time, is_addition) -> None:
            job.windowed.update(i for i in row["indexes"] if i != HEARTBEAT)

        pw.io.subscribe(every, on_change=windowed)
    return job


def message(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def run_together(cases: Sequence, build: Callable, rejected: Callable[[str], Any]) -> list:
    """The cases as one computation (one `pw.run`): `build(case)` puts each case's tables in the graph and gives its
    job (with its `observation(error)`), `rejected(message)` is the observation of a case whose computation Pathway
    refused to build; when the run fails, each case alone."""
    G.clear()
    observations: dict[int, Any] = {}
    jobs: dict[int, Any] = {}
    for index, case in enumerate(cases):
        try:
            jobs[index] = build(case)
        except (ValueError, TypeError, OverflowError, AssertionError) as refused:
            observations[index] = rejected(message(refused))
    if jobs:
        try:
            pw.run(monitoring_level=pw.MonitoringLevel.NONE)
        except Exception as failed:
            if len(jobs) > 1:
                alone = {i: run_together([cases[i]], build, rejected)[0] for i in jobs}
                return [alone.get(i) or observations[i] for i in range(len(cases))]
            (index,) = jobs
            observations[index] = jobs[index].observation(Error("runtime", message(failed)))
            jobs.clear()
        finally:
            G.clear()
    observations.update({i: job.observation(None) for i, job in jobs.items()})
    return [observations[i] for i in range(len(cases))]


#: Cases per computation: building the graph slows as it grows (50 cases a run cost twice what 10 do).
CASES_PER_RUN = 10


def in_runs(cases: Sequence, build: Callable, rejected: Callable[[str], Any]) -> list:
    """`run_together` on the cases, `CASES_PER_RUN` at a time."""
    out: list = []
    for start in range(0, len(cases), CASES_PER_RUN):
        chunk = cases[start:start + CASES_PER_RUN]
        print(f"pathway: {len(chunk)} cases", file=sys.stderr, flush=True)
        out.extend(run_together(chunk, build, rejected))
    return out


def run_cases(cases: Sequence[Case]) -> list[Observation]:
    return in_runs(cases, build, Observation.invalid_spec)
