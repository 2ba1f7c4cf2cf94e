"""Java `long` arithmetic, where Flink's behaviour depends on it.

Python integers neither overflow nor truncate; Java's `long` does both. Flink computes window starts,
cleanup times and lateness in `long`, so the model does too, through these few functions:
`+`, `-` wrap around on overflow (two's complement), `%` and `/` truncate toward zero.
"""

from window_contract.facts import LONG_MAX, LONG_MIN

_MASK = 2**64
_INT_MASK = 2**32


class ArithmeticException(ArithmeticError):
    """`java.lang.ArithmeticException` (integer division by zero)."""


def wrap(x: int) -> int:
    """`x` reduced to Java `long`: what the JVM holds after an overflowing operation."""
    if LONG_MIN <= x <= LONG_MAX:
        return x
    return (x - LONG_MIN) % _MASK + LONG_MIN


def ladd(a: int, b: int) -> int:
    """`a + b` in Java `long`."""
    r = a + b
    return r if LONG_MIN <= r <= LONG_MAX else wrap(r)


def lsub(a: int, b: int) -> int:
    """`a - b` in Java `long`."""
    r = a - b
    return r if LONG_MIN <= r <= LONG_MAX else wrap(r)


def lrem(a: int, b: int) -> int:
    """`a % b` in Java: the remainder has the sign of the dividend (Python's `%` takes the divisor's)."""
    if b > 0 and a >= 0:  # the common case, where both languages agree
        return a % b
    if b == 0:
        raise ArithmeticException("/ by zero")
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def ldiv(a: int, b: int) -> int:
    """`a / b` in Java: truncates toward zero; `Long.MIN_VALUE / -1` overflows to itself."""
    if b == 0:
        raise ArithmeticException("/ by zero")
    q = abs(a) // abs(b)
    return wrap(-q if (a < 0) != (b < 0) else q)


def labs(a: int) -> int:
    """`Math.abs(a)`: `Math.abs(Long.MIN_VALUE)` is `Long.MIN_VALUE`, still negative."""
    return wrap(abs(a))


def l2i(a: int) -> int:
    """`(int) a`: a narrowing cast keeps the low 32 bits."""
    low = a % _INT_MASK
    return low - _INT_MASK if low >= 2**31 else low
