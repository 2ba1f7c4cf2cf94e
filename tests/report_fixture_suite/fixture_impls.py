"""Implementations that break in ways other than semantics, to test what the run does then."""

from __future__ import annotations

import dataclasses
import os
import sys
import threading
import time
from pathlib import Path

from reference.implementation import ReferenceImplementation
from window_contract.features import ALL_FEATURES
from window_contract.implementation import ImplementationFailure


class Raising:
    """Raises from `run` (an exception of its own): a bug of the plug-in, so it differs."""

    name = "raising"
    features = ALL_FEATURES

    def run(self, cases):
        raise RuntimeError("the engine is not started")


class Exiting:
    """Ends the process in the middle of a test, as a crashing native engine would. It declares costly calls (an
    engine with jobs of its own), so its calls run in the suite's process, unguarded (`window_contract.guards`)."""

    name = "exiting"
    features = ALL_FEATURES
    costly_calls = True

    def run(self, cases):
        os._exit(3)


class NoJava:
    """An engine whose launcher finds no `java`: nothing is known about any case."""

    name = "no-java"
    features = ALL_FEATURES

    def run(self, cases):
        raise FileNotFoundError(2, "No such file or directory", "java")


class JvmGone:
    """An engine whose JVM was killed: its connection is refused."""

    name = "jvm-gone"
    features = ALL_FEATURES

    def run(self, cases):
        raise ConnectionRefusedError(111, "Connection refused")


class Hanging:
    """A `run` that never returns."""

    name = "hanging"
    features = ALL_FEATURES

    def run(self, cases):
        threading.Event().wait()


class CrashesOnNegative(ReferenceImplementation):
    """The reference, except that a batch with a record before 0 raises (a bug of the plug-in)."""

    def __init__(self):
        super().__init__(name="crashes-on-negative")

    def run(self, cases):
        if any(r.ts < 0 for case in cases for r in case.records):
            raise ValueError("negative timestamps are not supported")
        return super().run(cases)


class Chatty(ReferenceImplementation):
    """The reference, printing as it works, as a plug-in under development does."""

    def __init__(self):
        super().__init__(name="chatty")

    def run(self, cases):
        print("chatty: running", len(cases), "cases")
        return super().run(cases)


class Misspelled:
    """Declares a feature name that does not exist."""

    name = "misspelled"
    features = frozenset({"assigner.tumbling", "assigner.tumblin"})

    def run(self, cases):
        return []


class Meeting(ReferenceImplementation):
    """Answers as the reference, but only once the other `Meeting` implementation's run has begun
    as well (a file each in `$MEETING_FOLDER`, waited for `$MEETING_WAIT` seconds): it conforms only
    when both suites run at once (`run --jobs 2`)."""

    def __init__(self, name: str, other: str) -> None:
        super().__init__(name=name)
        self.other, self.alone = other, False

    def run(self, cases):
        folder = Path(os.environ["MEETING_FOLDER"])
        (folder / self.name).touch()
        deadline = time.monotonic() + (0 if self.alone else float(os.environ["MEETING_WAIT"]))
        while not (folder / self.other).exists():
            if time.monotonic() > deadline:
                self.alone = True  # waited once: later calls fail at once
                raise ImplementationFailure(f"{self.other} did not run alongside {self.name}")
            time.sleep(0.05)
        return super().run(cases)


def meet_a() -> Meeting:
    return Meeting("meet-a", "meet-b")


def meet_b() -> Meeting:
    return Meeting("meet-b", "meet-a")


class Costly(ReferenceImplementation):
    """The reference, declared as costly as a Spark job a call and answering requests as Spark does:
    the suite prefetches its answers, as it does Spark's."""

    costly_calls = True

    def __init__(self) -> None:
        super().__init__(name="costly")

    def run_requests(self, requests):
        return [self.run(list(request)) for request in requests]


class Answering:
    """The reference's features; what `run` gives back instead of observations is `answer(cases)`."""

    features = ALL_FEATURES

    def run(self, cases):
        return self.answer(cases)


