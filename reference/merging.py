"""The `MergingWindowSet`: which session windows are in flight for one key, and where their state is.

Models `org.apache.flink.streaming.runtime.operators.windowing.MergingWindowSet`. Each in-flight
window maps to a *state window*: the window under whose name its contents are stored. Merging
windows keeps the state window of one of them, so merged contents need not be copied.
"""

from __future__ import annotations

from collections.abc import Callable

from reference.windows import TimeWindow

#: `(merge result, merged windows, state window of the result, state windows merged into it)`
MergeFunction = Callable[[TimeWindow, list[TimeWindow], TimeWindow, list[TimeWindow]], None]


class MergingWindowSet:
    """`MergingWindowSet`: the in-flight windows of one key, each mapped to its state window; `merge` is
    `TimeWindow.mergeWindows` (`reference.windows.merge_windows`)."""

    def __init__(self, merge: Callable[[list[TimeWindow]], list[tuple[TimeWindow, set[TimeWindow]]]]) -> None:
        self.merge = merge
        self.mapping: dict[TimeWindow, TimeWindow] = {}

    def get_state_window(self, window: TimeWindow) -> TimeWindow | None:
        """The window under whose name the in-flight `window`'s contents are kept; None when it is
        not in flight."""
        return self.mapping.get(window)

    def retire_window(self, window: TimeWindow) -> None:
        """Forget a window whose state has been cleared (or that was late on arrival)."""
        if self.mapping.pop(window, None) is None:
            raise RuntimeError(f"Window {window} is not in in-flight window set.")

    def add_window(self, new_window: TimeWindow, merge_function: MergeFunction) -> TimeWindow:
        """`MergingWindowSet.addWindow`: add `new_window`, merge what now intersects, and return the
        window the new element belongs to (the merge result, or the new window itself).

        `merge_function` is called for each merge that changes an in-flight window; it is not called
        when the new window lies within one in-flight window, which then stays as it is. The steps
        and their comments are Flink's.
        """
        merge_results = self.merge([*self.mapping, new_window])

        result_window = new_window
        merged_new_window = False

        # perform the merge
        for merge_result, merged in merge_results:
            merged_windows = list(merged)

            # if our new window is in the merged windows make the merge result the result window
            if new_window in merged_windows:
                merged_windows.remove(new_window)
                merged_new_window = True
                result_window = merge_result

            # pick any of the merged windows and choose that window's state window as the state
            # window for the merge result
            merged_state_window = self.mapping[merged_windows[0]]

            # figure out the state windows that we are merging
            merged_state_windows = [self.mapping.pop(w) for w in merged_windows if w in self.mapping]

            self.mapping[merge_result] = merged_state_window

            # don't put the target state window into the merged windows
            merged_state_windows.remove(merged_state_window)

            # don't merge the new window itself, it never had any state associated with it i.e. if
            # we are only merging one pre-existing window into itself without extending the
            # pre-existing window
            if not (merge_result in merged_windows and len(merged_windows) == 1):
                merge_function(merge_result, merged_windows, merged_state_window, merged_state_windows)

        # the new window created a new, self-contained window without merging
        if not merge_results or (result_window == new_window and not merged_new_window):
            self.mapping[result_window] = result_window

        return result_window
