"""`docs/` against the code: the JSON Schemas of `docs/schemas/` and the equivalence of `docs/format.md`.

Every case file under `cases/` and every observation the reference gives for its cases validate; so do
generated cases as `case_to_json` writes them, with the reference's observation; and documents that
`window_contract/case_json.py` rejects for their structure are rejected by the schemas too, so the schemas
cannot drift into accepting anything. The few lines of Python that `docs/format.md` gives implementers
in other languages decide equivalence as `window_contract.equivalence` does.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from conformance.runner.output import MANIFEST
from reference.implementation import ReferenceImplementation
from strategies.cases import cases as generated_cases
from window_contract.case import case_to_json
from window_contract.case_json import case_files, cases_from_json, load_cases
from window_contract.documents import expected as generated_documents
from window_contract.equivalence import STOPS_WITHIN_AN_EVENT, equivalent, without_positions
from window_contract.observation import Error, LateRecord, Observation
from window_contract.observation_json import observation_from_json, observation_to_json
from window_contract.validation import CaseFormatError

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "docs" / "schemas"
REFERENCE = ReferenceImplementation()


def _validator(name: str) -> Draft202012Validator:
    schemas = {path.name: json.loads(path.read_text(encoding="utf-8")) for path in SCHEMAS.glob("*.json")}
    registry = Registry().with_resources(
        (uri, Resource.from_contents(schema))
        for path_name, schema in schemas.items()
        for uri in (path_name, schema["$id"])
    )
    Draft202012Validator.check_schema(schemas[name])
    return Draft202012Validator(schemas[name], registry=registry)


def test_the_documents_of_the_vocabulary_are_what_it_generates():
    """`window-case-1`, the hello and the tables of docs/format.md are generated from the vocabulary table:
    after a change of it, `python -m window_contract.documents docs` writes them again."""
    for path, text in generated_documents(ROOT / "docs").items():
        assert path.read_text(encoding="utf-8") == text, path


CASE = _validator("window-case-1.schema.json")
OBSERVATION = _validator("window-observation-1.schema.json")


def _problems(validator: Draft202012Validator, doc) -> list[str]:
    return [f"{error.json_path}: {error.message}" for error in validator.iter_errors(doc)]


#: How many outputs of each list of an observation are validated at its start and at its end: a case
#: stopped at the output limit has 100,000 firings, written by the same code, and jsonschema takes a minute on them.
ENDS = 200


def _observation_problems(observation) -> list[str]:
    doc = observation_to_json(observation)
    for part in ("firings", "late", "dropped", "watermarks"):
        if len(doc.get(part, ())) > 2 * ENDS:
            doc[part] = doc[part][:ENDS] + doc[part][-ENDS:]
    return _problems(OBSERVATION, doc)


CASE_FILES = list(case_files([ROOT / "cases"]))


def test_the_case_files_are_there():
    assert len(CASE_FILES) > 20


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: str(p.relative_to(ROOT / "cases")))
def test_every_case_file_and_the_references_observations_validate(path):
    assert _problems(CASE, json.loads(path.read_text(encoding="utf-8"))) == []
    cases = load_cases(path)
    for case, observation in zip(cases, REFERENCE.run(cases), strict=True):
        assert _observation_problems(observation) == [], case.name


@settings(max_examples=60, deadline=None)
@given(generated_cases(report=False))
def test_generated_cases_and_their_observations_validate(case):
    assert _problems(CASE, case_to_json(case)) == []
    [observation] = REFERENCE.run([case])
    assert _observation_problems(observation) == []


TUMBLING = {"format": "window-case/1", "window": {"assigner": "tumbling", "size": 10},
            "events": [{"record": {"key": "a", "value": 1, "ts": 5}}, {"watermark": 9}]}


@pytest.mark.parametrize("change", [
    {"format": "window-case/2"},
    {"window": {"assigner": "tumbling"}},                              # size is required
    {"window": {"assigner": "tumbling", "size": 10, "gap": 5}},        # gap is a session's
    {"window": {"assigner": "hopping", "size": 10}},
    {"window": {"assigner": "tumbling", "size": 2**63}},               # beyond Long.MAX_VALUE
    {"late_side_output": "yes"},
    {"trigger": {"type": "count"}},
    {"trigger": {"type": "purging", "inner": {"type": "sometimes"}}},
    {"evictor": {"type": "time", "max_count": 3}},
    {"trigger": {"type": "delta", "threshold": "1", "delta_function": "difference"}},
    {"trigger": {"type": "delta", "threshold": 1}},                                  # delta_function is required
    {"evictor": {"type": "delta", "threshold": 1, "delta_function": "euclidean"}},
    {"events": [{"record": {"key": "a", "value": 1}}]},
    {"events": [{"record": {"key": 1, "value": 1, "ts": 1}}]},
    {"events": [{"watermark": 1, "processing_time": 2}]},
    {"events": [{"processing_time": -1}]},
    {"end_of_input": None},
    {"colour": "blue"},
    {"channels": 0},
    {"watermark_generator": {"type": "bounded_out_of_orderness"}},                 # bound is required
    {"watermark_generator": {"type": "monotonous", "bound": 5}},
    {"events": [{"record": {"key": "a", "value": 1, "ts": 1, "channel": -1}}]},
    {"events": [{"watermark": 1, "channel": "0"}]},
    {"events": [{"watermark_status": {"channel": 0}}]},
    {"events": [{"end_of_channel": 0, "channel": 0}]},
], ids=repr)
def test_what_the_loader_rejects_the_case_schema_rejects(change):
    doc = TUMBLING | change
    with pytest.raises(CaseFormatError):
        cases_from_json(doc)
    assert _problems(CASE, doc)


FIRING = {"at": 1, "key": "a", "window": {"start": 0, "end": 10}, "timestamp": 9, "values": [1], "watermark": 9}


@pytest.mark.parametrize("change", [
    {"format": "window-case/1"},
    {"firings": [FIRING | {"at": -1}]},
    {"firings": [FIRING | {"window": {"start": 0}}]},
    {"firings": [FIRING | {"window": {"global": False}}]},
    {"firings": [FIRING | {"values": [1.5]}]},
    {"late": [{"at": 2, "key": "a", "value": 2}]},
    {"error": {"kind": "crash", "message": "boom"}},
    {"error": "boom"},
    {"watermarks": [{"at": 1}]},
], ids=repr)
def test_what_the_loader_rejects_the_observation_schema_rejects(change):
    doc = {"format": "window-observation/1", "firings": [FIRING]} | change
    with pytest.raises(CaseFormatError):
        observation_from_json(doc)
    assert _problems(OBSERVATION, doc)


def test_what_flink_rejects_at_job_time_is_a_valid_case():
    for change in ({"allowed_lateness": -1}, {"window": {"assigner": "tumbling", "size": 0}}):
        doc = TUMBLING | change
        [case] = cases_from_json(doc)
        assert _problems(CASE, doc) == []
        assert REFERENCE.run([case])[0].error.kind == "invalid_spec"


def test_a_valid_observation_with_every_part_validates():
    doc = {"format": "window-observation/1", "firings": [FIRING, FIRING | {"window": {"global": True}}],
           "late": [{"at": 2, "key": "a", "value": 2, "ts": 3}], "dropped": [],
           "error": {"kind": "runtime", "message": "boom"}}
    observation_from_json(doc)
    assert _problems(OBSERVATION, doc) == []


def _documented_equivalence():
    """The `equivalent` function that docs/format.md gives for implementers in other languages."""
    text = (ROOT / "docs" / "format.md").read_text(encoding="utf-8")
    [code] = re.findall(r"```python\n(.*?)```", text, re.S)
    namespace: dict = {}
    exec(code, namespace)
    return namespace["equivalent"]


def _variants(observation: Observation) -> list[Observation]:
    """The observation's outputs reordered (equivalent) and changed in the ways equivalence must see."""
    firings = observation.firings
    variants = [replace(observation, firings=firings[::-1], late=observation.late[::-1]),
                replace(observation, error=Error("runtime", "boom")),
                replace(observation, dropped=(*observation.dropped, LateRecord(0, "k", 1, 2)))]
    # As a position-free implementation answers: equivalent; and with one more dropped record: not.
    erased = without_positions(observation, firing_watermarks=False, watermarks=False)
    variants += [erased, replace(erased, dropped=(*erased.dropped, LateRecord(None, "k", 1, 2)))]
    if observation.watermarks:
        variants.append(replace(observation, watermarks=observation.watermarks[::-1]))
        variants.append(replace(observation, watermarks=observation.watermarks[1:]))
    if firings:
        first = firings[0]
        variants += [replace(observation, firings=(first, *firings)),
                     replace(observation, firings=(replace(first, at=first.at + 1), *firings[1:])),
                     replace(observation, firings=(replace(first, values=(*first.values, 7)), *firings[1:]))]
    return variants


