"""Implementations that are the reference in a dialect (`reference.dialects`): engines whose behaviour the
tests know exactly, for the divergence machinery's own tests."""

from __future__ import annotations

from conformance.divergences import dialect_of, engine_divergences
from reference.dialects import Dialect
from reference.implementation import ReferenceImplementation
from reference.joins import simulate_join


def touching_sessions_stay_apart() -> ReferenceImplementation:
    return ReferenceImplementation(dialect=Dialect(sessions_merge_when_touching=False), name="touching-apart")


def beams_rules() -> ReferenceImplementation:
    """Every rule Beam's list switches, at once: an engine its list explains wherever the model predicts it."""
    switches = dialect_of(d for d in engine_divergences("beam") if d.is_switch)
    return ReferenceImplementation(dialect=switches, name="beams-rules")


class Counting(ReferenceImplementation):
    """Beam's rules (`beams_rules`), and every case it runs is counted (in `RUNS`, across loads)."""

    RUNS: list[int] = []

    def __init__(self) -> None:
        super().__init__(dialect=beams_rules().dialect, name="counting")

    def run(self, cases):
        Counting.RUNS.append(len(cases))
        return super().run(cases)


class JoinsInDialect(ReferenceImplementation):
    """The reference, its windows Flink's and its joins (`reference.joins`) in `dialect`: an engine whose joins
    the tests know exactly."""

    def __init__(self, dialect: Dialect, name: str) -> None:
        super().__init__(name=name)
        self.join_dialect = dialect

    def run_joins(self, cases):
        return [simulate_join(case, self.join_dialect) for case in cases]


def inputs_idle_keep_the_watermark() -> JoinsInDialect:
    return JoinsInDialect(Dialect(watermark_when_all_inputs_idle="kept"), "idle-kept")
