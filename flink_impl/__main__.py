"""`python -m flink_impl`: the command of Flink's runner, a `window-process/1` process, for `--impl exec:`."""

from flink_impl.command import runner_command

print(runner_command())
