"""Where the suite keeps what only the first use pays for (a compiled Flink runner, the drawing of a derandomized
run): `~/.cache/window-conformance/`, or under `$XDG_CACHE_HOME`."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "window-conformance"
