"""The case and observation formats: exact round trips and errors that name the path and the rule."""

import dataclasses
import json

import pytest
from hypothesis.strategies._internal.utils import to_jsonable

from window_contract import (
    LONG_MAX,
    LONG_MIN,
    BoundedOutOfOrdernessWatermarks,
    Case,
    CaseFormatError,
    ContinuousEventTimeTrigger,
    CountEvictor,
    EndOfChannel,
    Firing,
    InputWatermark,
    LateRecord,
    MonotonousWatermarks,
    NeverTrigger,
    Observation,
    TimeEvictor,
    TimeWindow,
    WatermarkStatus,
    case_from_json,
    case_to_json,
    cases_from_json,
    count_window,
    equivalent,
    global_window,
    observation_from_json,
    observation_to_json,
    processing_time,
    purging,
    record,
    session,
    sliding,
    tumbling,
    watermark,
)
from window_contract.case import ASSIGNERS, EVICTORS, TRIGGERS
from window_contract.features import FEATURES, required_features
from window_contract.observation import Error, GlobalWindow
from window_contract.validation import parse_json

CASES = [
    Case(window=tumbling(1000, -200), events=[record("a", 1, 999), watermark(999), processing_time(5)]),
    Case(window=sliding(10, 3, 1, time="processing"), evictor=TimeEvictor(4, after=True), allowed_lateness=LONG_MAX,
         late_side_output=True, end_of_input=False, name="x"),
    Case(window=session(7), trigger=purging(ContinuousEventTimeTrigger(2)), events=[record("k", -1, LONG_MIN)]),
    Case(window=count_window(3, 1)),
    Case(window=global_window(), evictor=CountEvictor(2)),
]


@pytest.mark.parametrize("case", CASES)
def test_case_round_trips_exactly(case):
    doc = case_to_json(case)
    assert case_from_json(json.loads(json.dumps(doc))) == case
    assert case_to_json(case_from_json(doc)) == doc


@pytest.mark.parametrize("case", CASES)
def test_hypothesis_observes_a_drawn_case_as_its_json_text(case):
    """What `run`'s collector makes Hypothesis record of every example (`Case.to_json`)."""
    observed = to_jsonable([case], avoid_realization=False)
    assert observed == [case.to_json()] and "\n" not in observed[0]
    assert case_from_json(json.loads(observed[0])) == case


def test_absent_fields_take_the_formats_defaults():
    case = case_from_json({"format": "window-case/1", "window": {"assigner": "tumbling", "size": 5}, "events": []})
    assert case == Case(window=tumbling(5), events=[])
    assert (case.allowed_lateness, case.late_side_output, case.end_of_input, case.trigger) == (0, False, True, None)


def test_a_file_may_hold_many_cases():
    docs = [case_to_json(c) for c in CASES]
    assert cases_from_json({"cases": docs}) == CASES


def test_observation_round_trips_exactly():
    obs = Observation(
        firings=(Firing(3, "a", TimeWindow(0, 10), 9, (3, 1), LONG_MIN),
                 Firing(4, "b", GlobalWindow(), LONG_MAX, (), 7)),
        late=(LateRecord(1, "a", 5, -3),), dropped=(LateRecord(2, "b", 6, 0),), error=Error("runtime", "boom"))
    doc = observation_to_json(obs)
    assert doc["firings"][0]["values"] == [1, 3]  # values are sorted
    assert observation_from_json(json.loads(json.dumps(doc))) == obs


def problems_of(doc):
    with pytest.raises(CaseFormatError) as e:
        case_from_json(doc)
    return {(p.path, p.rule.split(",")[0].split(" [")[0]) for p in e.value.problems}


