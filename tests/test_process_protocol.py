"""Implementations over a process (`exec:COMMAND`, `window_contract.process`): a peer that follows the
protocol answers like a plug-in; every way a peer can fail is a failure to run the request's cases,
with its stderr in the message, within the timeout, and the next request starts it again."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
from report_fixture_suite.running import ROOT, conformance, run_once
from test_docs_schemas import _problems, _validator

from window_contract import Case, record, tumbling, watermark
from window_contract.case import case_to_json
from window_contract.features import JOIN_NAMES
from window_contract.implementation import ImplementationFailure, ImplementationNotFound, run_within
from window_contract.join_case import join_case_to_json
from window_contract.join_case_json import load_join_cases
from window_contract.registry import load_implementation

PEER = Path(__file__).resolve().parent / "peers" / "python_peer.py"

CASES = [
    Case(window=tumbling(1000), events=[record("a", 1, ts=999), watermark(999), record("a", 2, ts=5)]),
    Case(window=tumbling(10), events=[record("b", 3, ts=-7)]),
]


def peer_spec(*arguments: str) -> str:
    return "exec:" + shlex.join([sys.executable, str(PEER), *arguments])


@pytest.fixture(autouse=True)
def importable_from_the_peer(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))


def test_a_peer_that_follows_the_protocol_answers_as_the_reference():
    impl = load_implementation(peer_spec())
    assert impl.name == "python-peer"
    assert impl.features == load_implementation("reference").features
    assert impl.run(CASES) == load_implementation("reference").run(CASES)
    assert impl.run(CASES[:1]) == load_implementation("reference").run(CASES[:1])


FAULTS = {
    "crash": "closed its stdout before its answer to run request 1 (2 case(s)) (exit status 7)",
    "garbage": "stdout line is not JSON where its answer to run request 1 (2 case(s)) was due: "
               "'Exception in thread main: nothing to see here'",
    "too_few": "1 observation(s) for 2 case(s)",
    "too_many": "4 observation(s) for 2 case(s)",
    "broken": "an answer breaks window-observation/1",
    "retry_unsettled": "retry lists [0] but the observations are null at []: null exactly for the cases to retry",
}


@pytest.mark.parametrize("fault", FAULTS)
def test_each_fault_is_a_failure_to_run_with_the_stderr_tail_and_the_next_request_runs(fault, tmp_path):
    impl = load_implementation(peer_spec(fault, str(tmp_path / "faulted")))
    with pytest.raises(ImplementationFailure) as failure:
        impl.run(CASES)
    message = str(failure.value)
    assert FAULTS[fault] in message
    assert f"python-peer: request 1 with 2 case(s), fault {fault}" in message  # the stderr tail
    assert impl.run(CASES) == load_implementation("reference").run(CASES)


def test_an_error_answer_could_not_run_and_the_process_that_sent_it_keeps_running():
    impl = load_implementation(peer_spec("error"))
    pid = impl.peer.popen.pid
    for request in (1, 2):
        with pytest.raises(ImplementationFailure, match=f"could not run request {request}: the engine is out of disk"):
            impl.run(CASES)
    assert impl.peer.popen.pid == pid


def test_a_case_the_peer_retries_goes_again_in_the_next_request_to_the_same_process():
    impl = load_implementation(peer_spec("retry_once"))
    pid = impl.peer.popen.pid
    assert impl.run(CASES) == load_implementation("reference").run(CASES)
    assert impl.requests == 2 and impl.peer.popen.pid == pid


def test_a_peer_that_says_it_is_exiting_is_started_again_for_the_next_request():
    impl = load_implementation(peer_spec("exiting"))
    for request in (1, 2):
        started = impl.peer.popen if impl.peer else None
        assert impl.run(CASES) == load_implementation("reference").run(CASES)
        assert impl.peer is None and impl.requests == request
        assert started is None or started.poll() == 0


def test_a_peer_that_retries_every_case_is_a_fault_not_a_loop():
    impl = load_implementation(peer_spec("retry_forever"))
    started = time.monotonic()
    with pytest.raises(ImplementationFailure, match="the answer retries every case of request 1: no progress"):
        run_within(impl, CASES, timeout=60)
    assert time.monotonic() - started < 10 and impl.peer is None


def test_a_broken_observation_names_the_field_and_the_rule(tmp_path):
    impl = load_implementation(peer_spec("broken"))
    with pytest.raises(ImplementationFailure, match=r"\$\.observations\[0\]\.firings\[0\]\.at"):
        impl.run(CASES)


def test_a_hanging_peer_is_killed_at_the_request_timeout_and_started_again(tmp_path):
    impl = load_implementation(peer_spec("hang", str(tmp_path / "faulted")))
    started = time.monotonic()
    with pytest.raises(ImplementationFailure, match=r"no answer to run request 1 \(2 case\(s\)\) within 2 s"):
        run_within(impl, CASES, timeout=2)
    assert time.monotonic() - started < 10
    assert run_within(impl, CASES, timeout=60) == load_implementation("reference").run(CASES)


def test_a_command_that_does_not_start_could_not_run():
    with pytest.raises(ImplementationFailure, match="cannot start 'no-such-engine-binary'"):
        load_implementation("exec:no-such-engine-binary --serve")


def test_a_peer_that_does_not_say_hello_could_not_start():
    with pytest.raises(ImplementationFailure, match=r"could not start: stdout line is not JSON .*hello"):
        load_implementation("exec:" + shlex.join([sys.executable, "-c", "print('listening on 8080')"]))


def saying_hello(**fields) -> str:
    """`exec:` of a process that says this hello and then waits for the end of its input."""
    hello = {"type": "hello", "protocol": "window-process/1", "name": "x", "features": [], "position_free": False}
    program = f"import sys; print({json.dumps(hello | fields)!r}, flush=True); sys.stdin.read()"
    return "exec:" + shlex.join([sys.executable, "-c", program])


@pytest.mark.parametrize(("fields", "problem"), [
    ({"features": ["tumbling"]}, "declares unknown features: tumbling"),
])
def test_a_hello_the_suite_cannot_use_is_a_usage_error(fields, problem):
    with pytest.raises(ImplementationNotFound, match=problem):
        load_implementation(saying_hello(**fields))


@pytest.mark.parametrize(("fields", "problem"), [
    ({"protocol": "window-process/2"}, "hello.protocol is 'window-process/2'; the suite speaks"),
    ({"costly_calls": "yes"}, "hello.costly_calls must be true or false"),
    ({"version": 2}, "hello has unknown fields: version"),
])
def test_a_hello_that_breaks_the_protocol_could_not_start(fields, problem):
    with pytest.raises(ImplementationFailure, match=problem):
        load_implementation(saying_hello(**fields))


def test_a_process_whose_requests_cost_a_job_says_so_in_its_hello():
    assert load_implementation(saying_hello(costly_calls=True)).costly_calls
    assert not load_implementation(saying_hello()).costly_calls


def test_exec_without_a_command_is_a_usage_error():
    with pytest.raises(ImplementationNotFound, match="'exec:' needs a command"):
        load_implementation("exec: ")


def test_replay_reports_a_hanging_peer_as_could_not_run_in_one_line():
    done = conformance("replay", "cases/seeds", "--impl", peer_spec("hang"), "--check", "--request-timeout", "2",
                       timeout=120)
    assert done.returncode == 3, done.stderr
    assert "no answer to run request 1" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.fixture(scope="module")
def java_example(tmp_path_factory) -> str:
    """`examples/NaiveWindows.java` compiled: its `exec:` command."""
    build = tmp_path_factory.mktemp("naive-windows-java")
    subprocess.run(["javac", "-d", str(build), str(ROOT / "examples" / "NaiveWindows.java")], check=True)
    return f"exec:java -cp {shlex.quote(str(build))} NaiveWindows"


def test_the_suite_names_the_java_examples_bugs_with_minimal_cases(java_example):
    run = run_once("--impl", java_example, "--profile", "ci", "--property", "nothing_accepted_after_cleanup_time",
                   "--property", "fired_values_lie_in_their_window")
    assert run.status == 1, run.stderr
    impl = run.implementation("naive-windows-java")
    assert impl["spec"] == java_example
    assert impl["features"] == ["assigner.tumbling", "negative_timestamps", "unbounded_input"]
    failures = {p["property"]: p["failures"] for p in impl["properties"]}
    [late] = failures["nothing_accepted_after_cleanup_time"]
    [truncated] = failures["fired_values_lie_in_their_window"]
    # A record behind the watermark opens its window again, where Flink drops it.
    assert late["reference"]["dropped"] and not late["actual"]["dropped"]
    # ts - ts % size truncates towards zero: a negative timestamp lands in the window after its own.
    [record] = [e["record"] for e in truncated["case"]["events"] if "record" in e]
    [firing] = truncated["actual"]["firings"]
    assert record["ts"] < 0 <= firing["window"]["start"]
    assert len(late["case"]["events"]) <= 3 and len(truncated["case"]["events"]) == 1
    for failure in (late, truncated):
        assert (run.out / failure["case_file"]).is_file()


def test_the_java_example_replays_the_corpus_as_the_readme_says(java_example):
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    runs, differs = map(int, re.search(r"\(it runs the (\d+) cases that need no more than its tumbling windows, "
                                       r"negative timestamps and unbounded input, and differs on (\d+) of them: "
                                       r"exit status 1\)", readme).groups())
    done = conformance("replay", "corpus", "--impl", java_example, "--check", timeout=300)
    assert done.returncode == 1, done.stderr
    verdict = done.stdout.splitlines()[-1]
    assert verdict.startswith(f"naive-windows-java: {runs - differs} of {runs} cases agree with their expected "
                              "observation"), verdict


MESSAGES = {kind: _validator(f"window-process-1-{kind}.schema.json")
            for kind in ("hello", "run", "observations", "error")}


def transcript() -> list[tuple[str, dict]]:
    """The lines of docs/protocol.md's transcript: who wrote each (`>` the suite, `<` the process), parsed."""
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    [block] = text.split("```text\n")[1:]
    return [(line[0], json.loads(line[2:])) for line in block.split("```")[0].splitlines()]


