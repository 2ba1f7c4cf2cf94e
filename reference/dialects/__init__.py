"""Dialects: the model with some of Flink's rules switched to another engine's.

An engine under test differs from Flink in listed ways (its divergences, `conformance/divergences.py`);
those that are a rule of window semantics are a switch here, named for the rule it changes. A `Dialect` is
a set of switches, `FLINK` none of them: `simulate(case, dialect=...)` (`reference.implementation`) then
predicts what such an engine emits, and the suite says of a difference between an engine and Flink which of
its divergences explain it. A dialect describes another engine and is checked against it (its divergence
cases, `tests/test_divergences.py`); it never answers for it in a run.

Each switch overrides one method of the model (a mixin of the operator, a trigger class, the collector, the
watermark the operator receives), so that Flink's own path is the model unchanged. The switches are grouped by
the rule of Flink they change, one module an area, each switch documented beside what implements it:

- `lateness`: when a window or a record is late, and what becomes of a late record;
- `merging`: which sessions merge, where a merge stands beside lateness, what a merge keeps;
- `firing`: when the watermark fires a window and cleans it up;
- `emission`: what the operator emits (on its trigger or on every update) and what a firing carries;
- `watermarks`: which watermark the operator receives, and when event time ends;
- `keys`: a watermark and a state for each key;
- `time_arithmetic`: Java's `long` and truncating `%`, or Python's integers;
- `windows`: which windows an assigner gives a record;
- `job_checks`: which window parameters a job may state (Flink SQL's and Flink 1.20's checks);
- `pre_aggregation`: Flink SQL's two-phase window aggregate, which holds records until a watermark;
- `joins`: the two-input operators of the joins of two streams (a window join's union runs the window rules above).

`dialect` composes them: `Dialect` is every area's switches, and `MIXINS` the order in which the operator's class
takes their mixins.
"""

from reference.dialects.dialect import FLINK, MIXINS, Dialect

__all__ = ["FLINK", "MIXINS", "Dialect"]
