"""Quix Streams 3.28 as an engine under test (`quix-streams`), run as a process in its own environment.

`./dev setup` installs `quixstreams` into `.venv-quix` (the `quix` extra); the suite starts this module there
(`engines/venv_engines.py`) and speaks `window-process/1` with it (`engines/serving.py`). Quix Streams is a Kafka
library: an `Application` consumes topics from a broker, so the adapter runs one, librdkafka's mock cluster
(`engines/kafka_mock.py`), in this process.

Each Flink case becomes the job a Quix Streams user writes for the same Flink job, a `StreamingDataFrame` over a
topic of the case's records (key, a JSON value `{"ts": event time, "value": value}`, every record on partition 0:
one partition is one instance of Flink's window operator), whose event time is the topic's `timestamp_extractor`
(a Kafka producer cannot give a message the timestamp 0: librdkafka reads 0 as "now"):

    sdf = app.dataframe(app.topic(name, key_deserializer="str", value_deserializer="json", timestamp_extractor=...))
    sdf = sdf.apply(lambda v: v["value"])
    sdf = sdf.tumbling_window(size, grace_ms=grace, on_late=late).collect().final(closing_strategy="partition")

- **Assigners** (`quixstreams.dataframe.windows.definitions`): `TumblingEventTimeWindows.of(size)` is
  `tumbling_window(duration_ms=size)`, `SlidingEventTimeWindows.of(size, slide)` is `hopping_window(duration_ms=size,
  step_ms=slide)` (Quix's `sliding_window` is another concept, windows defined by pairs of records),
  `EventTimeSessionWindows.withGap(gap)` is `session_window(inactivity_gap_ms=gap)`. Quix's windows have no offset
  and start at 0 or later (`get_window_ranges`). What a definition rejects (`ValueError`) is the case's
  `invalid_spec`, in Quix's words. The window function is `collect()` (the window's values, in arrival order).
- **Time**: Quix has no watermark. A window closes when the largest timestamp seen passes its end plus the grace
  period (`FixedTimeWindow.process_window`: `start <= latest - grace - duration`; a session
  (`SessionWindow.process_window`) is late below `latest - gap - grace` and closes at `last + 1 + 2 * gap + grace`).
  `final(closing_strategy="partition")`: the largest timestamp of the whole partition closes every key's windows,
  as Flink's watermark reaches every key (Quix's default, `"key"`, keeps a time for each key).
- **Watermarks that Flink makes** (punctuated generators): the grace period. `forBoundedOutOfOrderness(bound)` emits
  `max - bound - 1` after each record and fires a window at `maxTimestamp = end - 1`, that is once the largest
  timestamp reaches `end + bound`: a grace of `bound`; `forMonotonousTimestamps()` and the legacy
  `AscendingTimestampExtractor` (`max - 1`) a grace of 0.
- **Watermarks a case lists**: Quix's only clock is the message timestamps, so a Quix user moves it along with a
  heartbeat record: Flink's `Watermark(w)` (no record at or before `w` follows) is a record at `w + 1` on a key of
  the adapter's own (none of the case's; its windows' results and lateness are left out), with a grace of 0, which
  closes exactly the windows whose `maxTimestamp` is at most `w`. The case's own records move Quix's time too: that
  is Quix's rule, not the adapter's.
- **End of input**: Quix has no end of input and no flush: a user who wants the last windows out sends a last
  heartbeat late enough to close them all, at the largest timestamp so far plus the window's size and the grace
  (a session: plus `1 + 2 * gap + grace`). `Watermark(Long.MAX_VALUE)` is that heartbeat too. (A heartbeat at the
  end of Kafka's time would not do: Quix would list every window end up to it, below.) A case without end of input
  gets none, and its open windows stay unemitted, as in Flink.
- **Lateness**: Quix calls the window's `on_late` callback for each window of a record that is already closed and
  leaves the record out of it. With Flink's `sideOutputLateData` the user's callback sends the record to the late
  output (`late`), without it the record is only logged (`dropped`); a record is reported once, although Quix calls
  back once for each of its late hopping windows. Quix has no allowed lateness.
- **Stopping**: a run of Quix ends only when told: after each case's records the adapter produces an end marker,
  which the job filters out before the window and which stops the application once every case's has come.

What Quix emits and how it is read, never corrected:

- a firing is a message of `final()`: its key, the window `[start, end)` of its value (a session's `end` is its last
  timestamp plus one), its values, and its Kafka timestamp, which Quix sets to the window's start (`Window.final`);
  the engine is position-free (an output does not say at which input it came) and gives no firing's watermark;
- an exception in a case's job (`on_processing_error`) fails that case: a `runtime` error with the exception, after
  the outputs before it; the job reads nothing more;
- a record (a heartbeat too) that Quix would put in more than `WINDOWS_PER_ELEMENT_LIMIT` windows stops the case
  before it (the contract's `TOO_MANY_WINDOWS`), and so does one that moves the time of tumbling or hopping
  windows by more than `EXPIRY_STEPS_LIMIT` steps (`TIME_JUMP`): Quix would list every window end in between.

Each batch of cases is one `Application` (one consumer group, a topic per case, its state in RocksDB under a
temporary folder, in memory where `/dev/shm` exists): an application costs a consumer-group join and a RocksDB
store per case. Quix reads the wall clock only to decide when to commit offsets and checkpoint its state, which
changes what a restarted application would resume from, never what this run emits.

Not declared, so never sent here: offsets and negative timestamps (Kafka timestamps and Quix's windows start at
0), triggers other than the event-time one (`final()` emits once, when a window closes), allowed lateness (the
grace period is the only lateness Quix has), the global window (none in Quix), count windows (Quix's count windows
name a result by its first and last timestamps, Flink's is the global window: not mapped yet), evictors,
processing time, periodic watermark emission and idleness, channels, the legacy bounded extractor (`max - bound`
would be a grace of `bound - 1`, below 0 for a bound of 0), extreme values.
"""

