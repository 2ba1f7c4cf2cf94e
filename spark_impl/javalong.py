"""Java `long` arithmetic in Python and in Spark expressions (Flink computes every time in `long`).

Flink relies on wrap-around (`maxTimestamp + allowedLateness` in `isElementLate`), on `%` and `/`
truncating toward zero, and on `Math.abs(Long.MIN_VALUE)` being negative. Python's integers neither
wrap nor truncate, and Spark's ANSI mode raises on overflow, so both get explicit helpers here.
"""

from __future__ import annotations

LONG_MIN = -(2**63)
LONG_MAX = 2**63 - 1
_SPAN = 2**64


def wrap(x: int) -> int:
    """`x` reduced to Java `long` range the way the JVM does (two's complement)."""
    return (x - LONG_MIN) % _SPAN + LONG_MIN


def add(a: int, b: int) -> int:
    return wrap(a + b)


def sub(a: int, b: int) -> int:
    return wrap(a - b)


def _trunc_div(a: int, b: int) -> int:
    if b == 0:
        raise ArithmeticError("/ by zero")
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def div(a: int, b: int) -> int:
    """Java `a / b`: truncates toward zero (`Long.MIN_VALUE / -1` wraps); `ArithmeticError` on 0."""
    return wrap(_trunc_div(a, b))


def rem(a: int, b: int) -> int:
    """Java `a % b`: the sign follows `a` (Python's `%` follows `b`); `ArithmeticError` on 0."""
    return a - b * _trunc_div(a, b)


def java_abs(a: int) -> int:
    """`Math.abs(long)`: `Math.abs(Long.MIN_VALUE)` is `Long.MIN_VALUE`."""
    return wrap(abs(a))


def to_int(a: int) -> int:
    """The `(int)` cast of a long: its low 32 bits, signed."""
    return (a + 2**31) % 2**32 - 2**31


# --- Spark columns ----------------------------------------------------------------------------


def col_add(a, b):
    """`a + b` as a Spark Column with Java wrap-around, whatever the session's ANSI setting.

    The sum is taken exactly in `decimal(20, 0)` and brought back into `long` range by 2^64. (Two
    `long` additions with `Long.MIN_VALUE` literals would do, but Spark's optimizer reassociates
    them and folds the two literals into one sum that overflows.)
    """
    from decimal import Decimal

    from pyspark.sql import functions as F

    exact = a.cast("decimal(20,0)") + b.cast("decimal(20,0)")
    span = F.lit(Decimal(_SPAN))
    return (F.when(exact > F.lit(LONG_MAX), exact - span).when(exact < F.lit(LONG_MIN), exact + span)
            .otherwise(exact).cast("long"))


def col_saturating_add(a, b):
    """`a + b`, or `Long.MAX_VALUE` when a non-negative `b` would overflow (Flink's `cleanupTime`)."""
    from pyspark.sql import functions as F

    return F.coalesce(F.try_add(a, b), F.lit(LONG_MAX))
