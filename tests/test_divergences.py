"""Every engine's listed divergences (`cases/engines/<engine>/divergences.toml`) as rules the suite applies.

For each engine with a list: the list reads and names its case files; its porting page's prose (`about.md`) links
exactly them; each case differs on the engine from its `expected` observation (Flink's, which the reference
gives too), and the divergence that documents it explains the difference (alone, or with those the attribution
needs beside it). The dialect switches and the explainers are checked on their own below.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest
from engine_pages import ROOT, about, linked_divergence_files

from conformance import causes
from conformance.divergences import (
    DAYS_FIT,
    ENGINES,
    LIST,
    Difference,
    DivergenceListError,
    accepts,
    as_local_date_time,
    attribute,
    beyond,
    completions,
    days_wrap,
    engine_divergences,
    explained,
    fails,
    message,
    model_of,
    read_as_days,
    read_divergences,
    rejects,
)
from conformance.manifest import engines
from reference.dialects import FLINK, Dialect
from reference.implementation import simulate
from window_contract import LONG_MAX, LONG_MIN, Case, record, session, sliding, tumbling, watermark
from window_contract.case import (
    BoundedOutOfOrdernessTimestampExtractor,
    BoundedOutOfOrdernessWatermarks,
    ContinuousEventTimeTrigger,
    CountTrigger,
    EventTimeTrigger,
    Global,
    MonotonousWatermarks,
    PurgingTrigger,
    Sliding,
)
from window_contract.facts import TOO_MANY_WINDOWS
from window_contract.observation import Error, Firing, Observation, TimeWindow
from window_contract.registry import load_implementation

LISTED = sorted(path.parent.name for path in ENGINES.glob(f"*/{LIST}"))


def test_every_list_is_a_registered_engines():
    """A list sits in the folder of an engine its manifest registers (cases/engines/<engine>/engine.toml)."""
    assert LISTED and set(LISTED) <= set(engines())


@pytest.mark.parametrize("engine", LISTED)
def test_the_list_reads_and_its_page_links_exactly_its_case_files(engine):
    divergences = engine_divergences(engine)
    assert divergences and all(d.case_file.is_file() and d.id.startswith(f"{engine}.") for d in divergences)
    assert linked_divergence_files(about(engine), engine) == {d.case_file.name for d in divergences}


@pytest.mark.parametrize("engine", LISTED)
def test_each_case_differs_on_its_engine_as_its_divergence_explains(engine):
    """Each listed case differs on its engine, and its own divergence explains it (an explainer with its cause
    holding)."""
    divergences = engine_divergences(engine)
    items = [(d, n, case) for d in divergences for n, case in enumerate(d.cases())]
    impl = load_implementation(engine)
    try:  # a join divergence's cases through run_joins, the others through run
        observed = dict(zip([id(c) for d, _, c in items if not d.is_join],
                            impl.run([c for d, _, c in items if not d.is_join]), strict=True))
        joins = [c for d, _, c in items if d.is_join]
        observed |= zip(map(id, joins), impl.run_joins(joins) if joins else [], strict=True)
    finally:
        getattr(impl, "close", lambda: None)()
    positions = not impl.position_free
    for d, n, case in items:
        actual, model = observed[id(case)], model_of(case, positions)
        assert model.same(case.expected, model.predict(FLINK)), f"{d.case_file.name}#{n}: the reference is not Flink"
        assert not model.same(case.expected, actual), f"{d.case_file.name}#{n} no longer differs"
        found = attribute(case, case.expected, actual, divergences, positions, prefer=d.id)
        assert found.explained_by is not None and d.id in found.explained_by, (d.id, n, found)
        assert d.explainer is None or found.cause, (d.id, n, "its cause does not hold")


# --- the dialect switches, each on the model alone ------------------------------------------------


def firings(observation: Observation) -> list[tuple]:
    return [(f.window, f.timestamp, f.values) for f in observation.firings]


def test_flinks_dialect_is_the_model_itself():
    case = Case(window=session(5), allowed_lateness=3, events=[record("a", 1, 0), watermark(20), record("a", 2, 18)])
    assert simulate(case, dialect=FLINK) == simulate(case) and FLINK.switched() == {}


def test_each_switch_is_documented_in_the_module_of_its_rule_area():
    """A switch is a field of one rule area's class (`reference.dialects.lateness`, `.merging`, ...), under the
    `#:` comment that documents it, beside the mixins that implement it: a reader of a dialect reads one place."""
    import inspect

    areas = [base for base in Dialect.__mro__[1:] if dataclasses.is_dataclass(base)]
    assert sum(len(dataclasses.fields(a)) for a in areas) == len(dataclasses.fields(Dialect)) == 52
    for area in areas:
        assert area.__module__.startswith("reference.dialects."), area
        source = inspect.getsource(area).splitlines()
        for f in dataclasses.fields(area):
            at = next(i for i, line in enumerate(source) if line.startswith(f"    {f.name}: "))
            assert source[at - 1].lstrip().startswith("#:"), f"{area.__name__}.{f.name} has no documentation above it"


def test_touching_sessions_stay_apart_when_only_overlapping_ones_merge():
    case = Case(window=session(5), events=[record("a", 1, 0), record("a", 2, 5)])
    assert len(simulate(case).firings) == 1
    assert len(simulate(case, dialect=Dialect(sessions_merge_when_touching=False)).firings) == 2


def test_a_window_that_lives_past_its_cleanup_time_fires_again_for_a_record_at_the_watermark():
    case = Case(window=tumbling(10), events=[record("a", 1, 3), watermark(9), record("a", 2, 5)])
    late = simulate(case, dialect=Dialect(drop_when_past_cleanup_strictly=True))
    assert [f.values for f in late.firings] == [(1,), (1, 2)] and not late.dropped
    assert [d.value for d in simulate(case).dropped] == [2]


def test_lateness_decided_before_a_merge_drops_what_a_merge_would_rescue():
    case = Case(window=session(5), events=[record("a", 1, 8), watermark(10), record("a", 2, 4)])
    assert [f.values for f in simulate(case).firings] == [(1, 2)]
    strict = simulate(case, dialect=Dialect(merges_before_lateness=False))
    assert [f.values for f in strict.firings] == [(1,)] and [d.value for d in strict.dropped] == [2]


def test_a_firing_stamped_with_its_trigger_time_and_the_global_windows_own_timestamp():
    counted = Case(window=tumbling(10), trigger=CountTrigger(1), events=[record("a", 1, 3)])
    assert [f.timestamp for f in simulate(counted, dialect=Dialect(firing_timestamp="trigger_time")).firings] == [3]
    glob = Case(window=Global(), trigger=CountTrigger(1), events=[record("a", 1, 3)])
    assert [f.timestamp for f in simulate(glob, dialect=Dialect(global_window_timestamp=7)).firings] == [7]


def test_unbounded_arithmetic_never_cleans_up_a_window_past_long_max():
    case = Case(window=tumbling(10), allowed_lateness=2**63 - 1,
                events=[record("a", 1, 3), watermark(2**63 - 1), record("a", 2, 4)])
    assert [d.value for d in simulate(case).dropped] == [2]
    assert [f.values for f in simulate(case, dialect=Dialect(long_arithmetic="unbounded")).firings][-1] == (1, 2)


def test_unbounded_arithmetic_slides_no_window_start_past_long_min():
    """Flink's `start -= slide` wraps to the top of the range and goes on past the contract's window limit;
    PyFlink's `range(last_start, timestamp - size, -slide)` stops at the one window that holds the record."""
    big = 2**62 - 1
    case = Case(window=sliding(big, big, -339), events=[record("a", 1, -big)])
    assert simulate(case).error.message == TOO_MANY_WINDOWS
    unbounded = simulate(case, dialect=Dialect(long_arithmetic="unbounded"))
    assert [(f.window.start, f.window.end, f.values) for f in unbounded.firings] == [(-big - 339, -339, (1,))]


