"""`python -m conformance.mutation.machine [--corpus DIR] [--record] [--profile ci] [--sample N] [--only MODULE]
[--jobs N]`

The machine mutation run: every mutant the standard operators make of `reference/`
(`machine_mutants`) runs on the corpus of the suite's generated cases and the case files
(`machine_corpus`), and the branch coverage of the reference under that corpus is printed beside it.

How a mutant is judged, fast: the unmutated reference runs the corpus once, in this process, and its
observation of each case is kept together with the reference lines the case executes. Each mutant
then runs in a forked child (the corpus stays in memory, shared), which imports the mutated module
from the mutant's source and again every reference module that imports it, and runs only the cases
that execute the mutated lines (all of them for a change at module or class level, which runs at
import), the fastest first. It is *killed* by the first case whose observation is not equivalent
(`window_contract.equivalence`) or that raises where the reference did not; *timed out* when its child
outlives its budget, 10 s and five times the reference's time on its cases (a loop the mutant made
endless: the reference ends every case); *survived* otherwise, and *not reached* when no case
executes its lines. A survivor listed in `equivalent.toml` with its reason is *equivalent*; a module
listed there as out of scope is left out of the score. The contract's limit on one key's outputs
(`window_contract.facts.OUTPUT_LIMIT`) is lowered to `OUTPUT_LIMIT_HERE` for the whole run, reference and
mutants alike: a case that fires its window's contents without end stops after that many firings, in
milliseconds, so it stays in the corpus and a mutant of the limit or of the loop is judged on it the same
way on every machine (killed, or timed out when it no longer stops). (A chain of timers over an empty
window costs nothing whatever its length: `reference.timer_chains` steps over it, or calls it endless.) A case the
reference still takes over a second of CPU on is left out of the corpus, and counted.

The score is killed and timed out over every mutant neither equivalent nor out of scope; the run
fails below `--target` (97%) and when the equivalence file names a mutant that was killed.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import functools
import hashlib
import importlib.abc
import importlib.util
import io
import json
import os
import resource
import select
import sys
import tempfile
import time
import tomllib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from conformance.mutation.loader import REFERENCE, reference_dir
from conformance.mutation.machine_corpus import read_corpus, record_suite_cases
from conformance.mutation.machine_mutants import MachineMutant, module_mutants, reference_modules
from conformance.profiles import PROFILES
from window_contract import facts
from window_contract.case import Case
from window_contract.equivalence import equivalent
from window_contract.join_case import JoinCase
from window_contract.join_observation import JoinObservation, join_equivalent
from window_contract.observation import Observation

EQUIVALENT_FILE = Path(__file__).resolve().parent / "equivalent.toml"
TARGET = 0.97
#: A child's address space: a mutant that grows a list for ever fails with MemoryError, not the machine.
MEMORY_LIMIT = 2 << 30
#: CPU seconds the reference may take over one case of the corpus (see `record_baseline`).
CASE_BUDGET = 1.0
#: The limit on one key's outputs in the run. Low enough that a case that fires without end costs
#: milliseconds, high enough that no case of the corpus that ends comes near it.
OUTPUT_LIMIT_HERE = 10_000

T = TypeVar("T")


@dataclass(frozen=True)
class Baseline:
    """What the unmutated reference does with each case of the corpus."""

    cases: list[Case]
    observations: list[Observation | str]  # a str: the exception the reference raised
    lines: list[frozenset[tuple[str, int]]]  # the (module, line) pairs each case executes
    seconds: list[float]  # how long each case takes, untraced
    setup: frozenset[tuple[str, int]]  # the lines importing and building the reference run


@dataclass(frozen=True)
class Verdict:
    mutant: MachineMutant
    outcome: str  # killed, timed out, survived, not reached
    detail: str = ""
    seconds: float = 0.0


# --- the reference, imported afresh ------------------------------------------------------------------

class _MutatedModule(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves one module of the reference from the mutant's source; every other module comes from disk."""

    def __init__(self, fullname: str, source: str, origin: Path) -> None:
        self.fullname, self.source, self.origin = fullname, source, origin

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.fullname:
            return None
        return importlib.util.spec_from_file_location(fullname, self.origin, loader=self)

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        exec(compile(self.source, f"{self.origin} [machine mutant]", "exec"), module.__dict__)


