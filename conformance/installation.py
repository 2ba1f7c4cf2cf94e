"""The suite among a user's own modules: where `package.module:factory` is found, and the names it takes.

- A plug-in named `package.module:factory` is found from the current folder, whichever way the suite is
  started: `python -m conformance` (which puts that folder first on `sys.path`), the installed
  `window-conformance` command and `pytest --window-impl` (which do not, so `prepare` does).
- The distribution installs its packages at the top level (`OWN_PACKAGES`: the repository's layout, whose
  packages import each other by these names). A user's own package of one of these names (a `reports` or
  `strategies` of their project) cannot live beside them in one interpreter: whichever comes first on
  `sys.path` hides the other, and the suite, or the user's plug-in, would import the wrong one. True isolation
  would need every package renamed under one namespace; instead `check_own_packages` finds such a clash before
  anything runs and names it (`PackageClash`: the command exits 2, pytest stops with a usage error).
- A plain folder of such a name (no `__init__.py`, as the run's own default output `reports/out` makes) is no
  clash once the project's root is on `sys.path` (a real package wins over a namespace folder); installed in
  editable mode, the packages are found by an import hook that Python asks only after `sys.path`, so `prepare`
  puts the root there.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

#: The folder that holds this project's packages (the repository, or site-packages when installed).
PROJECT_ROOT = Path(__file__).resolve().parent.parent
#: The top-level packages the distribution installs (setup.py's `packages`).
OWN_PACKAGES = ("window_contract", "conformance", "reference", "spark_impl", "flink_impl", "engines", "strategies",
                "reports")


class PackageClash(ImportError):
    """A module of the user's hides one of the suite's own packages; the message names both."""


def prepare(folder: Path) -> None:
    """Find plug-ins from `folder` (first, as `python -m` does), keep the project's packages findable, and
    refuse a user's package that would hide one of them."""
    if not any(_same(entry, folder) for entry in sys.path):
        sys.path.insert(0, str(folder))
    if str(PROJECT_ROOT) not in sys.path:
        sys.path.append(str(PROJECT_ROOT))
    check_own_packages()


def _same(entry: str, folder: Path) -> bool:
    try:
        return Path(entry or ".").resolve() == folder.resolve()
    except OSError:
        return False


def check_own_packages() -> None:
    """No module on `sys.path` but the suite's own has a name of `OWN_PACKAGES` (whichever comes first, the
    other is hidden), and each is the suite's own where it is imported or found; raise `PackageClash` naming
    the first clash."""
    for name in OWN_PACKAGES:
        module = sys.modules.get(name)
        origin = getattr(module, "__file__", None) if module is not None else _origin(name)
        others = [found for found in (_module_in(entry, name) for entry in sys.path)
                  if found is not None and found != PROJECT_ROOT / name]
        if origin is None or Path(origin).resolve().parent.parent != PROJECT_ROOT or others:
            found = others[0] if others else origin or "a folder without __init__.py on sys.path"
            raise PackageClash(
                f"the module {name!r} at {found} hides window-conformance's own package {name!r} "
                f"({PROJECT_ROOT / name}): the suite installs the top-level packages {', '.join(OWN_PACKAGES)}, "
                "which cannot share one interpreter with another module of the same name; rename yours, or run "
                "from a folder that does not hold it")


def _module_in(entry: str, name: str) -> Path | None:
    """The package or module `name` of the folder `entry` of `sys.path` (resolved), if it holds one."""
    try:
        folder = Path(entry or ".").resolve()
        for candidate in (folder / name / "__init__.py", folder / f"{name}.py"):
            if candidate.is_file():
                return candidate.parent if candidate.name == "__init__.py" else candidate
    except OSError:
        pass
    return None


def _origin(name: str) -> str | None:
    spec = importlib.util.find_spec(name)
    return None if spec is None else spec.origin
