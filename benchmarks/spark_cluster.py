"""The replay application on a Spark standalone cluster: a master and two workers on 127.0.0.1, started from the
PySpark install, run `spark_impl/replay_job.py` on a generated log; the same job on `local[2]`; both timed; then the
cluster is stopped, and their outputs are compared row for row (`spark_scale.rows_differing`: in Spark, so that 10M
records' outputs need not fit in this process).

    python benchmarks/spark_cluster.py --records 200000 [--worker-cores 1] [--worker-memory 2g]

The log is `spark_scale.py`'s (1,000 keys, bounded disorder, one record in ten delayed past the allowed lateness;
sliding 10 s / 1 s, lateness 1 s, a watermark every 1,000 records), written to Parquet first. The executors run this
Python (`PYSPARK_PYTHON`) and import the packages from the zip that `spark-submit --py-files` ships, as on a real
cluster (README, *On a cluster*).

Each run writes Spark's event log, and where its time went is printed from it (`where_the_time_goes`): from the
application's start to its first job (the driver's and, on the cluster, the executors' start), its jobs, the rest
(planning between jobs, the end), and its tasks' time summed over the cores (running, deserializing, garbage
collection, waiting for shuffle blocks, writing them) with the shuffle bytes read from another executor.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pyspark
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


def submit(master: str, events: Path, out: Path, bundled: Path, event_log: Path) -> float:
    """The replay application's time on `master`, start to end; Spark's event log of it in `event_log`."""
    event_log.mkdir()
    start = time.perf_counter()
    subprocess.run([str(SPARK_HOME / "bin" / "spark-submit"), "--master", master, "--py-files", str(bundled),
                    "--conf", "spark.sql.shuffle.partitions=8", "--conf", "spark.ui.enabled=false",
                    "--conf", "spark.eventLog.enabled=true", "--conf", "spark.eventLog.compress=false",
                    "--conf", f"spark.eventLog.dir={event_log.as_uri()}",
                    str(ROOT / "spark_impl" / "replay_job.py"), "--events", str(events), "--out", str(out), *JOB],
                   check=True, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def where_the_time_goes(event_log: Path) -> str:
    """One line from a run's event log (one application in the folder): seconds from its start to its first job,
    while a job ran, and the rest; its tasks' seconds summed (run, deserialize, GC, shuffle fetch wait, shuffle
    write) and the shuffle's bytes read remotely and locally."""
    [log] = event_log.iterdir()  # Spark 4's rolling log: a folder of `events_<n>_<app>` files
    parts = sorted(log.glob("events_*"), key=lambda f: int(f.name.split("_")[1])) if log.is_dir() else [log]
    events = [json.loads(line) for part in parts for line in part.read_text(encoding="utf-8").splitlines()]
    at = {e["Event"]: e.get("Timestamp") for e in events if "Timestamp" in e}
    ended = {e["Job ID"]: e["Completion Time"] for e in events if e["Event"] == "SparkListenerJobEnd"}
    jobs = [(e["Submission Time"], ended[e["Job ID"]]) for e in events if e["Event"] == "SparkListenerJobStart"]
    start, end = at["SparkListenerApplicationStart"], at["SparkListenerApplicationEnd"]
    first = min(submitted for submitted, _ in jobs) - start
    in_jobs, until = 0, start  # the time some job ran (jobs may overlap)
    for submitted, done in sorted(jobs):
        in_jobs += max(0, done - max(submitted, until))
        until = max(until, done)
    tasks = Counter()
    for e in events:
        metrics = e.get("Task Metrics") if e["Event"] == "SparkListenerTaskEnd" else None
        if metrics:
            read, write = metrics["Shuffle Read Metrics"], metrics["Shuffle Write Metrics"]
            tasks.update({"run": metrics["Executor Run Time"], "deserialize": metrics["Executor Deserialize Time"],
                          "GC": metrics["JVM GC Time"], "fetch wait": read["Fetch Wait Time"],
                          "shuffle write": write["Shuffle Write Time"] / 1e6, "remote": read["Remote Bytes Read"],
                          "local": read["Local Bytes Read"], "tasks": 1})
    seconds = ", ".join(f"{name} {tasks[name] / 1000:.1f}" for name in
                        ("run", "deserialize", "GC", "fetch wait", "shuffle write"))
    return (f"start to first job {first / 1000:.1f} s, {len(jobs)} jobs {in_jobs / 1000:.1f} s, "
            f"the rest {(end - start - first - in_jobs) / 1000:.1f} s; "
            f"{tasks['tasks']:,} tasks' seconds: {seconds}; shuffle read {tasks['remote'] / 2**20:.0f} MiB remote, "
            f"{tasks['local'] / 2**20:.0f} MiB local")


ENV = {**os.environ, "SPARK_HOME": str(SPARK_HOME), "PYSPARK_PYTHON": sys.executable,
       "PYSPARK_DRIVER_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--records", type=int, default=200_000)
    p.add_argument("--worker-cores", type=int, default=1)
    p.add_argument("--worker-memory", default="2g")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="spark-cluster-") as scratch:
        scratch = Path(scratch)
        write_log(scratch / "events.parquet", args.records)
        bundle(scratch / "window_conformance.zip")
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
            events, bundled = scratch / "events.parquet", scratch / "window_conformance.zip"
            cluster = submit(master, events, scratch / "cluster", bundled, scratch / "cluster-events")
            local = submit("local[2]", events, scratch / "local", bundled, scratch / "local-events")
        finally:
            for daemon in reversed(daemons):
                daemon.terminate()
                daemon.wait(timeout=60)
        spark = get_session(java_options=())
        compared = {name: rows_differing(spark.read.parquet(str(scratch / "local" / name)),
                                         spark.read.parquet(str(scratch / "cluster" / name)))
                    for name in ("firings", "late", "dropped")}
        spent = {run: where_the_time_goes(scratch / f"{run}-events") for run in ("cluster", "local")}
    print(f"{args.records:,} records: standalone cluster (a master, two workers of {args.worker_cores} core(s) and "
          f"{args.worker_memory} on 127.0.0.1) {cluster:.1f} s, local[2] {local:.1f} s (spark-submit, start to end); "
          f"outputs equal: {not any(differ for _, differ in compared.values())} "
          f"({', '.join(f'{n} {rows:,} ({differ} differ)' for n, (rows, differ) in compared.items())}); "
          f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    for run, line in spent.items():
        print(f"  {run}: {line}")


if __name__ == "__main__":
    main()
