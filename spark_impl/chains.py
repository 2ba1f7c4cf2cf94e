"""How far a continuous trigger's periodic timers run over a window without contents.

`ContinuousEventTimeTrigger.onEventTime` (and `ContinuousProcessingTimeTrigger.onProcessingTime`), for the
timer at its "fire-time" state `t`, clears the state, stores `min(t + interval, maxTimestamp)` in it,
registers a timer there and answers FIRE. Over a window without contents the operator then calls no
window function and a purge has nothing to drop, so each such firing only moves the state and the timer
one step on, and the operator keeps firing while the next one is within the watermark (or the clock's
reach). The per-key replay (`spark_impl.operator`) moves them to where that stops in one step, which
leaves the same state and timers, and the same (no) outputs, as the firings one by one; a window's
timers are its own, so the other windows' firings in between are unchanged too.

Where it stops: the fire times are `t + j * interval` wrapped to a Java `long` (no cap applies while
they stay below `maxTimestamp`), and the chain ends at the first `j` whose fire time is at least
`limit = min(maxTimestamp, bound + 1)`; the state there is that time, or `maxTimestamp` if it is
beyond. As offsets from `Long.MIN_VALUE` the fire times are `(o + j * s) mod 2^64`, with
`o = t - Long.MIN_VALUE` and `s = interval mod 2^64`, so `j` is the least `j >= 1` with `j * s mod 2^64`
in `[limit - t, 2^64 - 1 - o]` (the range of fire times that stop it, shifted down by `o`: it does not
wrap, as `t < limit`). That is a least-multiple question, answered by Euclid's algorithm on `s` and
`2^64` (`least_multiple_in`). No answer means the fire times wrap around below `limit` for ever, and
Flink's timer loop never ends.
"""

from __future__ import annotations

from spark_impl.javalong import LONG_MIN, wrap

_SPAN = 2**64


def skip_to(time: int, interval: int, max_ts: int, bound: int) -> tuple[int, int] | None:
    """`(firings, fire time)`: how many periodic timers fire from the one at `time` (it included) before
    the chain stops, and the fire time it stops at; None if it never stops."""
    limit = min(max_ts, bound + 1)
    offset = time - LONG_MIN
    j = least_multiple_in(interval % _SPAN, _SPAN, limit - time, _SPAN - 1 - offset)
    return None if j is None else (j, min(wrap(time + j * interval), max_ts))


def least_multiple_in(step: int, modulus: int, low: int, high: int) -> int | None:
    """The least `k >= 0` such that `k * step mod modulus` lies in `[low, high]` (`0 < step < modulus`,
    `0 < low <= high < modulus`), or None.

    Each round either finds `k` before the multiples of `step` pass `modulus` (`ceil(low / step)`), or
    asks the question one level down: with `k * step = y * modulus + r`, the least such `y` is the least
    for which `(-y * modulus) mod step` falls in `[low mod step, high mod step]` (no multiple of `step`
    lies in `[low, high]`; and there is none if `step` divides `modulus`), and
    `k = ceil((low + y * modulus) / step)`. A step above half the modulus is replaced by `modulus - step`
    with the interval mirrored (`-x mod modulus`), which keeps the rounds as few as Euclid's."""
    descent: list[tuple[int, int, int]] = []  # (step, modulus, low) of each round that went one level down
    while True:
        if step * 2 > modulus:
            step, low, high = modulus - step, modulus - high, modulus - low
            continue
        k = (low + step - 1) // step
        if k * step <= high:
            break
        if modulus % step == 0:
            return None
        descent.append((step, modulus, low))
        step, modulus, low, high = step - modulus % step, step, low % step, high % step
    for step, modulus, low in reversed(descent):
        k = (low + k * modulus + step - 1) // step
    return k
