"""Where the suite keeps what only the first use pays for (a compiled Flink runner, the drawing of a derandomized
run): `~/.cache/window-conformance/`, or under `$XDG_CACHE_HOME`."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "window-conformance"


def keep_newest(folders: Iterable[Path], kept: int) -> None:
    """Remove all but the `kept` most recently modified of `folders` (a use marks its folder with `os.utime`)."""
    newest_first = sorted((p for p in folders if p.is_dir()), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in newest_first[kept:]:
        shutil.rmtree(old, ignore_errors=True)