def test_a_floor_remainder_aligns_a_negative_fire_time_down():
    case = Case(window=tumbling(10), trigger=ContinuousEventTimeTrigger(5), end_of_input=False,
                events=[record("a", 1, -7), watermark(-5)])
    assert not simulate(case).firings
    assert [f.values for f in simulate(case, dialect=Dialect(remainder="floor")).firings] == [(1,)]


def test_windows_that_close_at_their_end_and_a_watermark_that_starts_at_zero():
    case = Case(window=tumbling(10), end_of_input=False, events=[record("a", 1, 3), watermark(9)])
    assert firings(simulate(case)) and not simulate(case, dialect=Dialect(windows_close_at="end")).firings
    early = Case(window=tumbling(10, -5), end_of_input=False, events=[record("a", 1, -7)])
    assert [d.value for d in simulate(early, dialect=Dialect(initial_watermark=0)).dropped] == [1]


# --- explainers -------------------------------------------------------------------------------------


CASE = Case(window=tumbling(10), events=[record("a", 1, 3)])
FINE = Observation()


def rejected(text: str, *rules: str) -> Observation:
    return Observation(error=Error("invalid_spec", text, rules))


def failed(text: str) -> Observation:
    return Observation(error=Error("runtime", text))


def always(case, dialect):
    return "the cause"


def never(case, dialect):
    return None


def test_each_explainer_says_what_it_accounts_for_and_nothing_else():
    negative = rejected("The allowed lateness cannot be negative.", "lateness.negative")
    assert accepts(["lateness.negative"])(Difference(CASE, negative, FINE))
    assert not accepts(["lateness.negative"])(Difference(CASE, rejected(negative.error.message), FINE))
    assert not accepts(["lateness.negative"])(Difference(CASE, rejected("x", "lateness.negative", "session.gap"),
                                                         FINE))
    positive = rejected("must be a positive integer")
    assert rejects("positive", always)(Difference(CASE, FINE, positive))
    assert not rejects("positive", never)(Difference(CASE, FINE, positive))
    assert rejects("positive", always)(Difference(CASE, rejected("x"), positive))  # Flink's reason is another
    assert not rejects("positive", always)(Difference(CASE, FINE, rejected("other words")))
    words = message("^ValueError", ["tumbling.size"])
    assert words(Difference(CASE, rejected("size > 0", "tumbling.size"), rejected("ValueError: size")))
    assert not words(Difference(CASE, rejected("size > 0", "session.gap"), rejected("ValueError: size")))
    assert not words(Difference(CASE, FINE, rejected("ValueError: size")))
    stalled = failed("the pipeline stalled")
    assert fails("stalled", always)(Difference(CASE, FINE, stalled))
    assert not fails("stalled", never)(Difference(CASE, FINE, stalled))
    assert not fails("stalled", always)(Difference(CASE, stalled, stalled))
    assert beyond(100)(Difference(Case(window=tumbling(10), events=[record("a", 1, 101)]), FINE, FINE))
    assert not beyond(100)(Difference(CASE, FINE, FINE))


def test_flinks_words_shared_by_several_rules_are_told_apart_by_the_rule():
    """`SlidingEventTimeWindows` says one thing for a negative slide and for an offset out of range: an engine that
    takes offsets modulo the slide explains the second, not the first."""
    offsets = accepts(["sliding.offset"])
    negative_slide = Case(window=Sliding(10, -5), events=[record("a", 1, 3)])
    large_offset = Case(window=Sliding(10, 5, 7), events=[record("a", 1, 3)])
    assert simulate(negative_slide).error == simulate(large_offset).error
    assert not offsets(Difference(negative_slide, simulate(negative_slide), FINE))
    assert offsets(Difference(large_offset, simulate(large_offset), FINE)) == "Flink rejects the job for sliding.offset"
    also_late = Case(window=Sliding(10, 5, 7), allowed_lateness=-1, events=[record("a", 1, 3)])
    assert simulate(also_late).error.rules == ("sliding.offset", "lateness.negative")
    assert not offsets(Difference(also_late, simulate(also_late), FINE))  # a negative lateness the engine rejects
    assert offsets(Difference(also_late, simulate(also_late), FINE, accepted=frozenset({"lateness.negative"})))


