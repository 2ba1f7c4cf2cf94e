"""The command that starts Flink's runner, a `window-process/1` process (docs/protocol.md).

`python -m flink_impl` prints it (compiling the runner first if this build is not cached), so that
real Flink runs wherever a process can: `--impl "exec:$(python -m flink_impl)"` is the `flink`
implementation without its launcher (`python -m flink_impl flink-sql` the SQL one, and so on). The
runner states nothing of the contract itself: its one argument carries the name, the features
(`window_contract.features`), the API its jobs are written in, the limits and the contract's facts
(`window_contract.facts`) it needs.
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import asdict, dataclass

from flink_impl.toolchain import MAIN_CLASS, compiled_classes, find_build
from window_contract.case import FIRE_DELAY, AfterEndOfWindowTrigger, Cumulative
from window_contract.facts import (
    NEVER_ENDS,
    OUTPUT_LIMIT,
    TOO_MANY_OUTPUTS,
    TOO_MANY_WINDOWS,
    WINDOWS_PER_ELEMENT_LIMIT,
)
from window_contract.features import ALL_FEATURES, FEATURES

NAME = "flink"
#: A job's JVM: a small heap and the serial collector (one job's work on a machine shared with others).
JVM_OPTIONS = ["-Xmx1g", "-XX:+UseSerialGC"]
#: The runner's, which answers the suite's small cases: the client compiler only (C1): C2's optimising compiler costs
#: more CPU than the cases save (`tests/test_flink_runner.py`: 116 s of CPU with it, 75 s without). A bulk replay of a
#: large log (`flink_impl.bulk`) keeps it.
RUNNER_JVM_OPTIONS = [*JVM_OPTIONS, "-XX:TieredStopAtLevel=1"]


@dataclass(frozen=True)
class Limits:
    #: Cases per Flink job: a job costs about 0.1 s to start, a case some milliseconds more; after
    #: a failure (or a case that does not end) the job's remaining cases run again.
    branches_per_job: int = 128
    #: A job in which no case has ended while the runner spent this many seconds of CPU is replaying a case that does
    #: not end (Flink would go on). The timeout is on progress, not on the whole job (a long job on a slow machine ends
    #: its cases one after the other), and in CPU, not the wall's time (a job the machine gives no CPU spends none).
    job_timeout_seconds: int = 30
    #: The outputs one key may emit before the case stops (the contract's `OUTPUT_LIMIT`, `TOO_MANY_OUTPUTS`).
    output_limit: int = OUTPUT_LIMIT


@dataclass(frozen=True)
class Variant:
    """One implementation on the runner: its name, the Flink release it runs, the API its jobs are written in
    (`datastream`: `Runner`'s `CaseBranch`; `sql`, `sql-legacy`: `sql/SqlBranch.java`), the features it declares
    and its default limits."""

    name: str
    release: str
    api: str
    features: frozenset[str]
    limits: Limits = Limits()


#: Real Flink 2.3's DataStream API: every feature but cumulative windows and SQL's emit strategy, which only the
#: table runtime has (`CUMULATE`; the table runtime's `EventTimeTriggers`, which fit no DataStream `WindowOperator`).
DATASTREAM_FEATURES = ALL_FEATURES - {Cumulative.feature.name, AfterEndOfWindowTrigger.feature.name, FIRE_DELAY.name}
FLINK = Variant(NAME, "2.3", "datastream", DATASTREAM_FEATURES)
#: The same harness on Flink 1.20, the LTS release.
FLINK_1_20 = Variant("flink-1.20", "1.20", "datastream", DATASTREAM_FEATURES)


def contract_argument(limits: Limits, variant: Variant = FLINK) -> str:
    """The runner's one argument (`Contract.java`): what it takes from the contract, as JSON."""
    features = [name for name in FEATURES if name in variant.features]  # in the contract's order
    return json.dumps({"name": variant.name, "features": features, "api": variant.api,
                       "limits": asdict(limits), "never_ends": NEVER_ENDS, "too_many_outputs": TOO_MANY_OUTPUTS,
                       "windows_per_element_limit": WINDOWS_PER_ELEMENT_LIMIT,
                       "too_many_windows": TOO_MANY_WINDOWS}, separators=(",", ":"))


def runner_command(limits: Limits | None = None, variant: Variant = FLINK) -> str:
    """The runner's command line, quoted as a shell would split it (`exec:` splits it so)."""
    build = find_build(variant.release, sql=variant.api != "datastream")
    classpath = os.pathsep.join([str(compiled_classes(build)), *map(str, build.jars)])
    return shlex.join([str(build.java), *RUNNER_JVM_OPTIONS, "-cp", classpath, MAIN_CLASS,
                       contract_argument(limits or variant.limits, variant)])
