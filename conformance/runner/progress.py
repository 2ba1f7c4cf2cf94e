"""What `run` shows while it runs: the implementation, the property and the examples so far.

On a terminal one line per property is rewritten in place as examples come in; elsewhere (CI logs)
each property gets a line when it ends, and a long one a line every few seconds meanwhile. While
Hypothesis shrinks a failure the line says so, with the attempts so far.
"""

from __future__ import annotations

import time
from typing import TextIO

from conformance.runner.events import CollectError, Examples, Finished, RunEvent, Started

#: How often a property still running is reported where lines cannot be rewritten.
LOG_INTERVAL = 10.0

MARKS = {"passed": "ok", "failed": "FAIL", "error": "ERROR", "skipped": "skip", "not_applicable": "n/a"}


def counted(n: int, noun: str, plural: str = "") -> str:
    """`1 example`, `2 examples`; `1 property`, `2 properties`."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


class Progress:
    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.live = stream.isatty()
        self.property = ""
        self.started = self.last_line = 0.0

    def implementation(self, name: str, spec: str, costly: bool) -> None:
        self.stream.write(f"{name}" + (f" ({spec})" if spec != name else "") + "\n")
        if costly:
            self.stream.write(f"  starting {name}'s engine; the first property also records the run's tests and "
                              "fetches their cases\n")
        self.stream.flush()

    def could_not_start(self, message: str) -> None:
        self._line(f"  ERROR {message.splitlines()[0] if message else 'could not start'}", final=True)

    def event(self, event: RunEvent) -> None:
        match event:
            case Started(property=name):
                self.property, self.started = name, time.monotonic()
                self.last_line = self.started
                self._running(0, 0)
            case Examples(examples=examples, shrinks=shrinks):
                self._running(examples, shrinks)
            case Finished(result=r):
                why = f"  {r.message}" if r.outcome in ("error", "not_applicable") else ""
                self._line(f"  {MARKS[r.outcome]:<5} {r.property}  {counted(r.examples, 'example')}"
                           f"  {r.duration:.1f}s{why}", final=True)
            case CollectError(nodeid=nodeid):
                self._line(f"  ERROR {nodeid}: the suite does not load (see the log)", final=True)

    def _running(self, examples: int, shrinks: int) -> None:
        elapsed = time.monotonic() - self.started
        doing = (f"shrinking a failure: {counted(shrinks, 'attempt')}" if shrinks
                 else f"{counted(examples, 'example')} so far")
        text = f"  ...   {self.property}  {doing}  {elapsed:.0f}s"
        if self.live:
            self._line(text, final=False)
        elif time.monotonic() - self.last_line >= LOG_INTERVAL:
            self.last_line = time.monotonic()
            self._line(text, final=True)

    def _line(self, text: str, final: bool) -> None:
        if self.live:
            self.stream.write("\r\033[K" + text + ("\n" if final else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