def fresh_reference(mutant: MachineMutant | None = None):
    """The reference implementation imported anew (in a forked child), with `mutant`'s module in place.

    Only the mutated module and the reference modules that import it, directly or not, are imported
    again (their `from reference.x import y` bound the old objects); the others are kept, which saves
    most of a child's time. Without a mutant the whole package is imported again."""
    stale = set(_loaded_reference()) if mutant is None else _importers_of(_fullname(mutant.module))
    for name in stale:
        sys.modules.pop(name, None)
        parent, _, child = name.rpartition(".")
        if parent in sys.modules and parent not in stale:
            sys.modules[parent].__dict__.pop(child, None)  # or `from reference import x` finds the old one
    if mutant is not None:
        modules = reference_modules(reference_dir())
        sys.meta_path.insert(0, _MutatedModule(_fullname(mutant.module), mutant.source, modules[mutant.module]))
    return importlib.import_module(f"{REFERENCE}.implementation").ReferenceImplementation()


@functools.cache
def _imports() -> dict[str, set[str]]:
    """For each reference module (full name), the reference modules that import it."""
    importers: dict[str, set[str]] = {}
    for name, path in reference_modules(reference_dir()).items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == REFERENCE:
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for target in targets:
                importers.setdefault(target, set()).add(_fullname(name))
    return importers


def _importers_of(fullname: str) -> set[str]:
    """`fullname`, every reference module importing it directly or not, and a package's submodules."""
    found, todo = set(), [fullname]
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            todo += _imports().get(name, ())
            todo += [n for n in sys.modules if n.startswith(name + ".")]
    return found


def _loaded_reference() -> dict[str, object]:
    """The reference's modules this process has loaded, by full name."""
    return {n: m for n, m in sys.modules.items() if n == REFERENCE or n.startswith(REFERENCE + ".")}


def _fullname(module: str) -> str:
    return f"{REFERENCE}.{module}" if module else REFERENCE


@contextlib.contextmanager
def _reference_kept() -> Iterator[None]:
    """The reference modules this process had loaded, loaded again once the block has imported anew.

    A fresh import replaces the classes: left in place, an object made by one `reference.triggers`
    would fail `isinstance` against the class another module (or a test) imported earlier."""
    kept = _loaded_reference()
    try:
        yield
    finally:
        for name in _loaded_reference():
            del sys.modules[name]
        sys.modules.update(kept)
        for name, module in kept.items():
            parent, _, child = name.rpartition(".")
            if parent in kept:
                setattr(kept[parent], child, module)


def _outcome(impl, case: Case | JoinCase) -> Observation | JoinObservation | str:
    """The reference's observation of a window case, or of a join case (`run_joins`), or the crash."""
    try:
        return (impl.run_joins if isinstance(case, JoinCase) else impl.run)([case])[0]
    except Exception as e:  # a crash is an outcome to compare, not a failure of the run
        return f"{type(e).__name__}: {e}"


def record_baseline(cases: Sequence[Case], case_budget: float = CASE_BUDGET) -> Baseline:
    """The reference's outcome of every case and the reference lines it executes (a line tracer).

    A case the reference takes more than `case_budget` seconds of CPU over (not of the clock: what is left
    out must not depend on the machine's load) is left out: every mutant that reaches it would pay that
    many seconds."""
    with _reference_kept():
        _, setup = _traced(fresh_reference)  # a fresh import: module and class bodies run again
    impl = importlib.import_module(f"{REFERENCE}.implementation").ReferenceImplementation()
    kept, observations, lines, seconds = [], [], [], []
    for case in cases:
        started, cpu = time.perf_counter(), time.process_time()
        _outcome(impl, case)
        took = time.perf_counter() - started  # a mutant's child is timed by the clock: so is its budget
        if time.process_time() - cpu > case_budget:
            continue
        observation, executed = _traced(lambda case=case: _outcome(impl, case))
        observations.append(observation)
        kept.append(case)
        lines.append(executed)
        seconds.append(took)
    return Baseline(kept, observations, lines, seconds, setup)


def _traced(call: Callable[[], T]) -> tuple[T, frozenset[tuple[str, int]]]:
    """What `call` returns, and the (module, line) pairs of `reference/` it executes."""
    modules = {str(path): name for name, path in reference_modules(reference_dir()).items()}
    executed: set[tuple[str, int]] = set()

    def local(frame, event, arg):
        if event == "line":
            executed.add((modules[frame.f_code.co_filename], frame.f_lineno))
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code.co_filename in modules else None

    sys.settrace(tracer)
    try:
        result = call()
    finally:
        sys.settrace(None)
    return result, frozenset(executed)


# --- one mutant in a forked child --------------------------------------------------------------------

