"""Cases and keys are independent: a key's outputs do not depend on other keys, a case's observation
does not depend on the batch it is sent in, nor on being run before."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.properties.harness import property_settings, violation
from strategies import case_batches
from window_contract.case import Case, Record
from window_contract.difference import difference
from window_contract.observation import Observation, remapped


def restricted_to_key(case: Case, key: str) -> tuple[Case, list[int]]:
    """`case` without the other keys' records, and the original position of each remaining event
    (and of the end of input)."""
    kept = [at for at, e in enumerate(case.events) if not isinstance(e, Record) or e.key == key]
    return replace(case, events=tuple(case.events[at] for at in kept)), kept + [len(case.events)]


def outputs_of_key(observation: Observation, key: str, positions: list[int] | None = None) -> Observation:
    """The outputs of one key, with positions mapped through `positions`."""
    def of_key(items):
        return tuple(o for o in items if o.key == key)

    mine = Observation(of_key(observation.firings), of_key(observation.late), of_key(observation.dropped),
                       observation.error)
    return remapped(mine, positions.__getitem__) if positions else mine


@property_settings()
@given(data=st.data())
def test_keys_do_not_interact(data, suite, tally):
    """Each key's firings and late records equal those of the case restricted to that key (same
    watermarks and processing times, positions mapped back)."""
    batch = data.draw(case_batches(suite.features, report=False), label="batch")
    restrictions = []
    for index, case in enumerate(batch):
        keys = sorted({r.key for r in case.records})
        if len(keys) > 1:
            for key in keys:
                restricted, positions = restricted_to_key(case, key)
                if suite.fits(restricted):
                    restrictions.append((index, key, restricted, positions))
    observations = suite.run(batch + [r for _, _, r, _ in restrictions], tally)
    for n, (index, key, _, positions) in enumerate(restrictions):
        whole, alone = observations[index], observations[len(batch) + n]
        if whole.error is not None and whole.error.kind == "runtime":
            continue  # another key's failure ends the whole case
        detail = difference(outputs_of_key(whole, key), outputs_of_key(alone, key, positions))
        if detail:
            raise violation("keys do not interact: a key's outputs equal those of the case restricted to it",
                            batch[index], whole,
                            f"key {key!r} (left: in the case, right: alone):\n{detail}")


# Real batches: answered from one large prefetch call, every batch would agree with itself.
@pytest.mark.real_batches
@property_settings(share=0.5)
@given(data=st.data())
def test_same_observation_alone_and_in_a_batch(data, suite, tally):
    """A case's observation is the same alone, in a batch, and in the reversed batch (with a
    duplicate of the first case in it): nothing leaks between the cases of one `run`."""
    batch = data.draw(case_batches(suite.features, report=False), label="batch")
    batch = batch + batch[:1]
    index = data.draw(st.integers(0, len(batch) - 1), label="case run alone")
    in_batch = suite.run(batch, tally)
    [alone] = suite.run([batch[index]], tally)
    reversed_batch = suite.run(batch[::-1], tally)[::-1]
    for i, case in enumerate(batch):
        detail = difference(in_batch[i], reversed_batch[i])
        if detail:
            raise violation("a case's observation does not depend on the batch it is run in", case,
                            reversed_batch[i],
                            f"in the batch (left) and in the reversed batch (right):\n{detail}",
                            expected=in_batch[i])
    detail = difference(alone, in_batch[index])
    if detail:
        raise violation("a case's observation does not depend on the batch it is run in", batch[index],
                        in_batch[index], f"alone (left) and in a batch (right):\n{detail}", expected=alone)


@pytest.mark.real_batches
@property_settings(share=0.5)
@given(data=st.data())
def test_same_observation_when_run_twice(data, suite, tally):
    """Running the same batch again gives the same observations: no state survives a `run`."""
    batch = data.draw(case_batches(suite.features, report=False), label="batch")
    first, second = suite.run(batch, tally), suite.run(batch, tally)
    for case, a, b in zip(batch, first, second, strict=True):
        detail = difference(a, b)
        if detail:
            raise violation("the same case run twice gives the same observation", case, b,
                            f"first run (left), second run (right):\n{detail}", expected=a)
