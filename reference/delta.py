"""Delta functions: `org.apache.flink.streaming.api.functions.windowing.delta.DeltaFunction`.

A case names its delta function (the format carries no code). Each is `getDelta(oldDataPoint,
newDataPoint)` over two record values (Java `long`s), computed as Java computes it: each value is
converted to a `double` first (`(double) value`, round to nearest, so beyond 2^53 two different values
can become equal), then subtracted in `double` arithmetic. Python's `float(int)` and `-` are the same
IEEE 754 operations.
"""

from __future__ import annotations

from collections.abc import Callable

DeltaFunction = Callable[[int, int], float]


def absolute_difference(old: int, new: int) -> float:
    """`Math.abs((double) old - (double) new)`."""
    return abs(float(old) - float(new))


def difference(old: int, new: int) -> float:
    """`(double) new - (double) old`: positive when the value grew."""
    return float(new) - float(old)


#: The delta functions by the name a case gives them (`window_contract.case.DeltaFunction`).
DELTA_FUNCTIONS: dict[str, DeltaFunction] = {"absolute_difference": absolute_difference, "difference": difference}
