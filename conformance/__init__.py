"""The window-conformance suite: the property suite, `python -m conformance` (run, replay, explain, corpus)
and the mutation check. The contract it holds implementations to is the package `window_contract`."""
