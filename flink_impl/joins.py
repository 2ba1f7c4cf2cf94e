"""Flink 2.3's DataStream joins on its runtime, for `join-case/1` cases.

Two inputs make the order of events across them part of a case (which of two partners arrives second emits the
pair; a watermark of one input between them can make the second late), and a MiniCluster does not keep that order
across two real inputs: a two-input task reads its input gates as their buffers become available, and a union
behind a keyBy reads its channels so too. Both joins are therefore replayed in one thread, in the case's order:

- **Window join and coGroup**: Flink builds them as a window operator over the tagged union of both inputs
  (`window_contract.join_union`). The union's case runs on the existing runner (`FlinkImplementation`: Flink's
  `WindowOperator`, chained behind the replay, with Flink's `StatusWatermarkValve` over both inputs' channels); the
  firings become the join's outputs as `CoGroupWindowFunction` and `JoinCoGroupFunction` compute them. What this
  checks on the runtime is the window operator over the union; that `WithWindow.apply` builds exactly that job
  was read in Flink 2.3's bytecode (the union's tagging and the two functions are not run).
- **Interval join**: `flink_impl/join/` runs Flink's own `IntervalJoinOperator` on the runtime (keyed state, timers,
  the combination of its inputs' watermarks), fed through one chained input that hands each event to its
  `processElement1/2`, `processWatermark1/2` or `processWatermarkStatus1/2` (`ReplayedIntervalJoinOperator`), behind
  Flink's `StatusWatermarkValve` per input, as a two-input task has.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import replace

from flink_impl.command import JVM_OPTIONS
from flink_impl.toolchain import HERE, Build, compiled_classes, find_build
from window_contract.case import Case
from window_contract.implementation import ImplementationFailure
from window_contract.join_case import IntervalJoin, JoinCase
from window_contract.join_observation import JoinObservation, Pair, SideRecord
from window_contract.join_union import join_observation, union_case
from window_contract.observation import Error, InputWatermark, Observation

JOIN_SOURCES = HERE / "join"
JOIN_MAIN_CLASS = "joinconformance.JoinRunner"
#: A batch of interval joins is one job; past this many seconds it is not going to end.
JOB_TIMEOUT_SECONDS = 300


def run_joins(cases: Sequence[JoinCase], run: Callable[[list[Case]], list[Observation]],
              release: str) -> list[JoinObservation]:
    """The join cases on Flink `release`'s runtime ("2.3", "1.20"): the window joins' unions through `run` (a
    `FlinkImplementation`'s, on that release), the interval joins on the release's join runner."""
    observations: dict[int, JoinObservation] = {}
    windowed = [i for i, c in enumerate(cases) if not isinstance(c.join, IntervalJoin)]
    intervals = [i for i, c in enumerate(cases) if isinstance(c.join, IntervalJoin)]
    unions = run([union_case(cases[i]) for i in windowed])
    observations |= {i: join_observation(cases[i], o) for i, o in zip(windowed, unions, strict=True)}
    observations |= dict(zip(intervals, run_interval_joins([cases[i] for i in intervals], release), strict=True))
    return [observations[i] for i in range(len(cases))]


def join_build(release: str) -> Build:
    """The join runner of Flink `release` ("2.3", "1.20"): its sources beside the window runner's build (`find_build`:
    the window runner and the release's shims, whose `DataOutputShim` the join's valves output through), on the
    release's jars."""
    window = find_build(release)
    return replace(window, sources=(JOIN_SOURCES, *window.sources))


def run_interval_joins(cases: Sequence[JoinCase], release: str = "2.3") -> list[JoinObservation]:
    """The interval join cases in one Flink job (`JoinRunner`) on Flink `release`."""
    if not cases:
        return []
    return [_observation(raw) for raw in run_job(join_build(release), JOIN_MAIN_CLASS, [c.to_json() for c in cases])]


def run_job(build: Build, main_class: str, batch: list) -> list[dict]:
    """One join runner's job over `batch` (its JSON on stdin): the raw observations it prints."""
    classpath = os.pathsep.join([str(compiled_classes(build)), *map(str, build.jars)])
    try:
        result = subprocess.run([str(build.java), *JVM_OPTIONS, "-cp", classpath, main_class],
                                input=json.dumps(batch), capture_output=True, text=True, timeout=JOB_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        raise ImplementationFailure(f"the Flink join runner did not finish {len(batch)} cases within "
                                    f"{JOB_TIMEOUT_SECONDS} s") from None
    if result.returncode != 0 or not result.stdout.strip():
        raise ImplementationFailure(f"the Flink join runner failed: {result.stderr.strip()[-2000:]}")
    return json.loads(result.stdout)


def _observation(raw: dict) -> JoinObservation:
    """A `JoinRunner` observation: its outputs as arrays, in the contract's types."""
    error = raw.get("error")
    return JoinObservation(tuple(Pair(*o) for o in raw.get("outputs", ())),
                           tuple(SideRecord(*r) for r in raw.get("late", ())),
                           tuple(SideRecord(*r) for r in raw.get("dropped", ())),
                           tuple(InputWatermark(*w) for w in raw.get("watermarks", ())),
                           None if error is None else Error(error["kind"], error["message"]))
