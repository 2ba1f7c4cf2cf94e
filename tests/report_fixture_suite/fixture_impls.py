"""Implementations that break in ways other than semantics, to test what the run does then."""

from __future__ import annotations

import os

from conformance.features import ALL_FEATURES


class Raising:
    """Raises from `run`: the property errs, it is not violated."""

    name = "raising"
    features = ALL_FEATURES

    def run(self, cases):
        raise RuntimeError("the engine is not started")


class Exiting:
    """Ends the process in the middle of a test, as a crashing native engine would."""

    name = "exiting"
    features = ALL_FEATURES

    def run(self, cases):
        os._exit(3)
