"""The pytest plug-in that prefetches, records and replays the property suite's tests (loaded by
`conformance.pytest_plugin`); a rule never sees it.

A prefetched run runs each test twice. The first prefetched test records every test of the run (a
pytest-xdist worker, which does not know its share of the tests, only its own), then fetches all their
cases in a few large calls (`cache.Prefetcher`); each test then runs for real from the answers. With
`derandomize` and no database (or one seed for the run, `--hypothesis-seed`, which `run` gives under the
other profiles), Hypothesis generates the same examples both times as long as the implementation agrees
with the reference, so the real pass finds its cases fetched (the hit and miss counts show it), and it
replays the examples the recording pass kept instead of drawing them again (`replay.py`).

When `run` gives a recordings folder (`--window-recordings`, `recordings.py`), the runs in it draw each
test once between them: a test another run claimed is waited for, then fetched (a prefetched run) and
replayed; a test this run draws is written for the others.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import random
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import seed, settings

from conformance.evidence import FeatureTally
from conformance.prefetch.cache import Prefetcher
from conformance.prefetch.recordings import (
    Recording,
    claim,
    claimed,
    read_recording,
    wait_for_recording,
    write_recording,
)
from conformance.prefetch.replay import Example, keeping, replaying
from conformance.properties.harness import Suite
from conformance.properties.joins import JoinSuite

#: A test marked so sends its batches to the implementation as they are, never from the prefetch
#: cache of single cases: what it checks is how the implementation treats one `run` call's batch.
#: Its calls are prefetched as whole requests when the implementation has `run_requests`.
REAL_BATCHES = "real_batches"
#: A test marked so checks when outputs happen: it does not apply to a position-free implementation.
POSITIONS = "positions"

#: The parameters a test may take to be recorded ahead of its turn (any other fixture would need
#: pytest's set-up): such a test is recorded and fetched at its own turn instead.
RECORDABLE = frozenset({"suite", "tally"})
#: The tests recorded so far (in the config's stash).
RECORDED = pytest.StashKey[set[str]]()
#: The examples of the tests recorded so far, by test, for their real pass (`replay.py`; in the
#: config's stash): a test that did not pass in its recording has none.
EXAMPLES = pytest.StashKey[dict[str, tuple[Example, ...]]]()
#: The seed of a prefetched session's examples, when the session chose one (in the config's stash).
SEED = pytest.StashKey[int]()
#: How many tests a prefetched run drawing from the last backwards leaves to a run drawing from the first
#: when they are about to meet: that run draws them while this one fetches (on two cores, the prefetched
#: run's fetch and the rest of its work took about 15 s after the meeting, while the reference's run,
#: replaying, ended 15 s before it).
LEFT_TO_THE_OTHERS = 3
#: What a join property's drawing depends on, which keys its recordings: no feature (`joins.SharedDrawing`).
JOIN_DRAWING: frozenset[str] = frozenset()
#: The session's prefetcher, once a prefetched test has run (in the config's stash).
PREFETCHER = pytest.StashKey[Prefetcher]()

#: The prefetch and replay figures of the session's tests, summed (from their reports, so across xdist too).
_totals: dict[str, Counter[str]] = {"prefetch": Counter(), "replay": Counter()}
#: The seeds prefetched sessions chose (`_one_seed`), from the tests' reports.
_prefetch_seeds: set[int] = set()


def prefetching(config: pytest.Config, suite: Suite) -> bool:
    """Whether the session prefetches: `--window-prefetch on`, or `auto` and an implementation whose
    every call costs a job (`costly_calls`)."""
    choice = config.getoption("window_prefetch")
    return choice == "on" or (choice == "auto" and suite.impl.costly_calls)


def _real_batches(item: pytest.Item) -> bool:
    return item.get_closest_marker(REAL_BATCHES) is not None


def _prefetched(item: pytest.Item, suite: Suite) -> bool:
    """Whether `item` runs from prefetched answers: a test of the suite, prefetching on, and for a
    test of real batches an implementation that answers requests."""
    return (isinstance(item, pytest.Function) and prefetching(item.config, suite)
            and (not _real_batches(item) or suite.answers_requests))


def _parameters(item: pytest.Function) -> list[str]:
    # @given's wrapper takes exactly the test's fixtures: its signature leaves out the drawn arguments.
    return list(inspect.signature(item.obj).parameters)


def _arguments(item: pytest.Function, fixtures: dict) -> dict:
    """The test's arguments out of `fixtures` (its own, or those of a test recorded ahead), with a
    tally of its own: what a recording pass sends is not counted as the test's."""
    return {name: fixtures[name] for name in _parameters(item)} | (
        {"tally": FeatureTally()} if "tally" in _parameters(item) else {})


