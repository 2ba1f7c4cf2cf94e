"""The `hazelcast-jet` engine: Hazelcast Jet 5.7 on one embedded member, a Java process (engines/jvm/hazelcast-jet/).

The translation is checked on hand cases through the process, as the suite runs it (position-free: no `at`, no
watermark on a firing); every divergence from Flink 2.x that it shows is listed in
`cases/engines/hazelcast-jet/divergences.toml` with its case, which `tests/test_divergences.py` holds to the engine
and to its porting page's prose (`about.md`).
"""

from __future__ import annotations

from dataclasses import replace

from engine_under_test import assert_batches_answer_as_each_case_alone, engine_fixtures, observe, suite_test
from engine_under_test import fired as result

from window_contract import Case, record, tumbling, watermark
from window_contract.case import BoundedOutOfOrdernessWatermarks, EventTimeTrigger, Session, Sliding
from window_contract.difference import difference
from window_contract.observation import Error, LateRecord, Observation, TimeWindow

#: The adapter's stop for a case whose watermarks would make Jet's window stage walk too far (CaseSourceP).
WALK_STOPPED = ("Hazelcast Jet walks every window end up to each watermark, empty ones included, and combines each "
                "window from its frames: this case's walk passes 10,000,000 frames (stopped)")
engine, reference = engine_fixtures("hazelcast-jet")


def dropped(value: int, ts: int, key: str = "a") -> LateRecord:
    return LateRecord(None, key, value, ts)


def unordered(o: Observation) -> Observation:
    """`o` with its firings in one order: the results of one watermark come in the order of Jet's hash maps."""
    return replace(o, firings=tuple(sorted(o.firings, key=lambda f: (f.key, f.window.start, f.window.end))))


def test_declares_what_the_pipeline_api_expresses_and_says_it_is_position_free(engine):
    """Windows without offsets, event time only, one result per window (no other trigger), no allowed lateness or
    late side output; Flink's punctuated generators as the allowed lag."""
    assert engine.name == "hazelcast-jet" and engine.position_free and engine.costly_calls
    assert engine.features == {
        "assigner.tumbling", "assigner.sliding", "assigner.session", "trigger.event_time", "negative_timestamps",
        "unbounded_input", "watermark.bounded_out_of_orderness", "watermark.monotonous", "watermark.legacy_ascending",
        "watermark.punctuated"}


def test_a_watermark_is_jets_one_millisecond_later(engine):
    """Flink's `Watermark(9)` is Jet's 10, which emits `[0, 10)`; the record at 10 after `Watermark(20)` is dropped
    (its window was emitted), and counted as Flink counts it; a watermark that does not increase changes nothing."""
    case = Case(window=tumbling(10), events=[record("a", 1, ts=3), record("a", 2, ts=9), watermark(8), watermark(9),
                                             watermark(9), watermark(4), record("a", 3, ts=10), watermark(20),
                                             record("a", 4, ts=10), record("a", 5, ts=-1)])
    assert observe(engine, case) == Observation(
        firings=(result(TimeWindow(0, 10), (1, 2)), result(TimeWindow(10, 20), (3,))),
        dropped=(dropped(4, 10), dropped(5, -1)))


def test_the_bound_is_the_allowed_lag(engine, reference):
    """`forBoundedOutOfOrderness(2)` and `withTimestamps(ts, 2)` both emit `[0, 10)` at the record 12: the record at 6
    that follows is dropped by both, and the two agree on the whole case."""
    case = Case(window=tumbling(10), watermark_generator=BoundedOutOfOrdernessWatermarks(2, punctuated=True),
                events=[record("a", 1, ts=3), record("a", 2, ts=11), record("a", 3, ts=5), record("a", 4, ts=12),
                        record("a", 5, ts=6)])
    assert observe(engine, case) == Observation(
        firings=(result(TimeWindow(0, 10), (1, 3)), result(TimeWindow(10, 20), (2, 4))), dropped=(dropped(5, 6),))
    assert not difference(observe(reference, case), observe(engine, case), len(case.events))