def reaching(baseline: Baseline, mutant: MachineMutant) -> list[int]:
    """The cases that execute the mutant's lines (every case for a change outside any function, or in
    one that importing or building the reference runs, such as `TriggerResult.__init__`), the fastest
    first."""
    span = {(mutant.module, line) for line in range(mutant.line, mutant.end_line + 1)}
    everywhere = not mutant.function or not span.isdisjoint(baseline.setup)
    chosen = [i for i, lines in enumerate(baseline.lines) if everywhere or not span.isdisjoint(lines)]
    return sorted(chosen, key=lambda i: baseline.seconds[i])


def judge(baseline: Baseline, mutant: MachineMutant, chosen: list[int]) -> tuple[str, str]:
    """The outcome of `mutant` on the chosen cases: `("killed", why)` or `("survived", "")`."""
    try:
        impl = fresh_reference(mutant)
    except Exception as e:
        return "killed", f"the mutated reference does not import: {type(e).__name__}: {e}"
    for i in chosen:
        expected, actual = baseline.observations[i], _outcome(impl, baseline.cases[i])
        same = (actual == expected if isinstance(expected, str) or isinstance(actual, str)
                else join_equivalent(actual, expected) if isinstance(expected, JoinObservation)
                else equivalent(actual, expected))
        if not same:
            shown = actual if isinstance(actual, str) else "a different observation"
            return "killed", f"corpus case {i}: {shown}"[:300]
    return "survived", ""


