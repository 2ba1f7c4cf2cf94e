"""`SparkImplementation`: the conformance suite's view of the Spark pipeline.

`run(cases)` checks each case's specification on the driver (what Flink rejects at job build needs no
data), turns the rest into one events DataFrame with a `case_id` column, computes the outputs of all
cases with one plan -- the relational pipeline for the cases it covers, the per-(case, key) replay
for the others, unioned -- and collects them with a single action. A batch of 1 and of 1,000 cases
run the same plan.

Supported timestamps: the whole Java `long` range. The relational pipeline takes times and window
parameters in (-2^62, 2^62), sliding windows only with `size + slide <= 2^62 + 2` (beyond, Flink's
loop `start -= slide` can wrap around: `spark_impl.relational`); any other case (`extreme_values`
among them) goes to the replay, which computes in exact Java `long` arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from itertools import islice

import pyarrow as pa
import pyarrow.compute as pc

from spark_impl.joins import run_joins
from spark_impl.operator_input import in_case_positions, operator_case
from spark_impl.pipeline import outputs_of
from spark_impl.relational import sliding_loop_stays_in_range, sliding_windows_within_limit
from spark_impl.spec import invalid_spec_message, operator_spec
from spark_impl.watermarks import operator_stream
from window_contract.case import (
    FIRE_DELAY,
    AfterEndOfWindowTrigger,
    Case,
    Cumulative,
    EventTimeTrigger,
    Record,
    Session,
    Sliding,
    Tumbling,
    Watermark,
)
from window_contract.facts import OUTPUT_LIMIT
from window_contract.features import ALL_FEATURES, JOIN_NAMES, required_features
from window_contract.join_case import JoinCase
from window_contract.join_observation import JoinObservation
from window_contract.observation import Observation

#: A case for each of the plan's two paths (`is_relational`: a tumbling window; a session window).
WARM_UP = [Case(window=kind, events=(Record("k", 1, ts=1), Watermark(20))) for kind in (Tumbling(10), Session(5))]


def is_relational(case: Case) -> bool:
    """The cases `spark_impl.relational` computes; all others are replayed per key."""
    w = case.window
    return (isinstance(w, Tumbling | Sliding | Cumulative) and w.time == "event"
            and isinstance(case.trigger, EventTimeTrigger | None) and case.evictor is None
            and "extreme_values" not in required_features(case)
            and (not isinstance(w, Sliding) or (sliding_loop_stays_in_range(w.size, w.slide)
                                                and sliding_windows_within_limit(w.size, w.slide)))
            and (not isinstance(w, Cumulative) or sliding_windows_within_limit(w.size, w.step))
            and outputs_within_limit(case))


def outputs_within_limit(case: Case) -> bool:
    """Whether no key of a tumbling, sliding or cumulative case with `EventTimeTrigger` can pass `OUTPUT_LIMIT`
    outputs (the replay stops it there, `TOO_MANY_OUTPUTS`): a record is one late record at most, fires
    at most its `ceil(size / slide)` (`size / step`) windows as it arrives (a late firing), and brings at most
    that many windows, each of which fires once when the watermark passes its end."""
    w = case.window
    windows = (-(-w.size // w.slide) if isinstance(w, Sliding) else w.size // w.step if isinstance(w, Cumulative)
               else 1)
    records = sum(isinstance(e, Record) for e in case.events)
    return records * (2 * windows + 1) <= OUTPUT_LIMIT


class SparkImplementation:
    name = "spark"
    #: Every feature but Flink SQL's emit strategy (`after_end_of_window`), which the pipeline does not model yet.
    features = (ALL_FEATURES - {AfterEndOfWindowTrigger.feature.name, FIRE_DELAY.name}) | JOIN_NAMES
    #: A `run` call is a Spark job: the suite prefetches each property's cases in a few large calls.
    costly_calls = True

    def __init__(self, session=None) -> None:
        self._session = session

    @property
    def session(self):
        if self._session is None:
            from spark_impl.session import get_session

            self._session = get_session()
        return self._session

    def start(self) -> None:
        """Start the Spark session and run a first job ahead of the suite's (which does it while it
        records, or waits for the reference's recordings): Spark's first job costs about 10 s more
        than the next (its Python workers start, the JVM compiles the plan's code), so it is one of
        two small cases, the relational pipeline's and the replay's, not a job of thousands."""
        self.run(WARM_UP)

    def run(self, cases: Sequence[Case]) -> list[Observation]:
        def outputs(valid: list[tuple[int, Case]]) -> pa.Table:
            return outputs_of(self.session, valid, relational={i for i, c in valid if is_relational(c)},
                              specs={i: operator_spec(c) for i, c in valid}) if valid else _empty()

        return observed(cases, outputs)

    def run_requests(self, requests: Sequence[Sequence[Case]]) -> list[list[Observation]]:
        """Many `run` calls answered by one job, each request's observations as its own `run` call
        gives them: the plan keeps every case apart by its `case_id` (its position in the job), and
        no state outlives the job, so a request's cases see nothing of the others'.
        (`tests/test_spark_requests.py` checks it against separate calls.)"""
        return requests_in_one_run(self.run, requests)

    def run_joins(self, cases: Sequence[JoinCase]) -> list[JoinObservation]:
        """Flink's DataStream joins on this session (`spark_impl.joins`), in one call."""
        return run_joins(cases, self.run, self.session)


def observed(cases: Sequence[Case], outputs: Callable[[list[tuple[int, Case]]], pa.Table]) -> list[Observation]:
    """The observations of `cases` from the output rows (`frames.OUTPUT_SCHEMA`, each case's first runtime error
    alone kept, `grouped.truncate_at_errors`) that `outputs` computes for the valid ones, given with their ids.

    What Flink rejects at job build is decided on the driver. Generated and merged watermarks: a fold per case on
    the driver (spark_impl.watermarks); the job then computes the window operator's single-input view of those cases
    like any other, and the positions are mapped back."""
    rejected = {i: invalid_spec_message(c) for i, c in enumerate(cases)}
    streams = {i: operator_stream(c) for i, c in enumerate(cases) if rejected[i] is None and c.observes_watermarks}
    valid = [(i, operator_case(c, streams[i]) if i in streams else c)
             for i, c in enumerate(cases) if rejected[i] is None]
    table = outputs(valid)
    from spark_impl.frames import observations, timer_positions

    found = observations(table, [i for i, _ in valid], {i: timer_positions(c) for i, c in valid})
    errors = pc.filter(table, pc.equal(table.column("kind"), "error")).select(["case_id", "at"])
    error_at = {row["case_id"]: row["at"] for row in errors.to_pylist()}
    for i, stream in streams.items():
        found[i] = in_case_positions(found[i], stream, error_at.get(i))
    return [found[i] if rejected[i] is None else _rejected(cases[i], rejected[i]) for i in range(len(cases))]


def requests_in_one_run(run, requests: Sequence[Sequence[Case]]) -> list[list[Observation]]:
    """The observations of each of `requests` from one `run` call on all their cases, which it keeps apart."""
    observations = iter(run([case for request in requests for case in request]))
    return [list(islice(observations, len(request))) for request in requests]


def _rejected(case: Case, message: str) -> Observation:
    """A case Flink rejects: no outputs; the operator received no watermark (an empty sequence when
    the case observes them)."""
    return replace(Observation.invalid_spec(message), watermarks=() if case.observes_watermarks else None)


def _empty() -> pa.Table:
    from spark_impl.frames import OUTPUT_SCHEMA

    return OUTPUT_SCHEMA.empty_table()
