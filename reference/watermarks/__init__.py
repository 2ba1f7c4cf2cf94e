"""Where the window operator's watermarks come from (docs/format.md, docs/semantics.md), class by class.

`generators` (`BoundedOutOfOrdernessWatermarks`, `AscendingTimestampsWatermarks`,
`WatermarksWithIdleness`, the legacy `BoundedOutOfOrdernessTimestampExtractor` and
`AscendingTimestampExtractor`), `timestamps_and_watermarks` (`TimestampsAndWatermarksOperator`: one
per channel, emitting on its processing-time schedule), `valve` (`StatusWatermarkValve`: the channels'
watermarks and statuses merged into the operator's), `inputs` (the channels of one case wired to the
window operator).
"""
