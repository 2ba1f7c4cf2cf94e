"""PyFlink's own Python window operator, driven in-process (`pyflink-python`, issue 14).

A keyed window in a PyFlink job (`KeyedStream.window(...).process(...)`) does not run Flink's Java
`WindowOperator`: `WindowedStream._get_result_data_stream` ships a `WindowOperationDescriptor` to the
Python worker, where `pyflink/fn_execution/datastream/window/window_operator.py` (`WindowOperator`,
with its `MergingWindowSet`) is a separate port of the Java class, running PyFlink's Python assigners
and triggers (`pyflink/datastream/window.py`). The JVM around it keeps the watermark and the timers: it
sends the worker each record with the current watermark and each due timer, and the worker answers
with the timers the operator registered or deleted and with its results, each result stamped with the
timestamp of the record or timer that produced it (`RunnerInputHandler`, `TimerHandler` and
`_emit_results` in `process/input_handler.py`).

This adapter plays the JVM's part and nothing more, so that what it reports is what the Python
operator does:

- the job is built as `WindowedStream` builds it: the assigner's own constructor (which checks its
  parameters and raises PyFlink's message, an `invalid_spec`), the case's trigger or the assigner's
  `get_default_trigger`, `allowed_lateness` taken as given (PyFlink's keyed `WindowedStream` checks
  neither its sign nor whether a merging assigner's trigger can merge), `side_output_late_data` with an
  `OutputTag`, the window contents in a `ListStateDescriptor("window-contents")`, and a
  `ProcessWindowFunction` wrapped in `InternalIterableProcessWindowFunction`;
- the operator gets what it asks for: a heap keyed state backend (list, reducing, value and map state
  with namespaces), a runtime context whose metric group counts `numLateRecordsDropped` (each increment
  is the record being processed, dropped), and an internal timer service;
- timers fire as Flink's `InternalTimerServiceImpl` fires them: a watermark that advances (a lower or
  equal one is ignored, as the `StatusWatermarkValve` ignores it) is set first, then every event-time
  timer at or below it fires in timestamp order, including timers registered meanwhile; a
  `processing_time` event does the same with the processing-time clock; a bounded input ends with
  `Watermark(Long.MAX_VALUE)`. PyFlink's Python trigger fires every timer of a burst itself, a chain of
  periodic timers over an empty window included (its `time + interval` is a Python integer: it never
  wraps, so every such chain ends, at the latest at the window's `maxTimestamp`); the adapter cannot step
  over them without replacing PyFlink's code by a model of it, so it runs them, and stops an advance
  past `PYFLINK_TIMERS` of them (a million: seconds of PyFlink's time; the rest of a chain to
  `Long.MAX_VALUE` would take it centuries) with the contract's `NEVER_ENDS`. A key's output past the
  contract's `OUTPUT_LIMIT` stops the case with `TOO_MANY_OUTPUTS`, as it does Flink's;
- a firing's timestamp is the timestamp of the record or timer being processed, as `_emit_results`
  stamps it (Java's `WindowOperator` stamps `window.maxTimestamp()`): the adapter never corrects it;
- an exception raised while building the job is its rejection (`invalid_spec`), one raised while
  processing fails the job (`runtime`), as any Python exception in the worker fails a PyFlink job: the
  message is PyFlink's own, prefixed with its type unless PyFlink raised a plain `Exception`. A
  record that PyFlink's sliding assigner would give more than `WINDOWS_PER_ELEMENT_LIMIT` windows (it builds
  them all, millions in a spec Flink accepts, more in one it rejects) stops the case at that record with the
  contract's `TOO_MANY_WINDOWS`, as the reference stops Flink's.

Not declared, so never sent here: processing-time assigners and triggers (not translated yet), count
windows (PyFlink's `count_window` fires `CountWindow`s with ids, which the contract's windows cannot
name), evictors (PyFlink's Python API has none), watermark generators and channels (they live in the
JVM, upstream of the operator), and extreme values (a real job serializes windows and timers as Java
longs between the worker and the JVM, which an in-process drive does not reproduce).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from window_contract.case import (
    Case,
    ContinuousEventTimeTrigger,
    CountTrigger,
    EventTimeTrigger,
    Global,
    NeverTrigger,
    ProcessingTime,
    PurgingTrigger,
    Record,
    Session,
    Sliding,
    TriggerSpec,
    Tumbling,
    Watermark,
    WindowSpec,
)
from window_contract.facts import (
    LONG_MAX,
    LONG_MIN,
    NEVER_ENDS,
    OUTPUT_LIMIT,
    TOO_MANY_OUTPUTS,
    TOO_MANY_WINDOWS,
    WINDOWS_PER_ELEMENT_LIMIT,
)
from window_contract.implementation import ImplementationFailure
from window_contract.java_hash import hash_set_order
from window_contract.observation import Error, Firing, GlobalWindow, LateRecord, Observation, TimeWindow

try:
    from pyflink.common.typeinfo import Types
    from pyflink.datastream import window as pyflink_window
    from pyflink.datastream.functions import (
        InternalIterableProcessWindowFunction,
        ProcessWindowFunction,
        RuntimeContext,
    )
    from pyflink.datastream.output_tag import OutputTag
    from pyflink.datastream.state import ListStateDescriptor
    from pyflink.fn_execution.datastream.timerservice import InternalTimerService
    from pyflink.fn_execution.datastream.window.window_operator import WindowOperator
    from pyflink.fn_execution.internal_state import (
        InternalListState,
        InternalMapState,
        InternalReducingState,
        InternalValueState,
    )
    from pyflink.metrics import MetricGroup
    from pyflink.metrics.metricbase import Counter
except ImportError as missing:  # the engine is an extra of the distribution
    raise ImplementationFailure(
        f"PyFlink is not installed ({missing}): `./dev setup flink` installs apache-flink==2.3.0 without its "
        f"dependencies") from missing

FEATURES = frozenset({
    "assigner.tumbling", "assigner.sliding", "assigner.session", "assigner.global", "offset",
    "trigger.event_time", "trigger.count", "trigger.continuous_event_time", "trigger.purging", "trigger.never",
    "allowed_lateness", "late_side_output", "negative_timestamps", "unbounded_input",
})

#: The timers one advance may fire, beyond those pending when it began, before the adapter stops the case with
#: `NEVER_ENDS`: PyFlink's Python operator fires each one (a burst of the issue-48 cases, 10^5 periodic timers,
#: in a few seconds), and a chain up to `Long.MAX_VALUE` would not end in a lifetime.
PYFLINK_TIMERS = 1_000_000
#: `WindowedStream`'s name for the window contents (`WINDOW_STATE_NAME` in `datastream/data_stream.py`).
WINDOW_STATE_NAME = "window-contents"
LATE_DATA = OutputTag("late-data")


# --- the keyed state backend ------------------------------------------------------------------


class KeyedStateBackend:
    """Heap keyed state: per state name, a table from `(current key, namespace)` to the value, as
    Flink's `HeapKeyedStateBackend` keeps it."""

    def __init__(self) -> None:
        self.current_key: str | None = None
        self.tables: dict[str, dict] = {}

    def get_current_key(self) -> str | None:
        return self.current_key

    def set_current_key(self, key: str) -> None:
        self.current_key = key

    def get_map_state(self, descriptor) -> HeapMapState:
        """The operator's `merging-window-set` (`WindowOperator.open`)."""
        return HeapMapState(self, descriptor.get_name())


