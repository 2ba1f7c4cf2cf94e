"""A case whose watermarks Flink makes, as the single-input case its window operator sees, and the
observation of that case back in the original case's positions.

`spark_impl.watermarks.operator_stream` folds the case's channels, generators and valve into one
stream of records, input watermarks and processing-time advances. That stream is an ordinary case
(one channel, explicit watermarks, its end-of-input watermarks already in it), so the relational
pipeline and the per-key replay compute it unchanged; only the positions differ: an output at index
`i` of the stream happened during event `origin[i]` of the case.
"""

from __future__ import annotations

from dataclasses import replace

from spark_impl.watermarks import OperatorStream
from window_contract.case import Case
from window_contract.observation import InputWatermark, Observation


def operator_case(case: Case, stream: OperatorStream) -> Case:
    """The window operator's view of `case`: its stream on one channel, with no generator and no end
    of input left to add."""
    return replace(case, events=stream.events, end_of_input=False, channels=1, watermark_generator=None,
                   expected=None)


def in_case_positions(observation: Observation, stream: OperatorStream, error_at: int | None) -> Observation:
    """`observation` of the operator's case with every `at` mapped back to the case's positions, and the
    input watermarks; a runtime error at stream index `error_at` ends the case, so watermarks after
    it never reach the operator."""
    origin = stream.origin
    received = [InputWatermark(origin[i], w) for i, w in stream.watermarks if error_at is None or i <= error_at]
    return replace(observation, firings=[replace(f, at=origin[f.at]) for f in observation.firings],
                   late=[replace(r, at=origin[r.at]) for r in observation.late],
                   dropped=[replace(r, at=origin[r.at]) for r in observation.dropped], watermarks=received)