def test_the_transcript_follows_the_schemas_and_the_java_example_says_what_it_shows(java_example):
    lines = transcript()
    assert [(who, m["type"]) for who, m in lines] == [
        ("<", "hello"), (">", "run"), ("<", "observations"), (">", "run"), ("<", "error")]
    for _, message in lines:
        assert _problems(MESSAGES[message["type"]], message) == []
    impl = load_implementation(java_example)
    (_, hello), (_, request), (_, answer) = lines[:3]
    assert (impl.name, sorted(impl.features)) == (hello["name"], hello["features"])
    with subprocess.Popen(shlex.split(java_example.removeprefix("exec:")), stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True) as process:
        said, _ = process.communicate(json.dumps(request) + "\n", timeout=60)
    assert [json.loads(line) for line in said.splitlines()] == [hello, answer]


def peer_says(request: dict, *arguments: str) -> list[dict]:
    """What the peer writes (its hello, then its answer) when it is sent `request` alone."""
    with subprocess.Popen([sys.executable, str(PEER), *arguments], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True) as process:
        said, _ = process.communicate(json.dumps(request) + "\n", timeout=60)
    return [json.loads(line) for line in said.splitlines()]


def test_the_suites_requests_and_a_peers_answers_follow_the_schemas():
    request = {"type": "run", "id": 1, "cases": [case_to_json(c) for c in CASES]}
    assert _problems(MESSAGES["run"], request) == []
    hello, answer = peer_says(request)
    assert _problems(MESSAGES["hello"], hello) == []
    assert _problems(MESSAGES["observations"], answer) == []
    broken = answer | {"observations": [{"format": "window-observation/1", "firings": [{"at": -1}]}]}
    assert _problems(MESSAGES["observations"], broken) != []


