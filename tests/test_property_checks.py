"""The property suite's checks hold on what Flink does: each case here once broke a check on the
reference's observation, and real Flink agrees with the reference on it (it is in `cases/`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from conformance.properties.test_event_time import late_firings_contain_everything_the_window_held
from window_contract.case_json import load_cases

CASES = Path(__file__).resolve().parent.parent / "cases"


def test_a_purging_trigger_inside_a_processing_timeout_trigger_purges():
    [case] = [c for c in load_cases(CASES / "processing_timeout" / "processing_timeout.json")
              if c.name.startswith("ProcessingTimeoutTrigger.of(PurgingTrigger")]
    assert late_firings_contain_everything_the_window_held(case, case.expected) is None
    # The same firings without the purge break the rule: the late firing lacks what the window held.
    unpurged = replace(case, trigger=replace(case.trigger, inner=case.trigger.inner.inner))
    assert "lacks [1]" in late_firings_contain_everything_the_window_held(unpurged, case.expected)
