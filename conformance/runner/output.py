"""The output folder of a run: the run's alone while it writes, and never cleaned beyond its own files.

- A run takes the folder with a lock file (`LOCK`, created exclusively, holding its process id):
  a second run on the same folder is refused while the first is alive, so two runs never
  overwrite each other's report.
- A folder that holds anything is refused, unless `force`: then the files an earlier run listed in
  its manifest (`MANIFEST`) are removed, with the folders they leave empty, and nothing else. A
  user's own files stay, and a run does not write over one of them.
- At the end the run lists every file it wrote in the manifest, for the next `--force`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

MANIFEST = ".conformance-run.json"
LOCK = ".conformance-run.lock"
MANIFEST_FORMAT = "window-conformance-run/1"
#: The top-level names a run writes; a user's file of one of these names is never written over.
RUN_NAMES = ("report.json", "index.html", "report.md", "junit.xml", "logs", "counterexamples", "timelines")


class OutputError(Exception):
    """The folder cannot be used; the message names it and says what to do."""


class OutputFolder:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.written: list[str] = []

    @classmethod
    def claim(cls, path: Path, force: bool) -> OutputFolder:
        """Take `path` for one run: created, locked, and empty of an earlier run's files."""
        if path.exists() and not path.is_dir():
            raise OutputError(f"--out {path}: exists and is not a folder")
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise OutputError(f"--out {path}: cannot create the folder ({e.strerror})") from None
        if not os.access(path, os.W_OK | os.X_OK):
            raise OutputError(f"--out {path}: the folder is not writable")
        _lock(path)
        try:
            _make_room(path, force)
        except OutputError:
            (path / LOCK).unlink(missing_ok=True)
            raise
        return cls(path)

    def file(self, relative: str) -> Path:
        """The path of a file this run writes, noted for the manifest; its folder is created."""
        target = self.path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        self.written.append(relative)
        return target

    def note(self, relatives: list[str]) -> None:
        """Files written by someone else for this run (the renderers)."""
        self.written.extend(relatives)

    def release(self) -> None:
        """Write the manifest of what the run wrote, and let other runs in."""
        manifest = {"format": MANIFEST_FORMAT, "files": sorted(set(self.written))}
        (self.path / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        (self.path / LOCK).unlink(missing_ok=True)


def _lock(path: Path) -> None:
    lock = path / LOCK
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            holder = _holder(lock)
            if holder is not None:
                raise OutputError(f"--out {path}: another run (process {holder}) is writing there; "
                                  "wait for it or choose another folder") from None
            lock.unlink(missing_ok=True)  # left by a run that died: take it over
            continue
        with os.fdopen(fd, "w") as f:
            f.write(str(os.getpid()))
        return
    raise OutputError(f"--out {path}: cannot take the folder's lock {LOCK}")


def _holder(lock: Path) -> int | None:
    """The live process that holds `lock`, or None when it is gone."""
    try:
        pid = int(lock.read_text().strip())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    return pid


def _make_room(path: Path, force: bool) -> None:
    others = sorted(p.name for p in path.iterdir() if p.name != LOCK)
    if not others:
        return
    manifest = path / MANIFEST
    if not force:
        raise OutputError(
            f"--out {path}: the folder is not empty; give --force to replace the files an earlier run "
            f"wrote there (listed in its {MANIFEST}; nothing else is removed), or choose another folder")
    if not manifest.is_file():
        raise OutputError(f"--out {path}: --force removes only the files an earlier run listed in its "
                          f"{MANIFEST}, and the folder has none: choose another folder")
    try:
        listed = json.loads(manifest.read_text(encoding="utf-8"))["files"]
    except (ValueError, KeyError, TypeError):
        raise OutputError(f"--out {path}: {MANIFEST} is not a run's manifest: choose another folder") from None
    root = path.resolve()
    for relative in listed:
        target = (path / relative).resolve()
        if root in target.parents and target.is_file():
            target.unlink()
            _remove_empty_parents(target.parent, root)
    manifest.unlink()
    clash = sorted(name for name in RUN_NAMES if (path / name).exists() and not _is_empty_dir(path / name))
    if clash:
        raise OutputError(f"--out {path}: holds {', '.join(clash)} that no earlier run of this command "
                          "wrote: choose another folder")


def _remove_empty_parents(folder: Path, root: Path) -> None:
    while folder != root and root in folder.parents and _is_empty_dir(folder):
        folder.rmdir()
        folder = folder.parent


def _is_empty_dir(path: Path) -> bool:
    return path.is_dir() and not any(path.iterdir())
