"""The rule of Flink's that a divergence changes: its *area*, derived from its executable form.

A switch divergence changes the rule its switch names (a field of `reference.dialects.Dialect`); an explainer's
area follows from its kind: a job Flink rejects or runs (`accepts`, `rejects`, `message`) is validation, a time
the engine cannot hold (`beyond`, `days_wrap`) is time arithmetic, and a failure at run time (`fails`) belongs to
the rule its cause names (`conformance.causes`). A divergence of several switches takes its first switch's area.
A join divergence (its case a join case file) is in the area of the joins of two streams, whatever its form: a
reader porting a join looks for it there, and its window switches (the window a window join runs) are its join's.
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
    "emission": ("emission and timestamps", "what a firing carries (its window, its timestamp), how often it comes"),
    "validation": ("validation and messages", "which jobs are rejected, and in whose words"),
    "joins": ("joins of two streams", "window joins, coGroup, interval joins and Flink SQL's: which pairs, when, "
                                      "what is late, the joined operator's watermark"),
}

#: The area of each switch of `reference.dialects.Dialect`, as the model groups its rules: lateness; merging; firing,
#: with the pre-aggregation that holds records back from it; emission; watermarks, with those kept per key; time
#: arithmetic, with the window starts it computes; and the job's checks, validation.
SWITCHES: dict[str, str] = {
    **dict.fromkeys(("drop_when_past_cleanup_strictly", "session_late_strictly", "late_records",
                     "late_when_in_no_window", "dropped_when_in_no_window", "allowed_lateness"), "lateness"),
    **dict.fromkeys(("sessions_merge_when_touching", "merges_before_lateness", "trigger_state_merges",
                     "merging_windows_outlive_cleanup"), "merging"),
    **dict.fromkeys(("windows_close_at", "session_fires_at", "window_expiry", "pre_aggregation_watermark_starts_at",
                     "pre_aggregation_aligns_on_offset"), "firing"),
    **dict.fromkeys(("emits", "firing_timestamp", "global_window_timestamp", "session_window_end"), "emission"),
    **dict.fromkeys(("initial_watermark", "generated_watermark_offset", "generated_watermark_stride",
                     "records_advance_watermark", "generator_sees_record_first", "event_time_ends", "watermark_scope",
                     "key_state_discarded_when_empty", "watermark_clause"), "watermarks"),
    **dict.fromkeys(("long_arithmetic", "remainder", "sliding_windows_from_zero", "windows_start_from_offset"), "time"),
    **dict.fromkeys(("interval_limit", "sliding_size_multiple_of_slide", "sliding_panes_fit_an_int",
                     "sliding_offset_checked", "sliding_window_count_checked", "sessions_take_allowed_lateness"),
                    "validation"),
    **dict.fromkeys(("watermark_when_all_inputs_idle", "tumble_offset_checked", "join_time", "join_range_from_zero",
                     "join_initial_watermark", "late_at_watermark", "late_side_outputs", "watermark_statuses",
                     "sql_interval_join_drops_late_rows", "sql_rows_evicted", "interval_join_time",
                     "interval_join_buffer_cleanup", "interval_join_rejects_no_timestamp",
                     "sql_interval_join_operator"), "joins"),
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
    if divergence.is_join:
        return "joins"
    if divergence.switches:
        return SWITCHES[next(iter(divergence.switches))]
    kind = divergence.explains["kind"]
    if kind == "fails":
        cause = divergence.explains["cause"]
        return CAUSES[cause if isinstance(cause, str) else cause["name"]]
    return EXPLAINERS[kind]
