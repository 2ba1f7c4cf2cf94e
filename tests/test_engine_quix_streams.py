"""The `quix-streams` engine: Quix Streams 3.28's time windows on librdkafka's mock cluster, a process in its own
environment (`.venv-quix`).

The translation is checked on hand cases through the process, as the suite runs it (Quix answers position-free:
no `at`, no watermark on a firing); every divergence from Flink 2.x that it shows is listed in
`cases/engines/quix-streams/divergences.toml` with its case, which `tests/test_divergences.py` holds to the engine
and to its porting page's prose (`about.md`). Quix stamps a result with its window's start (output_timestamp.json):
where a test holds Quix to Flink on something else, it reads the result's timestamp as Flink's `end - 1`.
"""

from __future__ import annotations

import dataclasses
from functools import partial

from engine_under_test import (
    assert_a_late_record_is_reported_once,
    assert_a_listed_watermark_closes_what_flinks_closes,
    assert_batches_answer_as_each_case_alone,
    assert_declares,
    engine_fixtures,
    observe,
    suite_test,
)
from engine_under_test import fired as flink_fired

from window_contract import Case, record, session, sliding, tumbling, watermark
from window_contract.case import BoundedOutOfOrdernessWatermarks
from window_contract.difference import difference
from window_contract.facts import TOO_MANY_WINDOWS
from window_contract.observation import Error, Firing, LateRecord, Observation, TimeWindow

engine, reference = engine_fixtures("quix-streams")


def fired(window: TimeWindow, values: tuple[int, ...], key: str = "a") -> Firing:
    """A firing as Quix emits it: stamped with the window's start, no position, no watermark."""
    return flink_fired(window, values, key, timestamp=window.start)


def flink_stamped(observation: Observation) -> Observation:
    """The observation with each result's timestamp read as Flink's `end - 1` (output_timestamp.json)."""
    firings = tuple(dataclasses.replace(f, timestamp=f.window.end - 1) for f in observation.firings)
    return dataclasses.replace(observation, firings=firings)


generated = partial(BoundedOutOfOrdernessWatermarks, punctuated=True, interval=0)


def test_declares_what_quix_windows_offer_and_says_it_is_position_free(engine):
    assert_declares(engine, "quix-streams",
                    {"assigner.tumbling", "assigner.sliding", "assigner.session", "late_side_output",
                     "unbounded_input", "watermark.bounded_out_of_orderness", "watermark.punctuated"},
                    {"offset", "negative_timestamps", "allowed_lateness", "assigner.global", "assigner.count",
                     "trigger.count", "time.processing", "watermark.periodic", "watermark.idleness", "channels",
                     "watermark.legacy_bounded_out_of_orderness", "extreme_values"})


def test_flinks_watermark_is_a_heartbeat_one_millisecond_later(engine):
    """The heartbeat's own windows are left out."""
    assert_a_listed_watermark_closes_what_flinks_closes(engine, lambda window: window.start)


def test_a_bounded_out_of_orderness_generator_is_the_grace_period(engine, reference):
    """Flink's `max - bound - 1` and Quix's `end + grace <= max` close the same windows at the same record (b@25,
    a whole window past `[0, 10)`: less than that, and a@2 reopens it, expiry_grid.json)."""
    case = Case(window=tumbling(10), watermark_generator=generated(2),
                events=[record("a", 1, ts=3), record("a", 2, ts=11), record("a", 3, ts=9), record("a", 4, ts=12),
                        record("b", 5, ts=25), record("a", 6, ts=2)])
    flink = observe(reference, case)
    assert not difference(flink, flink_stamped(observe(engine, case)), len(case.events))
    assert [f.values for f in flink.firings] == [(1, 3), (2, 4), (5,)] and flink.dropped == (LateRecord(5, "a", 6, 2),)


def test_on_late_is_the_side_output_or_what_is_dropped(engine):
    """Each late record once, although Quix calls `on_late` for each of its closed hopping windows."""
    assert_a_late_record_is_reported_once(engine, lambda window: window.start)


def test_a_session_is_named_as_quix_names_it_first_to_last_plus_one(engine):
    case = Case(window=session(5), events=[record("a", 1, ts=0), record("a", 2, ts=8), record("a", 3, ts=4),
                                           record("a", 4, ts=20)])
    assert observe(engine, case) == Observation(firings=(fired(TimeWindow(0, 9), (1, 2, 3)),
                                                         fired(TimeWindow(20, 21), (4,))))


def test_the_end_of_input_is_a_heartbeat_and_input_without_end_has_none(engine):
    events = [record("a", 1, ts=3), watermark(9), record("a", 2, ts=15)]
    ended, open_ = (observe(engine, Case(window=tumbling(10), end_of_input=end, events=events))
                    for end in (True, False))
    assert ended == Observation(firings=(fired(TimeWindow(0, 10), (1,)), fired(TimeWindow(10, 20), (2,))))
    assert open_ == Observation(firings=(fired(TimeWindow(0, 10), (1,)),))


def test_the_record_timestamp_zero_is_event_time_zero(engine):
    """The event time travels in the payload: a Kafka producer would read the message timestamp 0 as "now"."""
    case = Case(window=session(5), events=[record("a", 1, ts=0), record("a", 2, ts=3)])
    assert observe(engine, case) == Observation(firings=(fired(TimeWindow(0, 4), (1, 2)),))


def test_an_element_with_too_many_windows_stops_the_case_there(engine):
    case = Case(window=sliding(20_002, 2), events=[record("a", 1, ts=30_000), record("a", 2, ts=30_001)])
    assert observe(engine, case) == Observation(error=Error("runtime", TOO_MANY_WINDOWS))


def test_cases_in_one_application_are_jobs_of_their_own(engine):
    """A batch is one application with a topic per case: each answers as it does alone, a rejected one included."""
    cases = [Case(window=tumbling(10), events=[record("a", 1, ts=15), record("a", 2, ts=5)]),
             Case(window=tumbling(0), events=[record("a", 1, ts=3)]),
             Case(window=tumbling(10), events=[record("a", 1, ts=5)])]
    assert_batches_answer_as_each_case_alone(engine, cases)


#: The property suite against the engine on its manifest's budget (cases/engines/<engine>/engine.toml): the
#: properties it breaks are its page's, and the list explains each minimal counterexample.
test_the_suite_finds_the_divergences_the_readme_names = suite_test("quix-streams")
