"""The replay application on a Spark standalone cluster: a master and two workers on 127.0.0.1, started from the
PySpark install, run `spark_impl/replay_job.py` on a generated log; the same job on `local[2]`; both timed; then the
cluster is stopped, and their outputs are compared row for row (`spark_scale.rows_differing`: in Spark, so that 10M
records' outputs need not fit in this process).

    python benchmarks/spark_cluster.py --records 200000 [--worker-cores 1] [--worker-memory 2g] [--stages N]
    python benchmarks/spark_cluster.py --records 10000000 --local-only     # local[2] alone, its costliest stages

The log is `spark_scale.py`'s (1,000 keys, bounded disorder, one record in ten delayed past the allowed lateness;
sliding 10 s / 1 s, lateness 1 s, a watermark every 1,000 records), written to Parquet first. The executors run this
Python (`PYSPARK_PYTHON`) and import the packages from the zip that `spark-submit --py-files` ships, as on a real
cluster (README, *On a cluster*).

Each run writes Spark's event log, and where its time went is printed from it (`event_log.py`): from the
application's start to its first job (the driver's and, on the cluster, the executors' start), its jobs, the rest
(planning between jobs, the end), and its tasks' time summed over the cores (running, deserializing, garbage
collection, waiting for shuffle blocks, writing them) with the shuffle bytes read from another executor.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pyspark
from event_log import read, stages, where_the_time_goes
from spark_scale import rows_differing  # the check of the replay against real Flink, row for row

from spark_impl.session import get_session

ROOT = Path(__file__).resolve().parents[1]
SPARK_HOME = Path(pyspark.__file__).parent
JOB = ["--sliding", "10000", "1000", "--lateness", "1000", "--bound", "2000", "--every", "1000"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_log(path: Path, records: int, keys: int = 1_000, disorder: int = 2_000, delay: int = 19_500) -> None:
    rng = np.random.default_rng(7)
    i = np.arange(records)
    late = rng.random(records) < 0.1
    ts = i - np.where(late, rng.integers(0, delay + 1, records), rng.integers(0, disorder // 2 + 1, records))
    pq.write_table(pa.table({"arrival": i, "key": (i % keys).astype(str), "ts": ts, "payload": i}), path)


def bundle(path: Path) -> None:
    """The packages the executors import (README: `zip -r ... window_contract spark_impl`)."""
    with zipfile.ZipFile(path, "w") as z:
        for package in ("window_contract", "spark_impl"):
            for source in (ROOT / package).rglob("*.py"):
                z.write(source, source.relative_to(ROOT).as_posix())


def spark_class(*args: str, log: Path) -> subprocess.Popen:
    return subprocess.Popen([str(SPARK_HOME / "bin" / "spark-class"), *args], stdout=open(log, "wb"),
                            stderr=subprocess.STDOUT, env=ENV)


def submit(master: str, events: Path, out: Path, bundled: Path, event_log: Path, driver_memory: str = "1g",
           conf: Sequence[str] = ()) -> float:
    """The replay application's time on `master`, start to end; Spark's event log of it in `event_log`."""
    event_log.mkdir()
    start = time.perf_counter()
    subprocess.run([str(SPARK_HOME / "bin" / "spark-submit"), "--master", master, "--py-files", str(bundled),
                    "--driver-memory", driver_memory, "--conf", "spark.sql.shuffle.partitions=8",
                    *(arg for c in conf for arg in ("--conf", c)), "--conf", "spark.ui.enabled=false",
                    "--conf", "spark.eventLog.enabled=true", "--conf", "spark.eventLog.compress=false",
                    "--conf", f"spark.eventLog.dir={event_log.as_uri()}",
                    str(ROOT / "spark_impl" / "replay_job.py"), "--events", str(events), "--out", str(out), *JOB],
                   check=True, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


ENV = {**os.environ, "SPARK_HOME": str(SPARK_HOME), "PYSPARK_PYTHON": sys.executable,
       "PYSPARK_DRIVER_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--records", type=int, default=200_000)
    p.add_argument("--worker-cores", type=int, default=1)
    p.add_argument("--worker-memory", default="2g")
    p.add_argument("--local-only", action="store_true", help="only the run on local[2], with its costliest stages")
    p.add_argument("--stages", type=int, default=0, help="list each run's costliest stages (event_log.py)")
    p.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="a Spark setting for both runs")
    p.add_argument("--driver-memory", default="1g",
                   help="local[2]'s memory (its driver runs the tasks): Spark's default 1g; spark_scale.py gives 6g")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="spark-cluster-") as scratch:
        scratch = Path(scratch)
        events, bundled = scratch / "events.parquet", scratch / "window_conformance.zip"
        write_log(events, args.records)
        bundle(bundled)
        runs = {"local": submit("local[2]", events, scratch / "local", bundled, scratch / "local-events",
                                args.driver_memory, args.conf)}
        if not args.local_only:
            runs["cluster"] = on_a_cluster(args, scratch)
        logs = {run: read(scratch / f"{run}-events") for run in runs}
        print(f"{args.records:,} records: local[2] ({args.driver_memory}) {runs['local']:.1f} s (spark-submit, start "
              "to end); "
              f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        if not args.local_only:
            spark = get_session(java_options=())
            compared = {name: rows_differing(spark.read.parquet(str(scratch / "local" / name)),
                                             spark.read.parquet(str(scratch / "cluster" / name)))
                        for name in ("firings", "late", "dropped")}
            print(f"standalone cluster (a master, two workers of {args.worker_cores} core(s) and {args.worker_memory} "
                  f"on 127.0.0.1) {runs['cluster']:.1f} s; outputs equal to local[2]'s: "
                  f"{not any(differ for _, differ in compared.values())} "
                  f"({', '.join(f'{n} {rows:,} ({differ} differ)' for n, (rows, differ) in compared.items())})")
    for run, events in logs.items():
        print(f"  {run}: {where_the_time_goes(events)}")
        for line in stages(events, args.stages or (12 if args.local_only else 0)):
            print(f"    {line}")


def on_a_cluster(args: argparse.Namespace, scratch: Path) -> float:
    """The replay application's time on a standalone cluster started for it (then stopped)."""
    port = free_port()
    master = f"spark://127.0.0.1:{port}"
    daemons = [spark_class("org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                           "--webui-port", str(free_port()), log=scratch / "master.log")]
    try:
        for w in range(2):
            daemons.append(spark_class(
                "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores", str(args.worker_cores),
                "--memory", args.worker_memory, "--webui-port", str(free_port()),
                "--work-dir", str(scratch / f"work-{w}"), master, log=scratch / f"worker-{w}.log"))
        return submit(master, scratch / "events.parquet", scratch / "cluster", scratch / "window_conformance.zip",
                      scratch / "cluster-events", conf=args.conf)
    finally:
        for daemon in reversed(daemons):
            daemon.terminate()
            daemon.wait(timeout=60)


if __name__ == "__main__":
    main()
