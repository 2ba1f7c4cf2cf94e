"""Spark answers many `run` calls in one job (`SparkImplementation.run_requests`), as the prefetched
suite's batch-isolation tests need: each request's observations equal those of its own `run` call."""

from __future__ import annotations

from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from reference.implementation import ReferenceImplementation
from spark_impl.implementation import WARM_UP, SparkImplementation, is_relational
from strategies import case_batches
from window_contract.difference import difference

SPARK = SparkImplementation()


@settings(max_examples=4, derandomize=True, database=None, deadline=None,
          phases=[Phase.explicit, Phase.generate])  # a Spark job an example: no shrinking
@given(st.data())
def test_requests_in_one_job_answer_as_separate_run_calls(data):
    batch = data.draw(case_batches(SPARK.features, report=False), label="batch")
    alone = data.draw(st.integers(0, len(batch) - 1), label="case run alone")
    requests = [batch + batch[:1], [batch[alone]], batch[::-1]]
    together = SPARK.run_requests(requests)
    assert [len(answers) for answers in together] == [len(r) for r in requests]
    for request, answers in zip(requests, together, strict=True):
        for case, got, want in zip(request, answers, SPARK.run(request), strict=True):
            assert not difference(want, got), f"{case}:\n{difference(want, got)}"


def test_the_first_job_warms_up_both_paths_of_the_plan():
    """`start()` runs Spark's costly first job on two small cases, one through the relational
    pipeline and one through the replay, so that the suite's first fetch finds Spark warm."""
    assert [is_relational(case) for case in WARM_UP] == [True, False]
    SPARK.start()
    assert SPARK.run(WARM_UP) == ReferenceImplementation().run(WARM_UP)
