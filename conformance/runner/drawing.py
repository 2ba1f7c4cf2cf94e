"""The drawing cache: the examples a `run` under a derandomized profile drew, kept for the next run of the same code.

Under `ci` (and `ci-slow`) Hypothesis draws the same examples every run: they depend on the suite's code, the
strategies, the reference (whose answers the drawing aims with `target()`), the features and Hypothesis itself,
nothing else. Drawing is most of the main job's time, and the runs of one `run` already share it through their
recordings (`conformance/prefetch/recordings.py`: the reference's run draws, the others replay). So `run` keeps
those recordings when it ends, under a key made of all that the drawing depends on, and the next run with the same
key starts with them: every test runs on the examples the last run drew, each implementation answers every case
afresh and every rule checks every answer, as in a run that draws; only Hypothesis's drawing is saved. A test
whose recording has no examples (it failed) is drawn again, and a replayed example that fails hands the test back
to Hypothesis, which draws and shrinks as always (`conformance/prefetch/replay.py`).

The key (`drawing_key`) hashes the source of the packages the drawing runs (`conformance`, `strategies`,
`reference`, `window_contract`) and of the suite, the profile, and the versions of Python and Hypothesis: a change
to any of them draws anew. `run --fresh-drawing` draws anew whatever the cache holds. The cache lives under
`~/.cache/window-conformance/drawing/` (or `$XDG_CACHE_HOME`), the last `KEPT` keys; each recording is written
aside and renamed into place, so a run never reads half of one.
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
from pathlib import Path

import hypothesis

import conformance
import reference
import strategies
import window_contract
from window_contract.cache import cache_root, keep_newest

#: How many keys' drawings the cache keeps (the newest).
KEPT = 3
#: The packages whose code the drawing runs.
DRAWING_PACKAGES = (conformance, strategies, reference, window_contract)
#: The files of a recordings folder that the cache keeps: the recordings, not the claims or the liveness locks.
RECORDING = "*.pickle"


def drawing_key(suite: tuple[Path, ...], profile: str) -> str:
    """What the examples of a derandomized run depend on, hashed (the module's docstring)."""
    digest = hashlib.sha256(f"{profile}\0{platform.python_version()}\0{hypothesis.__version__}".encode())
    folders = [Path(package.__file__).parent for package in DRAWING_PACKAGES]
    for root in [*folders, *suite]:
        files = sorted(root.rglob("*.py")) if root.is_dir() else [root]
        for path in files:
            digest.update(f"\0{path.relative_to(root.parent)}\0".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:24]


class DrawingCache:
    """The cache's folder for one key."""

    def __init__(self, key: str, root: Path | None = None) -> None:
        self.root = (root or cache_root()) / "drawing"
        self.folder = self.root / key

    def restore(self, recordings: Path) -> int:
        """Copy the cached recordings into a run's recordings folder; how many there were."""
        kept = list(self.folder.glob(RECORDING))
        for path in kept:
            shutil.copyfile(path, recordings / path.name)
        return len(kept)

    def keep(self, recordings: Path) -> None:
        """Add a finished run's recordings that the cache does not hold yet (a run of some properties leaves
        theirs), each written aside and renamed into place; then only the newest `KEPT` keys stay. A cache that
        cannot be written is no failure of the run: the next one draws."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            for path in recordings.glob(RECORDING):
                target = self.folder / path.name
                if not target.exists():
                    aside = self.folder / f"{path.name}.{os.getpid()}.part"
                    shutil.copyfile(path, aside)
                    os.replace(aside, target)
            os.utime(self.folder)  # the newest key
            keep_newest(self.root.iterdir(), KEPT)
        except OSError:
            return