def test_beyond_excuses_only_what_lies_past_the_engines_time():
    """A case with one far record: the far window's firing is excused, a near window's missing one is not; a lateness
    of Long.MAX_VALUE and the end of input's Watermark(Long.MAX_VALUE) are no times an engine holds."""
    case = Case(window=tumbling(10), events=[record("a", 1, 3), record("a", 2, 2**60)])
    flink = simulate(case)
    far_lost = dataclasses.replace(flink, firings=flink.firings[:1])
    near_lost = dataclasses.replace(flink, firings=flink.firings[1:])
    assert beyond(2**50)(Difference(case, flink, far_lost)) and not beyond(2**50)(Difference(case, flink, near_lost))
    lenient = Case(window=tumbling(10), allowed_lateness=2**63 - 1, events=[record("a", 1, 3), watermark(2**63 - 1)])
    assert not beyond(2**50)(Difference(lenient, simulate(lenient), Observation()))
    huge = Case(window=tumbling(2**62), events=[record("a", 1, 3)])
    overflows = beyond(2**50, rejects="^OverflowError")
    assert overflows(Difference(huge, simulate(huge), rejected("OverflowError"))) == (
        "the job's parameter 4,611,686,018,427,387,904 lies beyond 1,125,899,906,842,624")
    assert not overflows(Difference(case, flink, rejected("OverflowError")))
    assert not overflows(Difference(huge, simulate(huge), rejected("other words")))
    assert not beyond(2**50)(Difference(huge, simulate(huge), rejected("OverflowError")))
    crash = Observation(error=Error("runtime", "overflow"))  # at the far record: nothing fired before it
    assert beyond(2**50)(Difference(case, flink, crash)) == "the engine fails at event 1, whose time lies beyond " \
                                                             "1,125,899,906,842,624"
    assert not beyond(2**50)(Difference(case, flink, dataclasses.replace(crash, firings=flink.firings[:1])))
    listed = Case(window=tumbling(10), events=[record("a", 1, 3), watermark(2**63 - 1), record("a", 2, 4)])
    stopped = Observation(error=Error("runtime", "overflow"))
    assert beyond(2**50, listed_end_of_time=True)(Difference(listed, simulate(listed), stopped))
    assert not beyond(2**50)(Difference(listed, simulate(listed), stopped))


def test_each_cause_holds_where_its_condition_does_and_nowhere_else():
    flink = Dialect()
    gaps = Case(window=Sliding(3, 5), events=[record("a", 1, 8), record("a", 2, 0)])
    assert causes.records_in_no_window()(gaps, flink) == "the records of events [0] fall in no window"
    assert causes.records_in_no_window()(CASE, flink) is None
    held = Case(window=tumbling(10), trigger=CountTrigger(2), events=[record("a", 1, 3), record("a", 2, 4),
                                                                      record("a", 3, 5)])
    assert causes.unfired_records()(held, flink) == "the records of events [2] are in no firing when the watermark ends"
    assert causes.unfired_records()(CASE, flink) is None
    global_count = Case(window=Global(), trigger=PurgingTrigger(CountTrigger(2)), end_of_input=False,
                        events=[record("a", 1, 3), watermark(2**63 - 1), record("a", 2, 4)])
    assert not simulate(global_count).error and [f.values for f in simulate(global_count).firings] == [(1, 2)]
    assert causes.unfired_records()(global_count, flink) == (
        "the records of events [0] are in no firing when the watermark ends")
    late_merge = Case(window=session(60), trigger=EventTimeTrigger(), allowed_lateness=180,
                      events=[watermark(621), record("a", 4, 536), record("a", 8, 586)])
    assert causes.late_pane_beside_merge()(late_merge, flink) == (
        "a late pane of [536, 596) fires at event 1, and windows merge")
    assert causes.late_pane_beside_merge()(dataclasses.replace(late_merge, events=late_merge.events[:2]), flink) is None
    assert causes.windows_above(20)(Case(window=Sliding(10, 3), events=[record("a", i, i) for i in range(6)]),
                                    flink) == "the records are in 24 windows"
    assert causes.windows_above(24)(Case(window=Sliding(10, 3), events=[record("a", i, i) for i in range(6)]),
                                    flink) is None
    jump = Case(window=tumbling(10), events=[record("a", 1, 3), watermark(2**63 - 1), record("a", 2, 10**9)])
    assert causes.time_jump_above(10**7)(jump, flink) == "the time jumps 99,999,998 window steps at event 2"
    assert causes.time_jump_above(10**8)(jump, flink) is None
    closing = Case(window=tumbling(10), watermark_generator=BoundedOutOfOrdernessWatermarks(10**9, punctuated=True),
                   events=[record("a", 1, 3)])  # the end of input closes windows a bound of 10^9 later
    assert causes.time_jump_above(10**7)(closing, flink) == "the time jumps 100,000,001 window steps at event 1"
    assert causes.walk_above(10**8)(jump, flink) and not causes.walk_above(10**8)(
        dataclasses.replace(jump, events=jump.events[:1]), flink)
    assert causes.zero_window_parameter()(Case(window=Sliding(10, 0), events=[]), flink) == "the window's slide is 0"
    assert causes.count_trigger_below(1)(Case(window=tumbling(10), trigger=PurgingTrigger(CountTrigger(0)),
                                              events=[]), flink) == "CountTrigger.of(0)"
    assert causes.slide_above_size()(gaps, flink) and not causes.slide_above_size()(
        Case(window=Sliding(5, 5), events=[]), flink)
    assert causes.slide_not_below_size()(Case(window=Sliding(5, 5), events=[]), flink)
    assert causes.size_not_multiple_of_slide()(Case(window=Sliding(10, 3), events=[]), flink)
    assert not causes.size_not_multiple_of_slide()(Case(window=Sliding(9, 3), events=[]), flink)


def test_an_explainer_without_a_cause_or_with_an_unknown_rule_is_refused(tmp_path):
    path = tmp_path / LIST
    head = '[[divergence]]\nid = "x.y"\ntitle = "t"\ncase = "c.json"\n'
    path.write_text(head + 'explains = { kind = "fails", message = "boom" }\n')
    with pytest.raises(DivergenceListError, match="missing 1 required positional argument: 'cause'"):
        read_divergences(path)
    path.write_text(head + 'explains = { kind = "fails", message = "boom", cause = "no_such" }\n')
    with pytest.raises(DivergenceListError, match="explains.cause must name one of"):
        read_divergences(path)
    path.write_text(head + 'explains = { kind = "accepts", rules = ["sliding.ofset"] }\n')
    with pytest.raises(DivergenceListError, match="sliding.ofset is no rule"):
        read_divergences(path)


