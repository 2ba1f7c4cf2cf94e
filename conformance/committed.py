"""Where the committed files are: `cases/` (with the engines' divergence lists and cases under `cases/engines/`),
`corpus/` and the JSON Schemas of `docs/schemas/`.

A clone holds them at the repository's root, beside the packages. An installation holds the same tree as
package data of the distribution, `conformance/data/` (setup.py maps each folder there at its path in the
repository), found through `importlib.resources`. Whatever reads a committed file asks `committed(path)`, which
looks in the installed package data first and in the clone's root otherwise, so the suite reads the same files
from the same relative paths either way (an editable installation is a clone: its `conformance/` has no `data/`).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

#: The folder of the installed package data, inside the `conformance` package.
INSTALLED = "data"


def root() -> Path:
    """The folder that holds `cases/`, `corpus/` and `docs/schemas/`: the installed package data, or the clone."""
    package = Path(resources.files("conformance"))  # a folder: the suite is installed as files, never zipped
    installed = package / INSTALLED
    return installed if installed.is_dir() else package.parent


def committed(path: str) -> Path:
    """A committed file or folder by its path in the repository (`cases/engines`, `corpus`)."""
    return root() / path
