"""The delta functions a case names, for `DeltaTrigger` and `DeltaEvictor` (`DeltaFunction.getDelta(
oldDataPoint, newDataPoint)` in `org.apache.flink.streaming.api.functions.windowing.delta`).

Flink's user function sees two `long` values and returns a `double`: each value becomes a `double`
before the subtraction, so values beyond 2^53 round (to nearest, ties to even, as Python's `float`),
and two different values can have a delta of 0.
"""

from __future__ import annotations


def get_delta(delta_function: str, old: int, new: int) -> float:
    """`absolute_difference`: `Math.abs((double) old - (double) new)`; `difference`: `(double) new -
    (double) old`."""
    grown = float(new) - float(old)
    if delta_function == "absolute_difference":
        return abs(grown)
    if delta_function == "difference":
        return grown
    raise ValueError(f"not a delta function: {delta_function!r}")
