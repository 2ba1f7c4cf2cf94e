"""The order in which Flink's JVM iterates a `java.util.HashSet` of `TimeWindow`s: a fact of Flink's runtime
that an implementation must state alike where it shows (a PyFlink job's state backend merges the namespaces of
session windows in that order, `BeamBagStateHandler`; so does `TimeWindow.mergeWindows`).

A `HashSet` iterates its table bucket by bucket, and a bucket in insertion order; the bucket of a window is
`HashMap.hash(TimeWindow.hashCode())` masked by the table's size, 16 buckets, doubled while more than three
quarters full; `TimeWindow.hashCode()` is `MathUtils.longToIntWithBitMixing(start + end)`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, TypeVar


class Window(Protocol):
    start: int
    end: int


W = TypeVar("W", bound=Window)


def hash_set_order(windows: Iterable[W]) -> list[W]:
    """`windows` as a `HashSet` of them, filled in this order, iterates."""
    distinct = list(dict.fromkeys(windows))
    buckets = 16
    while len(distinct) > buckets * 3 // 4:
        buckets *= 2
    return sorted(distinct, key=lambda w: spread(long_to_int_with_bit_mixing(w.start + w.end)) & (buckets - 1))


def long_to_int_with_bit_mixing(value: int) -> int:
    """`MathUtils.longToIntWithBitMixing`: the `long` mixed (unsigned shifts, wrapping products), its low 32
    bits (unsigned: only its bits matter here)."""
    mask = (1 << 64) - 1
    v = value & mask
    v = ((v ^ (v >> 30)) * 0xBF58476D1CE4E5B9) & mask
    v = ((v ^ (v >> 27)) * 0x94D049BB133111EB) & mask
    return (v ^ (v >> 31)) & 0xFFFFFFFF


def spread(hash_code: int) -> int:
    """`HashMap.hash`: the hash code's high bits spread into its low ones (`h ^ (h >>> 16)`)."""
    return hash_code ^ (hash_code >> 16)