def test_every_problem_is_reported_with_its_path_and_rule():
    found = problems_of({
        "format": "window-case/2",
        "window": {"assigner": "sliding", "size": 10.5, "offset": 2**63, "colour": "red"},
        "allowed_lateness": 2**63,
        "late_side_output": "yes",
        "events": [{"record": {"key": 1, "value": 2}}, {"watermark": 1, "record": {}}, {"processing_time": 5},
                   {"processing_time": 4}],
        "surprise": 1,
    })
    assert found == {
        ("$.format", "must be 'window-case/1'"),
        ("$.window.size", "must be an integer in Java long range"),
        ("$.window.slide", "missing required field"),
        ("$.window.offset", "must be an integer in Java long range"),
        ("$.window.colour", "unknown field"),
        ("$.allowed_lateness", "must be an integer in Java long range"),
        ("$.late_side_output", "must be true or false"),
        ("$.events[0].record.key", "must be a string"),
        ("$.events[0].record.ts", "missing required field"),
        ("$.events[1]", "must be an object with exactly one of the fields 'record'"),
        ("$.events[3].processing_time", "processing time only moves forward: 4 < 5"),
        ("$.surprise", "unknown field"),
    }


@pytest.mark.parametrize("window, part, extra", [
    ({"assigner": "count", "size": 3}, "trigger", {"trigger": {"type": "event_time"}}),
    ({"assigner": "session", "gap": 3}, "evictor", {"evictor": {"type": "count", "max_count": 3}}),
    ({"assigner": "session", "gap": 3}, "evictor",
     {"evictor": {"type": "delta", "threshold": 1, "delta_function": "absolute_difference"}}),
    ({"assigner": "global"}, "trigger", {"trigger": {"type": "purging", "inner": {"type": "event_time"}}}),
    ({"assigner": "global"}, "trigger", {"trigger": {"type": "processing_time"}}),
    ({"assigner": "tumbling", "size": 3}, "trigger", {"trigger": {"type": "never"}}),
])
def test_a_trigger_or_evictor_that_does_not_fit_the_assigner_is_rejected(window, part, extra):
    found = problems_of({"format": "window-case/1", "window": window, "events": []} | extra)
    assert [path for path, _ in found] == [f"$.{part}"]


def test_count_window_takes_a_trigger_and_an_evictor_as_windowed_stream_does():
    """`countWindow(...).trigger(...).evictor(...)` is legal Java (`WindowedStream<T, K, GlobalWindow>`)."""
    doc = {"format": "window-case/1", "window": {"assigner": "count", "size": 3, "slide": 1}, "events": [],
           "trigger": {"type": "never"}, "evictor": {"type": "time", "size": 3, "after": False}}
    case = case_from_json(doc)
    assert (case.trigger, case.evictor) == (NeverTrigger(), TimeEvictor(3))


def test_unknown_trigger_and_nested_problems_have_paths():
    found = problems_of({"format": "window-case/1", "window": {"assigner": "global"}, "events": [],
                         "trigger": {"type": "purging", "inner": {"type": "count"}},
                         "evictor": {"type": "lru"}})
    assert found == {("$.trigger.inner.count", "missing required field"),
                     ("$.evictor.type", "must be one of 'count'")}


@pytest.mark.parametrize("threshold, rule", [
    ("NaN", "not nan"), ("Infinity", "not inf"), ("-Infinity", "not -inf"), ("1e400", "not inf"),
    ('"1.5"', "not '1.5'"), ("true", "not true"), ("null", "not null"), ("1" + "0" * 45, "not an integer of 46 digits"),
])
def test_a_delta_threshold_is_a_finite_java_double(threshold, rule):
    text = _case_text(trigger=f'{{"type": "delta", "threshold": {threshold}, "delta_function": "difference"}}')
    assert _problems(text) == f"f.json: $.trigger.threshold: must be a finite number (a Java double), {rule}"


def test_a_delta_threshold_may_be_any_json_number_and_reads_as_the_nearest_double():
    for threshold, read in (("3", 3.0), ("-0.5", -0.5), ("9007199254740993", 2.0**53), ("1e308", 1e308)):
        text = _case_text(trigger=f'{{"type": "delta", "threshold": {threshold}, "delta_function": "difference"}}')
        assert cases_from_json(parse_json(text, "f.json"))[0].trigger.threshold == read


def test_a_delta_function_is_one_the_format_names():
    text = _case_text(evictor='{"type": "delta", "threshold": 1, "delta_function": "euclidean"}')
    assert _problems(text) == ("f.json: $.evictor.delta_function: must be one of 'absolute_difference', "
                               "'difference', not 'euclidean'")


