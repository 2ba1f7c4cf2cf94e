"""`reference.explain`: the step-by-step trace behind `python -m conformance explain`."""

import json

from reference.explain import _line, explain_case
from reference.implementation import simulate
from reference.trace import Step, StepRecorder, TraceListener, TraceStep
from window_contract import (
    LONG_MIN,
    Case,
    CountEvictor,
    CountTrigger,
    observation_to_json,
    processing_time,
    purging,
    record,
    session,
    tumbling,
    watermark,
)


def test_explain_traces_each_step_then_the_observation():
    case = Case(
        window=tumbling(10),
        late_side_output=True,
        events=[record("a", 1, 5), watermark(9), watermark(3), record("a", 2, 4)],
    )
    lines = list(explain_case(case))
    assert lines[0] == "[0] record key=a value=1 ts=5"
    assert lines[1] == "  assigned to [0, 10)"
    assert "  event-time timer at 9 for [0, 10)" in lines
    assert "[1] Watermark(9)" in lines
    assert "  event-time timer 9 fires for key a [0, 10)" in lines
    assert "  FIRE key=a [0, 10) values=[1]" in lines
    assert "  cleanup: all state of [0, 10) cleared" in lines
    assert "  ignored: does not exceed the current watermark 9" in lines
    assert "  [0, 10) is late (cleanup time <= watermark): skipped" in lines
    assert "  late: every window was late -> side output (2, ts=4)" in lines
    assert "[4] end of input: Watermark(Long.MAX_VALUE)" in lines
    assert lines[-2] == "observation:"
    assert json.loads(lines[-1]) == observation_to_json(simulate(case))


def test_explain_shows_merges_purges_and_drops():
    case = Case(window=session(5), events=[record("k", 1, 0), record("k", 2, 3)])
    assert "  merged [0, 5) into [0, 8)" in list(explain_case(case))
    lines = list(
        explain_case(Case(window=tumbling(10), trigger=purging(CountTrigger(1)), events=[record("k", 1, 0)]))
    )
    assert "  PURGE [0, 10): contents dropped" in lines
    lines = list(explain_case(Case(window=tumbling(10), events=[watermark(100), record("k", 1, 0)])))
    assert "  late: every window was late -> dropped (1, ts=0)" in lines


def test_explain_reports_errors():
    lines = list(explain_case(Case(window=tumbling(10), events=[record("k", 1, LONG_MIN)])))
    assert "[0] record key=k value=1 ts=Long.MIN_VALUE" in lines
    assert any(line.startswith("error (runtime): Record has Long.MIN_VALUE timestamp") for line in lines)
    lines = list(explain_case(Case(window=tumbling(0))))
    assert (
        lines[0]
        == "error (invalid_spec): TumblingEventTimeWindows parameters must satisfy abs(offset) < size"
    )


def test_explain_shows_evictions_and_processing_time_timers():
    case = Case(window=tumbling(10, time="processing"), trigger=CountTrigger(2), evictor=CountEvictor(1),
                events=[record("k", 1, 0), record("k", 2, 0), processing_time(20)])
    lines = list(explain_case(case))
    assert "  processing-time timer at 9 for [0, 10)" in lines
    assert "  FIRE key=k [0, 10) values=[2]" in lines
    assert "  evictor left [2] in [0, 10)" in lines
    assert "  processing-time timer 9 fires for key k [0, 10)" in lines


def test_every_kind_of_step_has_a_line_and_is_recorded():
    for kind in TraceStep:
        assert isinstance(_line(Step(kind)), str), kind
    listened = {name for name in vars(TraceListener) if not name.startswith("_")}
    assert listened <= set(vars(StepRecorder)), "a listener method StepRecorder does not record"
