import pytest

from conformance.profiles import register_profiles

register_profiles()


@pytest.fixture(scope="module")
def flink_observed(request: pytest.FixtureRequest) -> dict:
    """The test module's table of hand-derived cases (`CASES`: name -> (case, expected observation)),
    run through real Flink as one batch: one job for the whole table."""
    from flink_impl.implementation import FlinkImplementation

    cases = request.module.CASES
    return dict(zip(cases, FlinkImplementation().run([case for case, _ in cases.values()]), strict=True))
