"""The property suite: invariants every implementation must satisfy, and the differential property
against the reference, on generated cases (`strategies`). Run it with

    pytest conformance/properties --impl NAME [--hypothesis-profile dev|ci|thorough] [--prefetch on|off]
           [-n auto]

Each test is named after the rule it checks (`test_<rule>`), sends its cases in a few `run` calls per
example (a batch of cases each), fails with `conformance.evidence.PropertyViolation` on one minimal
case, and leaves the features of the cases it ran in its `user_properties` (`"features"`).

An implementation that costs a job per `run` call (it declares `costly_calls = True`, or `--prefetch
on`) is prefetched: each test runs first with the reference's answers while its cases are recorded,
the implementation runs all of them in a few large calls, and the test then runs for real with
`run` answered from those observations (`harness.Suite`); a summary line gives the cache's hits and
misses. The batch isolation tests always send their real batches. Under `python -m conformance run`,
the reference's run writes what each test sent, and such an implementation's run fetches that
instead of recording it again (`recordings.py`).
"""
