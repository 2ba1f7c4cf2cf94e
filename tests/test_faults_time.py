"""A hung implementation is found in seconds (issue 32, "Time and processes"): once it has timed out, or its
process has died twice, its remaining properties could not run at once; the request timeout is a positive
number of seconds, bounds the hello too, and a line without its newline is not read whole."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import time

import pytest
from processes import PEER
from report_fixture_suite.running import HERE, ROOT, run_once

from conformance.cli import main
from window_contract import Case, record, tumbling
from window_contract.implementation import ImplementationFailure
from window_contract.registry import load_implementation

TIMEOUT = 8
HUNG = {
    # The first property to call it may send one case or a batch (the committed cases in one call).
    "hanging": ("fixture_impls:Hanging", r"a run call of \d+ case\(s\) did not return within 8 s"),
    "python-peer": ("exec:" + shlex.join([sys.executable, str(PEER), "hang"]), r"no answer to run request 1\b"),
}


def peer(fault: str) -> str:
    return "exec:" + shlex.join([sys.executable, str(PEER), fault])


def window_properties(implementation: dict) -> list[dict]:
    """The report's properties, in their order, but those of joins that do not apply (an implementation that
    declares no join): they never call it."""
    return [p for p in implementation["properties"]
            if not ("/test_joins.py::" in p["nodeid"] and p["outcome"] == "not_applicable")]


@pytest.mark.parametrize("name", HUNG)
def test_a_hung_implementation_costs_one_timeout_not_one_per_property(name):
    spec, said = HUNG[name]
    begun = time.monotonic()
    run = run_once("--impl", spec, "--profile", "dev", "--request-timeout", str(TIMEOUT), pythonpath=(str(HERE),))
    took = time.monotonic() - begun
    assert run.status == 3, run.stderr
    first, *rest = window_properties(run.implementation(name))
    assert len(rest) >= 20 and {p["outcome"] for p in [first, *rest]} == {"error"}
    assert re.search(said, first["message"]) and TIMEOUT <= first["duration"] < 2 * TIMEOUT
    assert all("it timed out earlier in this run" in p["message"] for p in rest)
    assert sum(p["duration"] for p in [first, *rest]) < 2 * TIMEOUT  # was one timeout a property: 26 x 8 s
    assert took < 150, took  # start-up and collection on a loaded machine, and one timeout


def test_a_prefetched_implementation_that_hangs_costs_its_recording_and_one_timeout():
    # A prefetched implementation's first call comes after the recording pass of every test (the reference
    # answers it); the hang is found there, and no later test waits again.
    properties = "fired_values_lie or firing_timestamp_is or keys_do_not"
    run = run_once("--impl", "fixture_impls:HangingCostly", "--profile", "dev", "--property", properties,
                   "--request-timeout", str(TIMEOUT), pythonpath=(str(HERE),))
    assert run.status == 3, run.stderr
    first, *rest = run.implementation("hanging-costly")["properties"]
    assert f"did not return within {TIMEOUT} s" in first["message"] and len(rest) == 2
    assert all("it timed out earlier in this run" in p["message"] for p in rest)
    assert sum(p["duration"] for p in rest) < 2


def test_a_process_that_dies_twice_is_not_started_for_the_remaining_properties():
    run = run_once("--impl", peer("crash"), "--profile", "dev", pythonpath=(str(HERE),))
    assert run.status == 3, run.stderr
    first, second, *rest = window_properties(run.implementation("python-peer"))
    assert "closed its stdout" in first["message"] and "closed its stdout" in second["message"]
    assert rest and all("its process died 2 times in this run" in p["message"] for p in rest)
    assert sum(p["duration"] for p in rest) < 5


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-5", "soon"])
@pytest.mark.parametrize("command", ["run", "replay"])
def test_a_request_timeout_that_is_not_a_positive_number_is_a_usage_error(command, value, capsys):
    assert main([command, *(["cases/seeds"] if command == "replay" else []), f"--request-timeout={value}"]) == 2
    err = capsys.readouterr().err
    assert "--request-timeout: must be a " in err and "DIFFERS" not in err


def test_the_hello_waits_no_longer_than_the_request_timeout():
    begun = time.monotonic()
    with pytest.raises(ImplementationFailure, match="could not start: no hello within 2 s"):
        load_implementation(peer("slow_hello"), timeout=2)
    assert time.monotonic() - begun < 10  # was 60 s whatever the timeout


def test_a_stdout_line_without_its_newline_fails_the_request_and_is_not_held_whole(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    impl = load_implementation(peer("long_line"))
    with pytest.raises(ImplementationFailure, match=r"a stdout line longer than 64 MiB where its answer to run "
                                                    r"request 1 \(1 case\(s\)\) was due .*: 'xxxx"):
        impl.run([Case(window=tumbling(10), events=[record("a", 1, ts=1)])])
    assert impl.peer is None  # killed, to start again for the next request


def test_replay_reading_a_line_of_400_mib_holds_far_less():
    script = (f"import resource, subprocess, sys; subprocess.run([sys.executable, '-m', 'conformance', 'replay', "
              f"'cases/seeds', '--impl', {peer('long_line')!r}], capture_output=True); "
              "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    peak_kib = int(done.stdout.strip())
    assert peak_kib < 200 * 1024, peak_kib  # the largest process's; a line held whole takes twice its size
