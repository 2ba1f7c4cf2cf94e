"""Each fault gets a message that names the thing and the rule (issue 32, "Messages"): a dead Spark JVM and a
missing `java`, an engine's logging noise, a deeply nested trigger, a looping symbolic link, a byte order
mark, a name that is not a string, a `null` where a default stands."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

import pytest
from report_fixture_suite.running import HERE, ROOT, conformance

from conformance.cli import main
from window_contract.case_json import load_cases
from window_contract.implementation import ImplementationFailure
from window_contract.registry import load_implementation
from window_contract.validation import CaseFormatError

CASE = {"format": "window-case/1", "window": {"assigner": "tumbling", "size": 10},
        "events": [{"record": {"key": "a", "value": 1, "ts": 3}}]}

SPARK_JVM_KILLED = """
import os, signal, time
from spark_impl.session import get_session
from window_contract import Case, load_implementation, record, tumbling
from window_contract.implementation import failure_to_run, run_within
impl, case = load_implementation("spark"), Case(window=tumbling(10), events=[record("a", 1, ts=3)])
impl.run([case])
os.kill(get_session().sparkContext._gateway.proc.pid, signal.SIGKILL)
time.sleep(2)  # gone, not going: the next call's connection is refused
try:
    run_within(impl, [case], 120)
except Exception as e:
    print(failure_to_run(e))
"""


@pytest.mark.spark
def test_a_dead_spark_jvm_is_named_not_only_a_refused_connection():
    done = subprocess.run([sys.executable, "-c", SPARK_JVM_KILLED], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.stdout.startswith("the Spark JVM is gone (py4j, which talks to it, cannot reach it): "
                                  "ConnectionRefusedError"), done.stdout + done.stderr[-2000:]


def test_spark_without_java_names_java():
    done = conformance("replay", "cases/seeds", "--impl", "spark", env=(("PATH", "/nonexistent"), ("JAVA_HOME", "")))
    assert done.returncode == 3, done.stderr
    assert done.stderr == ("replay: spark starts its engine and runs 3 cases in one run call\n"
                           "error: spark could not run: Spark needs Java 17 to start its JVM: no java on the PATH, "
                           "and JAVA_HOME is unset\n")


def test_a_logging_frameworks_notices_about_itself_are_not_quoted():
    script = ("for line in ['SLF4J: Failed to load class \"org.slf4j.impl.StaticLoggerBinder\".', "
              "'SLF4J: Defaulting to no-operation (NOP) logger implementation', 'the engine cannot open its store']: "
              "print(line, file=__import__('sys').stderr)")
    with pytest.raises(ImplementationFailure) as failure:
        load_implementation("exec:" + shlex.join([sys.executable, "-c", script]))
    assert str(failure.value).endswith("its stderr ends:\nthe engine cannot open its store")


def test_a_trigger_nested_too_deeply_is_named_in_a_short_path(tmp_path):
    trigger = {"type": "count", "count": 2}
    for _ in range(500):
        trigger = {"type": "purging", "inner": trigger}
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(CASE | {"window": {"assigner": "global"}, "trigger": trigger}))
    with pytest.raises(CaseFormatError) as error:
        load_cases(path)
    assert str(error.value) == f"{path}: $.trigger(.inner){{65}}: triggers may nest at most 64 deep"


def test_replay_names_a_symbolic_link_that_loops_or_leads_nowhere(tmp_path, capsys):
    (tmp_path / "loop.json").symlink_to(tmp_path / "loop.json")
    (tmp_path / "gone.json").symlink_to(tmp_path / "deleted.json")
    assert main(["replay", str(tmp_path / "loop.json"), str(tmp_path / "gone.json")]) == 2
    assert capsys.readouterr().err == (
        f"error: {tmp_path}/loop.json: a symbolic link that leads back to itself (a loop): no file at its end\n"
        f"{tmp_path}/gone.json: a symbolic link to {tmp_path}/deleted.json, which does not exist\n")


def test_a_byte_order_mark_is_named_in_the_formats_words(tmp_path, capsys):
    path = tmp_path / "bom.json"
    path.write_text(json.dumps(CASE), encoding="utf-8-sig")
    assert main(["replay", str(path)]) == 2
    assert capsys.readouterr().err == (f"error: {path}: starts with a byte order mark (U+FEFF); a case file is UTF-8 "
                                       "without one, as JSON is written: save the file without it\n")


def test_an_implementation_named_by_a_number_is_a_usage_error(capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(HERE))
    assert main(["replay", "cases/seeds", "--impl", "fixture_impls:NumberedName"]) == 2
    assert "'fixture_impls:NumberedName': name must be a non-empty string, not 12345" in capsys.readouterr().err


def test_a_null_where_a_default_stands_says_to_leave_the_field_out(tmp_path):
    path = tmp_path / "offset.json"
    path.write_text(json.dumps(CASE | {"window": {"assigner": "tumbling", "size": 10, "offset": None}}))
    with pytest.raises(CaseFormatError, match=r"\$\.window\.offset: must be an integer in Java long range "
                                              r"\[.*\], not null \(leave the field out for its default, 0\)$"):
        load_cases(path)
    # a count window's slide is null by default (docs/format.md): there null states the default
    path.write_text(json.dumps(CASE | {"window": {"assigner": "count", "size": 2, "slide": None}}))
    assert load_cases(path)[0].window.slide is None
