"""Hypothesis strategies that build `window_contract.Case`s (the project's issue 3).

- `window_specs(features)`: every assigner, offsets, sliding sizes below / equal to / not a multiple
  of the slide, sessions, count windows, every trigger and evictor, lateness from 0 to
  `Long.MAX_VALUE`, side output on and off; sometimes a specification Flink rejects.
- `out_of_order_streams(spec, features=...)`: typed steps (`strategies.streams`) played against the
  stream's state: several keys, bounded disorder, bursts of late records, records and watermarks
  placed on window edges, repeated and lower watermarks, jumps, processing time advances.
- `cases(features)`, `case_batches(features)`: whole cases, and batches for one `run` call; the rare
  families of `strategies.families` (the band just inside +-2^62, large and non-positive counts,
  look-alike keys, long streams, far watermarks, ...) are reported with `hypothesis.event()`.
- `extreme_cases(features)`: opt-in, times and parameters near the ends of the `long` range.

Options other than `features` are keyword-only; each strategy's docstring says what it shrinks to.

`features` (default: all) restricts generation to what an implementation supports: every case
drawn satisfies `window_contract.features.required_features(case) <= features`. Given `situations` (a
function that tells what a case exercises: the suite reads it from the reference's trace), the case
strategies report each case's situations and aim at the rare ones (`strategies.situations`).
"""

from strategies.cases import case_batches, cases, extreme_cases
from strategies.specs import window_specs
from strategies.streams import out_of_order_streams

__all__ = ["case_batches", "cases", "extreme_cases", "out_of_order_streams", "window_specs"]