def test_without_end_of_input_the_last_windows_stay(engine):
    """The source does not complete, so Jet does not emit what it holds; a late record is still dropped."""
    case = Case(window=tumbling(10), end_of_input=False, events=[record("a", 1, ts=3), watermark(9),
                                                                  record("a", 2, ts=15), record("a", 3, ts=4)])
    assert observe(engine, case) == Observation(firings=(result(TimeWindow(0, 10), (1,)),), dropped=(dropped(3, 4),))


def test_sliding_and_session_windows(engine):
    """Frames of the slide, windows a multiple of it; sessions merge records less than a gap apart (an explicit
    `EventTimeTrigger` is the default), and a session's result carries its end - 1."""
    sliding = Case(window=Sliding(20, 10), events=[record("a", 1, ts=12), record("a", 2, ts=-3)])
    sessions = Case(window=Session(5), trigger=EventTimeTrigger(),
                    events=[record("a", 1, ts=0), record("a", 2, ts=4), record("b", 3, ts=1), watermark(20),
                            record("a", 4, ts=30)])
    assert [unordered(o) for o in engine.run([sliding, sessions])] == [
        Observation(firings=(result(TimeWindow(-20, 0), (2,)), result(TimeWindow(-10, 10), (2,)),
                             result(TimeWindow(0, 20), (1,)), result(TimeWindow(10, 30), (1,)))),
        Observation(firings=(result(TimeWindow(0, 9), (1, 2)), result(TimeWindow(30, 35), (4,)),
                             result(TimeWindow(1, 6), (3,), key="b")))]


def test_jets_rejections_and_the_contracts_window_limit(engine):
    rejected = observe(engine, Case(window=tumbling(0), events=[record("a", 1, ts=1)]))
    assert rejected == Observation.invalid_spec("windowSize must be positive")
    stopped = observe(engine, Case(window=Sliding(20_000, 1), events=[record("a", 1, ts=1)]))
    assert stopped == Observation(error=Error(
        "runtime", "a window assignment yields more than 10,000 windows for one element: beyond what the contract "
                   "compares (stopped)"))


def test_a_walk_past_the_limit_stops_the_case_where_it_would_start(engine):
    """Jet's window stage walks every window end up to a watermark: the adapter counts the frames it visits before
    the source sends the watermark, and stops the case there, with what Jet emitted before."""
    case = Case(window=tumbling(1), events=[record("a", 1, ts=5), watermark(10), record("a", 2, ts=20),
                                            watermark(10**8), record("a", 3, ts=30)])
    assert observe(engine, case) == Observation(firings=(result(TimeWindow(5, 6), (1,)),),
                                                error=Error("runtime", WALK_STOPPED))
    # a sliding window is combined from its 10,000 frames at each of the 5,001 window ends up to the watermark
    sliding = Case(window=Sliding(10_000, 1), events=[record("a", 1, ts=0), watermark(5_000)])
    assert observe(engine, sliding) == Observation(error=Error("runtime", WALK_STOPPED))


def test_cases_in_one_request_answer_as_each_alone(engine):
    """A request's cases each get a job of their own."""
    cases = [Case(window=tumbling(10), events=[record("a", v, ts=v) for v in range(3)]),
             Case(window=Session(2), events=[record("a", 1, ts=0), record("b", 2, ts=1)]),
             Case(window=tumbling(0), events=[record("a", 1, ts=1)])]
    assert_batches_answer_as_each_case_alone(engine, cases)


#: The property suite against the engine on its manifest's budget (cases/engines/<engine>/engine.toml): the
#: properties it breaks are its page's, and the list explains each minimal counterexample.
test_the_suite_finds_the_divergences_the_readme_names = suite_test("hazelcast-jet")
