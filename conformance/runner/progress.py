"""What `run` shows while it runs: the implementation, the property and the examples so far.

On a terminal one line per property is rewritten in place as examples come in; elsewhere (CI logs)
each property gets a line when it ends, and a long one a line every few seconds meanwhile.
"""

from __future__ import annotations

import time
from typing import Any, TextIO

#: How often a property still running is reported where lines cannot be rewritten.
LOG_INTERVAL = 10.0

MARKS = {"passed": "ok", "failed": "FAIL", "error": "ERROR", "skipped": "skip"}


class Progress:
    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.live = stream.isatty()
        self.property = ""
        self.started = self.last_line = 0.0

    def implementation(self, name: str, spec: str) -> None:
        self.stream.write(f"{name}" + (f" ({spec})" if spec != name else "") + "\n")
        self.stream.flush()

    def event(self, event: dict[str, Any]) -> None:
        kind = event["event"]
        if kind == "start":
            self.property, self.started = event["property"], time.monotonic()
            self.last_line = self.started
            self._running(0)
        elif kind == "examples":
            self._running(event["examples"])
        elif kind == "result":
            self._line(
                f"  {MARKS[event['outcome']]:<5} {event['property']}  {event['examples']} examples"
                f"  {event['duration']:.1f}s",
                final=True,
            )
        elif kind == "collect_error":
            self._line(f"  ERROR {event['nodeid']}: the suite does not load (see the log)", final=True)

    def _running(self, examples: int) -> None:
        elapsed = time.monotonic() - self.started
        if self.live:
            self._line(f"  ...   {self.property}  {examples} examples so far  {elapsed:.0f}s", final=False)
        elif time.monotonic() - self.last_line >= LOG_INTERVAL:
            self.last_line = time.monotonic()
            self._line(f"  ...   {self.property}  {examples} examples so far  {elapsed:.0f}s", final=True)

    def _line(self, text: str, final: bool) -> None:
        if self.live:
            self.stream.write("\r\033[K" + text + ("\n" if final else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
