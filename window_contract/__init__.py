"""The contract of the window-conformance suite, on its own: what an implementation of Flink's event-time
windows is held to, and nothing of the suite that holds it.

- the case (`window-case/1`) and the observation (`window-observation/1`), as types that read like Flink's
  API and as JSON (`case`, `case_json`, `observation`, `observation_json`; `validation` reads untrusted JSON);
- the feature names an implementation declares (`features`) and Flink's facts every implementation states
  alike (`facts`);
- when two observations agree, and how they differ (`equivalence`, `difference`);
- the implementation interface, the process protocol `window-process/1` (`implementation`, `process`) and
  the loading of an implementation (`registry`: by `module:factory`, `exec:COMMAND`, or a name an installed
  package's catalogue registers; the contract itself names none).

Every implementation, engine adapter, strategy and report imports this package and nothing above it.
Write a case in a few lines, in Flink's words::

    from window_contract import Case, tumbling, record, watermark
    case = Case(window=tumbling(1000), events=[record("a", 1, ts=999), watermark(999)])
"""

from window_contract import case
from window_contract.case import *  # noqa: F403 (the case and the vocabulary's kinds: case.__all__)
from window_contract.case_json import case_from_json, cases_from_json, load_cases
from window_contract.difference import difference
from window_contract.equivalence import equivalent
from window_contract.facts import LONG_MAX, LONG_MIN
from window_contract.features import FEATURES, required_features
from window_contract.implementation import Implementation, ImplementationFailure
from window_contract.observation import (
    Error,
    Firing,
    GlobalWindow,
    InputWatermark,
    LateRecord,
    Observation,
    TimeWindow,
)
from window_contract.observation_json import observation_from_json, observation_to_json
from window_contract.registry import load_implementation
from window_contract.validation import CaseFormatError

__all__ = [
    *case.__all__,
    # JSON
    "case_from_json", "cases_from_json", "load_cases", "observation_to_json", "observation_from_json",
    "CaseFormatError",
    # the observation
    "Observation", "Firing", "LateRecord", "InputWatermark", "Error", "TimeWindow", "GlobalWindow",
    # features, facts, agreement
    "FEATURES", "required_features", "LONG_MIN", "LONG_MAX", "equivalent", "difference",
    # implementations
    "Implementation", "ImplementationFailure", "load_implementation",
]
