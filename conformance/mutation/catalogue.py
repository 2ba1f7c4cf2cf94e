"""The catalogue of mutants: realistic semantic bugs, each a small change inside named functions of the
reference.

A patch names a function of the reference (`module`, and its qualified name in the module, e.g.
`"operator", "WindowOperator.is_window_late"`) and a change inside it: `original` text, which must occur
exactly once in that function's source, becomes `replacement`. Texts are written as the function reads
dedented to its `def` (a method's body is indented four spaces, like a function's). The loader refuses a
patch whose function or text is missing, so a rewrite of the reference cannot disarm a mutant silently.
The property suite must kill every mutant (`python -m conformance.mutation`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Patch:
    module: str  # dotted, below `reference`: `operator`, `watermarks.valve`
    function: str  # qualified name in the module: `Class.method` or `function`
    original: str
    replacement: str


@dataclass(frozen=True)
class Mutant:
    name: str
    bug: str
    patches: tuple[Patch, ...]
    #: The property tests its run takes first (`--mutation-first`): an order, never a verdict, as every property
    #: still runs until one kills it.
    first: tuple[str, ...] = ()


def mutant(name: str, bug: str, *patches: tuple[str, str, str, str], first: tuple[str, ...] = ()) -> Mutant:
    return Mutant(name, bug, tuple(Patch(*p) for p in patches), first)


#: For a mutant whose bug the generated cases show only now and then: a committed case kills it in seconds, where
#: `test_matches_reference`, first in the killing order, ran its whole `ci` budget (30 to 40 s) or drew for minutes
#: (209 s of CPU, of the check's 640) before the one example that kills it, and where a change of the strategies
#: may draw none (`punctuated_watermark_before_its_record` survived the draws of a new trigger's feature).
COMMITTED_FIRST = ("test_committed_cases_give_their_expected_observations",)


CATALOGUE = [
    # --- windows and assigners --------------------------------------------------------------
    mutant("max_timestamp_is_end", "TimeWindow.maxTimestamp() returns end instead of end - 1",
           ("windows", "TimeWindow.max_timestamp", "return end - 1 if end != LONG_MIN else LONG_MAX", "return end")),
    mutant("flink_1_12_window_start", "the window start formula of Flink <= 1.12 (wrong below the offset)",
           ("windows", "get_window_start_with_offset", "    remainder = lrem(lsub(timestamp, offset), window_size)\n",
            "    return get_window_start_with_offset_flink_1_12(timestamp, offset, window_size)\n")),
    mutant("adjacent_sessions_do_not_merge", "TimeWindow.intersects excludes touching windows",
           ("windows", "TimeWindow.intersects", "self.start <= other.end and self.end >= other.start",
            "self.start < other.end and self.end > other.start")),
    mutant("tumbling_ignores_offset", "tumbling windows aligned to 0 whatever the offset",
           ("assigners", "TumblingWindows.__init__", "self.start_offset = lrem(offset, size)",
            "self.start_offset = 0")),
    mutant("sliding_aligned_to_size", "sliding windows aligned to the size instead of the slide",
           ("assigners", "SlidingWindows.assign_windows", "self.window_start(time, self.offset, self.slide)",
            "self.window_start(time, self.offset, self.size)")),
    mutant("sliding_one_window_too_many", "the sliding loop runs while start >= ts - size",
           ("assigners", "SlidingWindows._loop", "while start > lower:", "while start >= lower:")),
    mutant("cumulative_from_the_period_start", "a cumulative window's record in every window of its period, the "
           "earlier steps' too",
           ("assigners", "CumulativeWindows.assign_windows", "within_limit(self._loop(start, first_end))",
            "within_limit(self._loop(start, ladd(start, self.step)))")),
    mutant("cumulative_without_the_full_window", "the cumulative loop runs while end < lastEnd: no window of the "
           "whole size",
           ("assigners", "CumulativeWindows._loop", "while end <= last_end:", "while end < last_end:")),
    mutant("session_one_shorter", "session windows are [ts, ts + gap - 1)",
           ("assigners", "SessionWindows.assign_windows", "ladd(time, self.gap)", "ladd(time, self.gap - 1)")),
    mutant("dynamic_gap_zero_accepted", "withDynamicGap accepts a gap of 0 (checks gap < 0)",
           ("assigners", "DynamicSessionWindows.assign_windows", "if gap <= 0:", "if gap < 0:")),
    mutant("dynamic_gap_drops_record", "withDynamicGap drops a record whose gap is <= 0 instead of failing the job",
           ("assigners", "DynamicSessionWindows.assign_windows",
            "raise JobFailure(DYNAMIC_GAP_MESSAGE, \"session.dynamic_gap\")", "return []")),
    mutant("dynamic_gap_one_shorter", "dynamic session windows are [ts, ts + gap - 1)",
           ("assigners", "DynamicSessionWindows.assign_windows", "ladd(time, gap)", "ladd(time, gap - 1)")),
    mutant("processing_windows_use_event_time", "processing-time assigners window by the record's timestamp",
           ("assigners", "element_time",
            "    if not assigner.is_event_time:\n        return current_processing_time\n", "")),
    # --- lateness and cleanup --------------------------------------------------------------
    mutant("window_late_strictly", "isWindowLate uses cleanupTime < watermark",
           ("operator", "WindowOperator.is_window_late", "cleanup_time <= self.timers.current_watermark",
            "cleanup_time < self.timers.current_watermark")),
    mutant("element_late_strictly", "isElementLate uses ts + allowedLateness < watermark",
           ("operator", "WindowOperator.is_element_late", "<= self.timers.current_watermark",
            "< self.timers.current_watermark")),
    mutant("side_output_without_skipping",
           "late elements go to the side output even when one of their windows accepted them",
           ("operator", "WindowOperator.process_element", "if is_skipped_element and self.is_element_late(timestamp):",
            "if self.is_element_late(timestamp):")),
    mutant("cleanup_ignores_lateness", "cleanup at maxTimestamp, ignoring the allowed lateness",
           ("operator", "WindowOperator.cleanup_time", "cleanup_time = max_timestamp + self.allowed_lateness",
            "cleanup_time = max_timestamp")),
    mutant("cleanup_without_overflow_guard", "cleanupTime wraps around instead of saturating",
           ("operator", "WindowOperator.cleanup_time", "return cleanup_time if cleanup_time <= LONG_MAX else LONG_MAX",
            "return ladd(max_timestamp, self.allowed_lateness)")),
    mutant("merge_does_not_rescue_late_element",
           "a session element is skipped when its own window is late, before merging",
           ("operator", "WindowOperator.add_to_merging_windows", "    for window in windows:\n",
            "    for window in windows:\n"
            "        if self.is_window_late(self.cleanup_time(window)):\n"
            "            continue\n"),
           first=COMMITTED_FIRST),
    mutant("merge_loses_contents", "merging session windows drops the merged windows' contents",
           ("operator", "WindowOperator.merge", "    if merged_contents:\n", "    if False:\n")),
    # --- timers and watermarks ---------------------------------------------------------------
    mutant("timers_fire_strictly_before_watermark", "timers fire when timestamp < watermark, not <=",
           ("timers", "TimerQueue.poll_up_to", "heap[0][0] <= time", "heap[0][0] < time")),
    mutant("no_timer_deduplication", "a timer registered twice fires twice",
           ("timers", "TimerQueue.add", "    if timer in self._live:\n        return False\n", ""),
           ("timers", "TimerQueue.poll_up_to",
            "        if live.get(timer) == registration:\n"
            "            del live[timer]\n"
            "            return InternalTimer(*timer)\n",
            "        if timer in live:\n"
            "            if live[timer] == registration:\n"
            "                del live[timer]\n"
            "            return InternalTimer(*timer)\n")),
    mutant("watermark_set_after_timers", "timers fire before the current watermark is advanced",
           ("timers", "InternalTimerService.advance_watermark",
            "    self.current_watermark = time\n"
            "    _fire_due(self.event_time_timers, time, on_event_time)\n",
            "    _fire_due(self.event_time_timers, time, on_event_time)\n"
            "    self.current_watermark = time\n")),
    mutant("lower_watermarks_not_ignored", "a watermark lower than the current one moves it back (the "
                                           "input and the StatusWatermarkValve let it through)",
           ("watermarks.inputs", "OperatorInputs.process_watermark", "watermark.timestamp <= status.watermark",
            "watermark.timestamp == status.watermark"),
           ("watermarks.valve", "StatusWatermarkValve.input_watermark", "watermark <= status.watermark",
            "watermark == status.watermark"),
           ("watermarks.valve", "StatusWatermarkValve.find_and_output_new_min_watermark_across_aligned_channels",
            "min(aligned) > self.last_output_watermark", "min(aligned) != self.last_output_watermark")),
    mutant("processing_timers_fire_at_end_of_input", "the end of input also fires processing-time timers",
           ("simulation", "drive", "        inputs.end_of_input()\n",
            "        inputs.end_of_input()\n"
            "        operator.advance_processing_time(LONG_MAX)\n")),
    # --- watermarks that Flink makes (reference/watermarks/) ----------------------------------
    mutant("bounded_out_of_orderness_forgets_minus_one",
           "BoundedOutOfOrdernessWatermarks emits max - bound (the legacy formula in the new generator)",
           ("watermarks.generators", "BoundedOutOfOrdernessWatermarks.on_periodic_emit",
            "lsub(lsub(self.max_timestamp, self.out_of_orderness), 1)",
            "lsub(self.max_timestamp, self.out_of_orderness)")),
    mutant("legacy_extractor_uses_new_formula",
           "the legacy BoundedOutOfOrdernessTimestampExtractor emits max - bound - 1, as the new generator",
           ("watermarks.generators", "BoundedOutOfOrdernessTimestampExtractor.get_current_watermark",
            "potential = lsub(self.current_max_timestamp, self.max_out_of_orderness)",
            "potential = lsub(lsub(self.current_max_timestamp, self.max_out_of_orderness), 1)")),
    mutant("ascending_extractor_forgets_minus_one", "the legacy AscendingTimestampExtractor emits its highest "
                                                    "timestamp instead of ts - 1",
           ("watermarks.generators", "AscendingTimestampExtractor.get_current_watermark",
            "self.current_timestamp - 1", "self.current_timestamp")),
    mutant("idleness_ignores_records", "WatermarksWithIdleness does not count records as activity",
           ("watermarks.generators", "WatermarksWithIdleness.on_event", "    self.idleness_timer.activity()\n",
            "")),
    mutant("first_periodic_emit_at_open", "the first periodic emit is due when the operator opens, not an "
                                          "interval later",
           ("watermarks.timestamps_and_watermarks", "TimestampsAndWatermarksOperator.open",
            "self.next_timer = ladd(now, self.watermark_interval)", "self.next_timer = now")),
    mutant("emit_per_elapsed_interval", "a clock jump across several intervals emits once per interval, on "
                                        "the schedule's grid",
           ("watermarks.timestamps_and_watermarks", "TimestampsAndWatermarksOperator.advance_processing_time",
            "    if self.next_timer is not None and self.next_timer < now:\n"
            "        self.watermark_generator.on_periodic_emit(self.wm_output)\n"
            "        self.next_timer = ladd(now, self.watermark_interval)\n",
            "    while self.next_timer is not None and self.next_timer < now:\n"
            "        self.watermark_generator.on_periodic_emit(self.wm_output)\n"
            "        self.next_timer = ladd(self.next_timer, self.watermark_interval)\n")),
    mutant("valve_maximum_over_channels", "the valve emits the maximum over the aligned channels, not the minimum",
           ("watermarks.valve", "StatusWatermarkValve.find_and_output_new_min_watermark_across_aligned_channels",
            "min(aligned) > self.last_output_watermark:\n        self.last_output_watermark = min(aligned)",
            "max(aligned) > self.last_output_watermark:\n        self.last_output_watermark = max(aligned)")),
    mutant("idle_channel_still_holds_back", "a channel that goes idle stays in the valve's minimum",
           ("watermarks.valve", "StatusWatermarkValve.input_watermark_status",
            "status.active = status.aligned = False", "status.active = False")),
    mutant("reactivated_channel_aligned_at_once", "a channel that becomes active again counts in the valve's "
                                                  "minimum at once, even behind the last output",
           ("watermarks.valve", "StatusWatermarkValve.input_watermark_status",
            "        if status.watermark >= self.last_output_watermark:\n            status.aligned = True\n",
            "        status.aligned = True\n")),
    # --- the orders in which watermarks are made (issue 38) -------------------------------------
    mutant("periodic_emit_at_due_time", "the periodic timer fires when the clock reads its due time (as "
                                        "TestProcessingTimeService does), not once it has passed it",
           ("watermarks.timestamps_and_watermarks", "TimestampsAndWatermarksOperator.advance_processing_time",
            "self.next_timer < now", "self.next_timer <= now")),
    mutant("periodic_schedule_from_due_time", "the next periodic emit is due an interval after the due time "
                                              "that fired, not after the clock's reading when it fired",
           ("watermarks.timestamps_and_watermarks", "TimestampsAndWatermarksOperator.advance_processing_time",
            "self.next_timer = ladd(now, self.watermark_interval)",
            "self.next_timer = ladd(self.next_timer, self.watermark_interval)")),
    mutant("punctuated_watermark_before_its_record", "the generator sees a record (onEvent) before the record "
                                                     "goes downstream: a punctuated watermark overtakes it",
           ("simulation", "drive",
            "            operator.process_element(event.key, event.value, timestamp)\n"
            "            inputs.after_element(event, timestamp)\n",
            "            inputs.after_element(event, timestamp)\n"
            "            operator.process_element(event.key, event.value, timestamp)\n"),
           first=COMMITTED_FIRST),
    mutant("valve_flushes_whenever_all_idle", "when every channel is idle the valve flushes the highest "
                                              "watermark even if the last channel to go idle did not hold "
                                              "the output (later Flink versions, not 2.3)",
           ("watermarks.valve", "StatusWatermarkValve.input_watermark_status",
            "            if status.watermark == self.last_output_watermark:\n"
            "                self.find_and_output_max_watermark_across_all_channels()\n",
            "            self.find_and_output_max_watermark_across_all_channels()\n")),
    mutant("generator_channel_obeys_statuses", "a channel with a generator takes the upstream watermark_status "
                                               "events (its TimestampsAndWatermarksOperator ignores them)",
           ("watermarks.inputs", "OperatorInputs.process_watermark_status",
            "    if self.generators is None:  # with a generator its operator ignores upstream statuses\n"
            "        self.input_watermark_status(event.idle, event.channel)\n",
            "    self.input_watermark_status(event.idle, event.channel)\n")),
    mutant("window_count_limit_in_exact_division", "the 10,000,000 windows check divides exactly, not in "
                                                   "Java's truncating long division",
           ("assigners", "SlidingWindows.__init__", "ldiv(size, slide) > MAX_WINDOW_NUM",
            "size / slide > MAX_WINDOW_NUM"),
           first=COMMITTED_FIRST),
    # --- triggers ------------------------------------------------------------------------------
    mutant("event_time_trigger_no_late_firing", "EventTimeTrigger registers a timer for a passed window "
                                                "instead of firing at once",
           ("triggers", "EventTimeTrigger.on_element",
            "    if max_timestamp <= ctx.current_watermark():\n"
            "        return TriggerResult.FIRE\n", "")),
    mutant("event_time_trigger_fires_on_any_timer", "EventTimeTrigger fires on the cleanup timer too",
           ("triggers", "EventTimeTrigger.on_event_time",
            "return TriggerResult.FIRE if time == window.max_timestamp() else TriggerResult.CONTINUE",
            "return TriggerResult.FIRE")),
    mutant("count_trigger_not_reset", "CountTrigger keeps counting after it fires",
           ("triggers", "CountTrigger.on_element", "ctx.set_state(self.STATE, None)",
            "ctx.set_state(self.STATE, count)")),
    mutant("count_trigger_fires_late", "CountTrigger fires when count > maxCount",
           ("triggers", "CountTrigger.on_element", "if count >= self.max_count:", "if count > self.max_count:")),
    mutant("count_trigger_forgets_on_merge", "CountTrigger does not add up the counts of merged windows",
           ("triggers", "CountTrigger.on_merge", "ctx.merge_state(self.STATE, ladd)", "pass")),
    mutant("continuous_trigger_floor_alignment", "continuous triggers align with floor instead of Java's %",
           ("triggers", "_ContinuousTrigger.first_fire_from", "lsub(time, lrem(time, self.interval))",
            "time - time % self.interval")),
    mutant("processing_timeout_never_reset", "ProcessingTimeoutTrigger ignores resetTimerOnNewRecord",
           ("triggers", "ProcessingTimeoutTrigger.on_element",
            "if timeout is not None and self.reset_timer_on_new_record:", "if False:"),
           first=COMMITTED_FIRST),
    mutant("processing_timeout_always_clears", "ProcessingTimeoutTrigger clears on timeout whatever "
                                               "shouldClearOnTimeout says",
           ("triggers", "ProcessingTimeoutTrigger._on_timer", "if self.should_clear_on_timeout:", "if True:")),
    # --- window state, purging and evictors ------------------------------------------------
    mutant("purge_keeps_contents", "FIRE_AND_PURGE fires but keeps the window's contents",
           ("operator", "WindowOperator.act_on", "        self.window_state.pop((key, state_window), None)\n", "")),
    mutant("empty_window_fires", "a FIRE on an empty window calls the function with no values",
           ("operator", "WindowOperator.act_on", "self.window_state.get((key, state_window))",
            "self.window_state.get((key, state_window), [])")),
    mutant("count_evictor_evicts_newest", "CountEvictor removes the newest elements instead of the oldest",
           ("evictors", "CountEvictor.evict", "del elements[:max(0, min(lsub(size, self.max_count), size))]",
            "del elements[max(0, self.max_count):]")),
    mutant("time_evictor_keeps_cutoff", "TimeEvictor keeps elements with ts == max(ts) - size",
           ("evictors", "TimeEvictor.evict", "e[1] > cutoff", "e[1] >= cutoff")),
    mutant("evict_after_also_evicts_before", "an evict-after evictor also evicts before the function",
           ("evictors", "Evictor.evict_before", "    if not self.do_evict_after:\n        self.evict(elements, size)\n",
            "    self.evict(elements, size)\n")),
    mutant("evicted_elements_stay", "the evictor trims the function's input but not the window state",
           ("operator", "EvictingWindowOperator.emit_window_contents",
            "    if elements:\n        self.window_state[(key, state_window)] = elements\n"
            "    else:\n        self.window_state.pop((key, state_window), None)\n", "")),
    # --- countWindow followed by .trigger / .evictor ---------------------------------------
    mutant("count_window_trigger_drops_evictor",
           "countWindow(size, slide).trigger(t) drops the CountEvictor(size) that countWindow set",
           ("job", "build_operator", "        trigger = build(case.trigger, dialect.models)\n",
            "        trigger, evictor = build(case.trigger, dialect.models), None\n"),
           first=COMMITTED_FIRST),
    mutant("count_window_keeps_its_trigger", "countWindow's CountTrigger stays when the job sets another trigger",
           ("job", "build_operator", "if case.trigger is not None:",
            "if case.trigger is not None and not isinstance(case.window, spec.Count):")),
    # --- DeltaTrigger, DeltaEvictor ----------------------------------------------------------
    mutant("delta_trigger_fires_at_threshold", "DeltaTrigger fires when the delta equals the threshold (>=)",
           ("triggers", "DeltaTrigger.on_element", "> self.threshold", ">= self.threshold"),
           first=COMMITTED_FIRST),
    mutant("delta_trigger_remembers_every_element",
           "DeltaTrigger remembers every element, not only the first and those that fire",
           ("triggers", "DeltaTrigger.on_element", "    if self.get_delta(last, ctx.element) > self.threshold:\n",
            "    ctx.set_state(self.STATE, ctx.element)\n"
            "    if self.get_delta(last, ctx.element) > self.threshold:\n")),
    mutant("delta_trigger_can_merge", "DeltaTrigger is accepted on session windows",
           ("triggers", "DeltaTrigger.__init__",
            "    self.threshold, self.delta_function = threshold, delta_function\n",
            "    self.threshold, self.delta_function = threshold, delta_function\n"
            "    self.can_merge = True\n")),
    mutant("delta_evictor_strictly_above", "DeltaEvictor keeps an element whose delta equals the threshold (>)",
           ("evictors", "DeltaEvictor.evict", ">= self.threshold", "> self.threshold")),
    mutant("delta_evictor_compares_with_first", "DeltaEvictor compares with the first element, not the last",
           ("evictors", "DeltaEvictor.evict", "last = elements[-1][0]", "last = elements[0][0]")),
    mutant("delta_in_long_arithmetic", "the delta subtracts the longs exactly instead of as doubles",
           ("delta", "absolute_difference", "abs(float(old) - float(new))", "float(abs(old - new))"),
           ("delta", "difference", "float(new) - float(old)", "float(new - old)"),
           first=COMMITTED_FIRST),
]

MUTANTS: dict[str, Mutant] = {m.name: m for m in CATALOGUE}
assert len(MUTANTS) == len(CATALOGUE), "mutant names must be unique"
