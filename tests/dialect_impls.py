"""Implementations that are the reference in a dialect (`reference.dialects`): engines whose behaviour the
tests know exactly, for the divergence machinery's own tests."""

from __future__ import annotations

from reference.dialects import Dialect
from reference.implementation import ReferenceImplementation


def touching_sessions_stay_apart() -> ReferenceImplementation:
    return ReferenceImplementation(dialect=Dialect(sessions_merge_when_touching=False), name="touching-apart")


class Counting(ReferenceImplementation):
    """Touching sessions stay apart, and every case it runs is counted (in `RUNS`, across loads)."""

    RUNS: list[int] = []

    def __init__(self) -> None:
        super().__init__(dialect=Dialect(sessions_merge_when_touching=False), name="counting")

    def run(self, cases):
        Counting.RUNS.append(len(cases))
        return super().run(cases)