def _runs_prefetched(item: pytest.Item, suite: Suite) -> bool:
    """Whether `item` will run from prefetched answers (not a rule about positions on a
    position-free implementation, which is skipped)."""
    return _prefetched(item, suite) and not (item.get_closest_marker(POSITIONS) and suite.position_free)


def _recordable_ahead(item: pytest.Item, suite: Suite) -> bool:
    """Whether `item` can be recorded before its turn: it takes the suite and no fixture but the
    tally, and it will run prefetched."""
    return _runs_prefetched(item, suite) and "suite" in _parameters(item) and set(_parameters(item)) <= RECORDABLE


def _record(item: pytest.Function, prefetcher: Prefetcher, arguments: dict, shared: Path | None = None) -> None:
    """The recording pass of one test: the reference answers, the cases and requests are noted for
    the next fetch (and written to `shared` for the other runs), and the examples are kept for the
    real pass when the test passed."""
    passed = False
    with prefetcher.recording(_real_batches(item)), keeping(item.obj) as examples:
        with contextlib.suppress(Exception):  # the reference's failures show in the real pass
            item.obj(**arguments)
            passed = True
    if passed:
        item.config.stash.setdefault(EXAMPLES, {})[item.nodeid] = tuple(examples)
    if shared is not None:
        _publish(shared, item, prefetcher.recorded, tuple(examples) if passed else None)


def _load(item: pytest.Item, prefetcher: Prefetcher, recording: Recording) -> None:
    """A test's cases to fetch, and its examples, as another run recorded them."""
    prefetcher.load(recording)
    if recording.examples is not None:
        item.config.stash.setdefault(EXAMPLES, {})[item.nodeid] = recording.examples


def _publish(shared: Path, item: pytest.Item, recording: Recording, examples: tuple[Example, ...] | None) -> None:
    """Write a test's recording for the other runs. One that cannot be written is not this run's
    failure: the runs waiting for it draw the test themselves once this one has ended."""
    with contextlib.suppress(OSError):
        write_recording(shared, item.nodeid, dataclasses.replace(recording, examples=examples))


def _drawn_elsewhere(shared: Path, item: pytest.Item, features: frozenset[str]) -> Recording | None:
    """The test's recording when another run draws it (waiting for it); `None` when this run draws
    it: it claimed it, or the run that did ended without writing it (or the folder failed us)."""
    try:
        if claim(shared, item.nodeid, features):
            return None
        return wait_for_recording(shared, item.nodeid, features)
    except OSError:
        return None


def leaves_to_the_others(unclaimed: int, before: int) -> bool:
    """Whether a run drawing from the last test backwards stops at a test with `before` tests in front of
    it, `unclaimed` of them claimed by no run yet: another run draws from the first (it claimed some of
    them), and at most `LEFT_TO_THE_OTHERS` are left to it."""
    return unclaimed < min(before, LEFT_TO_THE_OTHERS)


def _unclaimed(shared: Path, items: list[pytest.Item], features: frozenset[str]) -> int:
    """How many of `items` no run has claimed or drawn yet (none when the folder fails us)."""
    try:
        return sum(not claimed(shared, item.nodeid, features) for item in items)
    except OSError:
        return 0


def _claims(shared: Path, item: pytest.Item, features: frozenset[str]) -> bool:
    """Whether this run claims the test (`recordings.claim`): not when the folder fails us."""
    try:
        return claim(shared, item.nodeid, features)
    except OSError:
        return False


@contextlib.contextmanager
def _replaying(item: pytest.Function, examples: tuple[Example, ...] | None) -> Iterator[None]:
    """`item` runs on `examples` meanwhile (`replay.py`), when there are some; the report counts it."""
    if examples is None:
        yield
        return
    test, handed_back = item.obj, []
    item.obj = replaying(test, examples, lambda: handed_back.append(True))
    try:
        yield
    finally:
        item.obj = test
        item.user_properties.append(("replay", {"replayed": 1, "handed_back": len(handed_back)}))


def _shared(config: pytest.Config) -> Path | None:
    """The recordings folder `run` gave (`--window-recordings`)."""
    value = config.getoption("window_recordings", None)
    return Path(value) if value else None


def _ahead(item: pytest.Function) -> list[pytest.Item]:
    """The session's tests (a pytest-xdist worker, which does not know its share of them: none)."""
    return [] if hasattr(item.config, "workerinput") else item.session.items


