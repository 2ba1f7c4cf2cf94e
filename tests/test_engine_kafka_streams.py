"""The `kafka-streams` engine: Kafka Streams 4.4 on `TopologyTestDriver`, a Java process (engines/jvm/kafka-streams/).

The translation is checked on hand cases through the process, as the suite runs it (position-free: no `at`, no
watermark on a firing); every divergence from Flink 2.x that it shows is listed in
`cases/engines/kafka-streams/divergences.toml` (and, for the same jobs without `suppress`,
`cases/engines/kafka-streams-updates/divergences.toml`), each with its case, which `tests/test_divergences.py`
holds to the engine and to its porting page's prose (`about.md`).
"""

from __future__ import annotations

import pytest
from engine_pages import about, assert_the_suite_finds_what_the_section_names

from window_contract import Case, load_implementation, record, tumbling, watermark
from window_contract.case import BoundedOutOfOrdernessWatermarks, EventTimeTrigger, Session, Sliding
from window_contract.observation import Error, Firing, LateRecord, Observation, TimeWindow

SECTION = about("kafka-streams")


@pytest.fixture(scope="module")
def engine():
    kafka = load_implementation("kafka-streams")
    yield kafka
    kafka.close()


@pytest.fixture(scope="module")
def updates():
    kafka = load_implementation("kafka-streams-updates")
    yield kafka
    kafka.close()


@pytest.fixture(scope="module")
def reference():
    return load_implementation("reference")


def observe(engine, case: Case) -> Observation:
    return engine.run([case])[0]


def result(window: TimeWindow, timestamp: int, values: tuple[int, ...], key: str = "a") -> Firing:
    """A Kafka Streams result as a firing: no position, no watermark, the output record's timestamp."""
    return Firing(None, key, window, timestamp, values, None)


def punctuated(bound: int) -> BoundedOutOfOrdernessWatermarks:
    return BoundedOutOfOrdernessWatermarks(bound, punctuated=True)


def test_declares_what_the_dsl_expresses_and_says_it_is_position_free(engine, updates):
    """Windows without offsets, event time only, one result per window (no other trigger), no allowed lateness
    or late side output, no negative timestamps; Flink's punctuated generators as the grace period. `kafka-streams`
    also runs the interval joins (`tests/test_engine_kafka_streams_joins.py`)."""
    assert engine.name == "kafka-streams" and engine.position_free and engine.costly_calls
    assert updates.features == {
        "assigner.tumbling", "assigner.sliding", "assigner.session", "trigger.event_time", "unbounded_input",
        "watermark.bounded_out_of_orderness", "watermark.monotonous", "watermark.legacy_ascending",
        "watermark.punctuated"}
    assert engine.features == updates.features | {"join.interval", "join.sql_interval"}  # its joins' own test file
    assert updates.name == "kafka-streams-updates"


def test_a_watermark_is_a_heartbeat_record_one_millisecond_later(engine):
    """Flink's `Watermark(9)` fires `[0, 10)`: a heartbeat at 10 moves stream time to 10, which closes it; the
    record at 10 after `Watermark(20)` is dropped (its window closed), and counted as Flink counts it."""
    case = Case(window=tumbling(10), events=[record("a", 1, ts=3), record("a", 2, ts=9), watermark(8), watermark(9),
                                             record("a", 3, ts=10), watermark(20), record("a", 4, ts=10)])
    assert observe(engine, case) == Observation(
        firings=(result(TimeWindow(0, 10), 9, (1, 2)), result(TimeWindow(10, 20), 10, (3,))),
        dropped=(LateRecord(None, "a", 4, 10),))


