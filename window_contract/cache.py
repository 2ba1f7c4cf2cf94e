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
    """Remove all but the `kept` most recently modified of `folders` (a use marks its folder with `os.utime`). A
    folder another process removes meanwhile is skipped: pruning never fails what called it."""
    dated = [(used, folder) for folder in folders if (used := _last_modified(folder)) is not None]
    for _, old in sorted(dated, reverse=True)[kept:]:
        shutil.rmtree(old, ignore_errors=True)


def _last_modified(folder: Path) -> float | None:
    try:
        return folder.stat().st_mtime if folder.is_dir() else None
    except OSError:
        return None