@pytest.mark.parametrize("mode", ["retry_once", "exiting"])
def test_answers_with_cases_to_retry_or_exiting_follow_the_schema(mode):
    request = {"type": "run", "id": 1, "cases": [case_to_json(c) for c in CASES]}
    _, answer = peer_says(request, mode)
    assert answer.get("retry", []) == ([1] if mode == "retry_once" else [])
    assert answer.get("exiting", False) == (mode == "exiting")
    assert _problems(MESSAGES["observations"], answer) == []
    assert _problems(MESSAGES["observations"], answer | {"retry": [-1]}) != []


def test_run_reports_the_cases_of_a_crashing_process_as_could_not_run_with_its_stderr():
    run = run_once("--impl", peer_spec("crash"), "--profile", "ci", "--property", "firing_timestamp_is_max_timestamp",
                   env=(("PYTHONPATH", str(ROOT)),))
    assert run.status == 3, run.stderr
    [prop] = run.implementation("python-peer")["properties"]
    assert (prop["outcome"], prop["failures"]) == ("error", [])
    assert "closed its stdout before its answer to run request 1" in prop["message"]
    assert "python-peer: request 1 with 1 case(s), fault crash" in prop["message"]


def test_a_closed_process_exits_and_the_next_request_starts_it_again():
    impl = load_implementation(peer_spec())
    first = impl.peer.popen
    impl.close()
    assert first.poll() == 0 and impl.peer is None
    assert impl.run(CASES) == load_implementation("reference").run(CASES)


