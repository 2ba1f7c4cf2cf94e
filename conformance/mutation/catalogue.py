"""The catalogue of mutants: realistic semantic bugs, each a small patch of one reference module.

A patch is `(module, original text, replacement text)`: the original must occur exactly once in
`reference/<module>.py`. The property suite must kill every mutant (`python -m conformance.mutation`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Patch:
    module: str
    original: str
    replacement: str


@dataclass(frozen=True)
class Mutant:
    name: str
    bug: str
    patches: tuple[Patch, ...]


def mutant(name: str, bug: str, *patches: tuple[str, str, str]) -> Mutant:
    return Mutant(name, bug, tuple(Patch(*p) for p in patches))


CATALOGUE = [
    # --- windows and assigners --------------------------------------------------------------
    mutant("max_timestamp_is_end", "TimeWindow.maxTimestamp() returns end instead of end - 1",
           ("windows", "return end - 1 if end != LONG_MIN else LONG_MAX", "return end")),
    mutant("flink_1_12_window_start", "the window start formula of Flink <= 1.12 (wrong below the offset)",
           ("windows", "    remainder = lrem(lsub(timestamp, offset), window_size)\n",
            "    return get_window_start_with_offset_flink_1_12(timestamp, offset, window_size)\n")),
    mutant("adjacent_sessions_do_not_merge", "TimeWindow.intersects excludes touching windows",
           ("windows", "return self.start <= other.end and self.end >= other.start",
            "return self.start < other.end and self.end > other.start")),
    mutant("tumbling_ignores_offset", "tumbling windows aligned to 0 whatever the offset",
           ("assigners", "self.start_offset = lrem(offset, size)", "self.start_offset = 0")),
    mutant("sliding_aligned_to_size", "sliding windows aligned to the size instead of the slide",
           ("assigners", "start = self.window_start(time, self.offset, self.slide)",
            "start = self.window_start(time, self.offset, self.size)")),
    mutant("sliding_one_window_too_many", "the sliding loop runs while start >= ts - size",
           ("assigners", "while start > lower:", "while start >= lower:")),
    mutant("session_one_shorter", "session windows are [ts, ts + gap - 1)",
           ("assigners", "return [TimeWindow(time, ladd(time, self.gap))]",
            "return [TimeWindow(time, ladd(time, self.gap - 1))]")),
    mutant("processing_windows_use_event_time", "processing-time assigners window by the record's timestamp",
           ("assigners", "    if not assigner.is_event_time:\n        return current_processing_time\n",
            "")),
    # --- lateness and cleanup --------------------------------------------------------------
    mutant("window_late_strictly", "isWindowLate uses cleanupTime < watermark",
           ("operator", "cleanup_time <= self.timers.current_watermark",
            "cleanup_time < self.timers.current_watermark")),
    mutant("element_late_strictly", "isElementLate uses ts + allowedLateness < watermark",
           ("operator", "ladd(timestamp, self.allowed_lateness) <= self.timers.current_watermark",
            "ladd(timestamp, self.allowed_lateness) < self.timers.current_watermark")),
    mutant("side_output_without_skipping",
           "late elements go to the side output even when one of their windows accepted them",
           ("operator", "if is_skipped_element and self.is_element_late(timestamp):",
            "if self.is_element_late(timestamp):")),
    mutant("cleanup_ignores_lateness", "cleanup at maxTimestamp, ignoring the allowed lateness",
           ("operator", "cleanup_time = max_timestamp + self.allowed_lateness",
            "cleanup_time = max_timestamp")),
    mutant("cleanup_without_overflow_guard", "cleanupTime wraps around instead of saturating",
           ("operator", "return cleanup_time if cleanup_time <= LONG_MAX else LONG_MAX",
            "return ladd(max_timestamp, self.allowed_lateness)")),
    mutant("merge_does_not_rescue_late_element",
           "a session element is skipped when its own window is late, before merging",
           ("operator", "        for window in windows:\n            window = merging.add_window(\n",
            "        for window in windows:\n"
            "            if self.is_window_late(self.cleanup_time(window)):\n"
            "                continue\n"
            "            window = merging.add_window(\n")),
    mutant("merge_loses_contents", "merging session windows drops the merged windows' contents",
           ("operator", "        if merged_contents:\n",
            "        if False:\n")),
    # --- timers and watermarks ---------------------------------------------------------------
    mutant("timers_fire_strictly_before_watermark", "timers fire when timestamp < watermark, not <=",
           ("timers", "while heap and heap[0][0] <= time:", "while heap and heap[0][0] < time:")),
    mutant("no_timer_deduplication", "a timer registered twice fires twice",
           ("timers", "        if timer in self._live:\n            return False\n", ""),
           ("timers", "            if live.get(timer) == registration:\n"
                      "                del live[timer]\n"
                      "                return InternalTimer(*timer)\n",
            "            if timer in live:\n"
            "                if live[timer] == registration:\n"
            "                    del live[timer]\n"
            "                return InternalTimer(*timer)\n")),
    mutant("watermark_set_after_timers", "timers fire before the current watermark is advanced",
           ("timers", "        self.current_watermark = time\n"
                      "        _fire_due(self.event_time_timers, time, on_event_time)\n",
            "        _fire_due(self.event_time_timers, time, on_event_time)\n"
            "        self.current_watermark = time\n")),
    mutant("lower_watermarks_not_ignored", "a watermark lower than the current one moves it back",
           ("implementation", "if event.timestamp <= last_watermark:", "if event.timestamp == last_watermark:")),
    mutant("processing_timers_fire_at_end_of_input", "the end of input also fires processing-time timers",
           ("implementation", "        operator.process_watermark(LONG_MAX)\n",
            "        operator.process_watermark(LONG_MAX)\n"
            "        operator.advance_processing_time(LONG_MAX)\n")),
    # --- triggers ------------------------------------------------------------------------------
    mutant("event_time_trigger_no_late_firing", "EventTimeTrigger registers a timer for a passed window "
                                                "instead of firing at once",
           ("triggers", "        if max_timestamp <= ctx.current_watermark():\n"
                        "            return TriggerResult.FIRE\n"
                        "        ctx.register_event_time_timer(max_timestamp)\n"
                        "        return TriggerResult.CONTINUE\n",
            "        ctx.register_event_time_timer(max_timestamp)\n"
            "        return TriggerResult.CONTINUE\n")),
    mutant("event_time_trigger_fires_on_any_timer", "EventTimeTrigger fires on the cleanup timer too",
           ("triggers", "return TriggerResult.FIRE if time == window.max_timestamp() else TriggerResult.CONTINUE",
            "return TriggerResult.FIRE")),
    mutant("count_trigger_not_reset", "CountTrigger keeps counting after it fires",
           ("triggers", "        if count >= self.max_count:\n            ctx.set_state(self.STATE, None)\n",
            "        if count >= self.max_count:\n            ctx.set_state(self.STATE, count)\n")),
    mutant("count_trigger_fires_late", "CountTrigger fires when count > maxCount",
           ("triggers", "if count >= self.max_count:", "if count > self.max_count:")),
    mutant("count_trigger_forgets_on_merge", "CountTrigger does not add up the counts of merged windows",
           ("triggers", "ctx.merge_state(self.STATE, ladd)", "pass")),
    mutant("continuous_trigger_floor_alignment", "continuous triggers align with floor instead of Java's %",
           ("triggers", "return lsub(time, lrem(time, self.interval))", "return time - time % self.interval")),
    # --- window state, purging and evictors ------------------------------------------------
    mutant("purge_keeps_contents", "FIRE_AND_PURGE fires but keeps the window's contents",
           ("operator", "                self.trace(\"purged\", key=key, window=window)\n"
                        "            self.window_state.pop((key, state_window), None)\n",
            "                self.trace(\"purged\", key=key, window=window)\n")),
    mutant("empty_window_fires", "a FIRE on an empty window calls the function with no values",
           ("operator", "contents = self.window_state.get((key, state_window))",
            "contents = self.window_state.get((key, state_window), [])")),
    mutant("count_evictor_evicts_newest", "CountEvictor removes the newest elements instead of the oldest",
           ("evictors", "del elements[:max(0, min(lsub(size, self.max_count), size))]",
            "del elements[max(0, self.max_count):]")),
    mutant("time_evictor_keeps_cutoff", "TimeEvictor keeps elements with ts == max(ts) - size",
           ("evictors", "e[1] > cutoff", "e[1] >= cutoff")),
    mutant("evict_after_also_evicts_before", "an evict-after evictor also evicts before the function",
           ("evictors", "        if not self.do_evict_after:\n            self.evict(elements, size)\n",
            "        self.evict(elements, size)\n")),
    mutant("evicted_elements_stay", "the evictor trims the function's input but not the window state",
           ("operator", "        if elements:\n            self.window_state[(key, state_window)] = elements\n"
                        "        else:\n            self.window_state.pop((key, state_window), None)\n",
            "")),
]

MUTANTS: dict[str, Mutant] = {m.name: m for m in CATALOGUE}
assert len(MUTANTS) == len(CATALOGUE), "mutant names must be unique"
