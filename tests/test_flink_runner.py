"""The machinery around real Flink: batches, failures, cases that never end, missing tools, CLI."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
from test_docs_schemas import _problems, _validator

from conformance.cli import main
from flink_impl import FlinkImplementation, toolchain
from flink_impl.command import Limits, runner_command
from flink_impl.sql import FLINK_SQL
from flink_impl.toolchain import FlinkUnavailable
from window_contract import (
    LONG_MAX,
    LONG_MIN,
    Case,
    ContinuousEventTimeTrigger,
    Error,
    PurgingTrigger,
    count_window,
    global_window,
    record,
    session,
    tumbling,
    watermark,
)
from window_contract.case import case_to_json
from window_contract.facts import NEVER_ENDS, TOO_MANY_OUTPUTS
from window_contract.features import ALL_FEATURES, FEATURES, JOIN_NAMES
from window_contract.implementation import ImplementationFailure
from window_contract.observation import Firing, GlobalWindow, Observation, TimeWindow
from window_contract.observation_json import observation_to_json

pytestmark = pytest.mark.flink

ROOT = Path(__file__).resolve().parents[1]

FLINK = FlinkImplementation()

OK_TUMBLING = Case(window=tumbling(10), events=[record("a", 1, 1), watermark(9), record("a", 2, 12)])
# Fails at its 3rd event, after one firing.
FAILING = Case(window=tumbling(10), events=[record("a", 1, 1), watermark(9), record("a", 2, LONG_MIN),
                                            record("a", 3, 2)])
OK_SESSION = Case(window=session(5), events=[record("b", 1, 1), record("b", 2, 4)])
INVALID = Case(window=tumbling(0), events=[record("a", 1, 1)])
OK_COUNT = Case(window=count_window(1), events=[record("c", 7, 0)])
MIXED = [OK_TUMBLING, FAILING, OK_SESSION, INVALID, OK_COUNT]


def test_a_failing_case_keeps_its_outputs_and_harms_no_other_case() -> None:
    batch = FLINK.run(MIXED)
    alone = [FLINK.run([case])[0] for case in MIXED]
    assert batch == alone
    assert batch[1].error == Error("runtime", "Record has Long.MIN_VALUE timestamp (= no timestamp marker). "
                                              "Did you forget to call 'DataStream.assignTimestampsAndWatermarks(...)'?")
    assert batch[1].firings == (Firing(1, "a", TimeWindow(0, 10), 9, (1,), 9),)
    assert [o.error is None for o in batch] == [True, False, True, False, True]


def test_a_batch_spread_over_many_jobs_gives_the_same_observations() -> None:
    assert FlinkImplementation(Limits(branches_per_job=2)).run(MIXED) == FLINK.run(MIXED)


def test_a_key_past_the_output_limit_stops_the_case() -> None:
    # The global window's maxTimestamp is Long.MAX_VALUE: at the end of input the continuous
    # trigger fires every 5 ms of event time up to it (and on around the long range), with the window's contents.
    endless = Case(window=global_window(), trigger=ContinuousEventTimeTrigger(5),
                   events=[record("a", 1, 1), record("b", 2, 1), watermark(20)])
    [observation] = FlinkImplementation(Limits(output_limit=10)).run([endless])
    a = [f.at for f in observation.firings if f.key == "a"]
    assert a == [2] * 4 + [3] * 6 or a == [2] * 4 + [3] * 5  # fire times 5..20, then 25..50 (b may stop it first)
    assert observation.error == Error("runtime", TOO_MANY_OUTPUTS)


def test_a_request_of_cases_stopped_at_the_output_limit_is_answered_whole() -> None:
    """Twelve cases that each fire until the output limit, 1.2 million firings in all: the answer once
    outgrew the runner's heap (outputs kept as trees of nodes, then written as one string)."""
    endless = Case(window=global_window(), trigger=ContinuousEventTimeTrigger(1), events=[record("k\U0001f642", 1, 0)])
    observations = FLINK.run([endless] * 12)
    stopped = (Limits().output_limit, Error("runtime", TOO_MANY_OUTPUTS))
    assert [(len(o.firings), o.error) for o in observations] == [stopped] * 12
    assert observations[0].firings[-1] == Firing(1, "k\U0001f642", GlobalWindow(), LONG_MAX, (1,), LONG_MAX)


