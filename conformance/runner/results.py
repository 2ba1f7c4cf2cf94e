"""What a run found, typed: a property's result, an implementation's, and the report document.

`Report.to_json()` is the content of `report.json`, described by `reports/report.schema.json`; the
renderers in `reports/` read that JSON form. Cases and observations stay in their JSON forms
(`window-case/1`, `window-observation/1`) here: they cross a process boundary on the way in and are
written out as they are.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

#: How much of a test's own error output (not a property violation) the report keeps.
MESSAGE_LIMIT = 4000

#: pytest's outcome of a property test: `failed` differs, `error` and `skipped` could not run;
#: `not_applicable`: it sent no case (none of its examples fell within the implementation's features), or
#: it is a rule about positions, not run against a position-free implementation; `message` says which.
PropertyOutcome = Literal["passed", "failed", "error", "skipped", "not_applicable"]

#: A run's, an implementation's or the verdict's outcome.
Outcome = Literal["conforms", "differs", "could_not_run"]

#: Keys a failure may lack (the schema has no null for them): what the rule compares the case with (a
#: violation of another suite may not say), and what it has once the run has saved its case file; and a
#: property's case that could not run, with its file.
_OPTIONAL_KEYS = ("violates", "reference", "case_file", "case_not_run", "case_not_run_file")


@dataclass(frozen=True)
class Failure:
    """A property violation (`PropertyViolation.to_json()` and `violates`), with what the run adds: the
    reference's observation and the saved case file, relative to the output folder."""

    rule: str
    case: dict[str, Any]
    features: tuple[str, ...]
    expected: dict[str, Any] | None
    actual: dict[str, Any] | None
    difference: str
    #: The difference as data (`window_contract.delta`: DeepDiff's paths), when both observations are there.
    delta: dict[str, Any] | None = None
    #: The case format's `violates`: the property, and the cases its rule compared the case with.
    violates: dict[str, Any] | None = None
    reference: dict[str, Any] | None = None
    case_file: str | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Failure:
        return cls(**{**data, "features": tuple(data["features"])})


@dataclass(frozen=True)
class Statistics:
    """A property's Hypothesis situations (`hypothesis.event()` label to examples) and Hypothesis's
    own statistics text."""

    events: dict[str, int] = field(default_factory=dict)
    text: str = ""


@dataclass(frozen=True)
class PropertyResult:
    property: str
    nodeid: str
    outcome: PropertyOutcome
    duration: float
    examples: int
    invalid_examples: int
    shrinks: int
    statistics: Statistics
    features: dict[str, int]
    failures: tuple[Failure, ...]
    message: str
    #: The case a guard stopped (`window_contract.guards`), and where the run saved it (`counterexamples/`).
    case_not_run: dict[str, Any] | None = None
    case_not_run_file: str | None = None

    @property
    def ran(self) -> bool:
        """Whether the property was held to anything: a property that is not applicable was not."""
        return self.outcome != "not_applicable"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PropertyResult:
        return cls(**{**data, "statistics": Statistics(**data["statistics"]),
                      "failures": tuple(Failure.from_json(f) for f in data["failures"])})


@dataclass(frozen=True)
class SuiteError:
    """What kept tests from running: a module that did not load, a process that ended mid-test."""

    nodeid: str
    message: str


@dataclass(frozen=True)
class ImplementationResult:
    name: str
    spec: str
    features: tuple[str, ...]
    properties: tuple[PropertyResult, ...]
    errors: tuple[SuiteError, ...]
    exit_status: int | None
    log: str
    duration: float
    outcome: Outcome
    problems: tuple[str, ...]

    @property
    def conforms(self) -> bool:
        return self.outcome == "conforms"


@dataclass(frozen=True)
class Verdict:
    outcome: Outcome
    exit_status: int
    failing: tuple[str, ...]
    could_not_run: tuple[str, ...]
    text: str

    @property
    def conforms(self) -> bool:
        return self.outcome == "conforms"


@dataclass(frozen=True)
class MatrixCell:
    status: Literal["pass", "fail", "error", "unsupported", "untested"]
    cases: int
    failures: int


@dataclass(frozen=True)
class MatrixRow:
    feature: str
    description: str
    cells: dict[str, MatrixCell]


@dataclass(frozen=True)
class Report:
    format: str
    created: str
    profile: str
    seed: int | None
    suite: tuple[str, ...]
    out: str
    verdict: Verdict
    features: dict[str, str]
    implementations: tuple[ImplementationResult, ...]
    matrix: tuple[MatrixRow, ...]

    def to_json(self) -> dict[str, Any]:
        return to_json(self)


def to_json(value: Any) -> Any:
    """A result as JSON: fields in order, `conforms` where the schema has it, the keys a failure
    gets later left out until it has them."""
    if dataclasses.is_dataclass(value):
        data = {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
        if isinstance(value, Failure | PropertyResult):
            data = {k: v for k, v in data.items() if not (k in _OPTIONAL_KEYS and v is None)}
        if isinstance(value, ImplementationResult | Verdict):
            data["conforms"] = value.conforms
        return data
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_json(v) for v in value]
    return value
