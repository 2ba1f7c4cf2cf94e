"""`python -m conformance corpus`: a portable corpus of generated cases with their expected observations.

An engine author in any language takes the corpus as files, like the JSON-Schema-Test-Suite or test262:
one file per feature (`<feature>.json`, `{"cases": [...]}` in the `window-case/1` format, each case
with its `expected` observation) and `index.json`, which says for every case the features it needs and
the situations it exercises (the labels of `strategies.situations`, read by `conformance.properties.situations`).

How the cases are made:

- For each feature, the suite's own strategies draw cases that need it (`strategies.cases`, the
  watermark cases of `strategies.watermarks` for generators and channels, `strategies.extreme_cases`
  for `extreme_values`), so they aim at the edges the suite aims at. An assigner or a generator is
  drawn alone of its kind, so its file is not mostly the others' cases. Hypothesis draws them from a
  seed of the corpus seed and the feature's name: the same options write the same bytes (with the
  Hypothesis release the project pins, and without the constants it would harvest from loaded modules).
- `expected` is the reference's observation. A case whose expected error is one of the contract's own
  stops (`NEVER_ENDS`, `TOO_MANY_OUTPUTS`, `TOO_MANY_WINDOWS`: an implementation's limit, not Flink's
  answer) is left out, so that equivalence needs no rule beyond docs/format.md's.
- Every case is then run on real Flink (`--confirm flink`, the default): a case the two disagree on is
  a bug in one of them, not a case to write, and the command stops and names it, writing nothing. The
  engine is started before anything is drawn: one that cannot run (the `flink` extra not installed, no
  Java) stops the command at once, in one line naming what is missing (could not run, exit status 3).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import zlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conformance.profiles import without_local_constants
from conformance.runner.output import OutputError, OutputFolder
from conformance.usage import UsageError
from window_contract.case import ASSIGNERS, GENERATORS, Case, case_to_json
from window_contract.difference import difference
from window_contract.equivalence import equivalent
from window_contract.facts import NEVER_ENDS, TOO_MANY_OUTPUTS, TOO_MANY_WINDOWS
from window_contract.features import ALL_FEATURES, EXTREME_VALUES, FEATURES, required_features
from window_contract.implementation import Implementation, ImplementationFailure, failure_to_run
from window_contract.observation import Observation
from window_contract.registry import load_implementation
from window_contract.schemas import CORPUS_FORMAT

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

INDEX = "index.json"
DEFAULT_OUT = Path("corpus")
DEFAULT_PER_FEATURE = 12
DEFAULT_SEED = 0
DEFAULT_CONFIRM = "flink"
#: Examples Hypothesis may draw per wanted case before a feature is given up as unreachable.
DRAWS_PER_CASE = 60
#: Errors that are the contract's way of stopping a case, not an answer Flink gives.
CONTRACT_STOPS = frozenset({NEVER_ENDS, TOO_MANY_OUTPUTS, TOO_MANY_WINDOWS})
#: Features whose cases come from the watermark strategy (generators per channel, the valve).
WATERMARK_FEATURES = frozenset(name for name in FEATURES if name.startswith(("watermark.", "channel")))
#: Features the corpus leaves out, drawn for no file: Flink SQL's cumulative windows (`CUMULATE`) and its emit strategy
#: (`after_end_of_window`), which the DataStream runtime that confirms the corpus does not have (their hand cases,
#: `cases/cumulative/` and `cases/emit/`, are Flink SQL's answers).
OUTSIDE_CORPUS = frozenset({"assigner.cumulative", "trigger.after_end_of_window", "trigger.after_end_of_window.delay"})
#: Kinds of which a case has one (assigners first): drawing for one of them leaves its siblings out.
EXCLUSIVE = tuple(frozenset(k.feature.name for k in vocabulary) for vocabulary in (ASSIGNERS, GENERATORS))
_EMISSIONS = frozenset({"watermark.periodic", "watermark.punctuated"})
#: What a plain draw for a feature needs besides an assigner: a generator needs an emission and the reverse,
#: idleness a periodic generator, a channel's status or end several channels, evicting after an evictor, a
#: processing-time trigger processing time, a purging trigger one to wrap.
COMPANIONS = ({generator: _EMISSIONS for generator in EXCLUSIVE[1]}
              | {emission: EXCLUSIVE[1] for emission in _EMISSIONS}
              | {"watermark.idleness": EXCLUSIVE[1] | {"watermark.periodic"},
                 "channel.status": frozenset({"channels"}), "channel.end": frozenset({"channels"}),
                 "evictor.after": frozenset({"evictor.count", "evictor.time"}),
                 "trigger.processing_time": frozenset({"time.processing"}),
                 "trigger.continuous_processing_time": frozenset({"time.processing"}),
                 "trigger.purging": frozenset({"trigger.count", "trigger.event_time"})})
#: Features that only some assigners take (a plain draw for them uses only those): `NeverTrigger` is the
#: global window's, and a count window's trigger can be replaced by it.
ASSIGNERS_FOR = {"trigger.never": frozenset({"assigner.global", "assigner.count"})}


@dataclass(frozen=True)
class Entry:
    """One case of the corpus: drawn for `feature`, with its expected observation and what it exercises."""

    feature: str
    case: Case
    exercises: tuple[str, ...]

    def index_entry(self) -> dict[str, Any]:
        return {"name": self.case.name, "features": sorted(required_features(self.case)),
                "exercises": list(self.exercises)}


def drawing_features(feature: str, *, plain: bool = False) -> frozenset[str]:
    """The features a strategy may use when drawing cases for `feature`: everything but the extreme
    values (opt-in) and `feature`'s siblings of an exclusive kind; when `plain`, only `feature`, the
    assigners and what the strategies need to reach it (`COMPANIONS`), so that an engine with few
    features has cases too (`ASSIGNERS_FOR` narrows the assigners for a feature only some take)."""
    if plain:
        drawable = EXCLUSIVE[0] - OUTSIDE_CORPUS
        assigners = ASSIGNERS_FOR.get(feature, drawable) if feature not in EXCLUSIVE[0] else frozenset()
        return frozenset({feature}) | assigners | COMPANIONS.get(feature, frozenset())
    chosen = (ALL_FEATURES if feature == EXTREME_VALUES.name else ALL_FEATURES - {EXTREME_VALUES.name}) - OUTSIDE_CORPUS
    for kind in EXCLUSIVE:
        if feature in kind:
            chosen -= kind - {feature}
    return chosen


def strategy_for(feature: str, *, plain: bool = False) -> SearchStrategy[Case]:
    from strategies import cases, extreme_cases
    from strategies.watermarks import generated_watermark_cases

    features = drawing_features(feature, plain=plain)
    if feature == EXTREME_VALUES.name:
        return extreme_cases(features)
    if feature in WATERMARK_FEATURES:
        return generated_watermark_cases(features)
    return cases(features, report=False)


class _Enough(Exception):
    """Raised from the drawing test once it holds enough cases: Hypothesis, told not to shrink, stops there."""


def draw_cases(feature: str, count: int, seed: int, keep: Callable[[Case], bool], *, plain: bool = False) -> list[Case]:
    """The first `count` distinct cases that need `feature` and that `keep` accepts, drawn by Hypothesis
    from `seed`, the feature's name and `plain` (the same arguments draw the same cases); fewer when the
    strategies reach the feature rarely or never in `count * DRAWS_PER_CASE` examples."""
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis import seed as hypothesis_seed

    found: dict[str, Case] = {}

    @settings(database=None, max_examples=count * DRAWS_PER_CASE, phases=[Phase.generate], deadline=None,
              derandomize=False, suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet)
    @hypothesis_seed(seed ^ zlib.crc32(f"{feature}{' plain' if plain else ''}".encode()))
    @given(strategy_for(feature, plain=plain))
    def collect(case: Case) -> None:
        if len(found) < count and feature in required_features(case):
            key = json.dumps(case_to_json(case))
            if key not in found and keep(case):
                found[key] = case
        if len(found) >= count:
            raise _Enough

    with contextlib.suppress(_Enough), without_local_constants():
        collect()
    return list(found.values())


def entries_for(feature: str, per_feature: int, seed: int) -> list[Entry]:
    """The corpus's entries for `feature`: half of them plain (drawn with as few other features as the
    strategies need), then the others drawn with every feature; each case named `<feature> #<n>` and
    with the reference's observation as `expected`."""
    from conformance.properties.situations import observed_situations

    observed: dict[Case, tuple[Observation, Counter[str]]] = {}  # the reference runs once per case

    def keep(case: Case) -> bool:
        if case not in observed:
            observed[case] = observed_situations(case)
        error = observed[case][0].error
        return error is None or error.message not in CONTRACT_STOPS

    plain = draw_cases(feature, per_feature // 2, seed, keep, plain=True)
    drawn = plain + draw_cases(feature, per_feature - len(plain), seed, keep)
    return [Entry(feature, replace(case, name=f"{feature} #{n}", expected=observed[case][0]),
                  tuple(sorted(observed[case][1])))
            for n, case in enumerate(drawn)]


def disagreements(entries: Sequence[Entry], impl: Implementation) -> list[str]:
    """Every entry whose expected observation `impl` does not give, with how the two differ (one
    batched `run` call)."""
    observed = impl.run([e.case for e in entries])
    return [f"{e.case.name}:\n  " + difference(e.case.expected, o, len(e.case.events)).replace("\n", "\n  ")
            for e, o in zip(entries, observed, strict=True) if not equivalent(e.case.expected, o)]


def file_name(feature: str) -> str:
    return f"{feature}.json"


def is_corpus_index(path: Path) -> bool:
    """Whether `path` is a corpus's `index.json`, which a folder of cases holds beside its case files."""
    if path.name != INDEX:
        return False
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("format") == CORPUS_FORMAT
    except (OSError, ValueError, AttributeError):
        return False


def json_lines(items: Sequence[Any]) -> str:
    """A JSON list with one item a line: small diffs, and a reader sees where each item starts."""
    return "[\n" + ",\n".join(json.dumps(item) for item in items) + "\n]"


def write(entries: Sequence[Entry], out: Path, *, per_feature: int, seed: int,
          not_drawn: Sequence[str] = ()) -> list[str]:
    """One file per feature and `index.json` (which names the features `not_drawn`: no strategy reaches
    them, or the corpus leaves them out, `OUTSIDE_CORPUS`) in the folder `out`; the names written."""
    by_feature: dict[str, list[Entry]] = {}
    for e in entries:
        by_feature.setdefault(e.feature, []).append(e)
    out.mkdir(parents=True, exist_ok=True)
    for feature, group in by_feature.items():
        cases = json_lines([case_to_json(e.case) for e in group])
        (out / file_name(feature)).write_text(f'{{"cases": {cases}}}\n', encoding="utf-8")
    index = {"format": CORPUS_FORMAT, "seed": seed, "per_feature": per_feature,
             "files": {file_name(feature): FEATURES[feature] for feature in by_feature},
             "not_drawn": list(not_drawn)}
    listed = json_lines([{"file": file_name(e.feature), "index": n} | e.index_entry()
                         for group in by_feature.values() for n, e in enumerate(group)])
    (out / INDEX).write_text(json.dumps(index)[:-1] + f', "cases": {listed}}}\n', encoding="utf-8")
    return [INDEX, *map(file_name, by_feature)]


def corpus(args: argparse.Namespace) -> int:
    """Draw, confirm and write the corpus (the module's docstring). The folder is checked (and taken, as
    `run` takes its own: `OutputFolder`) before anything is drawn; it gets the corpus only when every case
    was confirmed, and the files of an earlier corpus (its manifest's) are replaced only with `--force`."""
    unknown = sorted(set(args.features) - ALL_FEATURES)
    if unknown:
        raise UsageError(f"--features: unknown feature names {', '.join(unknown)}; known: {', '.join(FEATURES)}")
    if args.per_feature < 1:
        raise UsageError("--per-feature must be at least 1")
    try:
        out = OutputFolder.claim(args.out, args.force, names=(INDEX, *map(file_name, args.features)))
    except OutputError as e:
        raise UsageError(str(e)) from None
    try:
        impl = None if args.confirm == "none" else confirming(args.confirm)
        entries, not_drawn = drawn(args.features, args.per_feature, args.seed, args.confirm)
        if impl is not None:
            print(f"corpus: running the {len(entries)} cases on {args.confirm} (one run call)", file=sys.stderr,
                  flush=True)
            with could_not_run(args.confirm):
                differing = disagreements(entries, impl)
            if differing:
                out.abandon()
                print(f"error: {impl.name} disagrees with the reference on {len(differing)} cases (a bug in one "
                      "of them: nothing written)\n" + "\n".join(differing), file=sys.stderr)
                return 1
            print(f"corpus: {impl.name} agrees with the reference on every case", file=sys.stderr)
        out.note(write(entries, out.staging, per_feature=args.per_feature, seed=args.seed, not_drawn=not_drawn))
        out.commit()
    except BaseException:
        out.abandon()
        raise
    print(f"corpus: wrote {args.out}", file=sys.stderr)
    return 0


def confirming(name: str) -> Implementation:
    """The implementation the corpus is confirmed on, its engine started (`start()`, where it has one)."""
    print(f"corpus: starting {name}, which confirms every case (an engine takes a while to start)", file=sys.stderr,
          flush=True)
    impl = load_implementation(name)
    start = getattr(impl, "start", None)
    if start is not None:
        with could_not_run(name):
            start()
    return impl


@contextlib.contextmanager
def could_not_run(name: str):
    """An engine's failure to run (`failure_to_run`: a missing package or Java, a lost JVM) as
    `ImplementationFailure`, in one line that says what is missing; any other exception is a bug, raised as it is."""
    try:
        yield
    except Exception as e:
        reason = failure_to_run(e)
        if reason is None:
            raise
        raise ImplementationFailure(f"{name} could not confirm the corpus: {reason} (--confirm none writes it "
                                    "unconfirmed)") from e


def drawn(features: Sequence[str], per_feature: int, seed: int, confirm: str) -> tuple[list[Entry], list[str]]:
    """The entries of every feature, and the features no strategy draws; `confirm` names the implementation
    the cases will be confirmed on (`none`)."""
    entries, not_drawn = [], []
    print(f"corpus: drawing {per_feature} cases for each of {len(features)} features (seed {seed}), then running "
          "them on the reference" + ("" if confirm == "none" else f" and {confirm}"), file=sys.stderr, flush=True)
    for n, feature in enumerate(features, 1):
        found = entries_for(feature, per_feature, seed) if feature not in OUTSIDE_CORPUS else []
        entries += found
        if not found:
            not_drawn.append(feature)
        print(f"corpus: [{n}/{len(features)}] {feature}: {len(found)} cases"
              + ("" if found else " (left out of the corpus)" if feature in OUTSIDE_CORPUS
                 else " (no strategy draws it)"), file=sys.stderr, flush=True)
    return entries, not_drawn


def add_corpus_command(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser(
        "corpus", help="write a portable corpus: generated cases with expected observations, by feature",
        description=__doc__.split("\n\n")[0].split(": ", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("--out", type=Path, default=DEFAULT_OUT, metavar="DIR",
                   help=f"the folder to write (default: {DEFAULT_OUT}), empty or an earlier corpus's")
    c.add_argument("--force", action="store_true",
                   help="replace an earlier corpus in --out (only the files its manifest lists; a user's "
                        "other files stay)")
    c.add_argument("--features", nargs="+", default=list(FEATURES), metavar="NAME",
                   help="the features to draw cases for (default: every feature)")
    c.add_argument("--per-feature", type=int, default=DEFAULT_PER_FEATURE, metavar="N",
                   help=f"cases per feature, half of them with as few other features as can be "
                        f"(default: {DEFAULT_PER_FEATURE})")
    c.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"the drawing seed (default: {DEFAULT_SEED})")
    c.add_argument("--confirm", default=DEFAULT_CONFIRM, metavar="NAME",
                   help=f"run every case on this implementation too and stop on a disagreement (default: "
                        f"{DEFAULT_CONFIRM}, real Flink; 'none' skips it)")
    c.set_defaults(func=corpus)