def test_flinks_own_rejections_are_not_format_errors():
    # size 0 breaks TumblingEventTimeWindows' precondition: an invalid_spec observation, not a load error
    case = case_from_json({"format": "window-case/1", "window": {"assigner": "tumbling", "size": 0}, "events": []})
    assert case.window == tumbling(0)


# --- the one vocabulary table -------------------------------------------------------------------




def _one_of_each(kind):
    """An instance of `kind` with a distinct value in each parameter (a nested trigger for `inner`, each
    boolean the opposite of its default)."""
    values = {"inner": TRIGGERS.by_tag["count"](3), "time": "processing", "threshold": 2.5,
              "delta_function": "difference", "gap_extractor": "value"}
    return kind(**{f.name: values.get(f.name, not f.default if f.type == "bool" else 7 + i)
                   for i, f in enumerate(dataclasses.fields(kind))})


@pytest.mark.parametrize("kind", [*ASSIGNERS, *TRIGGERS, *EVICTORS], ids=lambda k: f"{k.__name__}")
def test_every_kind_of_the_vocabulary_round_trips_and_names_its_feature(kind):
    part = _one_of_each(kind)
    if kind in ASSIGNERS:
        case = Case(window=part)
    elif kind in TRIGGERS:
        case = Case(window=global_window() if kind.tag == "never" else tumbling(10), trigger=part)
    else:
        case = Case(window=tumbling(10), evictor=part)
    doc = json.loads(json.dumps(case_to_json(case)))
    assert case_from_json(doc) == case
    assert kind.feature.name in FEATURES
    assert kind.feature.name in required_features(case)


# --- input a case file must not get past ----------------------------------------------------------


def _problems(text: str) -> str:
    with pytest.raises(CaseFormatError) as e:
        cases_from_json(parse_json(text, "f.json"), "f.json")
    return str(e.value)


def _case_text(**fields: str) -> str:
    parts = {"format": '"window-case/1"', "window": '{"assigner": "tumbling", "size": 10}',
             "events": '[{"record": {"key": "a", "value": 1, "ts": 5}}]'} | fields
    return "{" + ", ".join(f'"{k}": {v}' for k, v in parts.items()) + "}"


@pytest.mark.parametrize("field, value, path", [
    ("window", '{"assigner": "tumbling", "size": null}', "$.window.size"),
    ("events", '[{"record": {"key": "a", "value": 1, "ts": null}}]', "$.events[0].record.ts"),
    ("events", '[{"record": {"key": null, "value": 1, "ts": 5}}]', "$.events[0].record.key"),
    ("events", '[{"watermark": null}]', "$.events[0].watermark"),
    ("late_side_output", "null", "$.late_side_output"),
])
def test_null_is_not_absent(field, value, path):
    assert f"{path}: must be" in _problems(_case_text(**{field: value}))


def test_a_duplicate_name_is_a_format_error_naming_it():
    text = _case_text(window='{"assigner": "tumbling", "size": 1000, "size": 7}')
    assert "$.window.size: appears more than once" in _problems(text)


def test_an_integer_of_thousands_of_digits_is_a_format_error_not_a_traceback():
    problems = _problems(_case_text(window='{"assigner": "tumbling", "size": ' + "9" * 5000 + "}"))
    assert "$.window.size: must be an integer in Java long range" in problems
    assert "5000 digits" in problems


def test_nesting_beyond_a_limit_is_a_format_error():
    with pytest.raises(CaseFormatError, match="nested too deeply"):
        parse_json("[" * 100_000 + "]" * 100_000, "f.json")
    trigger = '{"type": "count", "count": 1}'
    for _ in range(100):
        trigger = '{"type": "purging", "inner": ' + trigger + "}"
    assert "triggers may nest at most" in _problems(_case_text(trigger=trigger))


def test_a_lone_surrogate_in_a_key_is_a_format_error():
    problems = _problems(_case_text(events='[{"record": {"key": "\\ud800", "value": 1, "ts": 5}}]'))
    assert "$.events[0].record.key: must be valid Unicode" in problems


