"""A continuous trigger's chain of periodic timers over an empty window, stepped over in one move.

`ContinuousEventTimeTrigger` and `ContinuousProcessingTimeTrigger` keep the next fire time in their
"fire-time" `ReducingState` (reduced with `Min`) and a timer there. When that timer fires at `t`
(`fireTimestampState.get() == t`, `t != window.maxTimestamp()`), `onEventTime` / `onProcessingTime`
clears the state and calls `registerNextFireTimestamp(t)`: the state becomes
`next = Math.min(t + interval, window.maxTimestamp())` (`add` on a cleared reducing state keeps the value
itself), a timer is registered at `next`, and the trigger answers FIRE. `InternalTimerServiceImpl`'s
loop (`while ((timer = queue.peek()) != null && timer.getTimestamp() <= time)`) fires that timer too if
`next` is within the watermark (event time) or the clock's reach (processing time): a chain.

**Why one move is the same as firing each timer of the chain.** On a window without contents, one such
firing changes exactly two things: the fire-time state (`t` becomes `next`) and the timer set (`t` fired,
`next` registered). `WindowOperator.onEventTime` / `onProcessingTime` reads `windowState.get()`, finds
`null`, and calls no window function (FIRE emits nothing); a `PurgingTrigger`'s PURGE clears a state that
is already empty; `t < maxTimestamp <= cleanupTime`, so it is not the cleanup timer. Nothing else changes:
no element arrives while timers fire, so the window is as empty at the next timer as at this one. The
timers of other windows and keys fire in between, in timestamp order, but they read and write other
namespaces of the keyed state (the window is the namespace), so firing them before or after the chain
changes none of their outputs. After `k` firings the state is `v_k` and `v_k` is the chain's one timer,
where `v_j = min(t + j * interval, maxTimestamp)` in Java `long` arithmetic: setting the state to `v_k`
and registering `v_k` is the same state. (A timer already registered at some `v_j` for that window stays
in our queue where Flink's chain would have fired it; it fires later, before `v_k`, and finds the state
at `v_k`, not at its own time: CONTINUE, nothing changes.)

**Where the chain stops.** Let `T = min(maxTimestamp, bound + 1)`, where `bound` is the highest timer
time the current advance fires. The chain goes on while `v_j < T` (below `maxTimestamp`, so not capped,
and within the bound) and stops at the first `v_k >= T`: `v_k` is then either `maxTimestamp` (the window's
end timer: it fires as usual if within the bound, FIRE without a next timer) or above the bound (it waits
for a later advance). Below `T` no capping happens, so `v_j = t + j * interval` modulo `2^64`: the
chain is an arithmetic progression on the ring of `long`s, and `k` is the first step at which it lands
in `[T, Long.MAX_VALUE]`. A progression whose step is `interval` visits exactly the `long`s congruent to
`t` modulo `2^s` (`2^s` the largest power of two dividing `interval`), every one of them: it lands in
`[T, Long.MAX_VALUE]` unless that range holds none of them. When it holds none, `t + interval` wraps past
`Long.MAX_VALUE` back into the range below `T` for ever: Flink's loop never ends (an interval of 0 never
gets here: `t % 0` fails the job in `onElement`). Finding `k` is a question about `k * step mod 2^64`
answered in a few dozen steps of Euclid's algorithm (`first_multiple_in`), not by stepping.
"""

from __future__ import annotations

from reference.javalong import LONG_MIN, wrap

_RING = 2**64


def chain_end(time: int, interval: int, max_timestamp: int, bound: int) -> tuple[int, int] | None:
    """The chain that the periodic timer at `time` starts: `(k, v_k)`, the number of its firings (this
    one included) before it stops and the fire time it stops at; None when it never stops (`v_j` stays
    below `min(max_timestamp, bound + 1)` for ever). `time` is below that and `interval` is not 0."""
    threshold = min(max_timestamp, bound + 1)
    start, target = time - LONG_MIN, threshold - LONG_MIN  # offsets from Long.MIN_VALUE: [0, 2^64)
    # (start + k * step) mod 2^64 >= target  <=>  k * step mod 2^64 in [target - start, 2^64 - 1 - start]
    k = first_multiple_in(interval % _RING, _RING, target - start, _RING - 1 - start)  # the interval is not 0
    if k is None:
        return None
    return k, min(wrap(time + k * interval), max_timestamp)


def first_multiple_in(step: int, modulus: int, low: int, high: int) -> int | None:
    """The least `k >= 0` with `low <= k * step mod modulus <= high`, or None if there is none
    (`0 < step < modulus`, `0 < low <= high < modulus`: `k` is then at least 1).

    If some `k` reaches `[low, high]` without wrapping past `modulus`, the least is `ceil(low / step)`.
    Otherwise `k * step = y * modulus + r` with `r` in `[low, high]` for the least `y >= 1`; the interval
    `[low + y * modulus, high + y * modulus]` then holds a multiple of `step`, which, as `[low, high]`
    lies between two multiples of `step`, means `(-y * modulus) mod step` is in `[low mod step,
    high mod step]`: the same question with `step` as the modulus (none if `step` divides `modulus`:
    the multiples of `step` then stay multiples of it). Reflecting a step above half the modulus
    (`k * step` is `-(k * (modulus - step))`) keeps every step below half of the one before, so the
    recursion is as deep as Euclid's algorithm on `step` and `modulus`."""
    if 2 * step > modulus:
        return first_multiple_in(modulus - step, modulus, modulus - high, modulus - low)
    k = -(-low // step)
    if k * step <= high:
        return k
    rest = modulus % step
    if rest == 0:
        return None
    y = first_multiple_in(step - rest, step, low % step, high % step)
    if y is None:
        return None
    return -(-(low + y * modulus) // step)