def test_a_list_that_breaks_its_format_is_refused_naming_the_entry(tmp_path):
    path = tmp_path / LIST
    path.write_text('[[divergence]]\nid = "x.y"\ntitle = "t"\ncase = "c.json"\nswitches = { no_such = 1 }\n')
    with pytest.raises(DivergenceListError, match="divergence 1 \\(x.y\\): no_such is no switch"):
        read_divergences(path)
    path.write_text('[[divergence]]\nid = "x.y"\ntitle = "t"\ncase = "c.json"\n')
    with pytest.raises(DivergenceListError, match="exactly one of switches"):
        read_divergences(path)


def test_replay_with_divergences_names_them_and_fails_on_what_is_left(tmp_path):
    """The touching-sessions case on an implementation of Beam's dialect: explained with Beam's list; an
    unexplained difference (a list without it) is printed as a delta and exits 1."""
    case = ROOT / "cases" / "engines" / "beam" / "touching_sessions.json"
    impl = "dialect_impls:touching_sessions_stay_apart"
    args = [sys.executable, "-m", "conformance", "replay", str(case), "--impl", impl, "--check", "--divergences"]
    env = {"PYTHONPATH": f"{ROOT}:{ROOT / 'tests'}"}
    beam_list = str(ROOT / "cases" / "engines" / "beam" / LIST)
    explained = subprocess.run([*args, beam_list, "--json"], cwd=ROOT, capture_output=True, text=True, env=env)
    lines = [json.loads(line) for line in explained.stdout.splitlines() if line.startswith("{")]
    assert explained.returncode == 0 and lines and all(line["explained_by"] == ["beam.touching-sessions"]
                                                       for line in lines), explained.stdout + explained.stderr
    other = tmp_path / LIST
    other.write_text('[[divergence]]\nid = "x.lateness"\ntitle = "t"\ncase = "c.json"\n'
                     'switches = { drop_when_past_cleanup_strictly = true }\n')
    left = subprocess.run([*args, str(other)], cwd=ROOT, capture_output=True, text=True, env=env)
    assert left.returncode == 1 and "UNEXPLAINED" in left.stdout and "iterable_item" in left.stdout


def test_trigger_state_that_merges_as_a_bag_keeps_one_sessions_count():
    case = Case(window=session(10), trigger=CountTrigger(3),
                events=[record("a", 1, 0), record("a", 2, 16), record("a", 3, 8), record("a", 4, 9)])
    assert [f.at for f in simulate(case).firings][:1] == [2]
    assert [f.at for f in simulate(case, dialect=Dialect(trigger_state_merges="first_of_bag")).firings][:1] == [3]


def test_a_merging_window_that_outlives_its_cleanup_takes_a_late_record_in():
    case = Case(window=session(60), allowed_lateness=180,
                events=[record("a", 2, 86), watermark(378), record("a", 9, 144)])
    assert [f.values for f in simulate(case).firings] == [(2,), (9,)]
    kept = simulate(case, dialect=Dialect(merging_windows_outlive_cleanup=True))
    assert [(f.window.start, f.values) for f in kept.firings] == [(86, (2,)), (86, (2, 9))]


# --- the switches of Kafka Streams and Bytewax ----------------------------------------------------------


def test_a_firing_stamped_with_the_largest_timestamp_of_its_records():
    case = Case(window=tumbling(10), events=[record("a", 1, 3), record("a", 2, 1)])
    assert [f.timestamp for f in simulate(case).firings] == [9]
    stamped = simulate(case, dialect=Dialect(firing_timestamp="max_record_timestamp"))
    assert [f.timestamp for f in stamped.firings] == [3]


def test_records_that_advance_the_watermark_close_windows_of_every_key_where_watermarks_are_listed():
    case = Case(window=tumbling(10), events=[record("a", 1, 15), record("b", 2, 5)])
    advancing = Dialect(records_advance_watermark=True)
    assert not simulate(case).dropped
    assert [d.value for d in simulate(case, dialect=advancing).dropped] == [2]
    generated = Case(window=tumbling(10), watermark_generator=BoundedOutOfOrdernessWatermarks(20, punctuated=True),
                     events=[record("a", 1, 15), record("b", 2, 5)])
    assert simulate(generated, dialect=advancing) == simulate(generated)


def test_event_time_that_ends_where_a_records_windows_would_overflow_never_closes_the_last_window():
    case = Case(window=tumbling(4 * 10**18), events=[record("a", 1, 3), record("a", 2, 4 * 10**18)])
    assert [f.values for f in simulate(case).firings] == [(1,), (2,)]
    assert [f.values for f in simulate(case, dialect=Dialect(event_time_ends="max_minus_window")).firings] == [(1,)]


def test_sliding_windows_that_start_from_zero():
    case = Case(window=sliding(10, 5), events=[record("a", 1, 3)])
    assert [f.window.start for f in simulate(case).firings] == [-5, 0]
    assert [f.window.start for f in simulate(case, dialect=Dialect(sliding_windows_from_zero=True)).firings] == [0]


def test_a_session_that_ends_at_its_last_record():
    case = Case(window=session(10), events=[record("a", 1, 0), record("a", 2, 4)])
    assert firings(simulate(case)) == [(TimeWindow(0, 14), 13, (1, 2))]
    last = simulate(case, dialect=Dialect(session_window_end="last_record"))
    assert firings(last) == [(TimeWindow(0, 5), 4, (1, 2))]


def test_a_session_late_strictly_takes_a_record_at_its_cleanup_time_and_fires_again_with_it():
    case = Case(window=session(5), watermark_generator=MonotonousWatermarks(punctuated=True),
                events=[record("a", 1, 0), record("b", 2, 5), record("a", 3, 0)])
    assert [d.value for d in simulate(case).dropped] == [3]
    strict = simulate(case, dialect=Dialect(session_late_strictly=True))
    assert firings(strict) == [(TimeWindow(0, 5), 4, (1,)), (TimeWindow(0, 5), 4, (3,)),
                               (TimeWindow(5, 10), 9, (2,))] and not strict.dropped