@settings(max_examples=60, deadline=None)
@given(generated_cases(report=False))
def test_the_documented_equivalence_agrees_with_the_suites(case):
    documented = _documented_equivalence()
    [observation] = REFERENCE.run([case])
    for variant in _variants(observation):
        assert documented(observation_to_json(observation), observation_to_json(variant)) == equivalent(
            observation, variant), variant


@pytest.mark.parametrize("message", sorted(STOPS_WITHIN_AN_EVENT))
def test_the_documented_equivalence_compares_cases_stopped_within_an_event_before_either_stopped(message):
    documented = _documented_equivalence()
    stopped = next(o for o in REFERENCE.run(load_cases(ROOT / "cases" / "triggers" / "continuous.json"))
                   if o.error is not None and o.error.message in STOPS_WITHIN_AN_EVENT)
    stopped = replace(stopped, error=Error("runtime", message))
    stopped_early = replace(stopped, firings=stopped.firings[:-10])
    moved = replace(stopped_early, firings=(replace(stopped_early.firings[0], at=0), *stopped_early.firings[1:]))
    for other in (stopped_early, moved):
        assert documented(observation_to_json(stopped), observation_to_json(other)) == equivalent(stopped, other)
    assert equivalent(stopped, stopped_early) and not equivalent(stopped, moved)