from __future__ import annotations

import itertools
import json
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from engines.serving import serve
from window_contract.case import (
    AscendingTimestampExtractor,
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
    from quixstreams import Application
    from quixstreams.models.topics import TopicConfig
    from quixstreams.models.topics.admin import TopicAdmin

    from engines.kafka_mock import DEFAULT_RETENTION, MockCluster
except ImportError as missing:  # the engine's own environment, made by ./dev setup
    raise SystemExit(f"Quix Streams is not installed ({missing}): "
                     f"`./dev setup quix` installs quixstreams into .venv-quix") from missing

NAME = "quix-streams"

FEATURES = frozenset({
    "assigner.tumbling", "assigner.sliding", "assigner.session", "trigger.event_time", "late_side_output",
    "unbounded_input", "watermark.bounded_out_of_orderness", "watermark.monotonous", "watermark.legacy_ascending",
    "watermark.punctuated",
})

#: The value of the message that ends a case's topic (the job filters it out before the window).
END = {"end": True, "ts": 0}

#: How many steps of a tumbling or hopping window Quix's time may move at once. With the "partition" closing strategy
#: Quix lists every window end between the last one it expired and the new time (`windows_to_expire`, one Python
#: int per step): a jump of 10^12 steps exhausts the machine's memory. The adapter stops the case before such a
#: record, with `TIME_JUMP`, rather than let the engine take the machine down.
EXPIRY_STEPS_LIMIT = 1_000_000
TIME_JUMP = ("the partition's time jumps more than 1,000,000 window steps at once: Quix Streams lists every window "
             "end in between (windows_to_expire) and would exhaust memory (stopped)")

#: Cases per `Application`: each holds a RocksDB store per case open until the run ends.
CASES_PER_APPLICATION = 50


def describe_created_topics(admin: TopicAdmin, topic_names, timeout: float = 30) -> dict[str, TopicConfig]:
    """`TopicAdmin.inspect_topics` for the mock cluster, which answers no `DescribeConfigs`: what a broker answers
    for the topics the adapter created (one partition, one replica, the broker's default retention)."""
    return {name: TopicConfig(num_partitions=1, replication_factor=1, extra_config=dict(DEFAULT_RETENTION))
            for name in topic_names}


TopicAdmin.inspect_topics = describe_created_topics


# --- the job ---------------------------------------------------------------------------------------


def grace(case: Case) -> int:
    """The grace period for Flink's watermarks (module docstring): 0 for listed ones, the generator's lag."""
    match case.watermark_generator:
        case None | MonotonousWatermarks() | AscendingTimestampExtractor():
            return 0
        case BoundedOutOfOrdernessWatermarks(bound):
            return bound
    raise TypeError(f"quix-streams does not declare the generator {case.watermark_generator!r}")


def define_window(sdf, case: Case, on_late):
    """Quix's window definition for Flink's assigner; Quix checks its parameters here (`ValueError`)."""
    match case.window:
        case Tumbling(size, _):
            return sdf.tumbling_window(duration_ms=size, grace_ms=grace(case), on_late=on_late)
        case Sliding(size, slide, _):
            return sdf.hopping_window(duration_ms=size, step_ms=slide, grace_ms=grace(case), on_late=on_late)
        case Session(gap):
            return sdf.session_window(inactivity_gap_ms=gap, grace_ms=grace(case), on_late=on_late)
    raise TypeError(f"quix-streams does not declare the assigner {case.window!r}")


def step(spec: WindowSpec) -> int:
    """The distance between window starts: a hopping window's step, a tumbling window's duration."""
    return spec.slide if isinstance(spec, Sliding) else spec.size


def windows_of(spec: WindowSpec, ts: int) -> int:
    """How many windows Quix gives a record at `ts` (`get_window_ranges`: starts `k * step` in `(ts - size, ts]`, at
    least 0)."""
    if isinstance(spec, Session):
        return 1
    first = max(0, ts - spec.size + 1)
    return ts // step(spec) - (first + step(spec) - 1) // step(spec) + 1


def closing_time(case: Case, latest: int) -> int:
    """The end of input's heartbeat: the earliest time at which Quix has closed every window holding a timestamp up
    to `latest` (a window at `end + grace`, a session at `last + 1 + 2 * gap + grace`)."""
    if isinstance(case.window, Session):
        return latest + 1 + 2 * case.window.gap + grace(case)
    return latest + case.window.size + grace(case)


def heartbeat_key(case: Case) -> str:
    keys, key = {r.key for r in case.records}, "heartbeat"
    while key in keys:
        key += "'"
    return key


@dataclass(frozen=True)
class Message:
    key: str
    value: int
    timestamp: int

    def payload(self) -> bytes:
        """The message's JSON value: the record's value and its event time."""
        return json.dumps({"ts": self.timestamp, "value": self.value}).encode()


def event_time(value, headers, timestamp, timestamp_type) -> int:
    """The topic's `timestamp_extractor`: the event time the record carries (a Kafka producer cannot set the message
    timestamp 0, which librdkafka reads as "now")."""
    return value["ts"]


def messages(case: Case, heartbeat: str) -> list[Message]:
    """The case's topic: its records, a heartbeat for each listed watermark and for the end of input."""
    out: list[Message] = []
    latest = 0
    for event in case.events:
        if isinstance(event, Record):
            message = Message(event.key, event.value, event.ts)
        elif isinstance(event, Watermark):
            at = closing_time(case, latest) if event.timestamp == LONG_MAX else event.timestamp + 1
            message = Message(heartbeat, 0, at)
        else:
            continue
        out.append(message)
        latest = max(latest, message.timestamp)
    if case.end_of_input:
        out.append(Message(heartbeat, 0, closing_time(case, latest)))
    return out


def stop(case: Case, sent: list[Message]) -> tuple[list[Message], Error | None]:
    """The messages before the first that Quix would put in too many windows (the contract's stop), or that moves
    its time by more than `EXPIRY_STEPS_LIMIT` steps of a tumbling or hopping window at once (Quix's stop)."""
    latest = None
    for index, message in enumerate(sent):
        if windows_of(case.window, message.timestamp) > WINDOWS_PER_ELEMENT_LIMIT:
            return sent[:index], Error("runtime", TOO_MANY_WINDOWS)
        if not isinstance(case.window, Session) and latest is not None \
                and (message.timestamp - latest) // step(case.window) > EXPIRY_STEPS_LIMIT:
            return sent[:index], Error("runtime", TIME_JUMP)
        latest = message.timestamp if latest is None else max(latest, message.timestamp)
    return sent, None


@dataclass
class CaseJob:
    """One case's topic and what its job emitted."""

    case: Case
    topic: str
    heartbeat: str
    firings: list[Firing] = field(default_factory=list)
    late: dict[int, LateRecord] = field(default_factory=dict)  # by the record's offset: each record once
    error: Error | None = None
    ended: bool = False

    def on_late(self, value, key, timestamp_ms, late_by_ms, start, end, name, topic, partition, offset) -> bool:
        """The user's `on_late` callback: the record goes to the late output (or the log); False: Quix logs nothing."""
        if key != self.heartbeat:
            self.late.setdefault(offset, LateRecord(None, key, value, timestamp_ms))
        return False

    def on_result(self, value, key, timestamp, headers) -> None:
        if key != self.heartbeat:
            window = TimeWindow(value["start"], value["end"])
            self.firings.append(Firing(None, key, window, timestamp, tuple(value["value"]), None))

    def observation(self, stop: Error | None) -> Observation:
        late = tuple(record for _, record in sorted(self.late.items()))
        side = self.case.late_side_output
        return Observation(tuple(self.firings), late if side else (), () if side else late, self.error or stop)


# --- a run ---------------------------------------------------------------------------------------

BATCHES = itertools.count()


class Batch:
    """Cases as one `Application` on the mock cluster: a topic and a `StreamingDataFrame` per case."""

    def __init__(self, cluster: MockCluster, cases: Sequence[Case]) -> None:
        self.number = next(BATCHES)
        self.cluster = cluster
        self.state = Path(tempfile.mkdtemp(prefix="quix-state-", dir="/dev/shm" if Path("/dev/shm").is_dir() else None))
        self.app = Application(broker_address=cluster.bootstrap_servers, consumer_group=f"cases-{self.number}",
                               auto_offset_reset="earliest", state_dir=self.state, use_changelog_topics=False,
                               loglevel="WARNING", on_processing_error=self.on_processing_error)
        self.observations: list[Observation | None] = [None] * len(cases)
        self.jobs: dict[str, CaseJob] = {}
        self.running: list[tuple[int, CaseJob, Error | None]] = []
        producer = self.app.get_producer()
        with producer:
            for index, case in enumerate(cases):
                self.add(index, case, producer)

    def add(self, index: int, case: Case, producer) -> None:
        job = CaseJob(case, f"case-{self.number}-{index}", heartbeat_key(case))
        self.cluster.create_topic(job.topic)
        sdf = self.app.dataframe(self.app.topic(job.topic, key_deserializer="str", value_deserializer="json",
                                                timestamp_extractor=event_time))
        sdf = sdf.update(lambda value: self.ended(job) if value == END else None)
        sdf = sdf.filter(lambda value: value != END and job.error is None)
        sdf = sdf.apply(lambda value: value["value"])
        try:
            window = define_window(sdf, case, job.on_late)
        except (ValueError, TypeError) as rejected:
            self.observations[index] = Observation.invalid_spec(f"{type(rejected).__name__}: {rejected}")
            return
        window.collect().final(closing_strategy="partition").update(job.on_result, metadata=True)
        sent, stopped = stop(case, messages(case, job.heartbeat))
        for message in sent:
            producer.produce(job.topic, key=message.key.encode(), value=message.payload(), partition=0)
        producer.produce(job.topic, key=job.heartbeat.encode(), value=json.dumps(END).encode(), partition=0)
        self.jobs[job.topic] = job
        self.running.append((index, job, stopped))

    def ended(self, job: CaseJob) -> None:
        job.ended = True
        if all(j.ended for j in self.jobs.values()):
            self.app.stop()

    def on_processing_error(self, exc: Exception, row, logger) -> bool:
        """An exception in a case's job fails that case (the others are jobs of their own); outside a case's row it
        fails the run."""
        job = self.jobs.get(row.topic) if row is not None else None
        if job is None:
            return False
        job.error = Error("runtime", f"{type(exc).__name__}: {exc}")
        return True

    def run(self) -> list[Observation]:
        try:
            if self.running:
                self.app.run()
        finally:
            shutil.rmtree(self.state, ignore_errors=True)
        for index, job, stop in self.running:
            self.observations[index] = job.observation(stop)
        return [o for o in self.observations if o is not None]


class QuixStreams:
    """The cases of each request, `CASES_PER_APPLICATION` to an application, on one mock cluster."""

    def __init__(self) -> None:
        self.cluster = MockCluster()

    def run_cases(self, cases: Sequence[Case]) -> list[Observation]:
        out: list[Observation] = []
        for start in range(0, len(cases), CASES_PER_APPLICATION):
            chunk = cases[start:start + CASES_PER_APPLICATION]
            print(f"quix-streams: {len(chunk)} cases", file=sys.stderr, flush=True)
            out.extend(Batch(self.cluster, chunk).run())
        return out


if __name__ == "__main__":
    serve(NAME, FEATURES, QuixStreams().run_cases)