def _child(baseline: Baseline, mutant: MachineMutant, chosen: list[int], out: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    sys.setrecursionlimit(2000)
    try:
        message = judge(baseline, mutant, chosen)
    except BaseException as e:  # noqa: BLE001 - whatever the mutant does, the parent hears of it
        message = ("killed", f"{type(e).__name__}: {e}"[:300])
    os.write(out, json.dumps(message).encode("utf-8"))


@dataclass
class _Running:
    mutant: MachineMutant
    pid: int
    pipe: int
    started: float
    deadline: float


def run_mutants(baseline: Baseline, mutants: Sequence[MachineMutant], jobs: int, timeout: Callable[[float], float],
                on_verdict: Callable[[Verdict], None] = lambda v: None) -> list[Verdict]:
    """Every mutant judged in its own forked child, `jobs` at a time; `timeout(seconds)` is a child's
    budget given the reference's time on its cases."""
    _imports()  # parsed once here, not in every child
    verdicts: list[Verdict] = []
    todo: Iterator[MachineMutant] = iter(mutants)
    running: list[_Running] = []

    def done(verdict: Verdict) -> None:
        verdicts.append(verdict)
        on_verdict(verdict)

    def start() -> bool:
        for mutant in todo:
            chosen = reaching(baseline, mutant)
            if not chosen:
                done(Verdict(mutant, "not reached"))
                continue
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child
                os.close(read)
                try:
                    _child(baseline, mutant, chosen, write)
                finally:
                    os._exit(0)
            os.close(write)
            now = time.monotonic()
            running.append(_Running(mutant, pid, read, now, now + timeout(sum(baseline.seconds[i] for i in chosen))))
            return True
        return False

    while True:
        while len(running) < jobs and start():
            pass
        if not running:
            return verdicts
        select.select([r.pipe for r in running], [], [], 0.05)
        for r in list(running):
            pid, _ = os.waitpid(r.pid, os.WNOHANG)
            now = time.monotonic()
            if pid == 0 and now < r.deadline:
                continue
            if pid == 0:
                os.kill(r.pid, 9)
                os.waitpid(r.pid, 0)
                verdict = Verdict(r.mutant, "timed out", f"after {now - r.started:.1f}s", now - r.started)
            else:
                message = _read_all(r.pipe)
                outcome, detail = json.loads(message) if message else ("killed", "the child died without a word")
                verdict = Verdict(r.mutant, outcome, detail, now - r.started)
            os.close(r.pipe)
            running.remove(r)
            done(verdict)


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    return b"".join(chunks)


# --- coverage ------------------------------------------------------------------------------------------

def branch_coverage(cases: Sequence[Case]) -> str:
    """coverage.py's branch report of `reference/` while the reference runs `cases`, imported afresh in a
    forked child so that its module-level lines count too."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            import coverage

            cov = coverage.Coverage(branch=True, data_file=None, include=[str(reference_dir() / "*")])
            cov.start()
            impl = fresh_reference()
            for case in cases:
                _outcome(impl, case)
            cov.stop()
            report = io.StringIO()
            cov.report(file=report, show_missing=True, ignore_errors=True)
            os.write(write, report.getvalue().encode("utf-8"))
        finally:
            os._exit(0)
    os.close(write)
    report = _read_all(read).decode("utf-8")
    os.close(read)
    os.waitpid(pid, 0)
    return report.replace(str(reference_dir().parent) + os.sep, "")


# --- the equivalence file and the report ---------------------------------------------------------------

@dataclass(frozen=True)
class Exemptions:
    equivalent: dict[str, str]  # mutant key -> why no case can tell it from the reference
    out_of_scope: dict[str, str]  # module or package -> why no observation depends on it


def read_exemptions(path: Path = EQUIVALENT_FILE) -> Exemptions:
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    equivalent_mutants = {}
    for entry in doc.get("equivalent", []):
        if set(entry) != {"mutants", "reason"} or not entry["reason"].strip() or not entry["mutants"]:
            raise ValueError(f"{path.name}: each [[equivalent]] has a non-empty reason and the mutants it explains: "
                             f"{entry}")
        equivalent_mutants.update(dict.fromkeys(entry["mutants"], entry["reason"]))
    return Exemptions(equivalent_mutants, dict(doc.get("out_of_scope", {})))


def all_mutants() -> list[MachineMutant]:
    return [m for name, path in reference_modules(reference_dir()).items()
            for m in module_mutants(name, path.read_text(encoding="utf-8"))]


def within(mutants: Sequence[MachineMutant], only: str | None) -> list[MachineMutant]:
    """The mutants of module `only` (a dotted name under `reference/`) and of its submodules; all without it."""
    if only is None:
        return list(mutants)
    chosen = [m for m in mutants if m.module == only or m.module.startswith(only + ".")]
    if not chosen:
        raise SystemExit(f"error: --only {only}: no module of reference/ by that name makes mutants")
    return chosen


def sample(mutants: Sequence[MachineMutant], n: int | None) -> list[MachineMutant]:
    """`n` mutants chosen by the hash of their key: the same ones while the reference keeps them."""
    if n is None or n >= len(mutants):
        return list(mutants)
    chosen = sorted(mutants, key=lambda m: hashlib.sha256(m.key.encode()).hexdigest())[:n]
    return sorted(chosen, key=mutants.index)


@dataclass(frozen=True)
class Score:
    counts: dict[str, Counter[str]]  # module -> outcome -> how many
    killed: int
    scored: int
    wrongly_equivalent: list[str]  # keys the equivalence file names that a case kills

    @property
    def rate(self) -> float:
        return self.killed / self.scored if self.scored else 1.0


def classify(verdict: Verdict, exemptions: Exemptions) -> str:
    module = verdict.mutant.module
    if any(module == m or module.startswith(m + ".") for m in exemptions.out_of_scope):  # a package: its modules
        return "out of scope"
    if verdict.outcome in ("survived", "not reached") and verdict.mutant.key in exemptions.equivalent:
        return "equivalent"
    return verdict.outcome


def score(verdicts: Sequence[Verdict], exemptions: Exemptions) -> Score:
    counts: dict[str, Counter[str]] = {}
    for v in verdicts:
        counts.setdefault(v.mutant.module or "__init__", Counter())[classify(v, exemptions)] += 1
    total = sum(counts.values(), Counter())
    killed = total["killed"] + total["timed out"]
    wrongly = [v.mutant.key for v in verdicts if v.outcome in ("killed", "timed out")
               and v.mutant.key in exemptions.equivalent]
    return Score(counts, killed, killed + total["survived"] + total["not reached"], wrongly)


OUTCOMES = ("killed", "timed out", "survived", "not reached", "equivalent", "out of scope")


def table(result: Score) -> str:
    rows = [f"{'module':38}{'made':>6}" + "".join(f"{o:>14}" for o in OUTCOMES)]
    for module, counts in sorted(result.counts.items()):
        rows.append(f"{module:38}{sum(counts.values()):6}" + "".join(f"{counts[o]:14}" for o in OUTCOMES))
    total = sum(result.counts.values(), Counter())
    rows.append(f"{'all':38}{sum(total.values()):6}" + "".join(f"{total[o]:14}" for o in OUTCOMES))
    return "\n".join(rows)


# --- the command ---------------------------------------------------------------------------------------

def limit_outputs_to(limit: int) -> None:
    """The contract's limit on one key's outputs as the reference will read it when it is imported: before it is."""
    if any(name.startswith(f"{REFERENCE}.") for name in sys.modules):
        raise RuntimeError("the output limit must be set before the reference is imported")
    facts.OUTPUT_LIMIT = limit


def corpus(directory: Path | None, record: bool, profile: str, recordings: Path | None = None) -> list[Case]:
    if directory is None:
        directory = Path(tempfile.mkdtemp(prefix="mutation-corpus-"))
    if record or not any(directory.glob("cases-*.jsonl")):
        for old in directory.glob("cases-*.jsonl"):
            old.unlink()
        started = time.monotonic()
        record_suite_cases(directory, profile, recordings=recordings)
        print(f"recorded the suite's cases ({profile} profile) into {directory} in "
              f"{time.monotonic() - started:.0f}s", flush=True)
    return read_corpus(directory)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.mutation.machine",
                                     description=__doc__.split("\n\n")[1])
    parser.add_argument("--corpus", type=Path, help="the folder of recorded cases: reused when it holds some "
                                                    "(default: a new temporary folder, recorded now)")
    parser.add_argument("--record", action="store_true", help="record the corpus again even if the folder has one")
    parser.add_argument("--window-recordings", type=Path, metavar="DIR",
                        help="replay, while recording, the examples a run of the suite with the reference's features "
                             "drew into this folder (./dev test gives its own): the same cases, drawn once")
    parser.add_argument("--profile", default="ci", choices=sorted(PROFILES), help="Hypothesis profile (default ci)")
    parser.add_argument("--sample", type=int, metavar="N", help="only N mutants, chosen by a hash of their key")
    parser.add_argument("--only", metavar="MODULE", help="only the mutants of this reference module or package "
                                                         "(a dotted name under reference/, e.g. watermarks)")
    parser.add_argument("--jobs", type=int, default=2, help="mutants run at a time (default 2)")
    parser.add_argument("--target", type=float, default=TARGET, help="the least share killed (default 0.97)")
    parser.add_argument("--no-coverage", action="store_true", help="skip the branch coverage report")
    parser.add_argument("--survivors", action="store_true", help="list every survivor, equivalent ones too")
    args = parser.parse_args(argv)

    limit_outputs_to(OUTPUT_LIMIT_HERE)
    cases = corpus(args.corpus, args.record, args.profile, args.window_recordings)
    started = time.monotonic()
    baseline = record_baseline(cases)
    print(f"corpus: {len(baseline.cases)} cases, the reference runs them in {sum(baseline.seconds):.1f}s "
          f"({time.monotonic() - started:.0f}s with its lines traced); {len(cases) - len(baseline.cases)} left out, "
          f"each over {CASE_BUDGET:g}s", flush=True)
    exemptions = read_exemptions()
    mutants = sample(within(all_mutants(), args.only), args.sample)
    started = time.monotonic()
    judged = Counter[str]()

    def progress(verdict: Verdict) -> None:
        judged[verdict.outcome] += 1
        if judged.total() % 100 == 0:
            print(f"{judged.total()} of {len(mutants)} mutants judged, "
                  f"{judged.total() / (time.monotonic() - started):.1f}/s", flush=True)

    verdicts = run_mutants(baseline, mutants, args.jobs, timeout=lambda seconds: 10 + 5 * seconds,
                           on_verdict=progress)
    elapsed = time.monotonic() - started
    result = score(verdicts, exemptions)
    print(f"\n{table(result)}\n\n{len(verdicts)} mutants in {elapsed:.0f}s wall, {args.jobs} at a time: "
          f"{len(verdicts) / elapsed:.1f} mutants/s")
    for v in sorted(verdicts, key=lambda v: (v.mutant.module, v.mutant.line)):
        kind = classify(v, exemptions)
        if kind in ("survived", "not reached") or (args.survivors and kind == "equivalent"):
            print(f"{kind}: reference/{v.mutant.module.replace('.', '/') or '__init__'}.py:{v.mutant.line}  "
                  f"{v.mutant.key}")
    if not args.no_coverage:
        print(f"\nbranch coverage of reference/ under the corpus:\n{branch_coverage(cases)}")
    for key in result.wrongly_equivalent:
        print(f"error: {EQUIVALENT_FILE.name} calls a mutant equivalent that a case kills: {key}")
    print(f"\nscore: {result.killed} of {result.scored} non-equivalent mutants killed ({result.rate:.1%}; "
          f"target {args.target:.0%})")
    return 0 if result.rate >= args.target and not result.wrongly_equivalent else 1


if __name__ == "__main__":
    sys.exit(main())
