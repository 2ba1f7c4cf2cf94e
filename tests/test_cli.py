"""`python -m conformance`: `replay` (with `--check`), `explain`, and the usage errors (exit 2).

Run in-process through `conformance.cli.main(argv)`; one test runs the module as a program.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conformance.cli import main
from reference.implementation import simulate
from window_contract import Case, case_to_json, observation_to_json, record, tumbling, watermark
from window_contract.registry import registered_names

CASE = Case(window=tumbling(10), events=[record("a", 1, 5), watermark(9)], name="small")


def write(path, doc):
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def case_doc(case=CASE, expected=True):
    doc = case_to_json(case)
    if expected:
        doc["expected"] = observation_to_json(simulate(case))
    return doc


@pytest.fixture
def good(tmp_path):
    return write(tmp_path / "good.json", case_doc())


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_replay_prints_one_json_line_per_case(tmp_path, capsys):
    other = Case(window=tumbling(5), events=[record("b", 2, 1)])
    path = write(tmp_path / "two.json", {"cases": [case_doc(), case_doc(other, expected=False)]})
    code, out, err = run(capsys, "replay", str(path))
    assert code == 0 and err == ""
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["case"] for line in lines] == [f"{path}#0 (small)", f"{path}#1"]
    assert lines[0]["observation"] == observation_to_json(simulate(CASE))
    assert lines[1]["observation"] == observation_to_json(simulate(other))


def test_replay_of_a_folder_finds_its_json_files(tmp_path, good, capsys):
    (tmp_path / "sub").mkdir()
    write(tmp_path / "sub" / "more.json", case_doc())
    (tmp_path / "notes.txt").write_text("not a case")
    code, out, _ = run(capsys, "replay", str(tmp_path))
    assert code == 0 and len(out.splitlines()) == 2


def test_check_passes_when_every_case_agrees(good, capsys):
    code, out, _ = run(capsys, "replay", "--check", str(good))
    assert code == 0
    assert out.splitlines() == ["feature            cases  agree  differ  unsupported",
                                "assigner.tumbling      1      1       0            0",
                                "reference: 1 of 1 cases agree with their expected observation"]


def test_check_with_divergences_counts_agree_explained_and_unexplained_apart(tmp_path, capsys):
    """Touching sessions that stay apart differ from Flink in both cases of Beam's file: Beam's list explains
    them, a list without that divergence does not; neither reads as agreement. The tumbling case agrees."""
    beam = Path(__file__).resolve().parents[1] / "cases" / "engines" / "beam"
    files = [str(beam / "touching_sessions.json"), str(write(tmp_path / "tumbling.json", case_doc()))]
    check = ["--impl", "dialect_impls:touching_sessions_stay_apart", "--check", "--divergences"]
    code, out, _ = run(capsys, "replay", *files, *check, str(beam / "divergences.toml"))
    assert code == 0
    assert out.splitlines()[-4:-1] == ["feature            cases  agree  explained  unexplained  unsupported",
                                       "assigner.tumbling      1      1          0            0            0",
                                       "assigner.session       2      0          2            0            0"]
    other = tmp_path / "divergences.toml"
    other.write_text('[[divergence]]\nid = "x.lateness"\ntitle = "t"\ncase = "c.json"\n'
                     'switches = { drop_when_past_cleanup_strictly = true }\n', encoding="utf-8")
    code, out, _ = run(capsys, "replay", *files, *check, str(other))
    assert code == 1
    assert out.splitlines()[-2] == "assigner.session       2      0          0            2            0"


def test_check_fails_naming_the_case_and_the_difference(tmp_path, capsys):
    doc = case_doc()
    doc["expected"]["firings"][0]["values"] = [2]
    path = write(tmp_path / "wrong.json", {"cases": [case_doc(), doc]})
    code, out, _ = run(capsys, "replay", "--check", str(path))
    assert code == 1
    assert f"DIFFERS {path}#1 (small):" in out
    assert f"{path}#0" not in out
    assert "has values [1] instead of [2]" in out  # in the domain's words, not a diff of JSON
    assert out.splitlines()[-1] == "reference: 1 of 2 cases agree with their expected observation"


def test_check_fails_on_a_case_without_expected(tmp_path, capsys):
    path = write(tmp_path / "bare.json", case_doc(expected=False))
    code, out, _ = run(capsys, "replay", "--check", str(path))
    assert code == 1
    assert f"DIFFERS {path}#0 (small): the case has no expected observation to check against" in out


@pytest.mark.parametrize("content, where, rule", [
    ('{"format": "window-case/1", "window": {"assigner": "tumbling", "size": "ten"}, "events": []}',
     "$.window.size", "must be an integer in Java long range"),
    ('{"format": "window-case/1", "window": {"assigner": "hopping", "size": 1}, "events": []}',
     "$.window.assigner", "must be one of"),
    ('{"format": "window-case/1", "window": {"assigner": "global"}, "events": [{"record": {"key": "a"}}]}',
     "$.events[0].record.value", "missing required field"),
    ('{"format": "window-case/1", "window": {"assigner": "global"}, "events": [], '
     '"expected": {"format": "window-observation/1", "firings": 3}}',
     "$.expected.firings", "must be an array"),
    ('{"window": ', "", "not JSON"),
])
def test_malformed_file_exits_2_with_path_and_rule_and_no_traceback(tmp_path, capsys, content, where, rule):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    code, out, err = run(capsys, "replay", "--check", str(path))
    assert code == 2 and out == ""
    assert str(path) in err and where in err and rule in err
    assert "Traceback" not in err


def test_every_malformed_file_is_reported_at_once(tmp_path, good, capsys):
    write(tmp_path / "bad1.json", {"window": {"assigner": "tumbling"}, "events": []})
    write(tmp_path / "bad2.json", [])
    code, _, err = run(capsys, "replay", str(tmp_path))
    assert code == 2
    assert "bad1.json: $.format: missing required field; $.window.size: missing required field" in err
    assert "bad2.json: $: must be an object, not an array" in err


def test_missing_file_and_empty_folder_exit_2(tmp_path, capsys):
    code, _, err = run(capsys, "replay", str(tmp_path / "nope.json"))
    assert code == 2 and "nope.json: no such file" in err
    (tmp_path / "empty").mkdir()
    code, _, err = run(capsys, "replay", str(tmp_path / "empty"))
    assert code == 2 and "no case files found" in err


def test_unknown_impl_exits_2(good, capsys):
    code, out, err = run(capsys, "replay", "--impl", "nope", str(good))
    assert code == 2 and out == ""
    assert "no implementation 'nope'" in err and "reference" in err
    code, _, err = run(capsys, "replay", "--impl", "no_such_module:factory", str(good))
    assert code == 2 and "cannot import 'no_such_module'" in err


def test_impl_by_module_and_factory_and_unsupported_cases(tmp_path, good, capsys, monkeypatch):
    """A user's implementation that supports no feature: every case is reported as unsupported."""
    (tmp_path / "my_impl.py").write_text(textwrap.dedent("""
        class Nothing:
            name = "nothing"
            features = frozenset()
            def run(self, cases):
                raise AssertionError("no case should reach an implementation that supports nothing")
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    code, out, err = run(capsys, "replay", "--check", "--impl", "my_impl:Nothing", str(good))
    assert "replay: 1 case unsupported by nothing, not run; they need assigner.tumbling (1)" in err
    assert out.splitlines()[-1] == "nothing: 0 of 0 cases agree with their expected observation, 1 unsupported"
    # Nothing was checked: that is not a pass (exit 3), unless the user accepts it.
    assert code == 3 and "error: nothing was checked: nothing supports none of the 1 cases" in err
    assert run(capsys, "replay", "--check", "--allow-empty", "--impl", "my_impl:Nothing", str(good))[0] == 0


def test_check_of_no_cases_exits_3(tmp_path, capsys):
    path = write(tmp_path / "none.json", {"cases": []})
    code, out, err = run(capsys, "replay", "--check", str(path))
    assert code == 3 and "nothing was checked" in err
    assert out.strip() == "reference: 0 of 0 cases agree with their expected observation"


FIXTURES = "report_fixture_suite.fixture_impls"


def test_replay_keeps_a_plugins_prints_out_of_its_json_lines(good, capsys):
    code, out, err = run(capsys, "replay", "--impl", f"{FIXTURES}:Chatty", str(good))
    assert code == 0
    assert [json.loads(line)["case"] for line in out.splitlines()] == [f"{good}#0 (small)"]
    assert "chatty: running 1 cases" in err


def test_replay_rejects_several_implementations(good, capsys):
    code, out, err = run(capsys, "replay", "--impl", "reference", "--impl", "spark", str(good))
    assert code == 2 and out == "" and "replay takes one --impl" in err


def test_a_plugin_declaring_an_unknown_feature_is_rejected(good, capsys):
    code, _, err = run(capsys, "replay", "--impl", f"{FIXTURES}:Misspelled", str(good))
    assert code == 2 and "declares unknown features: assigner.tumblin" in err


def test_a_plugin_module_that_fails_at_import_is_one_line(tmp_path, good, capsys, monkeypatch):
    (tmp_path / "broken_impl.py").write_text("raise ZeroDivisionError('division by zero')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    code, _, err = run(capsys, "replay", "--impl", "broken_impl:Impl", str(good))
    assert code == 2 and "Traceback" not in err
    assert err.strip() == ("error: 'broken_impl:Impl': importing 'broken_impl' failed: "
                           "ZeroDivisionError: division by zero")


def test_a_plugin_that_raises_on_one_case_differs_on_that_case_alone(tmp_path, capsys):
    negative = Case(window=tumbling(10), events=[record("a", 1, -5), watermark(9)], name="negative")
    path = write(tmp_path / "two.json", {"cases": [case_doc(), case_doc(negative)]})
    code, out, _ = run(capsys, "replay", "--check", "--impl", f"{FIXTURES}:CrashesOnNegative", str(path))
    assert code == 1
    assert (f"DIFFERS {path}#1 (negative): run raised ValueError: negative timestamps are not supported"
            in out)
    assert f"{path}#0" not in out
    assert out.splitlines()[-1] == "crashes-on-negative: 1 of 2 cases agree with their expected observation"


@pytest.mark.parametrize(("plugin", "what"), [
    ("NoJava", "FileNotFoundError: [Errno 2] No such file or directory: 'java'"),
    ("JvmGone", "ConnectionRefusedError: [Errno 111] Connection refused"),
])
def test_an_engine_that_cannot_run_is_one_line_and_exit_3(good, capsys, plugin, what):
    code, out, err = run(capsys, "replay", "--check", "--impl", f"{FIXTURES}:{plugin}", str(good))
    assert code == 3 and out == "" and "Traceback" not in err
    assert err.strip().endswith(f"could not run: {what}")


def test_a_run_that_never_returns_times_out(good, capsys):
    code, _, err = run(capsys, "replay", "--impl", f"{FIXTURES}:Hanging", "--request-timeout", "0.5", str(good))
    assert code == 3
    assert err.strip() == "error: hanging could not run: a run call of 1 case(s) did not return within 0.5 s"


def test_the_variant_is_selectable_by_name(tmp_path, capsys):
    old = Case(window=tumbling(5), events=[record("a", 1, -7)], name="old formula")
    path = write(tmp_path / "old.json", case_doc(old))
    assert run(capsys, "replay", "--check", str(path))[0] == 0
    code, out, _ = run(capsys, "replay", "--check", "--impl", "reference-flink-1.12", str(path))
    assert code == 1 and "DIFFERS" in out and "reference-flink-1.12: 0 of 1" in out


def test_explain_prints_the_trace_of_a_small_case(good, capsys):
    code, out, err = run(capsys, "explain", str(good))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[:6] == [
        f"== {good}#0 (small)",
        "[0] record key=a value=1 ts=5",
        "  assigned to [0, 10)",
        "  event-time timer at 9 for [0, 10)",
        "[1] Watermark(9)",
        "  event-time timer 9 fires for key a [0, 10)",
    ]
    assert "  FIRE key=a [0, 10) values=[1]" in lines
    assert "observation:" in lines


def test_explain_bounds_its_output_and_says_how_to_see_more(good, capsys):
    code, out, _ = run(capsys, "explain", "--max-lines", "3", str(good))
    lines = out.splitlines()
    assert code == 0 and len(lines) == 5
    assert lines[4].startswith("... ") and lines[4].endswith(" more lines (--max-lines 0 shows every line)")
    everything = run(capsys, "explain", "--max-lines", "0", str(good))[1].splitlines()
    assert len(everything) == 4 + int(lines[4].split()[1])


def test_help_describes_files_implementations_and_exit_codes(capsys):
    for command in ("replay", "explain", "run"):
        assert main([command, "--help"]) == 0
        text = capsys.readouterr().out
        assert "`" not in text
        if command != "explain":
            # argparse wraps lines after a hyphen
            listed = f"({', '.join(registered_names())})"
            assert listed in re.sub(r"-\s+", "-", " ".join(text.split())) and "reference" in listed
            assert "exit status:" in text and "3  could not run" in text and "examples:" in text
    assert main(["explain", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "Run the reference model" in text and "window-case/1 JSON" in text


def test_explain_of_a_malformed_file_exits_2(tmp_path, capsys):
    path = write(tmp_path / "bad.json", {"window": {}})
    code, _, err = run(capsys, "explain", str(path))
    assert code == 2 and "$.window.assigner: missing required field" in err and "Traceback" not in err


def test_usage_errors_exit_2(capsys):
    assert main([]) == 2
    assert main(["replay"]) == 2
    assert main(["frobnicate"]) == 2
    capsys.readouterr()


def test_python_dash_m_conformance_runs_as_a_program(good):
    done = subprocess.run([sys.executable, "-m", "conformance", "replay", "--check", str(good)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "1 of 1 cases agree" in done.stdout


def test_unsupported_cases_are_counted_by_feature_in_one_line_and_the_run_is_announced(capsys):
    corpus = str(Path(__file__).resolve().parents[1] / "corpus")
    assert main(["replay", corpus, "--impl", "examples.naive_windows:NaiveWindows", "--check"]) == 1
    out, err = capsys.readouterr()
    [line] = [line for line in err.splitlines() if "unsupported" in line]
    assert re.match(r"replay: \d+ cases unsupported by naive-windows, not run; they need allowed_lateness \(\d+\), ",
                    line), line
    assert "DIFFERS" in out


def test_replay_on_an_engine_that_starts_a_job_says_so_before_it_starts(capsys):
    good = Path(__file__).resolve().parents[1] / "cases" / "tumbling"
    assert main(["replay", str(good), "--impl", "report_fixture_suite.fixture_impls:Costly", "--check"]) == 0
    assert capsys.readouterr().err.startswith("replay: costly starts its engine and runs ")
