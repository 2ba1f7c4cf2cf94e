"""The conformance matrix: one row per feature, one cell per implementation.

A feature (row) of an implementation (column) is

- `unsupported` when the implementation does not declare it (the suite never sends it such cases);
- `fail` when the minimal case of a violation needs it: where a difference was found, not its cause (shrinking
  may keep a feature by chance, a timestamp of -1 in a case about lateness), so the reports say "in a failing
  case";
- `error` when it is declared and something of this implementation could not run (a property, a
  module, the process): what was not run may have needed the feature, so no pass is claimed;
- `untested` when it is declared but no generated case exercised it;
- `pass` otherwise.

`cases` counts the generated cases that exercised the feature, over all the properties: the matrix
is measured, not declared (in the spirit of Apache Beam's capability matrix).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from conformance.runner.results import ImplementationResult, MatrixCell, MatrixRow
from conformance.runner.verdict import failures_to_run


def feature_cases(implementation: ImplementationResult) -> Counter[str]:
    counts: Counter[str] = Counter()
    for prop in implementation.properties:
        counts.update(prop.features)
    return counts


def failing_features(implementation: ImplementationResult) -> Counter[str]:
    """How many minimal cases of violations need each feature."""
    return Counter(f for prop in implementation.properties for failure in prop.failures for f in failure.features)


def cell(implementation: ImplementationResult, feature: str, cases: Counter[str], failing: Counter[str]) -> MatrixCell:
    if feature not in implementation.features:
        status = "unsupported"
    elif failing[feature]:
        status = "fail"
    elif failures_to_run(implementation.properties, implementation.errors, implementation.exit_status):
        status = "error"
    elif not cases[feature]:
        status = "untested"
    else:
        status = "pass"
    return MatrixCell(status, cases[feature], failing[feature])


def conformance_matrix(
    features: dict[str, str], implementations: Sequence[ImplementationResult]
) -> tuple[MatrixRow, ...]:
    tallies = [(impl, feature_cases(impl), failing_features(impl)) for impl in implementations]
    return tuple(
        MatrixRow(feature, description,
                  {impl.name: cell(impl, feature, cases, failing) for impl, cases, failing in tallies})
        for feature, description in features.items()
    )
