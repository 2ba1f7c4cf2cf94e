"""`reference.operator` through the driver, for what no case file states yet.

Flink's own `WindowOperatorTest` scenarios are case files under `cases/window_operator_test/` and the
seed documents' examples under `cases/seeds/`: they run against every implementation
(`tests/test_cases.py`), as Flink's `WindowOperatorContractTest` runs against every operator.
"""

from __future__ import annotations

from conformance import LONG_MAX, Case, record, tumbling, watermark
from conformance.observation import Firing, TimeWindow
from reference.implementation import simulate


def test_end_of_input_after_a_max_watermark_adds_nothing():
    """The end of input is `Watermark(Long.MAX_VALUE)`; after an explicit one it does not increase the
    watermark (`InternalTimeServiceManager.advanceWatermark` ignores it), so nothing fires twice."""
    events = [record("k", 1, 5), watermark(LONG_MAX)]
    assert simulate(Case(window=tumbling(10), events=events)).firings == (
        Firing(1, "k", TimeWindow(0, 10), 9, (1,), LONG_MAX),
    )