class HeapState:
    """One state of the backend, read and written at the current key and namespace."""

    def __init__(self, backend: KeyedStateBackend, name: str) -> None:
        self.backend = backend
        self.table = backend.tables.setdefault(name, {})
        self.namespace = None

    def set_current_namespace(self, namespace) -> None:
        self.namespace = namespace

    def slot(self, namespace=None) -> tuple:
        return self.backend.current_key, self.namespace if namespace is None else namespace

    def clear(self) -> None:
        self.table.pop(self.slot(), None)


class HeapListState(HeapState, InternalListState):
    """The JVM's `ListState<byte[]>` behind every merging state of a PyFlink job (`BeamBagStateHandler`):
    merging appends the sources' lists to the target's, as the heap list state's `mergeNamespaces` does, in
    the order of the `HashSet` the JVM collects the source namespaces in (`window_contract.java_hash`)."""

    def get(self) -> list:
        return list(self.table.get(self.slot(), ()))

    def add(self, value) -> None:
        self.table.setdefault(self.slot(), []).append(value)

    def add_all(self, values) -> None:
        self.table.setdefault(self.slot(), []).extend(values)

    def update(self, values) -> None:
        self.table[self.slot()] = list(values)

    def merge_namespaces(self, target, sources) -> None:
        merged = [v for source in hash_set_order(sources) for v in self.table.pop(self.slot(source), ())]
        if merged:
            self.table.setdefault(self.slot(target), []).extend(merged)


