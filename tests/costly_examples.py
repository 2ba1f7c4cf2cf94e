"""Tests whose every example is a costly job (Spark's, Flink's) run one, or a few: none of them may be Hypothesis's
first, its simplest, where every list holds its smallest element repeated (a batch of sixty cases is one case with one
event, sixty times over)."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import assume


def not_the_simplest(*batches: Sequence) -> None:
    """Rejects the example (`assume`, which costs no job and counts as no example) unless each batch holds more than
    one distinct case."""
    assume(all(len(set(batch)) > 1 for batch in batches))