def test_a_case_that_loops_silently_is_stopped_by_the_timeout_and_the_rest_still_runs() -> None:
    # Purged at its first firing, the window has nothing to emit, but its timers go on forever: every
    # fire time is a multiple of 4, and Long.MAX_VALUE is not, so `time + 4` wraps past it for ever.
    silent = Case(window=global_window(), trigger=PurgingTrigger(ContinuousEventTimeTrigger(4)),
                  events=[record("a", 1, 1)])
    # the timeout counts the runner's CPU, which the machine's load does not stretch: a timeout of 1 CPU-s let the
    # first case end (a wall's timeout of 2 s once cut it on a loaded machine)
    first, stuck, after = FlinkImplementation(Limits(job_timeout_seconds=3)).run([OK_TUMBLING, silent, OK_SESSION])
    assert (first, after) == tuple(FLINK.run([OK_TUMBLING, OK_SESSION]))
    assert stuck.error == Error("runtime", NEVER_ENDS)
    assert len(stuck.firings) == 1  # the first firing, at the end of input, before the silent loop


#: A million timers that emit nothing: purged at its first firing, the window is empty at every later one (about 0.5
#: CPU-seconds in the runner).
EMPTY_BURST = Case(window=global_window(), trigger=PurgingTrigger(ContinuousEventTimeTrigger(1)),
                   events=[record("a", 1, 0), watermark(1_000_000)], end_of_input=False)


def cpu_seconds(pid: int) -> float:
    """The CPU time process `pid` has spent (`/proc/<pid>/stat`: user and system, in clock ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_a_job_that_keeps_ending_cases_is_not_cut_however_long_it_runs() -> None:
    """The job's timeout is on progress (`JobRunner.resultWhileSettling`): 24 cases of a million timers each (about
    0.5 CPU-seconds apiece) make one job that spends more than twice its timeout of 3 CPU-seconds, and every case
    ends. A timeout on the whole job told the cases after its first seconds that they never end."""
    limits = Limits(job_timeout_seconds=3)
    flink = FlinkImplementation(limits)
    flink.run([OK_COUNT])  # the runner's JVM started, so that only the job is counted
    jvm = flink._runner.peer.popen.pid
    before = cpu_seconds(jvm)
    observations = flink.run([EMPTY_BURST] * 24)
    spent = cpu_seconds(jvm) - before
    assert spent > 2 * limits.job_timeout_seconds, f"the job must outlast its timeout to show this ({spent:.1f} s)"
    assert observations == [Observation(firings=(Firing(1, "a", GlobalWindow(), LONG_MAX, (1,), 1_000_000),))] * 24


def test_a_job_the_machine_stops_for_longer_than_its_timeout_is_not_cut() -> None:
    """The job's timeout counts the runner's CPU, not the wall's time (`JobRunner.resultWhileSettling`): a runner the
    machine stops (SIGSTOP) for 8 s in the middle of a case, more than its timeout of 5 s, spends nothing meanwhile,
    and every case ends. On the wall's time, the case it was replaying never ended."""
    limits = Limits(job_timeout_seconds=5)
    flink = FlinkImplementation(limits)
    flink.run([OK_COUNT])  # the runner's JVM started, so that the stop falls in the job
    jvm = flink._runner.peer.popen.pid

    def stop_for_a_while() -> None:
        time.sleep(1)
        os.kill(jvm, signal.SIGSTOP)
        time.sleep(8)
        os.kill(jvm, signal.SIGCONT)

    stopper = threading.Thread(target=stop_for_a_while)
    start = time.monotonic()
    stopper.start()
    observations = flink.run([EMPTY_BURST] * 8)
    took = time.monotonic() - start
    stopper.join()
    assert took > 9, "the runner must be stopped while its job runs to show this"
    assert observations == [Observation(firings=(Firing(1, "a", GlobalWindow(), LONG_MAX, (1,), 1_000_000),))] * 8


#: The features only Flink SQL's table runtime has.
SQL_ONLY = {"assigner.cumulative", "trigger.after_end_of_window", "trigger.after_end_of_window.delay"}


def test_real_flink_declares_every_feature_of_the_format_but_the_table_runtimes_and_the_datastream_joins() -> None:
    """Flink SQL's `CUMULATE` has no DataStream assigner, nor its emit strategy a DataStream trigger."""
    assert FLINK.features == (ALL_FEATURES - SQL_ONLY) | JOIN_NAMES


def test_the_runner_says_a_hello_of_the_protocol_with_the_features_of_the_contract() -> None:
    with subprocess.Popen(shlex.split(runner_command()), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True) as runner:
        said, _ = runner.communicate("", timeout=120)
    [hello] = map(json.loads, said.splitlines())  # the end of stdin ends it before any answer
    assert _problems(_validator("window-process-1-hello.schema.json"), hello) == []
    features = [name for name in FEATURES if name not in SQL_ONLY]  # the contract's order
    assert hello == {"type": "hello", "protocol": "window-process/1", "name": "flink", "features": features,
                     "position_free": False, "costly_calls": True}


