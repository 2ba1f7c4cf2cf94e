"""Hypothesis profiles: `dev` (fast), `ci` (deterministic, the default under CI=true; the suite against
every implementation and the mutation check run with it), `ci-slow` (`ci` with fewer examples, for a
quick look at an implementation that runs a job per call without prefetching), `thorough`. Each sets how long
Hypothesis may shrink a property's failures (`SHRINK_SECONDS`).

Choose one with `--hypothesis-profile NAME` or the environment variable `HYPOTHESIS_PROFILE`.

Every process that registers the profiles draws without the constants Hypothesis harvests from the
source of the local modules it has loaded (`without_local_constants`): with them, what a derandomized
test draws depends on which modules were imported before it ran (which tests an xdist worker ran
first, whether an implementation's modules were loaded), so CI's examples were not the same from one
run to the next, and a prefetched test's second pass did not draw what its recording pass had fetched.
Hypothesis's own constants (powers of two, the ends of the ranges) stay.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator
from unittest import mock

from hypothesis import HealthCheck, Phase, settings

_COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}
# No explain phase: it replays the minimal failing example under line tracing (slow before Python
# 3.12) to list lines only failing examples ran; a PropertyViolation already names the rule and the
# difference. No target phase under `ci` (`thorough` keeps it): with a budget under 1,000 examples,
# Hypothesis spends the second half of it hill-climbing `strategies.situations`' targets from the best
# example so far, which in `matches_reference` made near-copies of one large batch: 16.7 s of its 300
# examples, against 8.6 s without, and without it every situation is still reached, the rare ones in
# two to five times as many examples (a merge rescuing a late element: 3% -> 14%; two sessions bridged:
# 7% -> 27%), the common ones in fewer (more than 50 events: 57% -> 15%); and the mutation check, whose
# profiles are these without shrinking (`conformance.mutation.plugin`), still kills all 62 mutants.
_CI = {**_COMMON, "derandomize": True, "database": None, "print_blob": True,
       "phases": [Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink]}

# Each profile's parent is Hypothesis's `default` profile: a `settings` without one inherits the loaded
# profile, which under CI (the CI environment variable) is Hypothesis's own `ci`, derandomized: `dev`
# and `thorough` then drew the same examples every run, and `run`'s seed changed nothing.
_DEFAULT = settings.get_profile("default")

PROFILES = {
    "dev": settings(_DEFAULT, max_examples=30, **_COMMON),
    # derandomize: the same examples on every run, so CI is reproducible; database off for the same reason
    "ci": settings(_DEFAULT, max_examples=100, **_CI),
    # ci for implementations that cost a Spark job or a Flink job per run call when they are not
    # prefetched (`--prefetch`): the same derandomized examples, fewer of them
    "ci-slow": settings(_DEFAULT, max_examples=10, **_CI),
    "thorough": settings(_DEFAULT, max_examples=2000, **_COMMON),
}


#: How long Hypothesis may shrink the failures of one property, in seconds, by profile (`shrinking_within`):
#: then the smallest failing example it has is reported, and the suite makes its case smaller still, one step at a
#: time (`conformance.simplest`). Hypothesis's own limit, five minutes, is `thorough`'s.
SHRINK_SECONDS = {"dev": 10.0, "ci": 120.0, "ci-slow": 120.0, "thorough": 300.0}

#: How Hypothesis's warning begins when it stops shrinking at its limit.
_SLOW_SHRINKING = "WARNING: Hypothesis has spent more than five minutes working to shrink"


@contextlib.contextmanager
def shrinking_within(seconds: float) -> Iterator[None]:
    """Hypothesis stops shrinking a property's failures after `seconds` (its `MAX_SHRINKING_SECONDS`, which it
    keeps monkeypatchable for this), and says so in the suite's words instead of its five-minute warning."""
    from hypothesis.internal.conjecture import engine

    plain = engine.report

    def report(text: str) -> None:
        if text.startswith(_SLOW_SHRINKING):
            text = (f"Shrinking stopped at the profile's budget of {seconds:g} s (conformance.profiles."
                    "SHRINK_SECONDS): the counterexample is the smallest failing example found by then, its case "
                    "made smaller still one step at a time")
        plain(text)

    with mock.patch.object(engine, "MAX_SHRINKING_SECONDS", seconds), mock.patch.object(engine, "report", report):
        yield


def shrink_budget() -> float:
    """The loaded profile's shrinking budget (`SHRINK_SECONDS`; Hypothesis's own for a profile of another name)."""
    from hypothesis.internal.conjecture import engine

    return SHRINK_SECONDS.get(settings.get_current_profile_name(), engine.MAX_SHRINKING_SECONDS)


def register_profiles() -> None:
    """Register `PROFILES`, load the environment's one the first time (`HYPOTHESIS_PROFILE`; else `ci` under CI,
    `dev` elsewhere), and draw without local constants from now on.

    Only the first call loads: pytest's `--hypothesis-profile` (which needs the profiles registered before it) is
    loaded at configuration time, and modules of the suite imported after it call this again. Reloading then made
    every `pytest --hypothesis-profile X` under CI run `ci` instead: the mutation check's profiles without
    shrinking were replaced by `ci`, and a mutant found at the first example spent minutes shrinking it."""
    for name, profile in PROFILES.items():
        settings.register_profile(name, profile)
    _load_the_environments_profile()
    _without_local_constants_for_good()


@functools.cache
def _load_the_environments_profile() -> None:
    default = "ci" if os.environ.get("CI") == "true" else "dev"
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", default))


@functools.cache
def _without_local_constants_for_good() -> contextlib.ExitStack:
    """`without_local_constants` entered once for the whole process and never left (the cache keeps it)."""
    stack = contextlib.ExitStack()
    stack.enter_context(without_local_constants())
    return stack


@contextlib.contextmanager
def without_local_constants() -> Iterator[None]:
    """Draw without the constants Hypothesis harvests from the local modules a process has loaded so far
    (`HypothesisProvider._maybe_draw_constant` picks one now and then; there is no setting for it). Its
    cache of permitted constants is emptied before and after, so that neither side sees the other's."""
    from hypothesis.internal.conjecture import providers

    none = providers.Constants()
    with mock.patch.object(providers, "_get_local_constants", lambda: none):
        providers.CONSTANTS_CACHE.cache.clear()
        try:
            yield
        finally:
            providers.CONSTANTS_CACHE.cache.clear()
