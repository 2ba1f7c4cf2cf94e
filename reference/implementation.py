"""The reference as an `Implementation`: each case driven through a modelled `WindowOperator`
(`reference.simulation`), each join case through the joins' model (`reference.joins`)."""

from __future__ import annotations

from collections.abc import Sequence

from reference.dialects import FLINK, Dialect
from reference.joins import simulate_join
from reference.simulation import simulate
from reference.windows import (
    WindowStart,
    get_window_start_with_offset,
    get_window_start_with_offset_flink_1_12,
)
from window_contract.case import Case
from window_contract.features import ALL_FEATURES, ALL_JOIN_NAMES
from window_contract.join_case import JoinCase
from window_contract.join_observation import JoinObservation
from window_contract.observation import Observation


class ReferenceImplementation:
    """The executable reference model of Flink 2.x window semantics."""

    name = "reference"
    features = ALL_FEATURES | ALL_JOIN_NAMES

    def __init__(self, window_start: WindowStart = get_window_start_with_offset, name: str = "reference",
                 dialect: Dialect = FLINK):
        self.window_start, self.name, self.dialect = window_start, name, dialect
        if (window_start, dialect) != (get_window_start_with_offset, FLINK):
            self.features = ALL_FEATURES  # the joins are Flink 2.3's: a variant of its windows has none

    def run(self, cases: Sequence[Case]) -> list[Observation]:
        return [simulate(case, window_start=self.window_start, dialect=self.dialect) for case in cases]

    def run_joins(self, cases: Sequence[JoinCase]) -> list[JoinObservation]:
        """Flink 2.3's DataStream joins (`reference.joins`), as the model of the window operator they run on."""
        return [simulate_join(case) for case in cases]


def flink_1_12_variant() -> ReferenceImplementation:
    """The reference with the window-start formula of Flink up to 1.12 (seed document `003`),
    wrong for timestamps more than one window below the offset."""
    return ReferenceImplementation(get_window_start_with_offset_flink_1_12, "reference-flink-1.12")