class HeapReducingState(HeapListState, InternalReducingState):
    """PyFlink's `SynchronousReducingRuntimeState` over the JVM's bag: its value is the bag's first element;
    `add` reduces that one with the new value (the descriptor's reduce function) into a bag of one; merging
    appends the sources' bags without reducing (`HeapListState.merge_namespaces`), so after a merge the value
    is the target's own, or else the first source's."""

    def __init__(self, backend: KeyedStateBackend, descriptor) -> None:
        super().__init__(backend, descriptor.get_name())
        self.reduce = descriptor.get_reduce_function().reduce

    def get(self):
        bag = self.table.get(self.slot())
        return bag[0] if bag else None

    def add(self, value) -> None:
        current = self.get()
        self.table[self.slot()] = [value if current is None else self.reduce(current, value)]


class HeapValueState(HeapState, InternalValueState):
    def value(self):
        return self.table.get(self.slot())

    def update(self, value) -> None:
        self.table[self.slot()] = value


class HeapMapState(HeapState, InternalMapState):
    def mapping(self) -> dict:
        return self.table.setdefault(self.slot(), {})

    def get(self, key):
        return self.mapping().get(key)

    def put(self, key, value) -> None:
        self.mapping()[key] = value

    def put_all(self, dict_value) -> None:
        self.mapping().update(dict_value)

    def remove(self, key) -> None:
        self.mapping().pop(key, None)

    def contains(self, key) -> bool:
        return key in self.mapping()

    def items(self):
        return list(self.mapping().items())

    def keys(self):
        return list(self.mapping())

    def values(self):
        return list(self.mapping().values())

    def is_empty(self) -> bool:
        return not self.mapping()


# --- the runtime context and its metrics ---------------------------------------------------------


class LateRecordsDropped(Counter):
    """`numLateRecordsDropped`: the operator increments it where it drops a late record."""

    def __init__(self, on_drop: Callable[[], None]) -> None:
        self.on_drop = on_drop
        self.count = 0

    def inc(self, n: int = 1) -> None:
        self.count += n
        self.on_drop()

    def dec(self, n: int = 1) -> None:
        self.count -= n

    def get_count(self) -> int:
        return self.count


class OperatorMetrics(MetricGroup):
    """The operator's metric group: only the counter it registers."""

    def __init__(self, dropped: LateRecordsDropped) -> None:
        self.dropped = dropped

    def counter(self, name: str) -> Counter:
        if name != WindowOperator.LATE_ELEMENTS_DROPPED_METRIC_NAME:
            raise ValueError(f"the window operator registered an unexpected counter {name!r}")
        return self.dropped

    def add_group(self, name, extra=None):
        raise NotImplementedError("the window operator adds no metric group")

    gauge = meter = distribution = add_group


class OperatorContext(RuntimeContext):
    """The runtime context of one operator instance (subtask 0 of 1): keyed state and metrics."""

    def __init__(self, backend: KeyedStateBackend, metrics: OperatorMetrics) -> None:
        self.backend = backend
        self.metrics = metrics

    def get_list_state(self, descriptor) -> HeapListState:
        return HeapListState(self.backend, descriptor.get_name())

    def get_reducing_state(self, descriptor) -> HeapReducingState:
        return HeapReducingState(self.backend, descriptor)

    def get_state(self, descriptor) -> HeapValueState:
        return HeapValueState(self.backend, descriptor.get_name())

    def get_map_state(self, descriptor) -> HeapMapState:
        return HeapMapState(self.backend, descriptor.get_name())

    def get_aggregating_state(self, descriptor):
        raise NotImplementedError("no window function here aggregates")

    def get_metrics_group(self) -> MetricGroup:
        return self.metrics

    def get_task_name(self) -> str:
        return "Window"

    def get_task_name_with_subtasks(self) -> str:
        return "Window (1/1)#0"

    def get_number_of_parallel_subtasks(self) -> int:
        return 1

    def get_max_number_of_parallel_subtasks(self) -> int:
        return 128

    def get_index_of_this_subtask(self) -> int:
        return 0

    def get_attempt_number(self) -> int:
        return 0

    def get_job_parameter(self, key: str, default_value: str) -> str:
        return default_value


# --- the timer service ---------------------------------------------------------------------------


