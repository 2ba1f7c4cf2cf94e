"""`report.json` follows its documented JSON Schema (`reports/report.schema.json`)."""

from __future__ import annotations

import copy
import json

import jsonschema
import pytest
from report_fixture_suite.running import mixed_run

from reports import SCHEMA
from window_contract.delta import delta
from window_contract.observation_json import observation_from_json


def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


def report() -> dict:
    return mixed_run().report


def test_a_run_with_a_failure_writes_a_valid_report():
    document = report()
    errors = [f"{e.json_path}: {e.message}" for e in validator().iter_errors(document)]
    assert errors == []
    # The parts of the schema that only a failure fills in are exercised.
    failures = [f for impl in document["implementations"] for p in impl["properties"] for f in p["failures"]]
    assert failures and all("reference" in f and "case_file" in f for f in failures)


def test_a_difference_is_also_data_with_paths():
    failures = [f for impl in report()["implementations"] for p in impl["properties"] for f in p["failures"]]
    compared = [f for f in failures if f["expected"] is not None and f["actual"] is not None]
    assert compared and all(f["delta"] == delta(observation_from_json(f["expected"]),
                                                observation_from_json(f["actual"])) for f in compared)
    assert any(path.startswith("root['firings']") for f in compared for change in f["delta"].values()
               for path in change)


def test_a_run_that_could_not_run_writes_a_valid_report():
    from test_run import engines_that_never_ran

    document = engines_that_never_ran().report
    assert [f"{e.json_path}: {e.message}" for e in validator().iter_errors(document)] == []
    assert document["verdict"]["outcome"] == "could_not_run" and document["verdict"]["exit_status"] == 3
    assert {row["cells"]["no-java"]["status"] for row in document["matrix"]} == {"error"}


@pytest.mark.parametrize(
    "spoil",
    [
        lambda d: d.pop("verdict"),
        lambda d: d["implementations"][0]["properties"][0].update(outcome="maybe"),
        lambda d: d["matrix"][0]["cells"]["reference"].update(status="green"),
        lambda d: d["implementations"][1]["properties"][0]["failures"][0]["actual"]["firings"].append(
            {"at": -1}
        ),
        lambda d: d.update(created="yesterday"),
    ],
    ids=["no verdict", "unknown outcome", "unknown status", "malformed firing", "not a date-time"],
)
def test_the_schema_rejects_a_malformed_report(spoil):
    document = copy.deepcopy(report())
    spoil(document)
    assert list(validator().iter_errors(document))