def test_every_update_fires_the_window_with_its_contents_so_far():
    case = Case(window=tumbling(10), events=[record("a", 1, 1), record("a", 2, 3)])
    assert [f.values for f in simulate(case, dialect=Dialect(emits="every_update")).firings] == [(1,), (1, 2)]


def test_a_record_behind_the_watermark_is_late_though_its_window_is_open():
    case = Case(window=tumbling(10), late_side_output=True, events=[record("a", 1, 1), watermark(5), record("a", 2, 3)])
    assert [f.values for f in simulate(case).firings] == [(1, 2)]
    behind = simulate(case, dialect=Dialect(late_records="behind_watermark"))
    assert [f.values for f in behind.firings] == [(1,)] and [r.value for r in behind.late] == [2]


def test_a_watermark_per_key_lets_no_key_make_another_late():
    case = Case(window=tumbling(10), late_side_output=True,
                watermark_generator=BoundedOutOfOrdernessWatermarks(0, punctuated=True),
                events=[record("a", 1, 100), record("b", 2, 5)])
    assert [r.value for r in simulate(case).late] == [2]
    per_key = simulate(case, dialect=Dialect(watermark_scope="key"))
    assert not per_key.late and sorted(f.values for f in per_key.firings) == [(1,), (2,)]


def test_a_key_whose_windows_all_closed_forgets_its_watermark():
    case = Case(window=tumbling(10), events=[record("a", 1, 5), watermark(9), record("a", 2, 6)])
    assert [d.value for d in simulate(case).dropped] == [2]
    forgets = simulate(case, dialect=Dialect(key_state_discarded_when_empty=True))
    assert [f.values for f in forgets.firings] == [(1,), (2,)] and not forgets.dropped
    sessions = Case(window=session(5), events=[record("a", 1, 0), watermark(9), record("a", 2, 1)])
    assert simulate(sessions, dialect=Dialect(key_state_discarded_when_empty=True)) == simulate(sessions)


def test_a_session_that_fires_at_its_end_takes_a_record_there():
    case = Case(window=session(5), events=[record("a", 1, 0), watermark(4), record("a", 2, 5)])
    assert firings(simulate(case)) == [(TimeWindow(0, 5), 4, (1,)), (TimeWindow(5, 10), 9, (2,))]
    assert firings(simulate(case, dialect=Dialect(session_fires_at="end"))) == [(TimeWindow(0, 10), 9, (1, 2))]


def test_a_session_named_by_its_records_is_named_so_whenever_it_fires():
    """`session_window_end="last_record"` names the session its records make, `[first, last + 1)`, whichever of
    the switches that keep a session longer than they report it (`session_fires_at`) is on: their mixins come
    before `FromRecordTimestamps` (`reference.dialects.dialect.MIXINS`)."""
    case = Case(window=session(10), events=[record("a", 1, 0), record("a", 2, 3)])
    for fires_at in ("max_timestamp", "end", "gap_after_end"):
        named = simulate(case, dialect=Dialect(session_window_end="last_record", session_fires_at=fires_at))
        assert [f.window for f in named.firings] == [TimeWindow(0, 4)], fires_at


# --- Flink SQL and Flink 1.20 (flink-sql, flink-sql-legacy, flink-sql-1.20, flink-1.20) -------------------------


def test_a_parameter_beyond_sqls_widest_interval_is_rejected_before_any_other_check():
    day6 = Dialect(interval_limit=86_399_999_999_999)
    stated = Case(window=Sliding(86_400_000_000_000 * 2, 86_400_000_000_000, 13), events=[record("a", 1, 0)])
    assert simulate(stated, dialect=day6).error.message == (
        "Interval field value 1,000,000 exceeds precision of DAY(6) field")  # the slide, stated first
    widest = Case(window=tumbling(86_399_999_999_999), events=[record("a", 1, 0)])
    assert simulate(widest, dialect=day6) == simulate(widest)


def test_an_ignored_allowed_lateness_drops_what_it_would_have_fired_again():
    case = Case(window=tumbling(10), allowed_lateness=5, events=[record("a", 1, 3), watermark(9), record("a", 2, 4)])
    assert [f.values for f in simulate(case).firings] == [(1,), (1, 2)]
    ignored = simulate(case, dialect=Dialect(allowed_lateness="ignored"))
    assert [f.values for f in ignored.firings] == [(1,)] and [d.value for d in ignored.dropped] == [2]


def test_a_pre_aggregation_that_starts_at_zero_holds_records_past_the_watermarks_at_or_below_it():
    sql = Dialect(pre_aggregation_watermark_starts_at=0)
    case = Case(window=tumbling(10), events=[record("a", 1, -5), watermark(-1), watermark(3), record("a", 2, 5)])
    held = simulate(case, dialect=sql)
    assert [(f.window.start, f.values) for f in held.firings] == [(0, (2,))]
    assert [(d.at, d.value) for d in held.dropped] == [(0, 1)]  # dropped at its own event, as the engine says
    sessions = Case(window=session(5), events=[record("a", 1, -10), watermark(0)])
    assert simulate(sessions, dialect=sql) == simulate(sessions)  # no pre-aggregation of sessions


def test_a_pre_aggregation_aligned_on_zero_holds_a_windows_records_past_its_end_when_it_has_an_offset():
    case = Case(window=tumbling(10, 5), events=[record("a", 1, -3), watermark(1), watermark(4), record("a", 2, 8)])
    on_offset = Dialect(pre_aggregation_watermark_starts_at=0)
    assert simulate(case, dialect=on_offset) == simulate(case)
    on_zero = simulate(case, dialect=dataclasses.replace(on_offset, pre_aggregation_aligns_on_offset=False))
    assert [(f.window.start, f.values) for f in on_zero.firings] == [(5, (2,))]
    assert [d.value for d in on_zero.dropped] == [1]


