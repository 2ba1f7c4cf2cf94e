"""The `spark-streaming` engine: Spark Structured Streaming's own windows, micro-batch by micro-batch.

The translation into micro-batches is checked without Spark; the queries on hand cases whose
observations are the reference's (Flink's) where Spark agrees; and every divergence from Flink 2.x is a
case file under `cases/engines/spark-streaming/` that its porting page's prose (`about.md`)
links: each differs on `spark-streaming` and agrees on `reference`. All the cases go through Spark in one
`run` call (one session, a query per case).
"""

from __future__ import annotations

import pytest
from engine_pages import about, assert_the_suite_finds_what_the_section_names

from engines.spark_streaming import (
    END_OF_INPUT,
    RECORDS_DELAY_WHEN_LISTED,
    CaseQuery,
    MicroBatch,
    micro_batches,
    planned_windows,
    records_delay,
)
from window_contract import Case, load_implementation, record, tumbling, watermark
from window_contract.case import BoundedOutOfOrdernessWatermarks, MonotonousWatermarks, Session, Sliding
from window_contract.equivalence import equivalent
from window_contract.facts import TOO_MANY_WINDOWS, WINDOWS_PER_ELEMENT_LIMIT
from window_contract.features import required_features

SECTION = about("spark-streaming")

a1, a2, a3 = record("a", 1, ts=3), record("a", 2, ts=12), record("a", 3, ts=9)

#: Cases on which Spark agrees with Flink: watermarks listed away from a window's last millisecond.
AGREEING = [
    Case(window=tumbling(10), events=[a1, record("b", 4, ts=5), watermark(10), record("a", 5, ts=7), a2]),
    Case(window=Sliding(10, 5), events=[a1, a3, watermark(12), a2]),
    Case(window=tumbling(10, 4), events=[a1, a3, watermark(20), a2]),
    Case(window=Session(5), events=[record("a", 1, ts=0), record("a", 2, ts=8), record("a", 3, ts=4), watermark(30),
                                    record("a", 4, ts=1)]),
]


@pytest.fixture(scope="module")
def engine():
    return load_implementation("spark-streaming")


@pytest.fixture(scope="module")
def observed(engine) -> dict[Case, object]:
    """Every case of this module through Spark, in one `run` call."""
    cases = list(AGREEING)
    return dict(zip(cases, engine.run(cases), strict=True))


def test_declares_what_spark_streaming_expresses(engine):
    """Append mode emits a window once, at the watermark, and drops late rows without saying which: no
    trigger, lateness, side output or open input; Spark's watermark comes from its data, per micro-batch."""
    assert engine.name == "spark-streaming" and engine.position_free and engine.costly_calls
    assert not any(f.startswith(("trigger.", "evictor.")) for f in engine.features)
    assert {"allowed_lateness", "late_side_output", "unbounded_input", "watermark.periodic", "channels",
            "assigner.global", "assigner.count", "extreme_values"}.isdisjoint(engine.features)
    assert {"assigner.tumbling", "assigner.sliding", "assigner.session", "watermark.bounded_out_of_orderness",
            "watermark.punctuated"} <= engine.features


def test_a_punctuated_generator_is_a_micro_batch_per_record_that_raises_the_largest_timestamp():
    case = Case(window=tumbling(10), watermark_generator=BoundedOutOfOrdernessWatermarks(2, punctuated=True),
                events=[a1, a3, a2, record("a", 4, ts=1)])
    assert micro_batches(case) == [MicroBatch(((0, a1),)), MicroBatch(((1, a3),)), MicroBatch(((2, a2),)),
                                   MicroBatch(((3, record("a", 4, ts=1)),), END_OF_INPUT)]
    assert records_delay(case) == 2
    assert records_delay(Case(window=tumbling(10), watermark_generator=MonotonousWatermarks(punctuated=True))) == 0


def test_listed_watermarks_end_their_micro_batch_and_a_bounded_input_ends_with_its_own():
    case = Case(window=tumbling(10), events=[a1, a3, watermark(9), a2, watermark(20)])
    assert micro_batches(case) == [MicroBatch(((0, a1), (1, a3)), 9), MicroBatch(((3, a2),), 20),
                                   MicroBatch((), END_OF_INPUT)]
    assert records_delay(case) == RECORDS_DELAY_WHEN_LISTED



def test_a_case_whose_rows_spark_would_expand_into_too_many_windows_is_stopped_before_its_query_is_built():
    """Spark plans `ceil(size / slide)` windows a row before any data (tens of thousands take minutes and
    gigabytes, ten million more than the driver's heap): beyond the contract's limit the case stops as Flink's
    does at its first record, and Spark is never asked (no session here)."""
    assert planned_windows(Case(window=Sliding(10, 3))) == 4 and planned_windows(Case(window=tumbling(10))) == 1
    case = Case(window=Sliding(2 * WINDOWS_PER_ELEMENT_LIMIT, 1), events=[watermark(5), record("a", 1, ts=3)])
    stopped = CaseQuery(None, case)
    assert stopped.error.message == TOO_MANY_WINDOWS and stopped.query is None
    assert equivalent(load_implementation("reference").run([case])[0], stopped.observation(), positions=False)

@pytest.mark.parametrize("index", range(len(AGREEING)))
def test_hand_cases_agree_with_flink(observed, index):
    case = AGREEING[index]
    assert required_features(case) <= load_implementation("spark-streaming").features
    assert equivalent(load_implementation("reference").run([case])[0], observed[case])


@pytest.mark.engine_suite
def test_the_suite_finds_the_divergences_the_readme_names(tmp_path):
    """The differential property on watermark cases (on its manifest's budget) against the engine: it differs, on
    exactly the properties the README lists, and every minimal counterexample shows a difference one of its points
    explains."""
    assert_the_suite_finds_what_the_section_names(tmp_path / "report", "spark-streaming", SECTION)