def test_the_runner_leaves_nothing_in_the_temporary_directory_and_deletes_what_killed_runners_left(tmp_path) -> None:
    """The SQL runner's Flink extracts the Table planner's jar (45 MB) to the temporary directory at every start, and
    its MiniCluster makes directories there; the runner halts the JVM, which skips `deleteOnExit`, so they are in a
    directory of its own (`Scratch.java`), deleted as it halts. One a runner killed outright left is deleted by the
    next runner to start."""
    killed = tmp_path / "window-conformance-jvm-4194304"  # Linux's pids are below 2^22: no process has this one
    killed.mkdir()
    (killed / "flink-table-planner_left.jar").write_bytes(b"jar")
    request = {"type": "run", "id": 1, "cases": [case_to_json(OK_TUMBLING)]}
    with subprocess.Popen(shlex.split(runner_command(variant=FLINK_SQL)), stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                          env={**os.environ, "JAVA_TOOL_OPTIONS": f"-Djava.io.tmpdir={tmp_path}"}) as runner:
        runner.stdin.write(json.dumps(request) + "\n")
        runner.stdin.flush()
        assert json.loads(runner.stdout.readline())["type"] == "hello"
        assert json.loads(runner.stdout.readline())["type"] == "observations"
        [planner] = tmp_path.glob("window-conformance-jvm-*/flink-table-planner_*.jar")
        assert planner.parent != killed and not killed.exists()
        runner.stdin.close()
        assert runner.wait(timeout=60) == 0
    assert list(tmp_path.iterdir()) == []


def test_implementations_with_the_same_limits_share_one_jvm() -> None:
    FLINK.run([OK_COUNT])
    other = FlinkImplementation()
    other.run([OK_COUNT])
    assert other._runner is FLINK._runner


def test_a_jvm_that_dies_is_an_error_for_the_requests_cases_with_its_stderr_and_the_next_call_starts_another() -> None:
    flink = FlinkImplementation(Limits(branches_per_job=3))
    first = flink.run([OK_TUMBLING])
    jvm = flink._runner.peer.popen
    os.kill(jvm.pid, signal.SIGKILL)
    jvm.wait()
    with pytest.raises(ImplementationFailure) as failure:
        flink.run([OK_TUMBLING])
    assert re.match(r"the Flink runner: the process (did not take the request|closed its stdout).*exit status -9",
                    str(failure.value).splitlines()[0])
    assert flink.run([OK_TUMBLING]) == first and flink._runner.peer.popen.pid != jvm.pid


def test_replay_through_exec_of_the_runners_command_agrees_on_a_case_folder(capsys) -> None:
    assert main(["replay", str(ROOT / "cases" / "tumbling"), "--impl", "exec:" + runner_command(), "--check"]) == 0
    assert re.match(r"flink: (\d+) of \1 cases agree", capsys.readouterr().out.splitlines()[-1])


def test_a_missing_java_fails_loudly(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(FlinkUnavailable, match="'javac' not found"):
        toolchain.find_jdk_tool("javac")


def test_a_missing_flink_jar_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toolchain, "FLINK_VERSION", "0.0.0")
    with pytest.raises(FlinkUnavailable, match="flink-dist-0.0.0.jar not found"):
        toolchain.find_flink_dist()


def test_a_new_runner_build_leaves_the_last_used_in_the_cache(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    root = tmp_path / "window-conformance"
    old = [root / f"flink-old{i}" for i in range(toolchain.KEPT_BUILDS)]
    for i, folder in enumerate(old):
        folder.mkdir(parents=True)
        os.utime(folder, (1_000 + i, 1_000 + i))  # old0 the least recently used
    source = tmp_path / "src" / "Hello.java"
    source.parent.mkdir()
    source.write_text("class Hello {}", encoding="utf-8")
    build = toolchain.Build(toolchain.find_jdk_tool("java"), toolchain.find_jdk_tool("javac"), (source.parent,), ())
    monkeypatch.setattr(toolchain, "build_key", lambda build: "new")
    os.utime(old[0], (9_000, 9_000))  # used again: the least recently used is now old1
    classes = toolchain.compiled_classes(build)
    assert (classes / "Hello.class").is_file()
    assert sorted(p.name for p in root.iterdir()) == sorted(["flink-new", "flink-old0", *(f.name for f in old[2:])])
    os.utime(classes.parent, (1_000, 1_000))
    assert toolchain.compiled_classes(build) == classes and classes.parent.stat().st_mtime > 9_000  # a use marks it


def test_replay_checks_a_case_file_against_flink(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = FLINK.run([OK_TUMBLING])[0]
    doc = case_to_json(OK_TUMBLING) | {"expected": observation_to_json(expected)}
    wrong = case_to_json(OK_SESSION) | {"expected": observation_to_json(expected)}
    (tmp_path / "cases.json").write_text(json.dumps({"cases": [doc, wrong]}))
    assert main(["replay", str(tmp_path / "cases.json"), "--impl", "flink", "--check"]) == 1
    out = capsys.readouterr().out
    assert "flink: 1 of 2 cases agree" in out
    assert "DIFFERS" in out and "#1" in out