def _one_seed(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under a profile that is not derandomized (`dev`, `thorough`) and without `--hypothesis-seed`
    (which `run` gives), every test would draw other examples in its real pass than in its recording
    pass, and nearly every case would cost a call of its own: the session draws one seed and gives it
    to the prefetched tests (Hypothesis's `seed`), and the terminal summary prints it."""
    if settings.default.derandomize or config.getoption("--hypothesis-seed", None) is not None:
        return
    chosen = config.stash.setdefault(SEED, random.randrange(2**32))
    for item in items:
        if isinstance(item, pytest.Function) and hasattr(item.obj, "hypothesis"):
            seed(chosen)(item.obj)


def _record_or_load(pyfuncitem: pytest.Function, prefetcher: Prefetcher, recorded: set[str]) -> None:
    """The cases to fetch for `pyfuncitem` and the tests after it. Alone: a recording pass of this test
    and of every test that can be recorded ahead. Sharing the drawing with other runs (`recordings.py`):
    a recording pass of each test no run has claimed, from the last backwards, fetched at once with
    every other run's recording written by then; then this test's (recorded here or waited for), and
    the recordings written meanwhile."""
    suite, shared = prefetcher.suite, _shared(pyfuncitem.config)
    fixtures = {"suite": suite, "tally": FeatureTally()}
    if shared is None:
        recorded.add(pyfuncitem.nodeid)
        _record(pyfuncitem, prefetcher, _arguments(pyfuncitem, pyfuncitem.funcargs))
        for item in _ahead(pyfuncitem):
            if item.nodeid not in recorded and _recordable_ahead(item, suite):
                recorded.add(item.nodeid)
                _record(item, prefetcher, _arguments(item, fixtures))
        return
    drawable = [item for item in _ahead(pyfuncitem)
                if item.nodeid not in recorded and item is not pyfuncitem and _recordable_ahead(item, suite)]
    for n in reversed(range(len(drawable))):
        if leaves_to_the_others(_unclaimed(shared, drawable[:n], prefetcher.features), n):
            break
        if _claims(shared, drawable[n], prefetcher.features):
            recorded.add(drawable[n].nodeid)
            _record(drawable[n], prefetcher, _arguments(drawable[n], fixtures), shared)
    _load_written(shared, pyfuncitem, prefetcher, recorded)
    # what this run drew and the others wrote, while the others still draw; the first round of requests waits for
    # what they write meanwhile, to take it along in its job
    prefetcher.fetch(keep_first_round=True)
    if pyfuncitem.nodeid not in recorded:
        recorded.add(pyfuncitem.nodeid)
        started = time.monotonic()
        recording = _drawn_elsewhere(shared, pyfuncitem, prefetcher.features)
        prefetcher.stats.waited += time.monotonic() - started
        if recording is None:
            _record(pyfuncitem, prefetcher, _arguments(pyfuncitem, pyfuncitem.funcargs), shared)
        else:
            _load(pyfuncitem, prefetcher, recording)
    _load_written(shared, pyfuncitem, prefetcher, recorded)


def _load_written(shared: Path, pyfuncitem: pytest.Function, prefetcher: Prefetcher, recorded: set[str]) -> None:
    """Every recording of this test and the tests after it that another run has written so far."""
    for item in _ahead(pyfuncitem):
        if item.nodeid not in recorded and _runs_prefetched(item, prefetcher.suite):
            ready = read_recording(shared, item.nodeid, prefetcher.features)
            if ready is not None:
                recorded.add(item.nodeid)
                _load(item, prefetcher, ready)


def _prefetcher(config: pytest.Config, suite: Suite) -> Prefetcher:
    """The session's prefetcher of `suite`, made (and its engine started) by the first test that needs it."""
    prefetcher = config.stash.get(PREFETCHER, None)
    if prefetcher is None or prefetcher.suite is not suite:
        prefetcher = config.stash[PREFETCHER] = Prefetcher(suite)
        if prefetching(config, suite):
            prefetcher.start_engine()
    return prefetcher


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function):
    """A test of the suite: drawn elsewhere and replayed, noted for the other runs, or prefetched (the
    module's docstring); a join property, replayed on the examples its prefetching pass drew (`JoinSuite.prefetch`).

    The recording pass runs before the inner wrappers: the run's collector observes Hypothesis
    only within them (its wrapper is `trylast`), so the recording pass's examples are not counted."""
    suite, shared = pyfuncitem.funcargs.get("suite"), _shared(pyfuncitem.config)
    if not isinstance(suite, Suite):
        joins = pyfuncitem.funcargs.get("join_suite")
        kept = joins.kept.pop(pyfuncitem.obj, None) if isinstance(joins, JoinSuite) else None
        if kept is None and isinstance(joins, JoinSuite) and shared is not None:
            return (yield from _drawn_once(pyfuncitem, shared, JOIN_DRAWING))
        with _replaying(pyfuncitem, kept):
            return (yield)
    if not _prefetched(pyfuncitem, suite):
        if shared is None:
            return (yield)
        prefetcher = _prefetcher(pyfuncitem.config, suite)
        return (yield from _drawn_once(pyfuncitem, shared, prefetcher.features, prefetcher))
    prefetcher = _prefetcher(pyfuncitem.config, suite)
    prefetcher.stats.reset()
    recorded = pyfuncitem.config.stash.setdefault(RECORDED, set())
    if pyfuncitem.nodeid not in recorded:
        _one_seed(pyfuncitem.config, [pyfuncitem, *_ahead(pyfuncitem)])
        _record_or_load(pyfuncitem, prefetcher, recorded)
        prefetcher.fetch()
    try:
        with prefetcher.answering(_real_batches(pyfuncitem)), _replaying(
                pyfuncitem, pyfuncitem.config.stash.get(EXAMPLES, {}).pop(pyfuncitem.nodeid, None)):
            return (yield)
    finally:
        pyfuncitem.user_properties.append(("prefetch", prefetcher.stats.as_dict()))
        if SEED in pyfuncitem.config.stash:
            pyfuncitem.user_properties.append(("prefetch_seed", pyfuncitem.config.stash[SEED]))


def _drawn_once(pyfuncitem: pytest.Function, shared: Path, features: frozenset[str],
                prefetcher: Prefetcher | None = None):
    """A test that is not prefetched, in a run that shares the drawing: replayed from the run that drew
    it, or drawn here, answered by the implementation, and written for the others, with the cases it
    sent when the `prefetcher` notes them (a window test's)."""
    recording = _drawn_elsewhere(shared, pyfuncitem, features)
    if recording is not None:
        with _replaying(pyfuncitem, recording.examples):
            return (yield)
    passed = False
    noting = prefetcher.noting(_real_batches(pyfuncitem)) if prefetcher else contextlib.nullcontext()
    try:
        with noting, keeping(pyfuncitem.obj) as examples:
            result = yield
        passed = True
        return result
    finally:
        _publish(shared, pyfuncitem, prefetcher.take_recording() if prefetcher else Recording(features, (), ()),
                 tuple(examples) if passed else None)


class _SharedJoinDrawing:
    """The join properties' drawing shared with the other runs (`joins.SharedDrawing`), through the
    recordings folder."""

    def __init__(self, shared: Path) -> None:
        self.shared = shared

    def examples(self, item: pytest.Item) -> tuple[Example, ...] | None:
        recording = _drawn_elsewhere(self.shared, item, JOIN_DRAWING)
        return None if recording is None else recording.examples

    def drawn(self, item: pytest.Item, examples: tuple[Example, ...] | None) -> None:
        _publish(self.shared, item, Recording(JOIN_DRAWING, (), ()), examples)


def shared_join_drawing(config: pytest.Config) -> _SharedJoinDrawing | None:
    """The join properties' drawing shared with the other runs of the `run` that gave a recordings folder."""
    shared = _shared(config)
    return None if shared is None else _SharedJoinDrawing(shared)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call":
        for name, value in report.user_properties:
            if name in ("prefetch", "replay"):
                _totals[name].update(value)
            elif name == "prefetch_seed":
                _prefetch_seeds.add(value)


def pytest_terminal_summary(terminalreporter) -> None:
    for chosen in sorted(_prefetch_seeds):  # one a session (under pytest-xdist, one a worker)
        terminalreporter.write_line(f"prefetch: examples drawn with seed {chosen} (--hypothesis-seed={chosen} "
                                    "draws them again)")
    if _totals["prefetch"]:
        t = _totals["prefetch"]
        terminalreporter.write_line(
            f"prefetch: {t['drawn']} tests recorded ({t['drawing_seconds']:.1f} s), "
            f"{t['fetched']} cases fetched in {t['fetch_calls']} run calls ({t['fetch_seconds']:.1f} s), "
            f"the cases of {t['loaded']} tests as another run recorded them (waited "
            f"{t['waited']:.1f} s for them); in the tests "
            f"{t['hits']} cases answered from the cache, {t['misses']} missed ({t['calls']} real calls)")
    if _totals["replay"]:
        t = _totals["replay"]
        terminalreporter.write_line(f"replay: {t['replayed']} tests ran on examples drawn before, {t['handed_back']} "
                                    "of them handed back to Hypothesis on a failing example")
