"""What the reference tells a listener as it runs a case: the steps behind `explain` and the suite's
situation labels.

The operator and its driver always call a `TraceListener`, one method per thing that happened (an
element assigned to windows, a window skipped as late, a timer registered or fired, a firing, a
purge, a cleanup, ...). The default listener, `NO_TRACE`, does nothing: the semantics carry no
`if tracing` branches, and an untraced run pays one empty method call per step. `StepRecorder`
turns each call into a `Step`, typed by a `TraceStep`, for readers that want the steps as values.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the vocabulary stands alone: importing it loads no part of the model
    from reference.windows import Window


class TraceStep(Enum):
    """The kinds of step, in the words of `WindowOperator` and of the driver that feeds it."""

    EVENT = "an input event arrives"
    WATERMARK_IGNORED = "a watermark that does not increase is ignored"
    END_OF_INPUT = "the bounded input ends: Watermark(Long.MAX_VALUE)"
    ASSIGNED = "the assigner gave the element its windows"
    WINDOW_LATE = "a window is late (cleanup time <= watermark): the element skips it"
    SIDE_OUTPUT = "every window was late: the element goes to the side output"
    DROPPED = "every window was late: the element is dropped"
    MERGED = "session windows merged"
    TIMER_REGISTERED = "a new timer was registered"
    TIMER_FIRED = "a timer fires"
    EMPTY_FIRINGS = "periodic timers fire on a window without contents: nothing to emit, the next fire time moves on"
    FIRED = "the window function is called with the window's contents"
    PURGED = "the window's contents are dropped"
    CLEARED = "the window's state is cleared at its cleanup time"
    EVICTED = "the evictor removed elements"
    WATERMARK_GENERATED = "a channel's watermark generator emits a watermark"
    CHANNEL_STATUS = "a channel becomes idle or active again"
    WATERMARK_HELD = "the valve keeps its watermark: an active channel is further behind"
    INPUT_WATERMARK = "the valve lets a new minimum through to the window operator"
    INPUT_STATUS = "every channel is idle (or one is active again): the operator's input status changes"


@dataclass(frozen=True, slots=True)
class Step:
    """One step; only the fields its kind speaks of are set."""

    kind: TraceStep
    at: int | None = None  # EVENT, END_OF_INPUT: the event's position
    event: object = None  # EVENT
    key: str | None = None
    value: int | None = None  # ASSIGNED, SIDE_OUTPUT, DROPPED
    ts: int | None = None  # ASSIGNED, SIDE_OUTPUT, DROPPED
    window: Window | None = None
    windows: Sequence[Window] = ()  # ASSIGNED: the element's windows; MERGED: those merged into `window`
    time: int | None = None  # TIMER_*, EMPTY_FIRINGS: the (first) timer's time; WATERMARK_IGNORED: the watermark
    count: int | None = None  # EMPTY_FIRINGS: how many periodic timers fired
    domain: str | None = None  # TIMER_*: "event" or "processing"
    values: Sequence[int] = ()  # FIRED: the function's input; EVICTED: what the evictor left
    current: int | None = None  # WATERMARK_IGNORED: the channel's watermark; WATERMARK_HELD: the operator's
    channel: int | None = None  # WATERMARK_GENERATED, CHANNEL_STATUS; WATERMARK_HELD, INPUT_WATERMARK: the
    # channel holding the minimum (None when no active channel is aligned)
    idle: bool | None = None  # CHANNEL_STATUS, INPUT_STATUS


class TraceListener:
    """Told of each step of a run; every method does nothing, so a listener overrides only what it
    follows. `windows` and `values` are the model's own lists: a listener keeps copies, not them."""

    def event(self, at: int, event: object) -> None: ...
    def watermark_ignored(self, time: int, current: int) -> None: ...
    def end_of_input(self, at: int) -> None: ...
    def assigned(self, key: str, value: int, ts: int, windows: Sequence[Window]) -> None: ...
    def window_late(self, key: str, window: Window) -> None: ...
    def side_output(self, key: str, value: int, ts: int) -> None: ...
    def dropped(self, key: str, value: int, ts: int) -> None: ...
    def merged(self, key: str, windows: Sequence[Window], into: Window) -> None: ...
    def timer_registered(self, key: str, window: Window, time: int, domain: str) -> None: ...
    def timer_fired(self, key: str, window: Window, time: int, domain: str) -> None: ...
    def empty_firings(self, key: str, window: Window, time: int, count: int, domain: str) -> None: ...
    def fired(self, key: str, window: Window, values: Sequence[int]) -> None: ...
    def purged(self, key: str, window: Window) -> None: ...
    def cleared(self, key: str, window: Window) -> None: ...
    def evicted(self, key: str, window: Window, kept: Sequence[int]) -> None: ...
    def watermark_generated(self, channel: int, watermark: int) -> None: ...
    def channel_status(self, channel: int, idle: bool) -> None: ...
    def watermark_held(self, holder: int, holder_watermark: int, current: int) -> None: ...
    def input_watermark(self, watermark: int, holder: int | None) -> None: ...
    def input_status(self, idle: bool) -> None: ...


