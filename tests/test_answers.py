"""A Python plug-in's answer of the wrong types is named field by field (`window_contract.answers`)."""

from __future__ import annotations

import pytest

from window_contract.answers import checked_observations
from window_contract.implementation import ImplementationFailure
from window_contract.observation import Firing, InputWatermark, LateRecord, Observation, TimeWindow


def firing(**changes) -> Firing:
    fields = {"key": "a", "window": TimeWindow(0, 10), "values": (1, 2), "timestamp": 9, "watermark": 9, "at": 3}
    return Firing(**(fields | changes))


@pytest.mark.parametrize("observation, said", [
    (Observation(firings=(firing(), firing(values=(1.0, 2)))), "run(cases)[0].firings[1].values[0]: must be an int, "
                                                               "not float 1.0"),
    (Observation(firings=(firing(timestamp=9.0),)), "run(cases)[0].firings[0].timestamp: must be an int, not float"),
    (Observation(firings=(firing(window=(0, 10)),)), "run(cases)[0].firings[0].window: must be a TimeWindow or "
                                                     "GlobalWindow, not tuple"),
    (Observation(firings=(firing(window=TimeWindow(0, 10.0)),)), "run(cases)[0].firings[0].window.end: must be an int"),
    (Observation(late=(LateRecord(key=1, value=1, ts=1, at=0),)), "run(cases)[0].late[0].key: must be a str, not int"),
    (Observation(dropped=(LateRecord(key="a", value=1, ts=None, at=0),)), "run(cases)[0].dropped[0].ts: must be an "
                                                                          "int, not NoneType None"),
    (Observation(watermarks=(InputWatermark(watermark=5, at="0"),)), "run(cases)[0].watermarks[0].at: must be an int"),
    (Observation(watermarks=(InputWatermark(watermark=5.0, at=0),)),
     "run(cases)[0].watermarks[0].watermark: must be an int, not float 5.0"),
    (Observation(firings=(firing(key=1),)), "run(cases)[0].firings[0].key: must be a str, not int 1"),
    (Observation(late=(LateRecord(key="a", value="1", ts=1, at=0),)), "run(cases)[0].late[0].value: must be an int"),
    ([], "run(cases)[0]: must be an Observation, not list []"),
])
def test_the_first_field_of_the_wrong_type_is_named_by_its_path(observation, said):
    with pytest.raises(ImplementationFailure) as failure:
        checked_observations([observation])
    assert said in str(failure.value)


def test_a_position_free_answer_may_leave_its_firings_watermarks_out():
    answer = [Observation(firings=(firing(at=None, watermark=None),))]
    assert checked_observations(answer, position_free=True) == answer


def test_a_position_free_answer_names_a_position_it_should_not_have():
    with pytest.raises(ImplementationFailure, match=r"firings\[0\]\.at: must be None: the implementation is "
                                                    r"position-free, not int 3"):
        checked_observations([Observation(firings=(firing(),))], position_free=True)


def test_an_answer_of_the_right_types_is_taken_as_it_is():
    answer = [Observation(firings=(firing(), firing(at=4))), Observation()]
    assert checked_observations(answer) == answer