class ExitsCleanly(Answering):
    """`sys.exit(0)` from `run`: a plug-in that ends the process as if all were well."""

    name = "exits-cleanly"

    def answer(self, cases):
        sys.exit(int(os.environ.get("EXIT_STATUS", "0")))


class ExitsAtOnce(Answering):
    """`os._exit(0)` from `run`: no exception, no `finally`, no `atexit`."""

    name = "exits-at-once"

    def answer(self, cases):
        os._exit(0)


class Interrupts(Answering):
    """Raises `KeyboardInterrupt` from `run` (no signal came)."""

    name = "interrupts"

    def answer(self, cases):
        raise KeyboardInterrupt


class ReturnsNone(Answering):
    name = "returns-none"

    def answer(self, cases):
        return None


class ReturnsStrings(Answering):
    name = "returns-strings"

    def answer(self, cases):
        return ["no firings"] * len(cases)


class StringPositions(ReferenceImplementation):
    """The reference's observations with every firing's `at` a string."""

    def __init__(self):
        super().__init__(name="string-positions")

    def run(self, cases):
        return [dataclasses.replace(o, firings=tuple(dataclasses.replace(f, at=str(f.at)) for f in o.firings))
                for o in super().run(cases)]


class AnswersNothing(Answering):
    """An empty list whatever the cases: too few observations, a broken interface."""

    name = "answers-nothing"

    def answer(self, cases):
        return []


class NumberedName(ReferenceImplementation):
    """The reference, named by a number: a report could not show it."""

    def __init__(self):
        super().__init__(name=12345)


class HangingCostly(Hanging):
    """A `run` that never returns, of an implementation the suite prefetches (as Spark and Flink)."""

    name = "hanging-costly"
    costly_calls = True


class TumblingOnly(ReferenceImplementation):
    """The reference, declaring tumbling windows alone: no watermark generator, so the rules about
    generated watermarks send it no case."""

    features = frozenset({"assigner.tumbling"})

    def __init__(self) -> None:
        super().__init__(name="tumbling-only")


class BatchSensitive(ReferenceImplementation):
    """The reference, except that a case run in a batch of several loses its last firing: its observation
    depends on the batch it is run in."""

    def __init__(self) -> None:
        super().__init__(name="batch-sensitive")

    def run(self, cases):
        observations = super().run(cases)
        if len(cases) < 2:
            return observations
        return [dataclasses.replace(o, firings=o.firings[:-1]) for o in observations]


class SlowOnSliding(ReferenceImplementation):
    """The reference, except that a batch with a sliding window never ends, as an honest loop over all the
    windows Flink allows an element (10,000,000) runs for many minutes: a guard stops it, and names the case."""

    def __init__(self) -> None:
        super().__init__(name="slow-on-sliding")

    def run(self, cases):
        if any(type(case.window).__name__ == "Sliding" for case in cases):
            threading.Event().wait()
        return super().run(cases)


class HungryOnSessions(ReferenceImplementation):
    """The reference, except that a batch with a session window takes memory without end."""

    def __init__(self) -> None:
        super().__init__(name="hungry-on-sessions")

    def run(self, cases):
        if any(type(case.window).__name__ == "Session" for case in cases):
            hoard = [bytearray(2**20)]
            while True:
                hoard.append(bytearray(2**20))
        return super().run(cases)


class FailsOnItsSecondCall(ReferenceImplementation):
    """The reference, except that its second `run` call raises: it keeps count, as a plug-in keeps its state."""

    def __init__(self) -> None:
        super().__init__(name="fails-on-its-second-call")
        self.calls = 0

    def run(self, cases):
        self.calls += 1
        if self.calls == 2:
            raise RuntimeError("the second call")
        return super().run(cases)


class EarlyPairs(ReferenceImplementation):
    """The reference, except that every pair of an interval join is stamped one before the larger of its two
    timestamps."""

    def __init__(self) -> None:
        super().__init__(name="early-pairs")

    def run_joins(self, cases):
        return [dataclasses.replace(o, outputs=tuple(dataclasses.replace(p, timestamp=p.timestamp - 1)
                                                     for p in o.outputs))
                if type(case.join).__name__ == "IntervalJoin" else o
                for case, o in zip(cases, super().run_joins(cases), strict=True)]
