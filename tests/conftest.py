import pytest

from conformance.profiles import register_profiles

register_profiles()

#: The test files whose tests take longest in `./dev test` (40 s to 90 s each on its 2-core machine; its unit tests'
#: `--durations=25` lists them), run first: pytest-xdist hands the tests out in their order, so a worker that
#: meets one of them late would run it alone while the others wait.
LONGEST_FIRST = (
    "test_plugin_starters.py",
    "test_readme_walkthrough.py",
    "test_divergences.py",
    "test_spark_requests.py",
    "test_spark_api.py",
    "test_flink_sql_joins.py",
    "test_flink_runner.py",
    "test_engine_flink_sql.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """`LONGEST_FIRST`'s files first, each file's tests in their order, then every other file's as collected."""
    rank = {name: n for n, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


@pytest.fixture(scope="module")
def flink_observed(request: pytest.FixtureRequest) -> dict:
    """The test module's table of hand-derived cases (`CASES`: name -> (case, expected observation)),
    run through real Flink as one batch: one job for the whole table."""
    from flink_impl.implementation import FlinkImplementation

    cases = request.module.CASES
    return dict(zip(cases, FlinkImplementation().run([case for case, _ in cases.values()]), strict=True))