def test_the_global_phase_aligned_on_zero_lets_a_record_in_only_after_its_window_fired():
    """After the watermark 10 both phases wait for 19: the local one sends the record at 12 on too late for the
    watermark 14, with the record at 22, which the global one lets in only at the end of input, past the watermark 24
    that fired its window (Flink 1.20's window aggregate, issue 44's campaign)."""
    case = Case(window=tumbling(10, 5), events=[record("a", 1, 12), watermark(10), watermark(14), record("a", 2, 22),
                                                watermark(19), watermark(24)])
    on_offset = Dialect(pre_aggregation_watermark_starts_at=0)
    assert simulate(case, dialect=on_offset) == simulate(case)
    on_zero = simulate(case, dialect=dataclasses.replace(on_offset, pre_aggregation_aligns_on_offset=False))
    assert not on_zero.firings and [(d.at, d.value) for d in on_zero.dropped] == [(0, 1), (3, 2)]


def test_hop_rejects_a_size_no_multiple_of_the_slide_and_takes_any_offset():
    multiple = Case(window=Sliding(10, 3), events=[record("a", 1, 1)])
    assert "integral multiple of slide" in simulate(
        multiple, dialect=Dialect(sliding_size_multiple_of_slide=True)).error.message
    offset = Case(window=Sliding(10, 5, -7), events=[record("a", 1, 1)])
    assert simulate(offset).error.kind == "invalid_spec"
    windows = [f.window for f in simulate(offset, dialect=Dialect(sliding_offset_checked=False)).firings]
    assert [(w.start, w.end) for w in windows] == [(-7, 3), (-2, 8)]


def test_a_sliding_window_of_more_panes_than_an_int_holds_is_rejected_where_the_plan_keeps_a_window_tvf():
    """The table runtime's `SlidingWindowAssigner` counts a window's panes, size / gcd(size, slide), in an `int`;
    HOP's multiple comes first unless the planner's row estimate, (int) (size / slide), is 0 or below."""
    panes = Dialect(sliding_panes_fit_an_int=True)
    coprime = Case(window=Sliding(2**31 + 1, 2**31 + 2), events=[record("a", 1, 0)])
    assert simulate(coprime).error is None
    rejected = Observation.invalid_spec("Cannot downcast long value 2147483649 to integer.")
    hop = dataclasses.replace(panes, sliding_size_multiple_of_slide=True)
    assert simulate(coprime, dialect=hop) == rejected  # a size under the slide: (int) (size / slide) is 0
    wider = Case(window=Sliding(2**31 + 1, 1000), events=[])  # (int) (size / slide) is 2,147,483: the multiple first
    assert simulate(wider, dialect=hop) == Observation.invalid_spec(
        "HOP table function based aggregate requires size must be an integral multiple of slide, but got size "
        "2147483649 ms and slide 1000 ms")
    wraps = Case(window=Sliding(2**32 * 1000 + 1, 1000), events=[])  # (int) (size / slide) wraps to 0
    assert simulate(wraps, dialect=hop) == Observation.invalid_spec(
        "Cannot downcast long value 4294967296001 to integer.")
    most = Case(window=Sliding(2**31 - 1, 2**31 - 2), events=[record("a", 1, 0)])  # 2^31 - 1 panes of 1 ms: an int
    assert simulate(most, dialect=panes) == simulate(most)
    many = Case(window=Sliding(2**33, 4), events=[record("a", 1, 0)])  # a multiple: 2^31 slices of the slide
    assert simulate(many, dialect=dataclasses.replace(panes, sliding_window_count_checked=False)) == (
        Observation.invalid_spec("Cannot downcast long value 2147483648 to integer."))
    nonpositive = Case(window=Sliding(2**31 + 1, 0), events=[record("a", 1, 0)])
    assert simulate(nonpositive, dialect=panes) == simulate(nonpositive)  # the slide's own check


def test_without_max_window_num_an_element_meets_the_contracts_window_limit():
    case = Case(window=Sliding(10_000_001, 1), events=[record("a", 1, 0)])
    assert simulate(case).error.kind == "invalid_spec"
    assert simulate(case, dialect=Dialect(sliding_window_count_checked=False)).error.message == TOO_MANY_WINDOWS


def test_sessions_without_an_emit_strategy_reject_an_allowed_lateness_before_the_gap():
    legacy = Dialect(sessions_take_allowed_lateness=False)
    late = Case(window=session(0), allowed_lateness=10, events=[record("a", 1, 0)])
    assert simulate(late, dialect=legacy).error.message == "Session window doesn't support EMIT strategy currently."
    on_time = Case(window=session(5), events=[record("a", 1, 0)])
    assert simulate(on_time, dialect=legacy) == simulate(on_time)


def test_a_record_in_no_window_is_dropped_when_the_last_window_of_its_pane_is_late():
    """Sliding windows of 7 every 15: the records at 9 and 24 are in no window; [0, 7), the last window of the pane
    at 9, is late at the watermark 19 (cleanup 6 + 13), [15, 22), that of the pane at 24, is not."""
    case = Case(window=Sliding(7, 15), allowed_lateness=13,
                events=[watermark(19), record("a", 1, 9), record("a", 2, 24)])
    assert not simulate(case).dropped
    assert [d.value for d in simulate(case, dialect=Dialect(dropped_when_in_no_window=True)).dropped] == [1]


def test_days_wrap_explains_window_bounds_read_back_with_an_int_count_of_days():
    day = 86_400_000
    far = Case(window=tumbling(10), events=[record("a", 1, 2**31 * day + 5)])
    flink = simulate(far)
    [fired] = flink.firings
    wrapped = dataclasses.replace(flink, firings=(dataclasses.replace(
        fired, window=TimeWindow(-(2**31) * day, -(2**31) * day + 10)),))
    assert days_wrap()(Difference(far, flink, wrapped))
    assert not days_wrap()(Difference(far, flink, flink)) and not days_wrap()(Difference(CASE, simulate(CASE),
                                                                                         simulate(CASE)))
    assert as_local_date_time(-5) == -5 and as_local_date_time(2**31 * day - 1) == 2**31 * day - 1


