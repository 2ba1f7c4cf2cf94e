"""The rule of Flink's that a divergence changes: its *area*, derived from its executable form.

A switch divergence changes the rule its switch names (a field of `reference.dialects.Dialect`); an explainer's
area follows from its kind: a job Flink rejects or runs (`accepts`, `rejects`, `message`) is validation, a time
the engine cannot hold (`beyond`, `days_wrap`) is time arithmetic, and a failure at run time (`fails`) belongs to
the rule its cause names (`conformance.causes`). A divergence of several switches takes its first switch's area.
"""

from __future__ import annotations

from conformance.divergences import Divergence

#: Each area: its title in the matrix and what it covers.
AREAS: dict[str, tuple[str, str]] = {
    "lateness": ("lateness", "when a record is late, dropped or sent to the side output; cleanup time"),
    "merging": ("merging", "session windows: their bounds, which merge, and what a merge keeps"),
    "firing": ("firing and triggers", "when a window fires and what a trigger does"),
    "watermarks": ("watermarks", "where the watermark comes from, where it starts, what it reaches"),
    "time": ("time arithmetic", "window bounds and starts, Java `long` overflow, where time ends"),
    "emission": ("emission and timestamps", "what a firing carries and how often a window is emitted"),
    "validation": ("validation and messages", "which jobs are rejected, and in whose words"),
}

#: The area of each switch of `reference.dialects.Dialect`.
SWITCHES: dict[str, str] = {
    "sessions_merge_when_touching": "merging", "merges_before_lateness": "merging",
    "trigger_state_merges": "merging", "merging_windows_outlive_cleanup": "merging",
    "session_window_end": "merging",
    "drop_when_past_cleanup_strictly": "lateness", "late_when_in_no_window": "lateness",
    "session_late_strictly": "lateness", "late_records": "lateness", "window_expiry": "lateness",
    "allowed_lateness": "lateness", "sessions_take_allowed_lateness": "lateness",
    "dropped_when_in_no_window": "lateness",
    "windows_close_at": "firing", "session_fires_at": "firing", "remainder": "firing",
    "pre_aggregation_watermark_starts_at": "firing", "pre_aggregation_aligns_on_offset": "firing",
    "generated_watermark_offset": "watermarks", "generated_watermark_stride": "watermarks",
    "initial_watermark": "watermarks", "records_advance_watermark": "watermarks", "watermark_scope": "watermarks",
    "key_state_discarded_when_empty": "watermarks", "generator_sees_record_first": "watermarks",
    "long_arithmetic": "time", "event_time_ends": "time", "sliding_windows_from_zero": "time",
    "windows_start_from_offset": "time",
    "firing_timestamp": "emission", "global_window_timestamp": "emission", "emits": "emission",
    "interval_limit": "validation", "sliding_size_multiple_of_slide": "validation",
    "sliding_panes_fit_an_int": "validation", "sliding_offset_checked": "validation",
    "sliding_window_count_checked": "validation",
}

#: The area of each explainer kind (`conformance.divergences.EXPLAINERS`); `fails` goes by its cause.
EXPLAINERS: dict[str, str] = {"accepts": "validation", "rejects": "validation", "message": "validation",
                              "beyond": "time", "days_wrap": "time"}

#: The area of a failure at run time, by its cause (`conformance.causes.CAUSES`).
CAUSES: dict[str, str] = {
    "unfired_records": "firing", "late_pane_beside_merge": "merging", "records_in_no_window": "time",
    "windows_above": "validation", "time_jump_above": "time", "walk_above": "time",
    "zero_window_parameter": "validation", "count_trigger_below": "validation", "slide_above_size": "validation",
    "slide_not_below_size": "validation", "size_not_multiple_of_slide": "validation",
}


def area(divergence: Divergence) -> str:
    """The area of `divergence` (a key of `AREAS`)."""
    if divergence.switches:
        return SWITCHES[next(iter(divergence.switches))]
    kind = divergence.explains["kind"]
    if kind == "fails":
        cause = divergence.explains["cause"]
        return CAUSES[cause if isinstance(cause, str) else cause["name"]]
    return EXPLAINERS[kind]
