"""The property suite: invariants every implementation must satisfy, and the differential property
against the reference, on generated cases (`strategies`). Run it with

    pytest conformance/properties --window-impl NAME [--hypothesis-profile dev|ci|thorough] [-n auto]

Each test is named after the rule it checks (`test_<rule>`), sends its cases in a few `run` calls per
example (a batch of cases each) through the `suite` fixture (`harness.Suite`), fails with
`conformance.evidence.PropertyViolation` on one minimal case, and leaves the features of the cases it
ran in its `user_properties` (`"features"`). This folder holds the rules and their fixtures only: an
implementation that costs a job per `run` call is prefetched by a plug-in of its own
(`conformance.prefetch`), which the rules never see.
"""
