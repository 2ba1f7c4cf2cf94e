"""Finding Java and Flink's jar, and compiling the runner against it (cached).

The runner is compiled once per version of its sources, of the jar and of the JDK, into
`~/.cache/window-conformance/flink-<hash>/` (or under `$XDG_CACHE_HOME`), so only the first use pays.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

#: The Flink release the runner is written against: `pip install apache-flink-libraries==2.3.0`.
FLINK_VERSION = "2.3.0"
JAVA_SOURCES = Path(__file__).parent / "java"
MAIN_CLASS = "windowconformance.Runner"


class FlinkUnavailable(RuntimeError):
    """Java or Flink's jar is missing, or the runner does not compile."""


@dataclass(frozen=True)
class Toolchain:
    java: Path
    javac: Path
    flink_dist: Path


def find_flink_dist() -> Path:
    """`flink-dist-<FLINK_VERSION>.jar` of the installed `pyflink` (apache-flink-libraries)."""
    spec = importlib.util.find_spec("pyflink")
    if spec is None or not spec.submodule_search_locations:
        raise FlinkUnavailable(f"package 'pyflink' not found: install apache-flink-libraries=={FLINK_VERSION} "
                               "(pip install 'window-conformance[flink]')")
    for location in spec.submodule_search_locations:
        jar = Path(location) / "lib" / f"flink-dist-{FLINK_VERSION}.jar"
        if jar.is_file():
            return jar
    raise FlinkUnavailable(f"flink-dist-{FLINK_VERSION}.jar not found in pyflink/lib of "
                           f"{list(spec.submodule_search_locations)}: install apache-flink-libraries=={FLINK_VERSION}")


def find_jdk_tool(name: str) -> Path:
    """`name` (java, javac) from $JAVA_HOME/bin, else from the PATH."""
    java_home = os.environ.get("JAVA_HOME")
    candidates = [Path(java_home) / "bin" / name] if java_home else []
    on_path = shutil.which(name)
    candidates += [Path(on_path)] if on_path else []
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    raise FlinkUnavailable(f"'{name}' not found in $JAVA_HOME/bin or on the PATH: the flink implementation "
                           "needs a JDK (17 or later)")


def find_toolchain() -> Toolchain:
    return Toolchain(find_jdk_tool("java"), find_jdk_tool("javac"), find_flink_dist())


def java_sources() -> list[Path]:
    return sorted(JAVA_SOURCES.rglob("*.java"))


def build_key(toolchain: Toolchain) -> str:
    """Changes whenever the sources, the jar or the compiler change."""
    h = hashlib.sha256()
    for source in java_sources():
        h.update(source.relative_to(JAVA_SOURCES).as_posix().encode() + b"\0" + source.read_bytes())
    stat = toolchain.flink_dist.stat()
    h.update(f"{toolchain.flink_dist.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    h.update(str(toolchain.javac.resolve()).encode())
    return h.hexdigest()[:16]


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "window-conformance"


def compiled_classes(toolchain: Toolchain) -> Path:
    """The directory of the runner's classes, compiling them first if this build is not cached."""
    target = cache_root() / f"flink-{build_key(toolchain)}" / "classes"
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    # Compile aside and rename: concurrent processes (pytest-xdist) never see half a build.
    scratch = Path(tempfile.mkdtemp(prefix="classes-", dir=target.parent))
    result = subprocess.run(
        [str(toolchain.javac), "-encoding", "UTF-8", "-nowarn", "-d", str(scratch),
         "-cp", str(toolchain.flink_dist), *map(str, java_sources())],
        capture_output=True, text=True)
    if result.returncode != 0:
        shutil.rmtree(scratch, ignore_errors=True)
        raise FlinkUnavailable(f"compiling the Flink runner failed:\n{result.stdout}{result.stderr}")
    try:
        scratch.rename(target)
    except OSError:  # another process finished the same build first
        shutil.rmtree(scratch, ignore_errors=True)
    return target
