"""The process side of `window-process/1` (docs/protocol.md) for an engine adapter in an environment of its own.

An adapter (`engines/beam.py`, `engines/bytewax.py`, ...) gives its name, its features and a function from a batch
of cases to their observations (and, when it declares joins, one from a batch of join cases to their join
observations); `serve` says hello and answers each run or run_joins request until the suite closes stdin. Every
adapter here is position-free (none can tell at which input event its engine emitted an output) and costly (each
case is a job of its engine). What an engine prints is a log: stdout is the protocol's.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Sequence

from window_contract.case import Case
from window_contract.case_json import case_from_json
from window_contract.join_case import JoinCase
from window_contract.join_case_json import join_cases_from_json
from window_contract.join_observation import JoinObservation, join_observation_to_json
from window_contract.observation import Observation
from window_contract.observation_json import observation_to_json
from window_contract.process import PROTOCOL
from window_contract.validation import CaseFormatError

RunCases = Callable[[Sequence[Case]], list[Observation]]
RunJoins = Callable[[Sequence[JoinCase]], list[JoinObservation]]


def hello(name: str, features: Iterable[str]) -> dict:
    return {"type": "hello", "protocol": PROTOCOL, "name": name, "features": sorted(features),
            "position_free": True, "costly_calls": True}


def answer(request: dict, run_cases: RunCases, run_joins: RunJoins | None = None) -> dict:
    """The answer to one run (or run_joins) request: observations, or an error that names what could not be read."""
    number, joins = request.get("id"), run_joins is not None and request.get("type") == "run_joins"
    try:
        if request.get("type") != "run" and not joins or not isinstance(request.get("cases"), list):
            raise CaseFormatError("a request must be {type: run, id, cases: [...]}"
                                  + (" or {type: run_joins, id, cases: [...]}" if run_joins else ""))
        if joins:
            cases = join_cases_from_json({"cases": request["cases"]}, "$")
        else:
            cases = [case_from_json(doc, f"$.cases[{i}]") for i, doc in enumerate(request["cases"])]
    except CaseFormatError as e:
        return {"type": "error", "id": number, "message": str(e)}
    observations = ([join_observation_to_json(o) for o in run_joins(cases)] if joins
                    else [observation_to_json(o) for o in run_cases(cases)])
    return {"type": "observations", "id": number, "observations": observations}


def serve(name: str, features: Iterable[str], run_cases: RunCases, requests: Iterable[str] | None = None,
          out=None, run_joins: RunJoins | None = None) -> None:
    """Hello, then one answer per request line, until the input ends (stdin and stdout by default; whatever
    the engine prints goes to stderr)."""
    if out is None:
        out, sys.stdout = sys.stdout, sys.stderr

    def send(message: dict) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    send(hello(name, features))
    for line in sys.stdin if requests is None else requests:
        if line.strip():
            send(answer(json.loads(line), run_cases, run_joins))
