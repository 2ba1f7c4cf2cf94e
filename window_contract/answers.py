"""What a Python implementation's `run` call may give back: a list of `Observation`s in the types of
`window-observation/1`.

A process's answers are read from JSON by the format's rules (`window_contract.process`); a Python
plug-in hands over objects, which are held to the same rules here. An answer of the wrong types says
nothing about the cases (`None`, a list of strings, a firing whose `at` is a string): the plug-in
could not run them (`ImplementationFailure`, naming what was wrong), never a difference and never a
traceback from the suite's own code. How many observations it gives is the caller's rule: too few or
too many for the cases breaks the interface for those cases (a difference the case shows).
"""

from __future__ import annotations

from window_contract.implementation import ImplementationFailure
from window_contract.observation import Error, Firing, GlobalWindow, InputWatermark, LateRecord, Observation, TimeWindow
from window_contract.observation_json import observation_from_json, observation_to_json
from window_contract.validation import CaseFormatError, is_long


def checked_observations(answer: object, position_free: bool = False) -> list[Observation]:
    """`answer` as a list of observations, each within `window-observation/1` (with `"at": null` only
    for a `position_free` implementation), or `ImplementationFailure` naming what is wrong."""
    if not isinstance(answer, list | tuple):
        raise ImplementationFailure(f"run returned {_described(answer)}, not a list of observations")
    for i, observation in enumerate(answer):
        path = f"run(cases)[{i}]"
        if not isinstance(observation, Observation):
            raise ImplementationFailure(f"{path} is {_described(observation)}, not an Observation")
        if _well_typed(observation, position_free):
            continue
        try:
            observation_from_json(observation_to_json(observation), path, position_free=position_free)
        except CaseFormatError as e:
            raise ImplementationFailure(f"an observation breaks window-observation/1: {e}") from None
        except (AttributeError, TypeError) as e:  # a part that is not a Firing, LateRecord, window...
            raise ImplementationFailure(f"{path} is not made of the observation's types (Firing, LateRecord, "
                                        f"TimeWindow, ...): {type(e).__name__}: {e}") from None
    return list(answer)


def _well_typed(o: Observation, position_free: bool) -> bool:
    """A quick check that the format accepts `o` (reading it from JSON costs a third of the reference's
    own time for the case); the format's reader has the last word, and names the problem, when this
    says no."""
    def at(value: object) -> bool:
        return value is None if position_free else is_long(value) and value >= 0

    def text(value: object) -> bool:
        return type(value) is str and (value.isascii() or _encodable(value))

    def record(r: object) -> bool:
        return type(r) is LateRecord and at(r.at) and text(r.key) and is_long(r.value) and is_long(r.ts)

    def firing(f: object) -> bool:
        window = f.window if type(f) is Firing else None
        return (type(f) is Firing and at(f.at) and text(f.key) and is_long(f.timestamp)
                and (type(window) is GlobalWindow
                     or type(window) is TimeWindow and is_long(window.start) and is_long(window.end))
                and all(is_long(v) for v in f.values)
                and (is_long(f.watermark) or position_free and f.watermark is None))

    return (all(map(firing, o.firings)) and all(map(record, o.late)) and all(map(record, o.dropped))
            and (o.error is None or type(o.error) is Error and o.error.kind in ("invalid_spec", "runtime")
                 and text(o.error.message))
            and (o.watermarks is None or all(type(w) is InputWatermark and at(w.at) and is_long(w.watermark)
                                             for w in o.watermarks)))


def _encodable(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _described(value: object) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"