#: The listener of an untraced run.
NO_TRACE = TraceListener()


class StepRecorder(TraceListener):
    """Hands every step to `consumer` as a `Step`."""

    def __init__(self, consumer: Callable[[Step], None]) -> None:
        self.consumer = consumer

    def event(self, at, event):
        self.consumer(Step(TraceStep.EVENT, at=at, event=event))

    def watermark_ignored(self, time, current):
        self.consumer(Step(TraceStep.WATERMARK_IGNORED, time=time, current=current))

    def end_of_input(self, at):
        self.consumer(Step(TraceStep.END_OF_INPUT, at=at))

    def assigned(self, key, value, ts, windows):
        self.consumer(Step(TraceStep.ASSIGNED, key=key, value=value, ts=ts, windows=tuple(windows)))

    def window_late(self, key, window):
        self.consumer(Step(TraceStep.WINDOW_LATE, key=key, window=window))

    def side_output(self, key, value, ts):
        self.consumer(Step(TraceStep.SIDE_OUTPUT, key=key, value=value, ts=ts))

    def dropped(self, key, value, ts):
        self.consumer(Step(TraceStep.DROPPED, key=key, value=value, ts=ts))

    def merged(self, key, windows, into):
        self.consumer(Step(TraceStep.MERGED, key=key, window=into, windows=tuple(windows)))

    def timer_registered(self, key, window, time, domain):
        self.consumer(Step(TraceStep.TIMER_REGISTERED, key=key, window=window, time=time, domain=domain))

    def timer_fired(self, key, window, time, domain):
        self.consumer(Step(TraceStep.TIMER_FIRED, key=key, window=window, time=time, domain=domain))

    def empty_firings(self, key, window, time, count, domain):
        self.consumer(Step(TraceStep.EMPTY_FIRINGS, key=key, window=window, time=time, count=count, domain=domain))

    def fired(self, key, window, values):
        self.consumer(Step(TraceStep.FIRED, key=key, window=window, values=tuple(values)))

    def purged(self, key, window):
        self.consumer(Step(TraceStep.PURGED, key=key, window=window))

    def cleared(self, key, window):
        self.consumer(Step(TraceStep.CLEARED, key=key, window=window))

    def evicted(self, key, window, kept):
        self.consumer(Step(TraceStep.EVICTED, key=key, window=window, values=tuple(kept)))

    def watermark_generated(self, channel, watermark):
        self.consumer(Step(TraceStep.WATERMARK_GENERATED, channel=channel, time=watermark))

    def channel_status(self, channel, idle):
        self.consumer(Step(TraceStep.CHANNEL_STATUS, channel=channel, idle=idle))

    def watermark_held(self, holder, holder_watermark, current):
        self.consumer(Step(TraceStep.WATERMARK_HELD, channel=holder, time=holder_watermark, current=current))

    def input_watermark(self, watermark, holder):
        self.consumer(Step(TraceStep.INPUT_WATERMARK, time=watermark, channel=holder))

    def input_status(self, idle):
        self.consumer(Step(TraceStep.INPUT_STATUS, idle=idle))
