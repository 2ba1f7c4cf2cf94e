"""Hypothesis profiles: `dev` (fast), `ci` (deterministic, the default under CI=true), `ci-slow` (`ci`
with fewer examples, for implementations that run a job per call), `ci-mutation` (`ci` with more
examples, for the mutation check), `thorough`.

Choose one with `--hypothesis-profile NAME` or the environment variable `HYPOTHESIS_PROFILE`.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}

PROFILES = {
    "dev": settings(max_examples=30, **_COMMON),
    # derandomize: the same examples on every run, so CI is reproducible; database off for the same reason
    "ci": settings(max_examples=100, derandomize=True, database=None, print_blob=True, **_COMMON),
    # ci for implementations that cost a Spark job or a Flink job per run call: the same derandomized
    # examples, fewer of them, so CI stays within its time
    "ci-slow": settings(max_examples=10, derandomize=True, database=None, print_blob=True, **_COMMON),
    # ci for the mutation check: deterministic too, with more examples, so that which mutants die does
    # not hang on a few lucky examples
    "ci-mutation": settings(max_examples=400, derandomize=True, database=None, print_blob=True, **_COMMON),
    "thorough": settings(max_examples=2000, **_COMMON),
}


def register_profiles() -> None:
    for name, profile in PROFILES.items():
        settings.register_profile(name, profile)
    default = "ci" if os.environ.get("CI") == "true" else "dev"
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", default))
