"""One `SparkSession` per process, tuned for the small jobs of the conformance suite.

Small local jobs are dominated by fixed costs, not by data: one shuffle partition, parallelism 1,
adaptive execution off (it re-plans every tiny job), no UI and no console progress bar. A batch's
plan generates about a hundred Java classes; Spark's default cache of 100 compiled classes would
evict them between batches and recompile (seconds per batch), so the cache is larger. Arrow moves
data in and out (a pyarrow Table in, `toArrow()` out), which is several times faster than Python
lists. ANSI mode stays at Spark's default: the pipeline never relies on overflow behaviour (see
`spark_impl.javalong`).

The session is started once per process, so each pytest-xdist worker has its own; `get_session`
reuses an active session (a user's own, for instance) when there is one.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Mapping

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
    "spark.sql.session.timeZone": "UTC",
    "spark.driver.memory": "2g",
}


def get_session(master: str = "local[2]", conf: Mapping[str, str] | None = None):
    """The process's SparkSession, started on first use with `SMALL_JOB_CONF` updated by `conf`.

    Raises ImportError if PySpark is missing and Spark's own error if Java is: callers (and tests)
    must fail loudly rather than skip.
    """
    from pyspark.sql import SparkSession

    with _lock:
        active = SparkSession.getActiveSession()
        if active is not None:
            return active
        # The workers must run the driver's Python, or pickled functions meet another interpreter.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
        builder = SparkSession.builder.master(master).appName("window-conformance")
        for name, value in (SMALL_JOB_CONF | dict(conf or {})).items():
            builder = builder.config(name, value)
        session = builder.getOrCreate()
        session.sparkContext.setLogLevel("ERROR")
        return session
