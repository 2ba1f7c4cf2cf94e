"""Hypothesis profiles: `dev` (fast), `ci` (deterministic, the default under CI=true; the suite against
every implementation and the mutation check run with it), `ci-slow` (`ci` with fewer examples, for a
quick look at an implementation that runs a job per call without prefetching), `thorough`.

Choose one with `--hypothesis-profile NAME` or the environment variable `HYPOTHESIS_PROFILE`.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings

_COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}
# No explain phase: it replays the minimal failing example under line tracing (slow before Python
# 3.12) to list lines only failing examples ran; a PropertyViolation already names the rule and the
# difference.
_CI = {**_COMMON, "derandomize": True, "database": None, "print_blob": True,
       "phases": [Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink]}

PROFILES = {
    "dev": settings(max_examples=30, **_COMMON),
    # derandomize: the same examples on every run, so CI is reproducible; database off for the same reason
    "ci": settings(max_examples=100, **_CI),
    # ci for implementations that cost a Spark job or a Flink job per run call when they are not
    # prefetched (`--prefetch`): the same derandomized examples, fewer of them
    "ci-slow": settings(max_examples=10, **_CI),
    "thorough": settings(max_examples=2000, **_COMMON),
}


def register_profiles() -> None:
    for name, profile in PROFILES.items():
        settings.register_profile(name, profile)
    default = "ci" if os.environ.get("CI") == "true" else "dev"
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", default))