class TimerQueue:
    """Flink's `HeapPriorityQueueSet` of timers: a set deduplicates `(timestamp, key, namespace)`, a
    heap orders them by timestamp (ties in registration order); a deleted timer stays in the heap
    until it reaches the top, where it is no longer live."""

    def __init__(self) -> None:
        self.heap: list[tuple] = []
        self.live: dict[tuple, int] = {}
        self.registrations = 0

    def add(self, timestamp: int, key: str, namespace) -> None:
        timer = (timestamp, key, namespace)
        if timer not in self.live:
            self.registrations += 1
            self.live[timer] = self.registrations
            heapq.heappush(self.heap, (timestamp, self.registrations, timer))

    def remove(self, timestamp: int, key: str, namespace) -> None:
        self.live.pop((timestamp, key, namespace), None)

    def poll_up_to(self, time: int) -> tuple | None:
        while self.heap and self.heap[0][0] <= time:
            _, registration, timer = heapq.heappop(self.heap)
            if self.live.get(timer) == registration:
                del self.live[timer]
                return timer
        return None


class TimerService(InternalTimerService):
    """The JVM's `InternalTimerServiceImpl` as the Python operator sees it: the current watermark and
    processing time, and timers registered for the backend's current key."""

    def __init__(self, backend: KeyedStateBackend) -> None:
        self.backend = backend
        self.watermark = LONG_MIN
        self.processing_time = 0
        self.event_time_timers = TimerQueue()
        self.processing_time_timers = TimerQueue()

    def current_watermark(self) -> int:
        return self.watermark

    def current_processing_time(self) -> int:
        return self.processing_time

    def register_event_time_timer(self, namespace, t: int) -> None:
        self.event_time_timers.add(t, self.backend.current_key, namespace)

    def delete_event_time_timer(self, namespace, t: int) -> None:
        self.event_time_timers.remove(t, self.backend.current_key, namespace)

    def register_processing_time_timer(self, namespace, t: int) -> None:
        self.processing_time_timers.add(t, self.backend.current_key, namespace)

    def delete_processing_time_timer(self, namespace, t: int) -> None:
        self.processing_time_timers.remove(t, self.backend.current_key, namespace)


# --- the job -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fired:
    """What the window function emits: the fired window, its contents and the watermark."""

    key: str
    window: object
    values: tuple[int, ...]
    watermark: int


class WindowContents(ProcessWindowFunction):
    """The job's window function: emits each window's contents as they are."""

    def process(self, key, context, elements):
        return [Fired(key, context.window(), tuple(r.value for r in elements), context.current_watermark())]


def assigner(spec: WindowSpec):
    """The assigner as `TumblingEventTimeWindows.of` and its siblings construct it (they pass
    milliseconds to the constructor, which checks the parameters)."""
    match spec:
        case Tumbling(size, offset):
            return pyflink_window.TumblingEventTimeWindows(size, offset)
        case Sliding(size, slide, offset):
            return pyflink_window.SlidingEventTimeWindows(size, slide, offset)
        case Session(gap):
            return pyflink_window.EventTimeSessionWindows(gap)
        case Global():
            return pyflink_window.GlobalWindows.create()
    raise TypeError(f"pyflink-python does not declare the assigner {spec!r}")


def trigger(spec: TriggerSpec):
    """The trigger as PyFlink's `of` / `create` factories build it."""
    match spec:
        case EventTimeTrigger():
            return pyflink_window.EventTimeTrigger.create()
        case CountTrigger(count):
            return pyflink_window.CountTrigger.of(count)
        case ContinuousEventTimeTrigger(interval):
            return pyflink_window.ContinuousEventTimeTrigger(interval)
        case PurgingTrigger(inner):
            return pyflink_window.PurgingTrigger.of(trigger(inner))
        case NeverTrigger():
            return pyflink_window.NeverTrigger()
    raise TypeError(f"pyflink-python does not declare the trigger {spec!r}")


class JobFailure(Exception):
    """The case's job failed: PyFlink raised, or it would never end."""


def sliding_window_count(window: Sliding, timestamp: int) -> int:
    """How many windows PyFlink's `SlidingEventTimeWindows.assign_windows` gives a record, `len(range(last_start,
    timestamp - size, -slide))` in Python integers, without building them."""
    last_start = timestamp - (timestamp - window.offset + window.slide) % window.slide
    return len(range(last_start, timestamp - window.size, -window.slide))


