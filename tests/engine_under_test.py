"""What the tests of the engines under test that list their divergences share (`tests/test_engine_<engine>.py` of
Bytewax, Quix Streams, Pathway and Hazelcast Jet): the engine as a process for the module, a case's observation, a
firing as a position-free engine reports it, what the engine declares, how a batch answers, and the late output.

Their divergences are not tested here: `cases/engines/<engine>/divergences.toml` lists them, and
`tests/test_divergences.py` holds each list to its engine and to its page's prose (`about.md`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
from engine_pages import about, assert_the_suite_finds_what_the_section_names

from window_contract import Case, load_implementation, record, sliding, tumbling, watermark
from window_contract.observation import Firing, LateRecord, Observation, TimeWindow


def engine_fixtures(name: str) -> tuple[Callable, Callable]:
    """The module-scoped fixtures `engine` (the engine `name`, closed after the module) and `reference`."""

    @pytest.fixture(scope="module")
    def engine():
        impl = load_implementation(name)
        yield impl
        impl.close()

    @pytest.fixture(scope="module")
    def reference():
        return load_implementation("reference")

    return engine, reference


def suite_test(name: str) -> Callable[[Path], None]:
    """The test that runs the property suite against the engine `name` on its manifest's budget, the engine's step
    of `./dev test` (marked `engine_suite`): it differs, on exactly the properties its page's prose (`about.md`)
    lists, and the engine's list explains every minimal counterexample."""

    @pytest.mark.engine_suite
    def test_the_suite_finds_the_divergences_the_readme_names(tmp_path: Path) -> None:
        assert_the_suite_finds_what_the_section_names(tmp_path / "report", name, about(name))
    return test_the_suite_finds_the_divergences_the_readme_names


def observe(engine, case: Case) -> Observation:
    return engine.run([case])[0]


def fired(window: TimeWindow, values: tuple[int, ...], key: str = "a", timestamp: int | None = None) -> Firing:
    """A firing as a position-free engine reports it: no position, no watermark, stamped with the window's last
    millisecond (Flink's `maxTimestamp`) unless `timestamp` says otherwise."""
    return Firing(None, key, window, window.end - 1 if timestamp is None else timestamp, values, None)


def assert_declares(engine, name: str, offered: Iterable[str], not_offered: Iterable[str]) -> None:
    """The engine is `name`, position-free and costly to call, declares every feature `offered` and none of
    `not_offered`, nor any evictor."""
    assert engine.name == name and engine.position_free and engine.costly_calls
    assert set(offered) <= engine.features
    assert set(not_offered).isdisjoint(engine.features)
    assert not any(f.startswith("evictor.") for f in engine.features)


def assert_batches_answer_as_each_case_alone(engine, cases: list[Case]) -> None:
    """A request's cases answer as each does in a request of its own."""
    assert engine.run(cases) == [observe(engine, case) for case in cases]


def assert_a_late_record_is_reported_once(engine, stamp: Callable[[TimeWindow], int]) -> None:
    """A record late for both its sliding windows is reported once, to the late output with
    `sideOutputLateData` and as dropped without, although the engine meets it once a window; the firings carry
    `stamp(window)`."""
    events = [record("a", 1, ts=12), record("a", 2, ts=32), watermark(20), record("a", 3, ts=13)]
    kept, ignored = (observe(engine, Case(window=sliding(10, 5), late_side_output=side, events=events))
                     for side in (True, False))
    assert kept.late == ignored.dropped == (LateRecord(None, "a", 3, 13),)
    windows = [(TimeWindow(5, 15), 1), (TimeWindow(10, 20), 1), (TimeWindow(25, 35), 2), (TimeWindow(30, 40), 2)]
    assert kept.firings == ignored.firings == tuple(fired(w, (v,), timestamp=stamp(w)) for w, v in windows)


def assert_a_listed_watermark_closes_what_flinks_closes(engine, stamp: Callable[[TimeWindow], int]) -> None:
    """`Watermark(9)` closes `[0, 10)` with the record at 9 in it, `Watermark(8)` does not; a record of a closed
    window is dropped; the firings carry `stamp(window)`."""
    case = Case(window=tumbling(10), events=[record("a", 1, ts=3), record("a", 2, ts=9), watermark(8), watermark(9),
                                             record("a", 3, ts=10), record("a", 4, ts=25), watermark(20),
                                             record("a", 5, ts=10)])
    windows = [(TimeWindow(0, 10), (1, 2)), (TimeWindow(10, 20), (3,)), (TimeWindow(20, 30), (4,))]
    assert observe(engine, case) == Observation(firings=tuple(fired(w, v, timestamp=stamp(w)) for w, v in windows),
                                                dropped=(LateRecord(None, "a", 5, 10),))
