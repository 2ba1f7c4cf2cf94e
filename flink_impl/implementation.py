"""`FlinkImplementation`: the suite's cases run through Apache Flink's own `WindowOperator`.

A launcher: the runner is a `window-process/1` process (`flink_impl/command.py`), which the
process client (`window_contract.process`) talks to, as it would with `--impl exec:COMMAND`.
"""

from __future__ import annotations

import atexit
import threading
import weakref
from collections.abc import Sequence

from flink_impl.command import NAME, Limits, runner_command
from window_contract.case import Case
from window_contract.features import ALL_FEATURES
from window_contract.implementation import REQUEST_TIMEOUT, ImplementationFailure
from window_contract.observation import Observation
from window_contract.process import ProcessImplementation

#: The runner of each `Limits` in use: implementations with equal limits share one JVM, and the
#: default limits' runner lives as long as the Python process (starting one takes seconds).
_runners: weakref.WeakValueDictionary[Limits, ProcessImplementation] = weakref.WeakValueDictionary()
_runners_lock = threading.Lock()


def runner(limits: Limits) -> ProcessImplementation:
    """The started runner for these limits, shared in this Python process."""
    with _runners_lock:
        process = _runners.get(limits)
        if process is None:
            process = ProcessImplementation(runner_command(limits), label="the Flink runner")
            if (process.name, process.features, process.costly_calls) != (NAME, ALL_FEATURES, True):
                process.close()
                raise ImplementationFailure(f"the Flink runner said hello as {process.name!r} with other "
                                            "features or flags than flink_impl declares")
            _runners[limits] = process
            if limits == Limits():
                atexit.register(process.close)
        return process


class FlinkImplementation:
    """Apache Flink 2.3.0 (flink-dist of apache-flink-libraries), one MiniCluster per Python process.

    `limits` bound what a case may cost; a case stopped by them (one Flink would never finish) gets
    the contract's `runtime` error `NEVER_ENDS`, after the outputs it had emitted. The runner's JVM
    starts at the first `run` call.
    """

    name = NAME
    #: Every feature is replayed exactly. Processing time included: the window operator's processing-time
    #: service is the case's clock, which its `processing_time` events move (`CaseProcessingTime.java`,
    #: with real Flink's rule that a timer for t fires once the clock passes t), and the channels'
    #: generators, their periodic emission and idleness run on the same clock (`CaseWatermarks.java`).
    features = ALL_FEATURES
    #: A `run` call is one or more Flink jobs: the suite prefetches each property's cases in a few large calls.
    costly_calls = True
    position_free = False

    def __init__(self, limits: Limits | None = None, timeout: float = REQUEST_TIMEOUT) -> None:
        self.limits, self.timeout = limits or Limits(), timeout
        self._runner: ProcessImplementation | None = None

    def start(self) -> None:
        """Start the runner's JVM ahead of the first call (the suite does it while it records)."""
        if self._runner is None:
            self._runner = runner(self.limits)

    def run(self, cases: Sequence[Case]) -> list[Observation]:
        return self.run_bounded(cases, self.timeout)

    def run_bounded(self, cases: Sequence[Case], timeout: float) -> list[Observation]:
        """`run` within `timeout` seconds: past it the JVM is killed, and the next call starts another."""
        if not cases:
            return []
        self.start()
        return self._runner.run_bounded(cases, timeout)
