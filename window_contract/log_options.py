"""The options of a window job over a recorded event log, one set for every runtime that replays one
(`spark_impl/replay_job.py` on Spark, `python -m flink_impl.bulk` on real Flink), so that the same command line
names the same job on both: the log and the output folder, the window, the allowed lateness, where late records
go, the input columns, and the `--bound B --every N` watermarks (`BoundedOutOfOrdernessWatermarks(B)` emitting
after every N records).
"""

from __future__ import annotations

import argparse

from window_contract.case import WindowSpec, session, sliding, tumbling

#: The input columns, each an option naming it, and their default names.
INPUT_COLUMNS = {"key": "key", "timestamp": "ts", "payload": "payload", "arrival": "arrival"}


def add_log_options(p: argparse.ArgumentParser, *, events_help: str, bound_required: bool) -> None:
    """The options every replay of a log takes (module docstring); `bound_required` where `--bound` is the only
    way to give watermarks."""
    p.add_argument("--events", required=True, help=events_help)
    p.add_argument("--out", required=True, help="folder for firings/, late/ and dropped/ (Parquet)")
    window = p.add_mutually_exclusive_group(required=True)
    window.add_argument("--tumbling", type=int, nargs=1, metavar="SIZE")
    window.add_argument("--sliding", type=int, nargs=2, metavar=("SIZE", "SLIDE"))
    window.add_argument("--session", type=int, nargs=1, metavar="GAP")
    p.add_argument("--lateness", type=int, default=0, help="allowed lateness, ms")
    p.add_argument("--drop-late", action="store_true", help="no side output: late records go to dropped/")
    for column, default in INPUT_COLUMNS.items():
        p.add_argument(f"--{column}", default=default, metavar="COLUMN",
                       help=f"the {column} column (default: %(default)s)")
    p.add_argument("--bound", type=int, required=bound_required,
                   help="watermarks: max ts seen - BOUND - 1, ms, after every --every records")
    p.add_argument("--every", type=int, default=1000, help="with --bound: records between watermarks "
                   "(default: %(default)s)")


def window_of(args: argparse.Namespace) -> WindowSpec:
    """The window the options name: `--tumbling SIZE`, `--sliding SIZE SLIDE` or `--session GAP`."""
    if args.tumbling:
        return tumbling(*args.tumbling)
    return sliding(*args.sliding) if args.sliding else session(*args.session)
