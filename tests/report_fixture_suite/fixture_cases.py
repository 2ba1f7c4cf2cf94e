"""Small tumbling-window cases, possibly with negative timestamps and late records."""

from __future__ import annotations

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st

from window_contract.case import Case, record, tumbling, watermark
from window_contract.features import required_features


@st.composite
def tumbling_cases(draw) -> Case:
    size = draw(st.integers(1, 10))
    n = draw(st.integers(1, 5))
    events = []
    for i in range(n):
        if draw(st.booleans()):
            events.append(record("a", i, draw(st.integers(-100, 100))))
        else:
            events.append(watermark(draw(st.integers(-100, 100))))
    case = Case(window=tumbling(size), events=events)
    event("negative timestamps" if "negative_timestamps" in required_features(case) else "timestamps >= 0")
    return case


#: The `tally` fixture deliberately lives across the examples of one test.
across_examples = settings(suppress_health_check=list(HealthCheck))
