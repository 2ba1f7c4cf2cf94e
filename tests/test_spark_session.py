"""The suite's Spark session starts quietly: Spark's start-up warnings (a hostname that resolves to a
loopback address, no native Hadoop library) and its note on log levels never reach the user's console,
while errors still do."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

START = """
from spark_impl.session import get_session
spark = get_session()
print(spark.range(3).count())
spark.sql("select raise_error('the error a user must see')").collect()
"""


def test_spark_starts_without_warnings_and_still_reports_errors():
    done = subprocess.run([sys.executable, "-c", START], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env=os.environ | {"PYTHONPATH": str(ROOT)})
    assert done.stdout.splitlines()[0] == "3", done.stderr[-3000:]
    noise = [line for line in done.stderr.splitlines()
             if " WARN " in line or "log4j" in line or "Setting default log level" in line]
    assert noise == [], "\n".join(noise)
    assert "ERROR" in done.stderr and "the error a user must see" in done.stderr
