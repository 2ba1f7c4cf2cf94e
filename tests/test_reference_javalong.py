"""`reference.javalong`: Java `long` arithmetic at its edges (JLS §15.17, §15.18, §5.1.3)."""

import pytest

from reference.javalong import (
    LONG_MAX,
    LONG_MIN,
    ArithmeticException,
    l2i,
    labs,
    ladd,
    ldiv,
    lrem,
    lsub,
    wrap,
)


@pytest.mark.parametrize(
    "x, expected",
    [
        (0, 0),
        (LONG_MAX, LONG_MAX),
        (LONG_MIN, LONG_MIN),
        (LONG_MAX + 1, LONG_MIN),
        (LONG_MIN - 1, LONG_MAX),
        (2**64, 0),
        (2**64 + 5, 5),
        (-(2**64) - 1, -1),
    ],
)
def test_wrap_keeps_the_low_64_bits_as_twos_complement(x, expected):
    assert wrap(x) == expected


def test_add_and_subtract_wrap_around_like_the_jvm():
    assert ladd(LONG_MAX, 1) == LONG_MIN
    assert ladd(LONG_MAX, LONG_MAX) == -2
    assert ladd(LONG_MIN, -1) == LONG_MAX
    assert lsub(LONG_MIN, 1) == LONG_MAX
    assert lsub(0, LONG_MIN) == LONG_MIN  # -Long.MIN_VALUE overflows to itself
    assert ladd(-5, 3) == -2


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (7, 3, 1),
        (-7, 3, -1),
        (7, -3, 1),
        (-7, -3, -1),  # the sign of the dividend
        (-1, 7, -1),
        (-7, 7, 0),
        (0, 5, 0),
        (LONG_MIN, -1, 0),
        (LONG_MIN, LONG_MAX, -1),
        (LONG_MAX, LONG_MIN, LONG_MAX),
    ],
)
def test_remainder_truncates_toward_zero(a, b, expected):
    assert lrem(a, b) == expected


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (7, 2, 3),
        (-7, 2, -3),
        (7, -2, -3),
        (-7, -2, 3),
        (-1, 2, 0),
        (LONG_MIN, -1, LONG_MIN),  # the one overflowing division
        (LONG_MIN, 1, LONG_MIN),
        (LONG_MAX, LONG_MIN, 0),
    ],
)
def test_division_truncates_toward_zero(a, b, expected):
    assert ldiv(a, b) == expected


@pytest.mark.parametrize("op", [lrem, ldiv])
def test_integer_division_by_zero_throws_arithmetic_exception(op):
    with pytest.raises(ArithmeticException, match="/ by zero"):
        op(5, 0)


def test_math_abs_of_long_min_value_stays_negative():
    assert labs(LONG_MIN) == LONG_MIN
    assert labs(LONG_MIN + 1) == LONG_MAX
    assert labs(-3) == 3 and labs(3) == 3


@pytest.mark.parametrize(
    "a, expected",
    [
        (0, 0),
        (2**31 - 1, 2**31 - 1),
        (2**31, -(2**31)),
        (2**32, 0),
        (2**32 + 7, 7),
        (-1, -1),
        (-(2**31) - 1, 2**31 - 1),
        (LONG_MAX, -1),
        (LONG_MIN, 0),
        (10_000_000_000, 1_410_065_408),
    ],
)
def test_int_narrowing_keeps_the_low_32_bits(a, expected):
    assert l2i(a) == expected
