"""The joins of two streams in the divergence machinery (`conformance.divergences`): a list's entries whose case is a
`.join.json` file are join divergences, executable as switches of the dialect the join models take
(`reference.dialects.joins`, and the window rules a window join's union runs) or as explainers over the joins'
observations, and `replay --check --divergences` applies them to join case files as to window ones.

The engines here are the reference with its joins in a dialect (`tests/dialect_impls.py`): what they answer the
tests know exactly, so a list explains them, and a mutated answer must stay unexplained.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest
from engine_pages import ROOT

from conformance import causes, join_causes
from conformance.divergences import LIST, DivergenceListError, attribute, read_divergences
from reference.dialects import FLINK, Dialect
from reference.implementation import simulate
from reference.joins import simulate_join
from window_contract import Case, record, session
from window_contract.case import Sliding
from window_contract.join_case import JoinCase, WindowJoin, join_case_to_json
from window_contract.join_case_json import join_cases_from_json
from window_contract.join_observation import Pair

KEPT = Dialect(watermark_when_all_inputs_idle="kept")


def rec(side, value, ts, key="a"):
    return {"input": side, "record": {"key": key, "value": value, "ts": ts}}


def wm(side, t):
    return {"input": side, "watermark": t}


def idle(side):
    return {"input": side, "watermark_status": {"channel": 0, "idle": True}}


def join_case(join: dict, events: list, expected: bool = True, end_of_input: bool = False) -> JoinCase:
    [case] = join_cases_from_json({"format": "join-case/1", "join": join, "events": events,
                                   "end_of_input": end_of_input})
    return dataclasses.replace(case, expected=simulate_join(case)) if expected else case


INTERVAL = {"operation": "interval_join", "lower": 0, "upper": 1}
#: Both inputs go idle, the left at 5 and the right at 3: Flink 2.3's operator watermark rises to 5, and a right
#: record at 4 that came before it is cleaned up then; in the dialect that keeps the watermark, it waits.
ALL_IDLE = join_case(INTERVAL, [wm("left", 5), wm("right", 3), rec("right", 1, 4), idle("left"), idle("right"),
                                rec("left", 2, 4)])


def write_list(folder, *entries: str):
    path = folder / LIST
    path.write_text("\n".join(entries), encoding="utf-8")
    return path


def entry(id: str, case: str, form: str) -> str:
    return f'[[divergence]]\nid = "{id}"\ntitle = "t"\ncase = "{case}"\n{form}\n'


KEEPS = entry("x.kept", "idle.join.json", 'switches = { watermark_when_all_inputs_idle = "kept" }')


# --- the switch, on the model alone -----------------------------------------------------------------------------


def test_a_two_input_operator_that_keeps_its_watermark_when_every_input_is_idle():
    """2.3 raises the watermark to 5 once both inputs are idle (the right record at 4 is cleaned up, its late
    partner at 4 finds nothing); kept, it stays at 3 and the pair is joined."""
    flink, kept = simulate_join(ALL_IDLE), simulate_join(ALL_IDLE, KEPT)
    assert [w.watermark for w in flink.watermarks] == [3, 5] and [w.watermark for w in kept.watermarks] == [3]
    assert flink.outputs == () and flink.dropped and [(p.left, p.right) for p in kept.outputs] == [(2, 1)]
    assert simulate_join(ALL_IDLE, FLINK) == flink


@pytest.mark.parametrize("join", [{"operation": "sql_interval_join", "lower": 0, "upper": 1, "type": "inner"},
                                  {"operation": "sql_window_join", "type": "inner",
                                   "window": {"assigner": "tumbling", "size": 10}}])
def test_the_switch_holds_for_every_two_input_operator(join):
    """Flink SQL's interval and window joins combine their inputs' watermarks as the interval join does."""
    case = join_case(join, [wm("left", 5), wm("right", 3), idle("left"), idle("right")])
    assert [w.watermark for w in simulate_join(case).watermarks] == [3, 5]
    assert [w.watermark for w in simulate_join(case, KEPT).watermarks] == [3]


def test_a_window_join_runs_its_union_in_the_window_rules_of_the_dialect():
    """A window join is the window operator over the union: a window switch changes it (touching sessions apart)."""
    case = join_case({"operation": "window_join", "window": {"assigner": "session", "gap": 5}},
                     [rec("left", 1, 0), rec("right", 2, 5)], end_of_input=True)
    assert len(simulate_join(case).outputs) == 1
    assert simulate_join(case, Dialect(sessions_merge_when_touching=False)).outputs == ()


# --- the list and the attribution -------------------------------------------------------------------------------


def test_a_join_entry_reads_as_a_join_divergence_with_its_join_cases(tmp_path):
    (tmp_path / "idle.join.json").write_text(json.dumps(join_case_to_json(ALL_IDLE)), encoding="utf-8")
    [d] = read_divergences(write_list(tmp_path, KEEPS))
    assert d.is_join and d.is_switch and d.cases() == [ALL_IDLE]


def test_a_listed_join_divergence_explains_its_case_and_a_mutated_answer_is_not_explained(tmp_path):
    divergences = read_divergences(write_list(tmp_path, KEEPS))
    engine = simulate_join(ALL_IDLE, KEPT)
    assert attribute(ALL_IDLE, ALL_IDLE.expected, engine, divergences).explained_by == ("x.kept",)
    busy = join_case(INTERVAL, [wm("left", 5), wm("right", 3), rec("right", 1, 4)])  # no input idle: Flink's answer
    assert attribute(busy, busy.expected, busy.expected, divergences).agrees
    # here Flink's answer is no engine's that keeps its watermark: it runs its rule, not some of the time
    assert attribute(ALL_IDLE, ALL_IDLE.expected, ALL_IDLE.expected, divergences).explained_by is None
    extra = dataclasses.replace(engine, outputs=(*engine.outputs, Pair(5, "a", 4, 3, 2, 1)))
    moved = dataclasses.replace(engine, outputs=tuple(dataclasses.replace(p, at=p.at - 1) for p in engine.outputs))
    for mutant in (extra, moved, dataclasses.replace(engine, watermarks=())):
        found = attribute(ALL_IDLE, ALL_IDLE.expected, mutant, divergences)
        assert found.explained_by is None and found.unexplained, mutant


def test_join_cases_are_attributed_to_join_divergences_and_window_cases_to_window_ones(tmp_path):
    """The same switch listed with a window case explains no join case; a join entry explains no window case."""
    window_entry = entry("x.kept", "idle.json", 'switches = { watermark_when_all_inputs_idle = "kept" }')
    assert attribute(ALL_IDLE, ALL_IDLE.expected, simulate_join(ALL_IDLE, KEPT),
                     read_divergences(write_list(tmp_path, window_entry))).explained_by is None
    apart = entry("x.apart", "apart.join.json", "switches = { sessions_merge_when_touching = false }")
    case = Case(window=session(5), events=[record("a", 1, 0), record("a", 2, 5)])
    engine = simulate(case, dialect=Dialect(sessions_merge_when_touching=False))
    assert attribute(case, simulate(case), engine, read_divergences(write_list(tmp_path, apart))).explained_by is None


def test_a_window_join_is_explained_by_a_window_switch_of_a_join_entry_the_others_changing_nothing(tmp_path):
    """The list keeps touching sessions apart and an idle two-input operator's watermark: a window join of touching
    sessions is explained by the first alone, since the second changes nothing there (the union has one valve);
    an interval join whose inputs all go idle by the second alone."""
    case = join_case({"operation": "window_join", "window": {"assigner": "session", "gap": 5}},
                     [rec("left", 1, 0), rec("right", 2, 5)], end_of_input=True)
    both = read_divergences(write_list(
        tmp_path, KEEPS, entry("x.apart", "apart.join.json", "switches = { sessions_merge_when_touching = false }")))
    everything = Dialect(watermark_when_all_inputs_idle="kept", sessions_merge_when_touching=False)
    assert attribute(case, case.expected, simulate_join(case, everything), both).explained_by == ("x.apart",)
    assert attribute(ALL_IDLE, ALL_IDLE.expected, simulate_join(ALL_IDLE, everything), both).explained_by == (
        "x.kept",)


BOUNDS = join_case({"operation": "interval_join", "lower": 2, "upper": 1}, [rec("left", 1, 0), rec("right", 2, 1)])


def test_explainers_over_a_joins_errors(tmp_path):
    """`accepts` a rejected join, `message` a rejection in other words, `rejects` for a join cause that holds."""
    assert BOUNDS.expected.error is not None and BOUNDS.expected.error.rules == ("join.bounds",)
    runs = dataclasses.replace(BOUNDS.expected, error=None)
    accepts = read_divergences(write_list(tmp_path, entry(
        "x.accepts", "bounds.join.json", 'explains = { kind = "accepts", rules = ["join.bounds"] }')))
    found = attribute(BOUNDS, BOUNDS.expected, runs, accepts)
    assert found.explained_by == ("x.accepts",) and "join.bounds" in found.cause
    reworded = dataclasses.replace(BOUNDS.expected, error=dataclasses.replace(BOUNDS.expected.error, message="bad"))
    message = read_divergences(write_list(tmp_path, entry(
        "x.words", "bounds.join.json", 'explains = { kind = "message", message = "^bad$", rules = ["join.bounds"] }')))
    assert attribute(BOUNDS, BOUNDS.expected, reworded, message).explained_by == ("x.words",)
    assert attribute(BOUNDS, BOUNDS.expected, runs, message).explained_by is None


def test_a_rejection_is_explained_only_where_its_join_cause_holds(tmp_path):
    rejects = read_divergences(write_list(tmp_path, entry(
        "x.exclusive", "exclusive.join.json",
        'explains = { kind = "rejects", message = "no exclusive bounds", cause = "exclusive_bound" }')))
    exclusive = join_case(INTERVAL | {"upper_exclusive": True}, [rec("left", 1, 0)])
    rejected = dataclasses.replace(exclusive.expected, outputs=(), error=dataclasses.replace(
        BOUNDS.expected.error, message="no exclusive bounds", rules=()))
    found = attribute(exclusive, exclusive.expected, rejected, rejects)
    assert found.explained_by == ("x.exclusive",) and found.cause == "the interval join's upper bound is exclusive"
    inclusive = join_case(INTERVAL, [rec("left", 1, 0)])
    assert attribute(inclusive, inclusive.expected, rejected, rejects).explained_by is None


def test_a_window_cause_holds_on_a_window_joins_union_and_never_on_an_interval_join():
    gaps = join_case({"operation": "window_join", "window": {"assigner": "sliding", "size": 2, "slide": 5}}, [])
    assert isinstance(gaps.join, WindowJoin) and isinstance(gaps.join.window, Sliding)
    lifted = join_causes.on_union(causes.slide_above_size())
    assert lifted(gaps, FLINK) and lifted(ALL_IDLE, FLINK) is None
    assert join_causes.late_side_output()(join_case(INTERVAL | {"late_side_output": {"right": True}}, []), FLINK)
    assert join_causes.late_side_output()(ALL_IDLE, FLINK) is None


def test_a_join_entry_takes_only_the_explainers_and_causes_of_joins(tmp_path):
    with pytest.raises(DivergenceListError, match="explains.kind must be one of accepts, rejects, message, fails "
                                                  "\\(a join divergence's"):
        read_divergences(write_list(tmp_path, entry("x.y", "c.join.json", 'explains = { kind = "days_wrap" }')))
    with pytest.raises(DivergenceListError, match="explains.cause must name one of exclusive_bound"):
        read_divergences(write_list(tmp_path, entry(
            "x.y", "c.join.json", 'explains = { kind = "fails", message = "m", cause = "no_such" }')))
    with pytest.raises(DivergenceListError, match="explains.cause must name one of unfired_records"):
        read_divergences(write_list(tmp_path, entry(  # a window entry has no join cause
            "x.y", "c.json", 'explains = { kind = "fails", message = "m", cause = "exclusive_bound" }')))


# --- replay on join files ---------------------------------------------------------------------------------------


def replay(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "conformance", "replay", *args], cwd=ROOT, capture_output=True,
                          text=True, env={"PYTHONPATH": f"{ROOT}:{ROOT / 'tests'}"})


def test_replay_checks_join_files_and_explains_them_with_the_list(tmp_path):
    """`replay --check` on a join file: 1 where the engine differs, naming the difference; with the list that
    names the switch, explained (0, also as JSON lines); with a list without it, unexplained (1)."""
    path = tmp_path / "idle.join.json"
    path.write_text(json.dumps(join_case_to_json(ALL_IDLE)), encoding="utf-8")
    engine = ["--impl", "dialect_impls:inputs_idle_keep_the_watermark"]
    differs = replay(str(path), *engine, "--check")
    assert differs.returncode == 1 and f"DIFFERS {path}#0:\n  watermarks: expected" in differs.stdout
    assert "join.interval      1      0       1            0" in differs.stdout
    listed = write_list(tmp_path, KEEPS)
    explained = replay(str(path), *engine, "--check", "--divergences", str(listed))
    assert explained.returncode == 0 and f"EXPLAINED {path}#0: x.kept" in explained.stdout, explained.stderr
    lines = replay(str(tmp_path), *engine, "--check", "--divergences", str(listed), "--json").stdout.splitlines()
    assert json.loads(lines[0]) == {"case": f"{path}#0", "explained_by": ["x.kept"], "cause": None,
                                    "unexplained": None}
    (tmp_path / "other").mkdir()
    other = write_list(tmp_path / "other", "")
    left = replay(str(path), *engine, "--check", "--divergences", str(other))
    assert left.returncode == 1 and f"UNEXPLAINED {path}#0" in left.stdout and "watermarks" in left.stdout


def test_replay_without_check_prints_join_observations_and_agrees_on_flinks_hand_cases():
    folder = ROOT / "cases" / "joins"
    done = replay(str(folder / "interval_bounds.join.json"), "--impl", "reference")
    [first, *_] = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0 and first["observation"]["format"] == "join-observation/1"
    checked = replay(str(folder), "--impl", "reference", "--check")
    assert checked.returncode == 0 and "join.sql_window" in checked.stdout, checked.stdout + checked.stderr


# --- the porting pages ------------------------------------------------------------------------------------------


def test_the_porting_pages_show_a_join_divergence_in_the_joins_area_with_its_join_cases():
    """Flink 1.20's page shows its join divergence's cases as joins, the engine's side its dialect's join model; the
    matrix puts it in the column of the joins of two streams."""
    from conformance.porting.matrix import matrix_page
    from conformance.porting.pages import engine_page

    page = engine_page("flink-1.20", ROOT)
    assert "joins of two streams: the switch `watermark_when_all_inputs_idle = \"kept\"`" in page
    assert "5: left: record a=2 @ 4" in page
    assert "| at 5 | dropped left a=2 @ 4 | pair a left 2 right 1 ts 4 (watermark 3) |" in page
    [row] = [line for line in matrix_page(ROOT).splitlines() if line.startswith("| [`flink-1.20`]")]
    entry = "watermark-kept-when-inputs-idle"
    assert row.endswith(f"| [{entry}](flink-1.20.md#flink-1.20.{entry}) |")


def test_a_tumble_window_join_that_takes_any_offset_aligns_its_windows_on_it_modulo_the_size():
    """Flink 2.3 refuses `TUMBLE(10)` with an offset of 13 in a window join; unchecked, its windows are `[3, 13)`."""
    case = join_case({"operation": "sql_window_join", "type": "inner",
                      "window": {"assigner": "tumbling", "size": 10, "offset": 13}},
                     [rec("left", 1, 5), rec("right", 2, 4), rec("right", 3, 2)], end_of_input=True)
    assert case.expected.error is not None and case.expected.error.rules == ("sql.tumble_offset",)
    unchecked = simulate_join(case, Dialect(tumble_offset_checked=False))
    assert unchecked.error is None and [(r.left, r.right, r.window) for r in unchecked.outputs] == [(1, 2, (3, 13))]
