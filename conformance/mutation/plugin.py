"""The pytest plug-in of the mutation check, loaded with `-p conformance.mutation.plugin`.

- registers `mutation-<profile>` Hypothesis profiles: the named profile without the shrink phase
  (a kill needs a failing example, not a minimal one);
- runs the properties in order of killing power (`KILLING_ORDER`), so that with `-x` a mutant costs
  only the properties up to the first that kills it; `--mutation-first NAME` moves a property ahead of
  them for one mutant (the order changes what a run costs, never its verdict: any failure kills);
- writes the first failure (the killing property and its rule) as JSON to `--mutation-report`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import Phase, settings

from conformance.evidence import PropertyViolation
from conformance.profiles import PROFILES, register_profiles

#: The properties that draw watermark generators and channels: a mutant of `reference/watermarks/` runs them first.
WATERMARK_PROPERTIES = (
    "test_watermark_cases_match_reference",
    "test_watermarks_arrive_where_flink_makes_them",
    "test_generated_watermark_follows_its_generators_formula",
    "test_splitting_a_channel_changes_nothing_but_positions",
    "test_idle_channel_does_not_hold_windows_back",
)

#: Property tests by how many mutants they kill first; the others run after them, in file order.
KILLING_ORDER = (
    "test_matches_reference",
    # test_matches_reference draws no watermark generator or channels
    *WATERMARK_PROPERTIES,
    # the committed cases, once: Flink's own scenarios and the preconditions' edges drawn rarely
    "test_committed_cases_give_their_expected_observations",
    "test_window_fires_once_watermark_passes_max_timestamp",
    "test_side_output_exactly_for_elements_whose_every_window_is_late",
    "test_firing_timestamp_is_max_timestamp",
    "test_firing_watermark_is_the_current_watermark",
    "test_repeated_or_lower_watermark_changes_nothing_but_positions",
    "test_end_of_input_is_a_final_max_watermark",
    "test_late_firings_contain_everything_the_window_held",
    "test_every_record_is_accounted_for",
)


def mutation_profile(profile: str) -> str:
    return f"mutation-{profile}"


def register_mutation_profiles() -> None:
    register_profiles()
    for name, profile in PROFILES.items():  # the profile's own phases, but for shrinking
        no_shrinking = [phase for phase in profile.phases if phase is not Phase.shrink]
        settings.register_profile(mutation_profile(name), settings(profile, phases=no_shrinking))


register_mutation_profiles()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--mutation-report", default=None, help="write the first failure here, as JSON")
    parser.addoption("--mutation-first", action="append", default=[], metavar="NAME",
                     help="run this property test before those of KILLING_ORDER (repeatable)")


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]):
    order = (*config.getoption("mutation_first"), *KILLING_ORDER)

    def rank(item: pytest.Item) -> int:
        name = item.name.split("[")[0]
        return order.index(name) if name in order else len(order)

    items.sort(key=rank)  # a stable sort: the rest keep their file order


def _violation(error: BaseException | None) -> PropertyViolation | None:
    if isinstance(error, PropertyViolation):
        return error
    if isinstance(error, BaseExceptionGroup):
        return next(filter(None, map(_violation, error.exceptions)), None)
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    path = item.config.getoption("--mutation-report")
    # Only a test's own call kills: a fixture that fails (the mutant did not load) is no verdict.
    if path and report.failed and report.when == "call" and not Path(path).exists():
        violation = _violation(call.excinfo.value if call.excinfo else None)
        Path(path).write_text(json.dumps({
            "property": item.name,
            "rule": violation.rule if violation else None,
            "detail": violation.detail if violation else report.longreprtext[-2000:],
        }), encoding="utf-8")
    return report
