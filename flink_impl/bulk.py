"""The bulk mode: a whole event log through real Flink's window operator, as a user would run their job on it.

    python -m flink_impl.bulk --events events.parquet --out out/ --sliding 10000 1000 --lateness 1000 \\
        --bound 2000 --every 1000

The options (of the watermarks, `--bound` and `--every`) and the outputs are `spark_impl/replay_job.py`'s:
`OUT/firings`, `OUT/late` and `OUT/dropped`, Parquet with the columns of `flink_windows`' outputs, so the two can be
compared row for row. The events are a Parquet file, a folder of Parquet files (read in name order, as Spark writes
them) or a JSON lines file (`.json`, `.jsonl`), already in arrival order (the order the window operator sees them
in, which a stream cannot sort); the watermarks are the replay's shorthand, `--bound B --every N` (Flink's
`BoundedOutOfOrdernessWatermarks` emitting after every N records). A payload must be integral (it rides along as
the value).

The events are streamed, a batch at a time, into one Flink 2.3 job (`java/windowconformance/BulkReplay.java`:
Flink's `WindowOperator` in a MiniCluster, every operator chained in one task thread) on the JVM's standard input,
and the outputs come back as they are produced, through files: neither side holds the log.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as csv
import pyarrow.json as pajson
import pyarrow.parquet as pq

from flink_impl.command import JVM_OPTIONS
from flink_impl.toolchain import compiled_classes, find_build
from window_contract.case import Case, WindowSpec, case_to_json
from window_contract.facts import TOO_MANY_WINDOWS, WINDOWS_PER_ELEMENT_LIMIT
from window_contract.log_options import add_log_options, window_of

MAIN_CLASS = "windowconformance.BulkReplay"
#: Rows per batch read from the events and written to the job.
BATCH_ROWS = 65_536
_LINE = csv.WriteOptions(include_header=False, delimiter="\t", quoting_style="none")
_FIRINGS = pa.schema([("key", pa.string()), ("window_start", pa.int64()), ("window_end", pa.int64()),
                      ("timestamp", pa.int64()), ("values", pa.string()), ("watermark", pa.int64()),
                      ("arrival", pa.int64()), ("cause", pa.string())])
_RECORDS = pa.schema([("key", pa.string()), ("ts", pa.int64()), ("payload", pa.int64()),
                      ("arrival", pa.int64()), ("cause", pa.string())])


@dataclass(frozen=True)
class Columns:
    """The events' column names (replay_job's `--key`, `--timestamp`, `--payload`, `--arrival`)."""

    key: str = "key"
    timestamp: str = "ts"
    payload: str = "payload"
    arrival: str = "arrival"


@dataclass(frozen=True)
class BulkRun:
    """What one bulk run took: the Flink job (submission to result) and the whole run (the JVM's start, the
    MiniCluster's, the reading and writing of Parquet), in wall seconds."""

    job_seconds: float
    wall_seconds: float


def run_bulk(events: str | Path, out: str | Path, window: WindowSpec, *, bound: int, every: int,
             allowed_lateness: int = 0, late_side_output: bool = True, columns: Columns = Columns(),
             jvm_options: tuple[str, ...] = tuple(JVM_OPTIONS)) -> BulkRun:
    """Runs the job over `events`, writing `out/firings`, `out/late`, `out/dropped` (see the module docstring)."""
    if bound < 0 or every < 1:
        raise ValueError(f"--bound must be >= 0 and --every >= 1, not {bound} and {every}")
    started = time.perf_counter()
    build = find_build()
    classpath = ":".join([str(compiled_classes(build)), *map(str, build.jars)])
    config = case_to_json(Case(window=window, allowed_lateness=allowed_lateness, late_side_output=late_side_output))
    config |= {"bound": bound, "every": every, "windows_per_element_limit": WINDOWS_PER_ELEMENT_LIMIT,
               "too_many_windows": TOO_MANY_WINDOWS}
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".flink-bulk-", dir=out))
    try:
        with open(scratch / "flink.log", "wb") as log:
            job = subprocess.Popen([str(build.java), *jvm_options, "-cp", classpath, MAIN_CLASS, json.dumps(config),
                                    str(scratch)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log)
            try:
                _feed(job.stdin, _batches(Path(events), columns))
            except BrokenPipeError:
                pass  # the job ended early: its status and log say why
            except BaseException:
                job.kill()  # the input was refused: no output of half of it
                job.wait()
                raise
            finally:
                try:
                    job.stdin.close()
                except BrokenPipeError:
                    pass
            said = job.stdout.read()
            if job.wait() != 0:
                tail = (scratch / "flink.log").read_text(errors="replace")[-3000:]
                raise RuntimeError(f"the Flink bulk job failed (exit status {job.returncode}):\n{tail}")
        _to_parquet(scratch / "firings.tsv", _FIRINGS, out / "firings")
        for name in ("late", "dropped"):
            _to_parquet(scratch / f"{name}.tsv", _RECORDS, out / name)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return BulkRun(json.loads(said)["job_seconds"], time.perf_counter() - started)


def _batches(events: Path, columns: Columns) -> Iterator[pa.RecordBatch]:
    """The events as batches of `arrival, key, ts, payload`, checked: no nulls, an integral payload, arrival
    increasing across the whole log."""
    names = [columns.arrival, columns.key, columns.timestamp, columns.payload]
    last = None
    for batch in _read(events, names):
        missing = [n for n in names if n not in batch.schema.names]
        if missing:
            raise ValueError(f"events has no column {missing[0]!r} (columns: {', '.join(batch.schema.names)})")
        if not pa.types.is_integer(batch.schema.field(columns.payload).type):
            raise ValueError(f"the bulk mode carries an integral payload: column {columns.payload!r} is "
                             f"{batch.schema.field(columns.payload).type}")
        for n in names:
            if batch.column(n).null_count:
                raise ValueError(f"column {n!r} has a null: every record needs its {n}")
        arrival = batch.column(columns.arrival).cast(pa.int64()).to_numpy()
        steps = np.diff(arrival) if last is None else np.diff(arrival, prepend=last)
        if len(arrival) and (steps <= 0).any():
            raise ValueError(f"column {columns.arrival!r} must increase from record to record (the order the window "
                             "operator sees them in): sort the events by it")
        last = arrival[-1] if len(arrival) else last
        yield pa.record_batch([arrival, batch.column(columns.key).cast(pa.string()),
                               batch.column(columns.timestamp).cast(pa.int64()),
                               batch.column(columns.payload).cast(pa.int64())],
                              names=["arrival", "key", "ts", "payload"])


def _read(events: Path, names: list[str]) -> Iterator[pa.RecordBatch]:
    """The events' batches: JSON lines, or Parquet files (a folder's in name order)."""
    if events.suffix in (".json", ".jsonl"):
        yield from pajson.open_json(events, read_options=pajson.ReadOptions(block_size=1 << 22))
        return
    files = sorted(p for p in events.rglob("*.parquet")) if events.is_dir() else [events]
    if not files:
        raise ValueError(f"no Parquet files in {events}")
    for f in files:
        parquet = pq.ParquetFile(f)
        yield from parquet.iter_batches(BATCH_ROWS, columns=[n for n in names if n in parquet.schema_arrow.names])


def _feed(stdin, batches: Iterator[pa.RecordBatch]) -> None:
    """The batches as `arrival<TAB>key<TAB>ts<TAB>payload` lines; a key holding a tab or a line break is refused."""
    writer = None
    for batch in batches:
        if writer is None:
            writer = csv.CSVWriter(stdin, batch.schema, write_options=_LINE)
        try:
            writer.write_batch(batch)
        except pa.ArrowInvalid as e:
            raise ValueError(f"a key holds a tab, a quote or a line break, which the bulk mode cannot carry: "
                             f"{e}") from e
    if writer is not None:
        writer.close()


def _to_parquet(tsv: Path, schema: pa.Schema, folder: Path) -> None:
    """The job's tab-separated output as one Parquet file in `folder`, a block at a time; `values` becomes a list
    of longs."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.parquet"):
        old.unlink()
    target = pa.schema([pa.field("values", pa.list_(pa.int64())) if f.name == "values" else f for f in schema])
    with pq.ParquetWriter(folder / "part-00000.parquet", target) as writer:
        if tsv.stat().st_size == 0:
            writer.write_table(target.empty_table())
            return
        reader = csv.open_csv(tsv, read_options=csv.ReadOptions(column_names=schema.names, block_size=1 << 24),
                              parse_options=csv.ParseOptions(delimiter="\t", quote_char=False),
                              convert_options=csv.ConvertOptions(column_types=schema, strings_can_be_null=False))
        for block in reader:
            columns = [pc.split_pattern(c, ",").cast(pa.list_(pa.int64())) if name == "values" else c
                       for name, c in zip(block.schema.names, block.columns, strict=True)]
            writer.write_batch(pa.record_batch(columns, schema=target))


def parser() -> argparse.ArgumentParser:
    """`spark_impl/replay_job.py`'s options for what the bulk mode runs: the window, lateness, columns, `--bound`."""
    p = argparse.ArgumentParser(prog="python -m flink_impl.bulk", description=__doc__.splitlines()[0])
    add_log_options(p, events_help="Parquet file or folder, or JSON lines, in arrival order", bound_required=True)
    return p


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    run = run_bulk(args.events, args.out, window_of(args), bound=args.bound, every=args.every,
                   allowed_lateness=args.lateness, late_side_output=not args.drop_late,
                   columns=Columns(args.key, args.timestamp, args.payload, args.arrival))
    print(f"Flink job {run.job_seconds:.1f} s, whole run {run.wall_seconds:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
