"""Where a Spark application's time went, from its event log (`spark.eventLog.enabled=true`,
`spark.eventLog.compress=false`): the whole run in one line, and its costliest stages, each with the plan's
operators that ran in it.

    python benchmarks/event_log.py EVENT_LOG_DIR [--stages 12]

`EVENT_LOG_DIR` holds one application's log: Spark 4's rolling folder of `events_<n>_<app>` files, or one file.
A stage is named by the physical operators whose SQL metrics its tasks updated (the `sparkPlanInfo` of each SQL
execution maps a metric's accumulator to its operator), which says which part of a DataFrame plan it ran; Spark's
own stage names are the action's call site, the same for every stage of a job.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from pathlib import Path

SQL_START = "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart"
SQL_UPDATE = "org.apache.spark.sql.execution.ui.SparkListenerSQLAdaptiveExecutionUpdate"
MIB = 2**20


def read(event_log: Path) -> list[dict]:
    """The events of the one application logged in `event_log`, in order."""
    [log] = event_log.iterdir()
    parts = sorted(log.glob("events_*"), key=lambda f: int(f.name.split("_")[1])) if log.is_dir() else [log]
    return [json.loads(line) for part in parts for line in part.read_text(encoding="utf-8").splitlines()]


def where_the_time_goes(events: list[dict]) -> str:
    """One line: seconds from the application's start to its first job, while a job ran, and the rest; its tasks'
    seconds summed (run, deserialize, GC, shuffle fetch wait, shuffle write) and the shuffle's bytes read remotely
    and locally."""
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
    for metrics in _task_metrics(events).values():
        tasks.update(metrics)
    seconds = ", ".join(f"{name} {tasks[name] / 1000:.1f}" for name in
                        ("run", "deserialize", "GC", "fetch wait", "shuffle write"))
    return (f"start to first job {first / 1000:.1f} s, {len(jobs)} jobs {in_jobs / 1000:.1f} s, "
            f"the rest {(end - start - first - in_jobs) / 1000:.1f} s; "
            f"{tasks['tasks']:,} tasks' seconds: {seconds}; shuffle read {tasks['remote'] / MIB:.0f} MiB remote, "
            f"{tasks['local'] / MIB:.0f} MiB local")


def _task_metrics(events: list[dict]) -> dict[int, Counter]:
    """Each stage's task metrics, summed (times in ms, bytes, records)."""
    stages: dict[int, Counter] = defaultdict(Counter)
    for e in events:
        metrics = e.get("Task Metrics") if e["Event"] == "SparkListenerTaskEnd" else None
        if metrics:
            read, write = metrics["Shuffle Read Metrics"], metrics["Shuffle Write Metrics"]
            stages[e["Stage ID"]].update({
                "run": metrics["Executor Run Time"], "deserialize": metrics["Executor Deserialize Time"],
                "GC": metrics["JVM GC Time"], "fetch wait": read["Fetch Wait Time"],
                "shuffle write": write["Shuffle Write Time"] / 1e6, "remote": read["Remote Bytes Read"],
                "local": read["Local Bytes Read"], "written": write["Shuffle Bytes Written"],
                "input": metrics["Input Metrics"]["Records Read"], "spilled": metrics["Disk Bytes Spilled"],
                "tasks": 1})
    return stages


def _operators(events: list[dict]) -> dict[int, str]:
    """The physical operator of each SQL metric's accumulator, over every plan the application ran."""
    owner: dict[int, str] = {}

    def walk(node: dict) -> None:
        for metric in node.get("metrics", ()):
            owner[metric["accumulatorId"]] = node["nodeName"]
        for child in node.get("children", ()):
            walk(child)

    for e in events:
        if e["Event"] in (SQL_START, SQL_UPDATE):
            walk(e["sparkPlanInfo"])
    return owner


def stages(events: list[dict], top: int) -> list[str]:
    """The `top` stages by their tasks' run time, a line each: its wall seconds, tasks, their run and GC seconds,
    what it read and wrote, and the operators that ran in it."""
    owner, metrics = _operators(events), _task_metrics(events)
    lines = []
    completed = [e["Stage Info"] for e in events if e["Event"] == "SparkListenerStageCompleted"]
    for info in sorted(completed, key=lambda i: -metrics[i["Stage ID"]]["run"])[:top]:
        m = metrics[info["Stage ID"]]
        ran = dict.fromkeys(owner[a["ID"]] for a in info.get("Accumulables", ()) if a["ID"] in owner)
        wall = (info["Completion Time"] - info["Submission Time"]) / 1000
        lines.append(f"stage {info['Stage ID']:>3}: {wall:6.1f} s, "
                     f"{m['tasks']:>3} tasks, run {m['run'] / 1000:6.1f} s, GC {m['GC'] / 1000:5.1f} s, "
                     f"read {m['input']:,} records + {(m['remote'] + m['local']) / MIB:,.0f} MiB shuffled, "
                     f"wrote {m['written'] / MIB:,.0f} MiB, spilled {m['spilled'] / MIB:,.0f} MiB: "
                     f"{', '.join(ran) or info['Stage Name']}")
    return lines


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("event_log", type=Path)
    p.add_argument("--stages", type=int, default=12, help="how many of the costliest stages to list")
    args = p.parse_args()
    events = read(args.event_log)
    print(where_the_time_goes(events))
    for line in stages(events, args.stages):
        print("  " + line)


if __name__ == "__main__":
    main()