@pytest.mark.parametrize("start", [DAYS_FIT - 11, -DAYS_FIT + 1, DAYS_FIT, -DAYS_FIT - 10, 2**31 * 86_400_000,
                                   -(2**31) * 86_400_000 - 1, LONG_MIN, LONG_MAX - 10])
def test_read_as_days_reads_each_bound_as_as_local_date_time_does_on_either_side_of_where_days_fit(start):
    """`read_as_days` leaves an observation whose bounds lie within `DAYS_FIT` as it is, without reading them."""
    observation = Observation(firings=(Firing(1, "a", TimeWindow(start, start + 10), start + 9, (1,), 0),))
    [firing] = read_as_days(observation).firings
    assert firing.window == TimeWindow(as_local_date_time(start), as_local_date_time(start + 10))


# --- the switches of Quix Streams ------------------------------------------------------------------------------


def test_a_firing_stamped_with_its_windows_start():
    case = Case(window=tumbling(10), events=[record("a", 1, 13), record("b", 2, 3)])
    assert [f.timestamp for f in simulate(case, dialect=Dialect(firing_timestamp="window_start")).firings] == [0, 10]


def test_a_record_late_for_any_of_its_windows_is_late_and_still_goes_to_the_others():
    case = Case(window=sliding(10, 5), late_side_output=True,
                events=[record("a", 1, 12), watermark(14), record("a", 2, 12)])
    flink, any_window = simulate(case), simulate(case, dialect=Dialect(late_records="any_window"))
    assert not flink.late and [r.value for r in any_window.late] == [2]
    assert firings(flink) == firings(any_window) == [(TimeWindow(5, 15), 14, (1,)), (TimeWindow(10, 20), 19, (1, 2))]


def test_a_session_that_closes_a_gap_after_its_end_is_late_by_its_own_end_before_a_merge():
    later = Dialect(session_fires_at="gap_after_end")
    joins = Case(window=session(5), events=[record("a", 1, 0), watermark(4), record("a", 2, 5)])
    assert [f.values for f in simulate(joins).firings] == [(1,), (2,)]
    assert firings(simulate(joins, dialect=later)) == [(TimeWindow(0, 10), 9, (1, 2))]
    merged = Case(window=session(5), events=[record("a", 1, 8), watermark(10), record("a", 2, 4)])
    assert firings(simulate(merged)) == [(TimeWindow(4, 13), 12, (1, 2))]
    own = simulate(merged, dialect=later)
    assert firings(own) == [(TimeWindow(8, 13), 12, (1,))] and [d.value for d in own.dropped] == [2]


def test_windows_that_expire_on_the_grid_of_the_last_expired_end():
    grid = Dialect(window_expiry="last_expired_grid")
    off_grid = Case(window=sliding(15, 10),  # its ends, 15, 25, 35, are off the grid of 10 that E is on from 10
                    events=[record("a", 1, 12), watermark(11), record("a", 2, 26), watermark(25)])
    assert len(simulate(off_grid).firings) == 3 and simulate(off_grid, dialect=grid).firings == ()
    graced = Case(window=tumbling(10), watermark_generator=BoundedOutOfOrdernessWatermarks(2, punctuated=True),
                  events=[record("a", 1, 3), record("a", 2, 12), record("a", 3, 5)])
    assert [d.value for d in simulate(graced).dropped] == [3]
    vanished = simulate(graced, dialect=grid)
    assert [f.values for f in vanished.firings] == [(1,), (2,)] and not vanished.dropped
    on_grid = Case(window=tumbling(10), events=[record("a", 1, 3), watermark(12), record("a", 2, 5)])
    assert simulate(on_grid, dialect=grid) == simulate(on_grid)


def test_time_that_never_ends_takes_records_after_the_last_watermark():
    case = Case(window=tumbling(10), events=[record("a", 1, 3), watermark(2**63 - 1), record("a", 2, 15)])
    assert [d.value for d in simulate(case).dropped] == [2]
    never = simulate(case, dialect=Dialect(event_time_ends="never"))
    assert [f.values for f in never.firings] == [(1,), (2,)] and not never.dropped


def test_a_generator_that_sees_the_record_first_makes_it_late_behind_its_own_watermark():
    case = Case(window=tumbling(5), watermark_generator=BoundedOutOfOrdernessTimestampExtractor(0, punctuated=True),
                events=[record("a", 1, 1000)])
    assert [f.values for f in simulate(case).firings] == [(1,)]
    first = Dialect(generator_sees_record_first=True, late_records="behind_watermark")
    assert not simulate(case, dialect=first).firings and [d.value for d in simulate(case, dialect=first).dropped] == [1]
    modern = dataclasses.replace(case, watermark_generator=BoundedOutOfOrdernessWatermarks(0, punctuated=True))
    assert simulate(modern, dialect=first) == simulate(modern)


def test_the_account_of_divergence_lists_names_every_switch():
    section = (ROOT / "cases" / "engines" / "about.md").read_text(encoding="utf-8")
    assert [f.name for f in dataclasses.fields(Dialect) if f"`{f.name}`" not in section] == []


# --- the switches of Hazelcast Jet and Pathway ------------------------------------------------------------------


def test_a_record_whose_earliest_window_is_late_goes_to_none_of_its_windows():
    case = Case(window=sliding(20, 10), events=[record("a", 1, 12), watermark(19), record("a", 2, 15)])
    assert [f.values for f in simulate(case).firings] == [(1,), (1, 2)] and not simulate(case).dropped
    earliest = simulate(case, dialect=Dialect(late_records="earliest_window"))
    assert [f.values for f in earliest.firings] == [(1,), (1,)] and [d.value for d in earliest.dropped] == [2]
    sessions = Case(window=session(5), events=[record("a", 1, 8), watermark(10), record("a", 2, 4)])
    assert simulate(sessions, dialect=Dialect(late_records="earliest_window")) == simulate(sessions)