# --- watermarks that Flink makes, several channels (format 2.1) --------------------------------------

GENERATED = Case(
    window=tumbling(5000), allowed_lateness=2000, channels=2,
    watermark_generator=BoundedOutOfOrdernessWatermarks(2000, interval=200, idleness=1000),
    events=[record("a", 1, 5000), processing_time(200), record("a", 2, 3000, channel=1),
            WatermarkStatus(1, idle=True), EndOfChannel(0)])


def test_a_case_with_generated_watermarks_and_channels_round_trips_exactly():
    doc = json.loads(json.dumps(case_to_json(GENERATED)))
    assert doc["watermark_generator"] == {"type": "bounded_out_of_orderness", "interval": 200, "punctuated": False,
                                          "idleness": 1000, "bound": 2000}
    assert doc["events"][2] == {"record": {"key": "a", "value": 2, "ts": 3000, "channel": 1}}
    assert doc["events"][3:] == [{"watermark_status": {"channel": 1, "idle": True}}, {"end_of_channel": 0}]
    assert case_from_json(doc) == GENERATED


def test_a_case_of_one_channel_dumps_as_before_channels_existed():
    doc = case_to_json(Case(window=tumbling(10), events=[record("a", 1, 5), watermark(9)]))
    assert "channels" not in doc and "watermark_generator" not in doc
    assert doc["events"] == [{"record": {"key": "a", "value": 1, "ts": 5}}, {"watermark": 9}]
    assert case_from_json(case_to_json(Case(window=tumbling(10), channels=3, events=[watermark(9, channel=2)])))\
        .events == (watermark(9, channel=2),)


def test_generated_watermarks_and_channels_have_their_features():
    assert {"watermark.bounded_out_of_orderness", "watermark.periodic", "watermark.idleness", "channels",
            "channel.status", "channel.end"} <= required_features(GENERATED)
    punctuated = Case(window=tumbling(5), watermark_generator=MonotonousWatermarks(punctuated=True))
    assert {"watermark.monotonous", "watermark.punctuated"} <= required_features(punctuated)
    assert "watermark.periodic" not in required_features(punctuated)


@pytest.mark.parametrize("extra, events, problem", [
    ({"channels": 2}, '[{"record": {"key": "a", "value": 1, "ts": 5, "channel": 2}}]',
     "$.events[0]: names channel 2, but the case has 2"),
    ({"channels": 0}, "[]", "$.channels: must be >= 1"),
    ({"channels": 2}, '[{"end_of_channel": 1}, {"watermark": 3, "channel": 1}]',
     "$.events[1]: comes after channel 1 ended"),
    ({"watermark_generator": '{"type": "monotonous"}'}, '[{"watermark": 3}]',
     "$.events[0]: a case with a watermark_generator gets its watermarks from the generator"),
    ({}, '[{"watermark_status": {"channel": 0}}]', "$.events[0].watermark_status.idle: missing required field"),
    ({}, '[{"watermark": 3, "chanel": 0}]', "$.events[0].chanel: unknown field"),
    ({"watermark_generator": '{"type": "bounded_out_of_orderness"}'}, "[]", "$.watermark_generator.bound: missing"),
])
def test_channels_and_generators_are_checked_with_paths(extra, events, problem):
    fields = {k: (v if isinstance(v, str) else json.dumps(v)) for k, v in extra.items()}
    assert problem in _problems(_case_text(events=events, **fields))


def test_an_observation_with_input_watermarks_round_trips_and_they_are_compared_in_order():
    with_watermarks = Observation(watermarks=(InputWatermark(1, 2999), InputWatermark(4, 4999)))
    doc = json.loads(json.dumps(observation_to_json(with_watermarks)))
    assert doc["watermarks"] == [{"at": 1, "watermark": 2999}, {"at": 4, "watermark": 4999}]
    assert observation_from_json(doc) == with_watermarks
    assert "watermarks" not in observation_to_json(Observation())
    swapped = Observation(watermarks=(InputWatermark(4, 4999), InputWatermark(1, 2999)))
    assert not equivalent(with_watermarks, swapped)
    assert not equivalent(with_watermarks, Observation())
