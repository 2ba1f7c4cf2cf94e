"""The error every subcommand of `python -m conformance` raises when its arguments cannot be used, and
the arguments' types that argparse checks."""

import argparse
import math
from collections.abc import Callable
from typing import Any

from window_contract.guards import CASE_SECONDS, MEMORY_BYTES, Limits


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


def mebibytes(text: str) -> int:
    """A memory limit given on the command line: a positive whole number of MiB (argparse's `type`)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number of MiB, not {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of MiB, not {text!r}")
    return value


#: The guards of a plug-in's calls (`window_contract.guards`) as options: `run`, `replay` and pytest's
#: `--window-` ones take them alike.
GUARD_OPTIONS: dict[str, dict[str, Any]] = {
    "case-timeout": {"type": seconds, "default": CASE_SECONDS, "metavar": "SECONDS",
                     "help": "how long a plug-in's run call may take a case (a call of N cases N times as long, "
                             "at most the request timeout) before the case counts as not run "
                             f"(default: {CASE_SECONDS:g})"},
    "memory-limit": {"type": mebibytes, "default": MEMORY_BYTES // 2**20, "metavar": "MIB",
                     "help": "how much memory a plug-in's run calls may take (an in-process plug-in's growth, an "
                             "exec: process's resident memory) before the call counts as not run "
                             f"(default: {MEMORY_BYTES // 2**20})"},
}


def add_guard_options(add: Callable[..., Any], prefix: str = "") -> None:
    """The guard options, each given to `add` (argparse's `add_argument`, pytest's `addoption`) as
    `--{prefix}{name}`."""
    for name, options in GUARD_OPTIONS.items():
        add(f"--{prefix}{name}", **options)


def guard_limits(case_timeout: float, memory_limit: int) -> Limits:
    """The limits the guard options give (`memory_limit` in MiB)."""
    return Limits(case_seconds=case_timeout, memory_bytes=memory_limit * 2**20)