@dataclass
class Run:
    """One case through one `WindowOperator`, with the JVM's part played here."""

    case: Case
    at: int = 0
    record: Record | None = None
    firings: list[Firing] = field(default_factory=list)
    late: list[LateRecord] = field(default_factory=list)
    dropped: list[LateRecord] = field(default_factory=list)
    #: How many outputs each key has emitted.
    outputs: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        case = self.case
        window_assigner = assigner(case.window)  # raises PyFlink's message for invalid parameters
        window_trigger = (trigger(case.trigger) if case.trigger is not None
                          else window_assigner.get_default_trigger(None))
        self.backend = KeyedStateBackend()
        self.timers = TimerService(self.backend)
        self.operator = WindowOperator(
            window_assigner, self.backend, lambda key: key,
            ListStateDescriptor(WINDOW_STATE_NAME, Types.PICKLED_BYTE_ARRAY()),
            InternalIterableProcessWindowFunction(WindowContents()), window_trigger, case.allowed_lateness,
            LATE_DATA if case.late_side_output else None)
        metrics = OperatorMetrics(LateRecordsDropped(self.record_dropped))
        self.operator.open(OperatorContext(self.backend, metrics), self.timers)

    def record_dropped(self) -> None:
        r = self.record
        self.count_output(r.key)
        self.dropped.append(LateRecord(self.at, r.key, r.value, r.ts))

    def count_output(self, key: str) -> None:
        """One more output of `key`: past the contract's `OUTPUT_LIMIT` the case stops instead."""
        if self.outputs.get(key, 0) >= OUTPUT_LIMIT:
            raise JobFailure(TOO_MANY_OUTPUTS)
        self.outputs[key] = self.outputs.get(key, 0) + 1

    def collect(self, outputs, timestamp: int) -> None:
        """Everything the operator yields for one record or timer, stamped with its timestamp."""
        for output in outputs:
            if isinstance(output, tuple) and output[0] is LATE_DATA:
                r = output[1]
                self.count_output(r.key)
                self.late.append(LateRecord(self.at, r.key, r.value, r.ts))
            else:
                self.count_output(output.key)
                window = output.window
                fired = (GlobalWindow() if isinstance(window, pyflink_window.GlobalWindow)
                         else TimeWindow(window.start, window.end))
                self.firings.append(Firing(self.at, output.key, fired, timestamp, output.values, output.watermark))

    def process(self, record: Record) -> None:
        window = self.case.window
        if isinstance(window, Sliding) and sliding_window_count(window, record.ts) > WINDOWS_PER_ELEMENT_LIMIT:
            raise JobFailure(TOO_MANY_WINDOWS)
        self.record = record
        self.backend.set_current_key(record.key)
        self.collect(self.operator.process_element(record, record.ts), record.ts)
        self.record = None

    def advance(self, queue: TimerQueue, time: int, on_timer) -> None:
        """`InternalTimerServiceImpl.advanceWatermark` / `onProcessingTime`: every timer at or below
        `time`, in timestamp order, including those registered while firing."""
        budget = len(queue.live) + PYFLINK_TIMERS
        while (timer := queue.poll_up_to(time)) is not None:
            budget -= 1
            if budget < 0:
                raise JobFailure(NEVER_ENDS)
            timestamp, key, namespace = timer
            self.backend.set_current_key(key)
            self.collect(on_timer(timestamp, key, namespace), timestamp)

    def advance_watermark(self, watermark: int) -> None:
        if watermark > self.timers.watermark:
            self.timers.watermark = watermark
            self.advance(self.timers.event_time_timers, watermark, self.operator.on_event_time)

    def advance_processing_time(self, time: int) -> None:
        if time > self.timers.processing_time:
            self.timers.processing_time = time
            self.advance(self.timers.processing_time_timers, time, self.operator.on_processing_time)

    def drive(self) -> None:
        for at, event in enumerate(self.case.events):
            self.at = at
            if isinstance(event, Record):
                self.process(event)
            elif isinstance(event, Watermark):
                self.advance_watermark(event.timestamp)
            elif isinstance(event, ProcessingTime):
                self.advance_processing_time(event.time)
        self.at = len(self.case.events)
        if self.case.end_of_input:
            self.advance_watermark(LONG_MAX)

    def observation(self, error: Error | None = None) -> Observation:
        return Observation(tuple(self.firings), tuple(self.late), tuple(self.dropped), error)


def message(error: Exception) -> str:
    """How the failed job names its cause: PyFlink's own checks raise plain `Exception`s."""
    return str(error) if type(error) in (Exception, JobFailure) else f"{type(error).__name__}: {error}"


def run_case(case: Case) -> Observation:
    try:
        run = Run(case)
    except Exception as rejected:
        return Observation.invalid_spec(message(rejected))
    try:
        run.drive()
    except Exception as failed:
        return run.observation(Error("runtime", message(failed)))
    return run.observation()


class PyFlinkPythonImplementation:
    """PyFlink 2.3's Python `WindowOperator`, one fresh operator per case."""

    name = "pyflink-python"
    features = FEATURES
    costly_calls = False

    def run(self, cases: Sequence[Case]) -> list[Observation]:
        return [run_case(case) for case in cases]
