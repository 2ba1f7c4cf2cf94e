"""The hand-written case files in `cases/`: each loads, and the reference agrees with its `expected`.

Parametrised by file, so a failure names the file. The variant `reference-flink-1.12` (the
window-start formula of seed document 003) must answer the case built for it differently.
"""

from pathlib import Path

import pytest

from conformance import difference, load_cases
from conformance.case_json import case_files
from reference.implementation import ReferenceImplementation, flink_1_12_variant

CASES_DIR = Path(__file__).resolve().parent.parent / "cases"
FILES = sorted(case_files([CASES_DIR]))

@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(CASES_DIR)) for p in FILES])
def test_reference_agrees_with_expected(path):
    cases = load_cases(path)
    assert cases, f"{path} holds no case"
    observations = ReferenceImplementation().run(cases)
    for i, (case, observation) in enumerate(zip(cases, observations, strict=True)):
        assert case.name, f"{path}#{i} has no name"
        assert case.expected is not None, f"{path}#{i} ({case.name}) has no expected observation"
        diff = difference(case.expected, observation)
        assert not diff, f"{path}#{i} ({case.name}):\n{diff}"


def test_there_are_at_least_30_cases():
    assert sum(len(load_cases(p)) for p in FILES) >= 30


def test_flink_1_12_window_start_differs_on_the_case_built_for_it():
    [case] = load_cases(CASES_DIR / "tumbling" / "old_window_start_formula.json")
    [observation] = flink_1_12_variant().run([case])
    [firing] = observation.firings
    assert (firing.window.start, firing.window.end) == (-5, 0)  # after the element's own timestamp -7
    assert difference(case.expected, observation)


def test_flink_1_12_agrees_where_no_timestamp_lies_a_window_below_the_offset():
    [case] = load_cases(CASES_DIR / "seeds" / "seed_004_w4_w9.json")
    assert not difference(case.expected, flink_1_12_variant().run([case])[0])
