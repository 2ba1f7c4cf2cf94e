"""The portable corpus (`python -m conformance corpus`, `corpus/`) and `replay --check`'s per-feature summary.

The committed corpus must be what `corpus` writes with the default options, byte for byte (so it never
goes stale), and the reference must agree with every case of it. Spark and real Flink replay it in
`./dev test`'s corpus step, one batched job each.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.corpus import (
    CONTRACT_STOPS,
    INDEX,
    Entry,
    disagreements,
    draw_cases,
    drawing_features,
    entries_for,
    write,
)
from conformance.runner.feature_summary import feature_summary
from reference.implementation import simulate
from window_contract import Case, record, tumbling
from window_contract.case_json import load_cases
from window_contract.features import ALL_FEATURES, FEATURES, required_features
from window_contract.observation import Observation

ROOT = Path(__file__).resolve().parent.parent
COMMITTED = ROOT / "corpus"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("feature", ["assigner.sliding", "trigger.count", "watermark.idleness", "extreme_values"])
def test_drawn_cases_need_their_feature_and_the_same_seed_draws_the_same(feature):
    first = draw_cases(feature, 3, seed=7, keep=lambda case: True)
    assert all(feature in required_features(case) for case in first)
    assert len(set(map(repr, first))) == 3
    assert draw_cases(feature, 3, seed=7, keep=lambda case: True) == first
    assert draw_cases(feature, 3, seed=8, keep=lambda case: True) != first


def test_an_assigner_or_generator_is_drawn_alone_of_its_kind_and_extreme_values_only_for_itself():
    assert {"assigner.session", "assigner.count"} & drawing_features("assigner.tumbling") == set()
    assert "watermark.monotonous" not in drawing_features("watermark.legacy_ascending")
    assert "extreme_values" not in drawing_features("trigger.count")
    assert "extreme_values" in drawing_features("extreme_values")


@pytest.mark.parametrize("feature", sorted(FEATURES))
def test_a_plain_draw_needs_only_the_feature_an_assigner_and_its_companions(feature):
    plain = drawing_features(feature, plain=True)
    assert feature in plain and {"allowed_lateness", "negative_timestamps"} - {feature} <= ALL_FEATURES - plain
    for case in draw_cases(feature, 2, seed=0, keep=lambda case: True, plain=True):
        assert feature in required_features(case) <= plain


def test_what_a_seed_draws_does_not_depend_on_the_modules_loaded_before(tmp_path):
    """Hypothesis harvests constants from every local module loaded: a module imported between two draws
    (in a test run, another test's) must not change what the same seed draws. In a process of its own
    that never registered the suite's profiles (which draw without those constants for the whole
    process), so that the corpus's own guard is what is tested."""
    numbers = ", ".join(str(n) for n in [*range(-40, 400), *(2**n - 1 for n in range(8, 63))])
    (tmp_path / "constants_galore.py").write_text(f"NUMBERS = [{numbers}]\nKEYS = ['a ', 'b\\x00', 'z']\n")
    script = f"""
import importlib, sys
from conformance import profiles
from conformance.corpus import draw_cases
assert profiles._without_local_constants_for_good.cache_info().currsize == 0, "profiles registered"
def draw():
    return draw_cases("assigner.sliding", 6, seed=0, keep=lambda case: True)
before = draw()
sys.path.insert(0, {str(tmp_path)!r})
importlib.import_module("constants_galore")
print(draw() == before)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert (done.returncode, done.stdout.strip()) == (0, "True"), done.stderr[-2000:]


def test_entries_expect_the_reference_and_leave_out_the_contracts_own_stops():
    entries = entries_for("assigner.sliding", 4, seed=0)
    assert [e.case.name for e in entries] == [f"assigner.sliding #{n}" for n in range(4)]
    assert [required_features(e.case) <= drawing_features("assigner.sliding", plain=True) for e in entries][:2] \
        == [True, True]
    for e in entries:
        assert e.case.expected == simulate(e.case)
        assert e.case.expected.error is None or e.case.expected.error.message not in CONTRACT_STOPS


def test_written_corpus_loads_and_its_index_names_every_case(tmp_path):
    entries = entries_for("assigner.tumbling", 2, seed=0) + entries_for("trigger.never", 2, seed=0)
    (tmp_path / "users.json").write_text("{}")  # a file of the user's stays (`corpus --out`'s manifest rule)
    assert write(entries, tmp_path, per_feature=2, seed=0) == [INDEX, "assigner.tumbling.json", "trigger.never.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["assigner.tumbling.json", INDEX, "trigger.never.json",
                                                          "users.json"]
    index = json.loads((tmp_path / INDEX).read_text())
    assert index["files"] == {"assigner.tumbling.json": FEATURES["assigner.tumbling"],
                              "trigger.never.json": FEATURES["trigger.never"]}
    for listed, entry in zip(index["cases"], entries, strict=True):
        case = load_cases(tmp_path / listed["file"])[listed["index"]]
        assert case == entry.case and listed["name"] == case.name
        assert listed["features"] == sorted(required_features(case))
        assert listed["exercises"] == list(entry.exercises)


class Silent:
    """An implementation that never outputs anything."""

    name = "silent"
    features = ALL_FEATURES

    def run(self, cases):
        return [Observation() for _ in cases]


def test_a_disagreement_names_the_case_and_the_difference():
    entries = [e for e in entries_for("assigner.tumbling", 3, seed=0) if e.case.expected != Observation()]
    found = disagreements(entries, Silent())
    assert len(found) == len(entries) > 0
    assert found[0].startswith(f"{entries[0].case.name}:\n  ")


def test_a_disagreement_with_the_confirming_implementation_writes_nothing(tmp_path, capsys):
    out = tmp_path / "out"
    code, _, err = run(capsys, "corpus", "--out", str(out), "--features", "assigner.tumbling",
                       "--per-feature", "2", "--confirm", "tests.test_corpus:Silent")
    assert code == 1 and not out.exists()
    assert "silent disagrees with the reference on 2 cases" in err and "assigner.tumbling #0" in err


@pytest.mark.parametrize("argv, message", [
    (["--features", "assigner.square"], "--features: unknown feature names assigner.square"),
    (["--per-feature", "0"], "--per-feature must be at least 1"),
])
def test_bad_options_exit_2_naming_the_option(tmp_path, capsys, argv, message):
    code, _, err = run(capsys, "corpus", "--out", str(tmp_path), *argv)
    assert code == 2 and message in err and "Traceback" not in err


def test_the_committed_corpus_is_what_corpus_writes_with_the_default_options(tmp_path, capsys):
    # Confirmation on real Flink is the corpus step's replay of ./dev test; the bytes do not depend on it.
    code, _, err = run(capsys, "corpus", "--out", str(tmp_path), "--confirm", "none")
    assert code == 0, err
    written = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    committed = {p.name: p.read_bytes() for p in COMMITTED.iterdir()}
    assert written.keys() == committed.keys()
    stale = sorted(name for name in written if written[name] != committed[name])
    assert not stale, f"corpus/ is stale in {stale}: python -m conformance corpus --force (then commit corpus/)"


def test_the_committed_corpus_covers_every_feature_a_strategy_draws_within_a_few_megabytes():
    index = json.loads((COMMITTED / INDEX).read_text())
    assert sorted(index["files"]) == sorted(f"{feature}.json" for feature in FEATURES
                                            if feature not in index["not_drawn"])
    assert len(index["not_drawn"]) <= 3
    plain = [case for case in index["cases"] if len(case["features"]) == 1]
    assert len(plain) >= 20, "an engine with one assigner alone should find cases to run"
    assert sum(p.stat().st_size for p in COMMITTED.iterdir()) < 4_000_000


def test_the_reference_agrees_with_the_committed_corpus_feature_by_feature(capsys):
    code, out, _ = run(capsys, "replay", str(COMMITTED), "--impl", "reference", "--check")
    assert code == 0
    cases = len(json.loads((COMMITTED / INDEX).read_text())["cases"])
    assert f"reference: {cases} of {cases} cases agree" in out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[1:] if line.split()[0] in FEATURES}
    assert rows.keys() == set(FEATURES) - set(json.loads((COMMITTED / INDEX).read_text())["not_drawn"])
    assert all(differ == "0" and unsupported == "0" for _, _, differ, unsupported in rows.values())


def test_the_summary_counts_a_case_under_each_feature_it_needs():
    lines = feature_summary([
        (frozenset({"assigner.tumbling", "offset"}), "agree"),
        (frozenset({"assigner.tumbling"}), "differ"),
        (frozenset({"assigner.session", "offset"}), "unsupported"),
    ])
    assert lines[0].split() == ["feature", "cases", "agree", "differ", "unsupported"]
    assert [line.split() for line in lines[1:]] == [
        ["assigner.tumbling", "2", "1", "1", "0"],
        ["assigner.session", "1", "0", "0", "1"],
        ["offset", "2", "1", "0", "1"],
    ]


def test_replay_check_prints_the_summary_between_the_case_lines_and_the_verdict(tmp_path, capsys):
    case = Case(window=tumbling(10), events=[record("a", 1, ts=5)], name="fires at the end of input")
    right = Entry("assigner.tumbling", replace(case, expected=simulate(case)), ())
    wrong = Entry("assigner.tumbling", replace(case, expected=Observation()), ())
    for entry, folder in ((right, "right"), (wrong, "wrong")):
        write([entry], tmp_path / folder, per_feature=1, seed=0)
    code, out, _ = run(capsys, "replay", str(tmp_path / "right"), "--check")
    assert code == 0 and out.splitlines()[-2].split() == ["assigner.tumbling", "1", "1", "0", "0"]
    code, out, _ = run(capsys, "replay", str(tmp_path / "wrong"), "--check")
    assert code == 1 and out.startswith("DIFFERS")
    assert out.splitlines()[-2].split() == ["assigner.tumbling", "1", "0", "1", "0"]
    assert out.splitlines()[-1] == "reference: 0 of 1 cases agree with their expected observation"


def test_corpus_says_what_it_does_while_it_works(tmp_path, capsys):
    from conformance.cli import main

    assert main(["corpus", "--features", "assigner.tumbling", "offset", "--per-feature", "2", "--confirm",
                 "reference", "--out", str(tmp_path / "corpus")]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "corpus: starting reference, which confirms every case (an engine takes a while to start)"
    assert lines[1] == ("corpus: drawing 2 cases for each of 2 features (seed 0), then running them on the reference "
                        "and reference")
    assert lines[2:4] == ["corpus: [1/2] assigner.tumbling: 2 cases", "corpus: [2/2] offset: 2 cases"]
    assert lines[4].startswith("corpus: running the 4 cases on reference (one run call")


def test_without_the_flink_extra_corpus_could_not_run_and_names_the_extra_before_drawing(tmp_path, capsys,
                                                                                          monkeypatch):
    import flink_impl.implementation

    monkeypatch.setitem(sys.modules, "pyflink", None)  # as the import system sees a package not installed
    monkeypatch.setattr(flink_impl.implementation, "_runners", {})  # no Flink runner this process started before
    out = tmp_path / "corpus"
    code, _, err = run(capsys, "corpus", "--out", str(out), "--features", "assigner.tumbling", "--per-feature", "1")
    assert code == 3 and not out.exists()
    assert err.splitlines()[-1] == (
        "error: flink could not confirm the corpus: Flink's toolchain (java, javac or Flink's jars): package 'pyflink' "
        "not found: install apache-flink-libraries==2.3.0 (pip install 'window-conformance[flink]') (--confirm none "
        "writes it unconfirmed)")
    assert "drawing" not in err and "Traceback" not in err
