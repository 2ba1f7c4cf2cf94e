"""`python -m flink_impl [NAME]`: the command of Flink's runner, a `window-process/1` process, for `--impl exec:`.

NAME is `flink` (the default), `flink-1.20`, `flink-sql`, `flink-sql-legacy` or `flink-sql-1.20`.
"""

import sys

from flink_impl.command import FLINK, FLINK_1_20, runner_command
from flink_impl.sql import FLINK_SQL, FLINK_SQL_1_20, FLINK_SQL_LEGACY

VARIANTS = {v.name: v for v in (FLINK, FLINK_1_20, FLINK_SQL, FLINK_SQL_LEGACY, FLINK_SQL_1_20)}

name = sys.argv[1] if len(sys.argv) > 1 else FLINK.name
if name not in VARIANTS:
    sys.exit(f"usage: python -m flink_impl [{' | '.join(VARIANTS)}]")
print(runner_command(variant=VARIANTS[name]))