JOIN_CASES = load_join_cases(ROOT / "cases" / "joins" / "interval_bounds.join.json")[:3] + load_join_cases(
    ROOT / "cases" / "joins" / "window_join.join.json")[:2]
JOIN_MESSAGES = {kind: _validator(f"window-process-1-{kind}.schema.json")
                 for kind in ("run-joins", "join-observations")}


def test_a_peer_that_declares_joins_is_sent_join_cases_and_answers_as_the_reference():
    impl = load_implementation(peer_spec())
    assert impl.features >= JOIN_NAMES
    assert impl.run_joins(JOIN_CASES) == load_implementation("reference").run_joins(JOIN_CASES)
    assert impl.run(CASES) == load_implementation("reference").run(CASES)  # the window requests go on as before


def test_a_join_request_and_its_answer_follow_their_schemas():
    request = {"type": "run_joins", "id": 1, "cases": [join_case_to_json(c) for c in JOIN_CASES]}
    assert _problems(JOIN_MESSAGES["run-joins"], request) == []
    hello, answer = peer_says(request)
    assert _problems(MESSAGES["hello"], hello) == [] and set(hello["features"]) >= JOIN_NAMES
    assert _problems(JOIN_MESSAGES["join-observations"], answer) == []
    assert _problems(MESSAGES["observations"], answer) != []  # join observations are no window observations
    broken = answer | {"observations": [{"format": "join-observation/1", "outputs": [{"at": -1}]}]}
    assert _problems(JOIN_MESSAGES["join-observations"], broken) != []


def test_a_broken_join_answer_is_a_failure_to_run_naming_the_format():
    impl = load_implementation(peer_spec("broken"))
    with pytest.raises(ImplementationFailure, match="an answer breaks join-observation/1: .*firings"):
        impl.run_joins(JOIN_CASES)


def test_run_holds_a_peer_to_the_join_properties_only_when_it_declares_joins():
    with_joins = run_once("--impl", peer_spec(), "--impl", peer_spec("windows_only"), "--profile", "dev",
                          "--property", "interval_join_pairs_every_partner_exactly_once", "--property",
                          "joins_match_reference", env=(("PYTHONPATH", str(ROOT)),))
    assert with_joins.status == 3, with_joins.stderr  # the windows-only peer: nothing applies to it
    [declares, windows_only] = with_joins.report["implementations"]
    assert {p["property"]: p["outcome"] for p in declares["properties"]} == {
        "interval_join_pairs_every_partner_exactly_once": "passed", "joins_match_reference": "passed"}
    assert all(p["features"].get("join.interval", 0) > 0 for p in declares["properties"])
    assert {p["outcome"] for p in windows_only["properties"]} == {"not_applicable"}


def test_the_protocol_pages_join_request_and_answer_follow_the_schemas_and_are_the_references():
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = text.split("## Joins: `run_joins` requests")[1].split("\n## ")[0]
    request, answer = (json.loads(block.split("```")[0]) for block in section.split("```json\n")[1:])
    assert _problems(JOIN_MESSAGES["run-joins"], request) == []
    assert _problems(JOIN_MESSAGES["join-observations"], answer) == []
    assert peer_says(request)[1] == answer
