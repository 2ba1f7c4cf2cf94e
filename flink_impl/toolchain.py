"""Finding Java and Flink's jars, and compiling the runner against them (cached).

Two Flink releases run the runner: 2.3 (the default, `flink-dist` and the table jars of the installed
`apache-flink-libraries`) and 1.20, the LTS release (its modules from Maven Central at the versions that
`flink-1.20/pom.xml` pins: `./dev setup` resolves them once, and Maven answers the classpath offline
after that). Each release compiles the same harness sources (`java/`) with a shim of its own
(`shims/flink-2`, `shims/flink-1.20`: the few lines where the two APIs differ); the SQL runner adds its
own sources (`sql/`) and the table jars.

The runner is compiled once per version of its sources, of the jars and of the JDK, into
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

from window_contract.cache import cache_root, keep_newest
from window_contract.implementation import EngineUnavailable

#: The Flink release the runner is written against: `pip install apache-flink-libraries==2.3.0`.
FLINK_VERSION = "2.3.0"
HERE = Path(__file__).parent
JAVA_SOURCES = HERE / "java"
#: The SQL runner's own sources (the `flink-sql` implementations), beside the harness's.
SQL_SOURCES = HERE / "sql"
MAIN_CLASS = "windowconformance.Runner"
#: How many compiled runners the cache keeps, the last used: each release with and without SQL, for two checkouts.
KEPT_BUILDS = 8
#: Flink 2.3's table jars in `pyflink/lib`, beside `flink-dist` (which holds no table classes since 1.15); the
#: planner needs the CEP library too (`MATCH_RECOGNIZE`).
TABLE_JARS = ("flink-table-api-java-uber", "flink-table-planner-loader", "flink-table-runtime", "flink-cep")
#: The pinned Flink 1.20 modules, resolved by Maven.
POM_1_20 = HERE / "flink-1.20" / "pom.xml"


class FlinkUnavailable(EngineUnavailable):
    """Java or Flink's jars are missing, or the runner does not compile."""

    what = "Flink's toolchain (java, javac or Flink's jars)"


@dataclass(frozen=True)
class Build:
    """What one runner is compiled from and runs on: the JDK, the source folders, the jars."""

    java: Path
    javac: Path
    sources: tuple[Path, ...]
    jars: tuple[Path, ...]


def find_flink_dist() -> Path:
    """`flink-dist-<FLINK_VERSION>.jar` of the installed `pyflink` (apache-flink-libraries)."""
    return find_pyflink_jar("flink-dist")


def find_pyflink_jar(name: str) -> Path:
    """`<name>-<FLINK_VERSION>.jar` in `pyflink/lib` of the installed apache-flink-libraries."""
    spec = importlib.util.find_spec("pyflink")
    if spec is None or not spec.submodule_search_locations:
        raise FlinkUnavailable(f"package 'pyflink' not found: install apache-flink-libraries=={FLINK_VERSION} "
                               "(pip install 'window-conformance[flink]')")
    for location in spec.submodule_search_locations:
        jar = Path(location) / "lib" / f"{name}-{FLINK_VERSION}.jar"
        if jar.is_file():
            return jar
    raise FlinkUnavailable(f"{name}-{FLINK_VERSION}.jar not found in pyflink/lib of "
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


def maven_classpath(pom: Path) -> tuple[Path, ...]:
    """The jars `pom` resolves to, asked of Maven offline (`./dev setup` resolved them online), cached per pom."""
    cached = cache_root() / f"classpath-{hashlib.sha256(pom.read_bytes()).hexdigest()[:16]}.txt"
    if not cached.is_file():
        mvn = shutil.which("mvn")
        if mvn is None:
            raise FlinkUnavailable(f"'mvn' not found on the PATH: Flink {pom.parent.name} is resolved by Maven "
                                   "(./dev setup flink-1.20)")
        cached.parent.mkdir(parents=True, exist_ok=True)
        scratch = cached.with_suffix(f".{os.getpid()}.tmp")
        result = subprocess.run([mvn, "-o", "-q", "-f", str(pom), "dependency:build-classpath",
                                 f"-Dmdep.outputFile={scratch}"], capture_output=True, text=True)
        if result.returncode != 0 or not scratch.is_file():
            raise FlinkUnavailable(f"Maven could not resolve {pom} offline (`./dev setup flink-1.20` resolves it once, "
                                   f"online): {(result.stdout + result.stderr).strip()[-2000:]}")
        scratch.replace(cached)
    jars = tuple(Path(p) for p in cached.read_text().strip().split(os.pathsep) if p)
    missing = [str(j) for j in jars if not j.is_file()]
    if missing:
        cached.unlink()
        raise FlinkUnavailable(f"jars of {pom} are gone from Maven's repository (./dev setup flink-1.20): "
                               f"{missing[:3]}")
    return jars


def find_build(release: str = "2.3", sql: bool = False) -> Build:
    """The runner for Flink `release` ("2.3" or "1.20"), with the SQL runner's sources when `sql`."""
    java, javac = find_jdk_tool("java"), find_jdk_tool("javac")
    sql_sources = (SQL_SOURCES,) if sql else ()
    if release == "2.3":
        jars = (find_flink_dist(), *(map(find_pyflink_jar, TABLE_JARS) if sql else ()))
        return Build(java, javac, (JAVA_SOURCES, HERE / "shims" / "flink-2", *sql_sources), jars)
    if release == "1.20":
        jars = maven_classpath(POM_1_20)
        return Build(java, javac, (JAVA_SOURCES, HERE / "shims" / "flink-1.20", *sql_sources), jars)
    raise FlinkUnavailable(f"no runner for Flink {release}: 2.3 or 1.20")


def java_sources(build: Build) -> list[Path]:
    return sorted(source for root in build.sources for source in root.rglob("*.java"))


def build_key(build: Build) -> str:
    """Changes whenever the sources, the jars or the compiler change."""
    h = hashlib.sha256()
    for source in java_sources(build):
        h.update(source.relative_to(HERE).as_posix().encode() + b"\0" + source.read_bytes())
    for jar in build.jars:
        stat = jar.stat()
        h.update(f"{jar.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    h.update(str(build.javac.resolve()).encode())
    return h.hexdigest()[:16]


def compiled_classes(build: Build) -> Path:
    """The directory of the runner's classes, compiling them first if this build is not cached. Each use marks its
    build's folder, and a new build leaves only the `KEPT_BUILDS` last used."""
    target = cache_root() / f"flink-{build_key(build)}" / "classes"
    if target.is_dir():
        os.utime(target.parent)
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    # Compile aside and rename: concurrent processes (pytest-xdist) never see half a build.
    scratch = Path(tempfile.mkdtemp(prefix="classes-", dir=target.parent))
    result = subprocess.run(
        [str(build.javac), "-encoding", "UTF-8", "-nowarn", "-d", str(scratch),
         "-cp", os.pathsep.join(map(str, build.jars)), *map(str, java_sources(build))],
        capture_output=True, text=True)
    if result.returncode != 0:
        shutil.rmtree(scratch, ignore_errors=True)
        raise FlinkUnavailable(f"compiling the Flink runner failed:\n{result.stdout}{result.stderr}")
    try:
        scratch.rename(target)
    except OSError:  # another process finished the same build first
        shutil.rmtree(scratch, ignore_errors=True)
    keep_newest(cache_root().glob("flink-*"), KEPT_BUILDS)
    return target
