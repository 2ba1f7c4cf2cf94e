"""The two ways a Flink job refuses a case (docs/format.md, the observation's `error`)."""


class InvalidSpec(Exception):
    """Flink rejects the job when it is built: an `IllegalArgumentException` from a constructor or
    an `UnsupportedOperationException` from `WindowOperatorBuilder`. The message is Flink's."""


class JobFailure(Exception):
    """An exception thrown while the job runs; the job fails and emits nothing more."""
