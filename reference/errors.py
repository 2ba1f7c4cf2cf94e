"""The two ways a Flink job refuses a case (docs/format.md, the observation's `error`)."""


class InvalidSpec(Exception):
    """Flink rejects the job when it is built: an `IllegalArgumentException` from a constructor or
    an `UnsupportedOperationException` from `WindowOperatorBuilder`. The message is Flink's; `rules` name the
    preconditions that failed (`window_contract.rules`)."""

    def __init__(self, message: str, *rules: str) -> None:
        super().__init__(message)
        self.rules = rules


class JobFailure(Exception):
    """An exception thrown while the job runs; the job fails and emits nothing more. `rules` name the failure
    (`window_contract.rules`)."""

    def __init__(self, message: str, *rules: str) -> None:
        super().__init__(message)
        self.rules = rules