def test_generated_watermarks_in_strides_of_a_hundredth_of_the_gap_keep_a_session_open():
    case = Case(window=session(1000), watermark_generator=BoundedOutOfOrdernessWatermarks(0, punctuated=True),
                events=[record("a", 1, 5), record("a", 2, 1009), record("a", 3, 1003)])
    assert [f.values for f in simulate(case).firings] == [(1,), (2, 3)]
    strided = simulate(case, dialect=Dialect(generated_watermark_stride="session_gap_hundredth"))
    assert [f.values for f in strided.firings] == [(1, 2, 3)]
    tumbling_case = dataclasses.replace(case, window=tumbling(1000))
    assert simulate(tumbling_case, dialect=Dialect(generated_watermark_stride="session_gap_hundredth")) == simulate(
        tumbling_case)


def test_every_session_update_fires_the_session_so_far_and_nothing_is_late_for_it():
    every = Dialect(emits="every_session_update")
    case = Case(window=session(5), events=[record("a", 1, 0), watermark(20), record("a", 2, 3)])
    assert [f.values for f in simulate(case).firings] == [(1,)] and [d.value for d in simulate(case).dropped] == [2]
    updated = simulate(case, dialect=every)
    assert [f.values for f in updated.firings] == [(1,), (1, 2)] and not updated.dropped
    windows = Case(window=tumbling(10), events=[record("a", 1, 3), watermark(9), record("a", 2, 4)])
    assert simulate(windows, dialect=every) == simulate(windows)


def test_windows_that_start_from_the_offset():
    case = Case(window=tumbling(10, 2), events=[record("a", 1, 1), record("a", 2, 5)])
    assert [f.window.start for f in simulate(case).firings] == [-8, 2]
    from_offset = Dialect(windows_start_from_offset=True)
    assert [f.window.start for f in simulate(case, dialect=from_offset).firings] == [2]
    unaligned = Case(window=sliding(10, 5), events=[record("a", 1, 1)])
    assert simulate(unaligned, dialect=from_offset) == simulate(unaligned)


def test_a_record_in_no_window_vanishes_without_moving_the_stream_time():
    gap = Case(window=sliding(5, 10), events=[watermark(20), record("a", 1, 7)])
    assert [d.value for d in simulate(gap).dropped] == [1]
    assert simulate(gap, dialect=Dialect(late_when_in_no_window=False)) == Observation()
    moved = Case(window=sliding(2, 15), events=[record("b", 1, -7), record("a", 2, -15)])
    stream_time = Dialect(records_advance_watermark=True)
    assert [d.value for d in simulate(moved, dialect=stream_time).dropped] == [2]
    vanishing = simulate(moved, dialect=dataclasses.replace(stream_time, late_when_in_no_window=False))
    assert [f.values for f in vanishing.firings] == [(2,)] and not vanishing.dropped


def test_a_session_that_fires_at_its_end_keeps_touching_sessions_apart_when_only_overlapping_ones_merge():
    case = Case(window=session(1), end_of_input=False, events=[record("a", 1, 1), record("a", 2, 2), watermark(4)])
    at_end = Dialect(session_fires_at="end")
    assert [f.values for f in simulate(case, dialect=at_end).firings] == [(1, 2)]
    apart = simulate(case, dialect=dataclasses.replace(at_end, sessions_merge_when_touching=False))
    assert [f.values for f in apart.firings] == [(1,), (2,)]


def test_an_attribution_names_the_cause_that_held():
    """An engine that runs the job Flink rejects for its offset, on Beam's list: explained by `beam.offsets` for
    that rule, which the line and the JSON of `replay --divergences` say; a negative slide is not an offset."""
    beam = engine_divergences("beam")
    offset = Case(window=Sliding(10, 5, 7), events=[record("a", 1, 3)])
    found = attribute(offset, simulate(offset), Observation(), beam)
    assert found.explained_by == ("beam.offsets",) and found.cause == "Flink rejects the job for sliding.offset"
    assert explained("x", found) == "EXPLAINED x: beam.offsets (Flink rejects the job for sliding.offset)"
    assert found.to_json("x")["cause"] == found.cause
    negative = Case(window=Sliding(10, -5), events=[record("a", 1, 3)])
    assert attribute(negative, simulate(negative), Observation(), beam).explained_by == ("beam.negative-slide",)


def test_every_rejection_and_failure_of_the_model_names_its_rule():
    """Each `InvalidSpec` and `JobFailure` the model raises names rules of `window_contract.rules` (an explainer
    reads them, never Flink's words)."""
    import ast

    from window_contract.rules import RULES
    unnamed = []
    for path in sorted((ROOT / "reference").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("InvalidSpec", "JobFailure"):
                named = [c.value for a in node.args[1:] for c in ast.walk(a)
                         if isinstance(c, ast.Constant) and isinstance(c.value, str)]
                starred = any(isinstance(a, ast.Starred) for a in node.args[1:])
                if not starred and (not named or not set(named) <= set(RULES)):
                    unnamed.append(f"{path.name}:{node.lineno}")
    assert not unnamed, unnamed


def test_a_job_flink_sql_rejects_names_its_rules_in_the_sql_dialect():
    """The model names every rule a rejected job breaks by building its operator again over the global window
    (`broken_rules`); Flink SQL's pre-aggregation, which slices tumbling and sliding windows, leaves that one be
    (the engine mutants' negative slide on `flink-sql` met an AttributeError there)."""
    case = Case(window=sliding(10, -5), events=[record("a", 1, 3)])
    rejected = simulate(case, dialect=Dialect(pre_aggregation_watermark_starts_at=0))
    assert rejected.error.kind == "invalid_spec" and rejected.error.rules == ("sliding.slide",)


def test_an_engine_runs_one_completion_of_its_list_where_two_entries_set_one_switch_apart():
    """Hazelcast Jet's `late_records` is one value for sliding windows and another for sessions: the dialects it
    may run are the two largest consistent sets of its switches, each holding every other switch."""
    switches = [d for d in engine_divergences("hazelcast-jet") if d.is_switch]
    found = completions((), switches)
    assert len(found) == 2 and all(len(c) == len(switches) - 1 for c in found)
    partially = next(d for d in switches if d.id == "hazelcast-jet.partially-late")
    others = [d.id for d in switches if d.id not in (partially.id, "hazelcast-jet.session-late-per-record")]
    assert [[d.id for d in c] for c in completions((partially,), switches)] == [[partially.id, *others]]
