"""The error every subcommand of `python -m conformance` raises when its arguments cannot be used."""


class UsageError(Exception):
    """A usage error: the command prints the message and exits with status 2 (`runner.verdict.USAGE_ERROR`)."""
