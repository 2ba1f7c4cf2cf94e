"""The replay application on a Spark standalone cluster: a master and two workers on 127.0.0.1, started from the
PySpark install, run `spark_impl/replay_job.py` on a generated log; the same job on `local[2]`; both timed, their
outputs compared row for row; then the cluster is stopped.

    python benchmarks/spark_cluster.py --records 200000 [--worker-cores 1] [--worker-memory 2g]

The log is `spark_scale.py`'s (1,000 keys, bounded disorder, one record in ten delayed past the allowed lateness;
sliding 10 s / 1 s, lateness 1 s, a watermark every 1,000 records), written to Parquet first. The executors run this
Python (`PYSPARK_PYTHON`) and import the packages from the zip that `spark-submit --py-files` ships, as on a real
cluster (README, *On a cluster*).
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
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pyspark

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


def submit(master: str, events: Path, out: Path, bundled: Path) -> float:
    start = time.perf_counter()
    subprocess.run([str(SPARK_HOME / "bin" / "spark-submit"), "--master", master, "--py-files", str(bundled),
                    "--conf", "spark.sql.shuffle.partitions=8", "--conf", "spark.ui.enabled=false",
                    str(ROOT / "spark_impl" / "replay_job.py"), "--events", str(events), "--out", str(out), *JOB],
                   check=True, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def rows(folder: Path) -> Counter:
    table = pq.read_table(folder)
    return Counter(tuple(tuple(v) if isinstance(v, list) else v for v in r.values()) for r in table.to_pylist())


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
            cluster = submit(master, events, scratch / "cluster", bundled)
            local = submit("local[2]", events, scratch / "local", bundled)
        finally:
            for daemon in reversed(daemons):
                daemon.terminate()
                daemon.wait(timeout=60)
        same = {name: rows(scratch / "cluster" / name) == rows(scratch / "local" / name)
                for name in ("firings", "late", "dropped")}
        sizes = {name: sum(rows(scratch / "local" / name).values()) for name in same}
    print(f"{args.records:,} records: standalone cluster (a master, two workers of {args.worker_cores} core(s) and "
          f"{args.worker_memory} on 127.0.0.1) {cluster:.1f} s, local[2] {local:.1f} s (spark-submit, start to end); "
          f"outputs equal: {all(same.values())} ({', '.join(f'{n} {sizes[n]:,}' for n in sizes)}); "
          f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