OFFLINE = {"HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9", "NO_PROXY": ""}


def test_off_the_shelf_validators_take_the_schemas_offline(tmp_path):
    """The commands docs/format.md gives, with every network request refused: each schema is one file."""
    import os
    import subprocess
    import sys

    tool = Path(sys.executable).parent / "check-jsonschema"
    cases = sorted(str(p) for p in (ROOT / "corpus").glob("*.json") if p.name not in ("index.json", MANIFEST))
    env = os.environ | OFFLINE
    for schema, files in (("window-case-1", cases), ("window-corpus-1", [str(ROOT / "corpus" / "index.json")])):
        done = subprocess.run([str(tool), "--schemafile", str(SCHEMAS / f"{schema}.schema.json"), *files],
                              capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "window-case/1", "window": {"assigner": "tumbling", "size": 10},
                               "events": [], "expected": {"format": "window-observation/1", "firings": [{}]}}))
    rejected = subprocess.run([str(tool), "--schemafile", str(SCHEMAS / "window-case-1.schema.json"), str(bad)],
                              capture_output=True, text=True, env=env, timeout=300)
    assert rejected.returncode == 1 and "firings" in rejected.stdout + rejected.stderr
    plain = subprocess.run([sys.executable, "-W", "ignore", "-m", "jsonschema", "-i", cases[0],
                            str(SCHEMAS / "window-case-1.schema.json")], capture_output=True, text=True, env=env)
    assert plain.returncode == 0, plain.stderr


def test_the_corpus_index_follows_its_schema():
    Draft202012Validator(json.loads((SCHEMAS / "window-corpus-1.schema.json").read_text(encoding="utf-8"))).validate(
        json.loads((ROOT / "corpus" / "index.json").read_text(encoding="utf-8")))


def test_every_schema_stands_alone():
    for path in SCHEMAS.glob("*.json"):
        refs = re.findall(r'"\$ref": "([^"]*)"', path.read_text(encoding="utf-8"))
        assert all(ref.startswith("#/") for ref in refs), path


def test_the_protocol_links_the_features_table_of_the_format():
    protocol = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    assert "[format.md](format.md#features)" in protocol
    assert "\n### Features\n" in (ROOT / "docs" / "format.md").read_text(encoding="utf-8")
    hello = json.loads((SCHEMAS / "window-process-1-hello.schema.json").read_text(encoding="utf-8"))
    from window_contract.features import FEATURES, JOIN_FEATURES, SQL_JOIN_FEATURES

    assert hello["properties"]["features"]["items"]["enum"] == [*FEATURES, *JOIN_FEATURES, *SQL_JOIN_FEATURES]
