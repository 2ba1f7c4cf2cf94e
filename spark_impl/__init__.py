"""Flink's window semantics on PySpark: `flink_windows` for your DataFrames, `SparkImplementation`
for the conformance suite. Never imports `reference` (the two are checked against each other)."""

from spark_impl.api import BoundedOutOfOrderness, WindowOutputs, flink_windows

__all__ = ["BoundedOutOfOrderness", "WindowOutputs", "flink_windows"]
