"""`FlinkImplementation`: the suite's cases run through Apache Flink's own `WindowOperator`."""

from __future__ import annotations

from collections.abc import Sequence

from conformance.case import Case
from conformance.case_json import case_to_json
from conformance.features import ALL_FEATURES, required_features
from conformance.observation import Observation
from conformance.observation_json import observation_from_json
from flink_impl.process import Limits, run_cases


class FlinkImplementation:
    """Apache Flink 2.3.0 (flink-dist of apache-flink-libraries), one MiniCluster per Python process.

    `limits` bound what a case may cost; a case stopped by them (one Flink would never finish) gets
    the contract's `runtime` error `NEVER_ENDS`, after the outputs it had emitted.
    """

    name = "flink"
    #: Every feature is replayed exactly. Processing time included: the window operator's processing-time
    #: service is the case's clock, which its `processing_time` events move (`CaseProcessingTime.java`,
    #: with real Flink's rule that a timer for t fires once the clock passes t), and the channels'
    #: generators, their periodic emission and idleness run on the same clock (`CaseWatermarks.java`).
    features = ALL_FEATURES
    #: A `run` call is one or more Flink jobs: the suite prefetches each property's cases in a few large calls.
    costly_calls = True

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()

    def run(self, cases: Sequence[Case]) -> list[Observation]:
        for i, case in enumerate(cases):
            missing = required_features(case) - self.features
            if missing:
                raise ValueError(f"cases[{i}]{f' ({case.name})' if case.name else ''}: the flink implementation "
                                 f"does not support {', '.join(sorted(missing))}")
        if not cases:
            return []
        answers = run_cases([case_to_json(c) for c in cases], self.limits)
        return [observation_from_json(a, f"$.observations[{i}]") for i, a in enumerate(answers)]
