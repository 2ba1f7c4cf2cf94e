"""The output folder of a run (or of `corpus`): the run's alone while it writes, never cleaned beyond its own
files, and never without a report.

- A run takes the folder with a lock (`LOCK`, a file held with `flock` and holding the run's process id
  for people to read): a second run on the same folder is refused while the first is alive. The kernel
  lets go of the lock when its process ends, however it ends (SIGKILL included), so a lock left by a run
  that died is free, and the next run takes it.
- A folder that holds anything is refused, unless it holds an earlier run's files (listed in its
  manifest, `MANIFEST`) and `force` is given. A user's own files stay, and a run does not write over
  one of them: a folder where they stand in the way is refused before anything runs.
- The new files are written beside the old, in `STAGING` inside the folder. Only at the end (`commit`)
  are the earlier run's files removed (with the folders they leave empty), the new ones moved in and
  listed in the manifest, for the next `force`. A run that ends before that (an error, Ctrl-C, a signal)
  removes its staging folder and leaves the earlier report as it was (`abandon`); one killed outright
  leaves its staging folder, which the next run removes.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
from pathlib import Path

MANIFEST = ".conformance-run.json"
LOCK = ".conformance-run.lock"
STAGING = ".conformance-run.partial"
MANIFEST_FORMAT = "window-conformance-run/1"
#: The top-level names a run writes; a user's file of one of these names is never written over.
RUN_NAMES = ("report.json", "index.html", "report.md", "junit.xml", "logs", "counterexamples", "timelines")
#: The names that belong to the machinery, not to a report.
OWN_NAMES = (LOCK, STAGING)


class OutputError(Exception):
    """The folder cannot be used; the message names it and says what to do."""


class OutputFolder:
    def __init__(self, path: Path, lock: int, created: list[Path], replaced: list[str]) -> None:
        self.path, self.staging = path, path / STAGING
        self.written: list[str] = []
        self._lock, self._created, self._replaced = lock, created, replaced

    @classmethod
    def claim(cls, path: Path, force: bool, names: tuple[str, ...] = RUN_NAMES) -> OutputFolder:
        """Take `path` for one run (the module's docstring): created if need be, locked, and holding
        nothing but an earlier run's files (`force`), none of them in the way of the `names` a run
        writes. Nothing is removed yet."""
        if path.exists() and not path.is_dir():
            raise OutputError(f"--out {path}: exists and is not a folder")
        created = [p for p in (path, *path.parents) if not p.exists()]
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise OutputError(f"--out {path}: cannot create the folder ({e.strerror})") from None
        lock = None
        try:
            lock = _lock(path)
            replaced = _earlier_files(path, force, names)
            shutil.rmtree(path / STAGING, ignore_errors=True)  # left by a run that was killed
            (path / STAGING).mkdir()
        except (OSError, OutputError) as e:
            if lock is not None:
                _unlock(path, lock)
            _remove_created(created)
            if isinstance(e, OutputError):
                raise
            raise OutputError(f"--out {path}: cannot write there ({e.strerror or e})") from None
        return cls(path, lock, created, replaced)

    def file(self, relative: str) -> Path:
        """The path of a file this run writes, noted for the manifest; its folder is created."""
        target = self.staging / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        self.written.append(relative)
        return target

    def note(self, relatives: list[str]) -> None:
        """Files written by someone else for this run (the renderers), in `staging`."""
        self.written.extend(relatives)

    def commit(self) -> None:
        """Replace the earlier run's files with this run's, list them in the manifest, let others in."""
        root = self.path.resolve()
        for relative in self._replaced:
            target = (self.path / relative).resolve()
            if root in target.parents and target.is_file():
                target.unlink()
                _remove_empty_parents(target.parent, root)
        written = sorted(set(self.written))
        for relative in written:
            source, target = self.staging / relative, self.path / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(source, target)
        manifest = {"format": MANIFEST_FORMAT, "files": written}
        (self.path / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        shutil.rmtree(self.staging, ignore_errors=True)
        _unlock(self.path, self._lock)

    def abandon(self) -> None:
        """End without a report: this run's files go, the earlier run's stay, a folder made for it goes."""
        shutil.rmtree(self.staging, ignore_errors=True)
        _unlock(self.path, self._lock)
        _remove_created(self._created)


def is_run_file(path: Path) -> bool:
    """Whether `path` is the machinery's, not a report's: the manifest, the lock, a file being staged."""
    return path.name in (MANIFEST, LOCK) or STAGING in path.parts


def _lock(path: Path) -> int:
    """The folder's lock, held (`flock`), with this process's id in it; `OutputError` when a live run
    holds it."""
    lock = path / LOCK
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise OutputError(f"--out {path}: another run (process {holder}) is writing there; "
                              "wait for it or choose another folder") from None
        with contextlib.suppress(FileNotFoundError):
            if os.fstat(fd).st_ino == os.stat(lock).st_ino:  # not a lock file its holder removed meanwhile
                os.ftruncate(fd, 0)
                os.write(fd, str(os.getpid()).encode())
                return fd
        os.close(fd)


def _unlock(path: Path, fd: int) -> None:
    (path / LOCK).unlink(missing_ok=True)
    os.close(fd)


def _earlier_files(path: Path, force: bool, names: tuple[str, ...]) -> list[str]:
    """The files of the earlier run in `path` that this run replaces (none in an empty folder)."""
    others = sorted(p.name for p in path.iterdir() if p.name not in OWN_NAMES)
    if not others:
        return []
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
        if not isinstance(listed, list) or not all(isinstance(f, str) for f in listed):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        raise OutputError(f"--out {path}: {MANIFEST} is not a run's manifest: choose another folder") from None
    ours = {(path / relative).resolve() for relative in listed}
    clash = sorted(name for name in names if _holds_other_files(path / name, ours))
    if clash:
        raise OutputError(f"--out {path}: holds {', '.join(clash)} that no earlier run of this command "
                          "wrote: choose another folder")
    return [*listed, MANIFEST]


def _holds_other_files(path: Path, ours: set[Path]) -> bool:
    """Whether `path` is, or holds, a file not among `ours`."""
    if path.is_dir() and not path.is_symlink():
        return any(_holds_other_files(inner, ours) for inner in path.iterdir())
    return path.exists() and path.resolve() not in ours


def _remove_empty_parents(folder: Path, root: Path) -> None:
    while folder != root and root in folder.parents and _is_empty_dir(folder):
        folder.rmdir()
        folder = folder.parent


def _remove_created(created: list[Path]) -> None:
    """The folders `claim` made, innermost first, while they are empty."""
    for folder in created:
        if not _is_empty_dir(folder):
            return
        folder.rmdir()


def _is_empty_dir(path: Path) -> bool:
    return path.is_dir() and not any(path.iterdir())
