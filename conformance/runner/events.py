"""The events of one run of the property suite, sent by the child process (`collector`) to the run.

Each event is one JSON object a line on the events pipe, tagged by `event`:

- `start` (`Started`): a property test begins;
- `examples` (`Examples`): examples run so far, and test cases tried while shrinking a failure;
- `result` (`Finished`): a test is over, with its `PropertyResult`;
- `collect_error` (`CollectError`): a module of the suite did not load;
- `finish` (`SessionFinished`): pytest's session ended with this exit status.

`ProcessExited` is added by the run itself (`session`) once the child process is gone.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from conformance.runner.results import PropertyResult, to_json


@dataclass(frozen=True)
class Started:
    nodeid: str
    property: str


@dataclass(frozen=True)
class Examples:
    nodeid: str
    examples: int
    shrinks: int


@dataclass(frozen=True)
class Finished:
    result: PropertyResult


@dataclass(frozen=True)
class CollectError:
    nodeid: str
    message: str


@dataclass(frozen=True)
class SessionFinished:
    exitstatus: int


@dataclass(frozen=True)
class ProcessExited:
    status: int


RunEvent = Started | Examples | Finished | CollectError | SessionFinished | ProcessExited

_TAGS: dict[type, str] = {Started: "start", Examples: "examples", Finished: "result",
                          CollectError: "collect_error", SessionFinished: "finish"}
_KINDS = {tag: kind for kind, tag in _TAGS.items()}


def dumps_event(event: RunEvent) -> str:
    fields = to_json(event.result) if isinstance(event, Finished) else asdict(event)
    return json.dumps({"event": _TAGS[type(event)]} | fields)


def loads_event(line: str) -> RunEvent:
    data = json.loads(line)
    kind = _KINDS[data.pop("event")]
    if kind is Finished:
        return Finished(PropertyResult.from_json(data))
    return kind(**data)