def test_the_bound_is_the_grace_period(engine, reference):
    """`forBoundedOutOfOrderness(2)` closes `[0, 10)` at the record 12, as `ofSizeAndGrace(10, 2)` does: the
    record at 6 that follows is dropped by both; the windows agree, the timestamps do not."""
    case = Case(window=tumbling(10), watermark_generator=punctuated(2),
                events=[record("a", 1, ts=3), record("a", 2, ts=11), record("a", 3, ts=5), record("a", 4, ts=12),
                        record("a", 5, ts=6)])
    assert observe(engine, case) == Observation(
        firings=(result(TimeWindow(0, 10), 5, (1, 3)), result(TimeWindow(10, 20), 12, (2, 4))),
        dropped=(LateRecord(None, "a", 5, 6),))
    flink = observe(reference, case)
    assert [(f.window, f.values) for f in flink.firings] == [(TimeWindow(0, 10), (1, 3)), (TimeWindow(10, 20), (2, 4))]
    assert [(r.value, r.ts) for r in flink.dropped] == [(5, 6)]


def test_without_end_of_input_suppress_holds_the_last_windows(engine):
    """Kafka Streams has no end of input: without the last heartbeat nothing has closed."""
    case = Case(window=tumbling(10), end_of_input=False, events=[record("a", 1, ts=3), watermark(9),
                                                                  record("a", 2, ts=15)])
    assert observe(engine, case) == Observation(firings=(result(TimeWindow(0, 10), 3, (1,)),))


def test_hopping_and_session_windows(engine):
    """`advanceBy` aligns to multiples of the advance even when the size is not one (`[0, 15)`, `[10, 25)`);
    sessions merge records within the gap, touching included, and end at their last record (a grace of 10 keeps
    the first session open when the record at 10 comes)."""
    hopping = Case(window=Sliding(15, 10), events=[record("a", 1, ts=12)])
    sessions = Case(window=Session(5), trigger=EventTimeTrigger(), watermark_generator=punctuated(10),
                    events=[record("a", 1, ts=0), record("a", 2, ts=10), record("a", 3, ts=5)])
    assert engine.run([hopping, sessions]) == [
        Observation(firings=(result(TimeWindow(0, 15), 12, (1,)), result(TimeWindow(10, 25), 12, (1,)))),
        Observation(firings=(result(TimeWindow(0, 11), 10, (1, 2, 3)),))]


def test_without_suppress_every_update_is_a_result(updates):
    """Kafka Streams' default: each record's update of its window is emitted, with the aggregate so far."""
    case = Case(window=tumbling(10), events=[record("a", 1, ts=1), record("a", 2, ts=3), record("a", 3, ts=12)])
    assert observe(updates, case) == Observation(firings=(
        result(TimeWindow(0, 10), 1, (1,)), result(TimeWindow(0, 10), 3, (1, 2)), result(TimeWindow(10, 20), 12, (3,))))


def test_kafkas_rejections_and_the_contracts_window_limit(engine):
    rejected = observe(engine, Case(window=tumbling(0), events=[record("a", 1, ts=1)]))
    assert rejected == Observation.invalid_spec("Window size (sizeMs) must be larger than zero.")
    stopped = observe(engine, Case(window=Sliding(20_000, 1), events=[record("a", 1, ts=1), record("a", 2, ts=30_000)]))
    assert stopped.firings == () and stopped.error == Error(
        "runtime", "a window assignment yields more than 10,000 windows for one element: beyond what the contract "
                   "compares (stopped)")


def test_cases_in_one_request_answer_as_each_alone(engine):
    """A request's cases each get a driver of their own."""
    cases = [Case(window=tumbling(10), events=[record("a", v, ts=v) for v in range(3)]),
             Case(window=Session(2), events=[record("a", 1, ts=0), record("b", 2, ts=1)]),
             Case(window=tumbling(0), events=[record("a", 1, ts=1)])]
    assert engine.run(cases) == [observe(engine, case) for case in cases]


@pytest.mark.engine_suite
def test_the_suite_finds_the_divergences_the_readme_names(tmp_path):
    """The whole property suite (on its manifest's budget) against the engine: it differs, on exactly the properties the
    README lists, and every minimal counterexample shows a difference one of its points explains."""
    assert_the_suite_finds_what_the_section_names(tmp_path / "report", "kafka-streams", SECTION)
