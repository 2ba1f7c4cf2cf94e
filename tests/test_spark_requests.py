"""Spark answers many `run` calls in one job (`SparkImplementation.run_requests`), as the prefetched
suite's batch-isolation tests need: each request's observations are those its own `run` call would give."""

from __future__ import annotations

from costly_examples import not_the_simplest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from reference.implementation import ReferenceImplementation
from spark_impl.implementation import WARM_UP, SparkImplementation, is_relational
from strategies import case_batches
from window_contract.difference import difference

SPARK = SparkImplementation()


@settings(max_examples=1, derandomize=True, database=None, deadline=None,
          phases=[Phase.explicit, Phase.generate])  # Spark jobs: no shrinking
@given(st.data())
def test_requests_in_one_job_answer_as_separate_run_calls(data):
    """Four drawn batches, each asked as three requests (the batch with its first case again, one of its cases alone,
    the batch reversed), all twelve in one job: each case is answered as its own batch's `run` call answers it, a job
    of its own (five jobs in all, where a `run` call for each request made sixteen; that a case's observation does not
    depend on the others of its batch, in any order, `tests/test_spark_cases.py` checks too)."""
    batches = [data.draw(case_batches(SPARK.features, report=False), label=f"batch {n}") for n in range(4)]
    not_the_simplest(*batches)
    alone = [data.draw(st.integers(0, len(batch) - 1), label=f"case of batch {n} run alone")
             for n, batch in enumerate(batches)]
    requests = [(n, positions) for n, batch in enumerate(batches)
                for positions in ([*range(len(batch)), 0], [alone[n]], list(reversed(range(len(batch)))))]
    together = SPARK.run_requests([[batches[n][i] for i in positions] for n, positions in requests])
    assert [len(answers) for answers in together] == [len(positions) for _, positions in requests]
    separate = [SPARK.run(batch) for batch in batches]
    for (n, positions), answers in zip(requests, together, strict=True):
        for i, got in zip(positions, answers, strict=True):
            assert not difference(separate[n][i], got), f"{batches[n][i]}:\n{difference(separate[n][i], got)}"


def test_the_first_job_warms_up_both_paths_of_the_plan():
    """`start()` runs Spark's costly first job on two small cases, one through the relational
    pipeline and one through the replay, so that the suite's first fetch finds Spark warm."""
    assert [is_relational(case) for case in WARM_UP] == [True, False]
    SPARK.start()
    assert SPARK.run(WARM_UP) == ReferenceImplementation().run(WARM_UP)
