"""One `SparkSession` per process, tuned for the small jobs of the conformance suite.

Small local jobs are dominated by fixed costs, not by data: one shuffle partition, parallelism 1,
adaptive execution off (it re-plans every tiny job), no UI and no console progress bar. A batch's
plan generates about a hundred Java classes; Spark's default cache of 100 compiled classes would
evict them between batches and recompile (seconds per batch), so the cache is larger. Arrow moves
data in and out (a pyarrow Table in, `toArrow()` out), which is several times faster than Python
lists. A batch's events above 1 MB go to the executors as an RDD, not as a `LocalRelation` held in
the plan (`spark.sql.execution.arrow.localRelationThreshold`, 48 MB by default): with a large local
relation, building and planning the batch's DataFrame grew with the data (the 3,539 cases of a
prefetched `ci` run: 4.1 s to build and 1.4 s to plan, against 1.7 and 0.5 s from an RDD; the whole
call 9.6 s against 7.1 s), while a small batch is quicker as a local relation. ANSI mode stays at
Spark's default: the pipeline never relies on overflow behaviour (see `spark_impl.javalong`).

The session is started once per process, so each pytest-xdist worker has its own; `get_session`
reuses an active session (a user's own, for instance) when there is one.

The driver's JVM compiles with the client compiler only (`-XX:TieredStopAtLevel=1`) and collects with the serial
collector: in a process that lives for a few thousand small cases, C2's optimising compiler and the parallel
collector's threads cost more CPU than they save (on 2 cores, the session's start and first job 36 s of JVM CPU
with them, 15 s without; a job of the 808 committed cases 9 s, 4.5 s; the same answers). A long job over a large
log (`benchmarks/spark_scale.py`) asks for the JVM's defaults (`java_options=()`).

Spark's own log4j2 profile prints start-up warnings that say nothing to a user of the suite (a
hostname that resolves to a loopback address, no native Hadoop library) and a note on log levels;
the session's JVM starts with `LOG4J2_PROPERTIES` instead, which shows errors only.

PySpark's DataFrame debugging is off (`spark.python.sql.dataFrameDebugging.enabled`): with it, every call of a
column function or method sends the Python call site to the JVM for Spark's error messages (`pyspark.errors.utils.
_with_origin`: the active session, the depth setting, the site set and cleared, a py4j round trip each), which was
two thirds of the round trips of a relational call (its plan built, then collected). One on a few rows: 6,621 round
trips and 4.7 s with it, 2,361 and 3.6 s without; the plan and its answers are the same. What it adds to an error is
the line of `spark_impl` that built the failing column; the pipeline's own errors (`raise_error`) say what failed.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from window_contract.implementation import ImplementationFailure

_lock = threading.Lock()

#: The settings of the small-job session; `get_session(conf=...)` replaces any of them.
SMALL_JOB_CONF: dict[str, str] = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "1",
    "spark.default.parallelism": "1",
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.codegen.cache.maxEntries": "2000",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.execution.arrow.pyspark.fallback.enabled": "false",
    "spark.sql.execution.arrow.localRelationThreshold": "1MB",
    "spark.sql.session.timeZone": "UTC",
    "spark.python.sql.dataFrameDebugging.enabled": "false",
    "spark.driver.memory": "2g",
}

#: The driver JVM's options for the small jobs (see the module's docstring).
SMALL_JOB_JAVA_OPTIONS = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")

#: The driver's log4j2 configuration: errors only, on stderr.
LOG4J2_PROPERTIES = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = stderr
appender.stderr.type = Console
appender.stderr.name = stderr
appender.stderr.target = SYSTEM_ERR
appender.stderr.layout.type = PatternLayout
appender.stderr.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex
# PySpark's gateway starts logging as a shell does, and a shell announces "Setting default log level"
# unless its own logger's level is configured and equals the root's.
logger.gateway.name = org.apache.spark.api.python.PythonGatewayServer
logger.gateway.level = error
"""


def _log_configuration() -> Path:
    """`LOG4J2_PROPERTIES` as a file the JVM can read (log4j2 takes its configuration from a file)."""
    path = Path(tempfile.gettempdir()) / f"window-conformance-log4j2-{os.getuid()}.properties"
    if not path.exists() or path.read_text(encoding="utf-8") != LOG4J2_PROPERTIES:
        path.write_text(LOG4J2_PROPERTIES, encoding="utf-8")
    return path


def _check_java() -> None:
    """Spark's launcher runs `$JAVA_HOME/bin/java`, or `java` from the PATH without JAVA_HOME."""
    home = os.environ.get("JAVA_HOME")
    java = Path(home, "bin", "java") if home else shutil.which("java")
    if java is None or not os.access(java, os.X_OK):
        where = f"JAVA_HOME is {home}, which has no bin/java" if home else "no java on the PATH, and JAVA_HOME is unset"
        raise ImplementationFailure(f"Spark needs Java 17 to start its JVM: {where}")


def get_session(master: str = "local[2]", conf: Mapping[str, str] | None = None,
                java_options: Sequence[str] = SMALL_JOB_JAVA_OPTIONS):
    """The process's SparkSession, started on first use with `SMALL_JOB_CONF`, the quiet log
    configuration and the driver JVM's `java_options`, updated by `conf`.

    Raises ImportError if PySpark is missing and `ImplementationFailure` naming Java if Java is (Spark's
    own error says only that its "Java gateway process exited"): callers (and tests) must fail loudly
    rather than skip.
    """
    from pyspark.sql import SparkSession

    with _lock:
        active = SparkSession.getActiveSession()
        if active is not None:
            return active
        # The workers must run the driver's Python, or pickled functions meet another interpreter.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
        _check_java()
        builder = SparkSession.builder.master(master).appName("window-conformance")
        options = {"spark.driver.extraJavaOptions": shlex.join([f"-Dlog4j2.configurationFile={_log_configuration()}",
                                                                *java_options])}
        for name, value in (SMALL_JOB_CONF | options | dict(conf or {})).items():
            builder = builder.config(name, value)
        session = builder.getOrCreate()
        session.sparkContext.setLogLevel("ERROR")
        return session


@contextmanager
def shuffle_partitions(session, partitions: int) -> Iterator[None]:
    """At least `partitions` shuffle partitions for the jobs started within, the session's own
    setting again after them."""
    name = "spark.sql.shuffle.partitions"
    before = session.conf.get(name)
    if partitions <= int(before):
        yield
        return
    session.conf.set(name, str(partitions))
    try:
        yield
    finally:
        session.conf.set(name, before)
