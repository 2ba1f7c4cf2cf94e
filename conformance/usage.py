"""The error every subcommand of `python -m conformance` raises when its arguments cannot be used, and
the arguments' types that argparse checks."""

import argparse
import math


class UsageError(Exception):
    """A usage error: the command prints the message and exits with status 2 (`runner.verdict.USAGE_ERROR`)."""


def seconds(text: str) -> float:
    """A time limit given on the command line: a positive, finite number of seconds (argparse's `type`)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, not {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive, finite number of seconds, not {text!r}")
    return value
