"""`FlinkImplementation`: the suite's cases run through Apache Flink's own `WindowOperator`.

A launcher: the runner is a `window-process/1` process (`flink_impl/command.py`), which the
process client (`window_contract.process`) talks to, as it would with `--impl exec:COMMAND`.
"""

from __future__ import annotations

import atexit
import threading
import weakref
from collections.abc import Sequence

from flink_impl.command import FLINK, FLINK_1_20, Limits, Variant, runner_command
from flink_impl.joins import run_joins
from window_contract.case import Case
from window_contract.features import JOIN_NAMES
from window_contract.implementation import REQUEST_TIMEOUT, ImplementationFailure
from window_contract.join_case import JoinCase
from window_contract.join_observation import JoinObservation
from window_contract.observation import Observation
from window_contract.process import ProcessImplementation

#: The runner of each variant and `Limits` in use: implementations with equal ones share one JVM, and
#: the default limits' runners live as long as the Python process (starting one takes seconds).
_runners: weakref.WeakValueDictionary[tuple[Variant, Limits], ProcessImplementation] = weakref.WeakValueDictionary()
_runners_lock = threading.Lock()


def runner(limits: Limits, variant: Variant = FLINK) -> ProcessImplementation:
    """The started runner of `variant` for these limits, shared in this Python process."""
    with _runners_lock:
        process = _runners.get((variant, limits))
        if process is None:
            process = ProcessImplementation(runner_command(limits, variant), label="the Flink runner")
            if (process.name, process.features, process.costly_calls) != (variant.name, variant.features, True):
                process.close()
                raise ImplementationFailure(f"the Flink runner said hello as {process.name!r} with other "
                                            "features or flags than flink_impl declares")
            _runners[variant, limits] = process
            if limits == variant.limits:
                atexit.register(process.close)
        return process


class FlinkImplementation:
    """Apache Flink 2.3.0 (flink-dist of apache-flink-libraries), one MiniCluster per Python process.

    `limits` bound what a case may cost: a key's output past `output_limit` stops the case with the
    contract's `TOO_MANY_OUTPUTS`, and a case a job spends a whole timeout in (a case Flink would never
    finish, or not within it: a burst of a billion timers) with `NEVER_ENDS`, each after the outputs it had emitted.
    The runner's JVM starts at the first `run` call.
    """

    #: Every feature is replayed exactly. Processing time included: the window operator's processing-time
    #: service is the case's clock, which its `processing_time` events move (`CaseProcessingTime.java`,
    #: with real Flink's rule that a timer for t fires once the clock passes t), and the channels'
    #: generators, their periodic emission and idleness run on the same clock (`CaseWatermarks.java`).
    variant = FLINK
    #: A `run` call is one or more Flink jobs: the suite prefetches each property's cases in a few large calls.
    costly_calls = True
    position_free = False

    def __init__(self, limits: Limits | None = None, timeout: float = REQUEST_TIMEOUT) -> None:
        self.limits, self.timeout = limits or self.variant.limits, timeout
        #: The DataStream joins (`flink_impl.joins`) run on the DataStream variants (2.3 and 1.20), not on SQL's.
        self.name = self.variant.name
        self.features = self.variant.features | (JOIN_NAMES if self.variant in (FLINK, FLINK_1_20) else frozenset())
        self._runner: ProcessImplementation | None = None

    def start(self) -> None:
        """Start the runner's JVM ahead of the first call (the suite does it while it records)."""
        if self._runner is None:
            self._runner = runner(self.limits, self.variant)

    def run(self, cases: Sequence[Case]) -> list[Observation]:
        return self.run_bounded(cases, self.timeout)

    def run_bounded(self, cases: Sequence[Case], timeout: float) -> list[Observation]:
        """`run` within `timeout` seconds: past it the JVM is killed, and the next call starts another."""
        if not cases:
            return []
        self.start()
        return self._runner.run_bounded(cases, timeout)

    def run_joins(self, cases: Sequence[JoinCase]) -> list[JoinObservation]:
        """The join cases on Flink's runtime (`flink_impl.joins`), the window joins on this runner."""
        return run_joins(cases, self.run, self.variant.release)


class Flink120Implementation(FlinkImplementation):
    """The same harness on Apache Flink 1.20.3, the LTS release (its jars from Maven Central, `flink-1.20/pom.xml`),
    every feature: the README's "What changes between Flink 1.20 and 2.3" is what the suite finds."""

    variant = FLINK_1_20
