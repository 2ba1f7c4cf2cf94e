"""The situations a case can exercise (what happens when Flink runs it), as the strategies report them
and aim at them.

Whether a case reaches a situation is only known by running it, which the strategies cannot do: the
property suite tells them how, once, with `read_situations_with` (its `Suite.situations` reads them from
the reference's trace, and keeps that run's observation as the case's expected one). The strategies
then report each case's situations with `hypothesis.event()`, so that `--hypothesis-show-statistics`
shows how often the suite reached each one, and `aim` steers generation towards the rarer ones with
`hypothesis.target()`. Until told, they report none (a test of the strategies, the corpus).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from hypothesis import event, target

from window_contract.case import Case

#: What a case exercises: each situation's name and how often it occurred.
Situations = Callable[[Case], Counter[str]]

LATE_FIRING = "late firing: an element fired a window the watermark had passed"
SIDE_OUTPUT = "late record sent to the side output"
DROPPED = "late record dropped"
PARTLY_LATE = "sliding or cumulative element late for some of its windows only"
NO_WINDOW = "element in no window (sliding with size < slide)"
MERGE = "session windows merged"
BRIDGE = "an element bridged two sessions into one"
RESCUE = "merge rescued an element whose own window was late"
WINDOW_LATE = "window late on arrival: element skipped"
CLEANUP = "window state cleaned up"
EXACT_CLEANUP = "cleanup at exactly maxTimestamp + allowedLateness"
EVICTION = "evictor removed elements"
EMPTY_FIRING = "firing with no values (the evictor emptied the window)"
PURGE = "window contents purged"
IGNORED_WATERMARK = "repeated or lower watermark ignored"
EXACT_WATERMARK = "fired by a watermark exactly at maxTimestamp"
REFIRING = "a window fired more than once"
MANY_KEYS = "several keys fired at one event"
END_FIRING = "firing at the end of input"
PROCESSING_FIRING = "firing on a processing-time advance"
RUNTIME_ERROR = "runtime error"
INVALID_SPEC = "invalid specification"
NEGATIVE = "negative timestamps"
NO_OUTPUT = "no output at all"


#: How the strategies read what a case exercises (`read_situations_with`).
_reader: Situations | None = None


def read_situations_with(situations: Situations | None) -> None:
    """Say how the strategies read what a case exercises; `None`: they report no situations."""
    global _reader
    _reader = situations


def reads_situations() -> bool:
    return _reader is not None


def label(case: Case) -> Counter[str]:
    """Report `case`'s situations to Hypothesis with `event()` (any number of times per example); none
    until the strategies are told how to read them."""
    found = _reader(case) if _reader is not None else Counter()
    for name in found:
        event(name)
    return found


def aim(found: Counter[str]) -> None:
    """Steer generation towards the rarer situations; `target()` may be called once per example and
    label, so a batch aims with its cases' situations summed (`strategies.cases.case_batches`: the number of its
    cases that reach each)."""
    target(float(found[LATE_FIRING] + found[SIDE_OUTPUT] + found[DROPPED]), label="late records and firings")
    target(float(found[BRIDGE] + found[RESCUE] + found[PARTLY_LATE]), label="merges and partly late elements")
