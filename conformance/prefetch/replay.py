"""A test's examples kept in one pass and given back in another, instead of drawn again.

A prefetched test runs twice on the same examples (`conftest.py`): its recording pass, then its real
pass; and the runs of one `python -m conformance run` draw each test once between them
(`recordings.py`). Drawing is nearly all of a pass's time (Hypothesis's per-draw machinery), so
the pass that draws keeps each example's draws (`keeping`), and the others give them back to the
test's body (`replaying`), as Hypothesis's explicit examples, in the order they were drawn, with
the `hypothesis.event`s the example reported (the strategies report them while drawing).
The body then runs on exactly the examples Hypothesis would draw again (derandomized, or one seed
for the run, and the same answers: the examples it draws depend on nothing else), with `note`,
`event` and the run's observability as in any example.

Hypothesis keeps its part: the first example that fails, or a draw that is not the one kept (the
test changed), hands the test to Hypothesis itself, which draws, finds and shrinks the failure as
always. A failure to run (`window_contract.implementation.failure_to_run`) stops the test at once, and so
does a failing example under a profile that does not shrink (the mutation check's, `mutation-<profile>`):
Hypothesis would draw the very examples replayed up to that one and report it as it is.
"""

from __future__ import annotations

import functools
import inspect
import pickle
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from hypothesis import Phase, event, example, given, reject, settings
from hypothesis import strategies as st
from hypothesis.control import current_build_context

from window_contract.implementation import failure_to_run

#: One draw: its label, and its value pickled when drawn (so that the body may change what it got),
#: or `None` when the draw gave up (Hypothesis rejected or overran the example there).
Draw = tuple[str | None, bytes | None]


@dataclass(frozen=True)
class Example:
    """One call of a test's body: what it drew, and the events its example had reported."""

    draws: tuple[Draw, ...]
    events: tuple[tuple[str, str], ...]


class Diverged(Exception):
    """The body asked for another draw than the one kept: Hypothesis draws the test itself."""


class _Keeping:
    """Hypothesis's `data` for the body, keeping each draw."""

    def __init__(self, data, draws: list[Draw]) -> None:
        self._data, self._draws = data, draws

    def draw(self, strategy, label: str | None = None):
        try:
            value = self._data.draw(strategy, label=label)
        except BaseException:
            self._draws.append((label, None))
            raise
        self._draws.append((label, pickle.dumps(value)))
        return value


@contextmanager
def keeping(test) -> Iterator[list[Example]]:
    """The examples of every call of `test`'s body meanwhile (`test` is `@given(data=st.data())`);
    Hypothesis calls its wrapper's `hypothesis.inner_test`, which is here for plug-ins to wrap."""
    examples: list[Example] = []
    body = test.hypothesis.inner_test
    signature = inspect.signature(body)

    @functools.wraps(body)  # derandomized, Hypothesis seeds the test with its body's source
    def kept(*args, **kwargs):
        arguments = signature.bind(*args, **kwargs).arguments
        draws: list[Draw] = []
        arguments["data"] = _Keeping(arguments["data"], draws)
        try:
            return body(**arguments)
        finally:
            events = current_build_context().data.events
            examples.append(Example(tuple(draws), tuple((k, str(v)) for k, v in events.items())))

    test.hypothesis.inner_test = kept
    try:
        yield examples
    finally:
        test.hypothesis.inner_test = body


class _Replay:
    """`data` for the body in a replayed example: the kept draws, one by one."""

    def __init__(self, kept: Example) -> None:
        self._draws: Iterator[Draw] = iter(kept.draws)
        self.kept = kept

    def draw(self, strategy, label: str | None = None):
        label_kept, value = next(self._draws, ("(none)", None))
        if label_kept != label:
            raise Diverged(f"the body drew {label!r} where the kept example drew {label_kept!r}")
        if value is None:
            reject()
        return pickle.loads(value)

    def __repr__(self) -> str:
        return f"<{len(self.kept.draws)} kept draws>"


def _final(failure: Exception) -> bool:
    """Whether a replayed example's `failure` stands as it is: it is the test's own (not a draw that differs from
    the one kept), and the profile does not shrink, so Hypothesis would stop on the same example."""
    return not isinstance(failure, Diverged) and Phase.shrink not in settings.default.phases


def replaying(test, examples: tuple[Example, ...], handed_back: Callable[[], None]) -> Callable[..., None]:
    """`test` (taking the same fixtures) running on `examples` given back, and drawing for itself
    (after calling `handed_back`) once one of them fails: see the module's docstring."""
    body = test.hypothesis.inner_test
    signature = inspect.signature(body)

    def replay(*args, **kwargs):  # as Hypothesis calls the body
        for name, payload in signature.bind(*args, **kwargs).arguments["data"].kept.events:
            event(name, payload)
        body(*args, **kwargs)

    replay.__signature__ = signature
    replay.__name__ = body.__name__
    explicit = given(data=st.just(None))(replay)
    for kept in reversed(examples):  # a decorator: the last applied runs first
        explicit = example(data=_Replay(kept))(explicit)
    explicit = settings(settings.default, phases=[Phase.explicit], database=None,
                        report_multiple_bugs=False)(explicit)

    def replayed(**fixtures) -> None:
        try:
            explicit(**fixtures)
        except Exception as e:
            if failure_to_run(e) is not None or _final(e):
                raise
            handed_back()
            test(**fixtures)

    return replayed
