"""*Replaying your data on Spark* (`docs/spark.md`) as a user walks it: its examples run as written (the second with
the columns it names, the first showing a late record), `spark_impl/replay_job.py --help` lists its input
columns and every watermark option of `flink_windows`, the job runs with a generator, and the `zip` step bundles
exactly the packages the executors import, outside the work tree."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from test_layers import imports

from spark_impl import replay_job
from window_contract.case import BoundedOutOfOrdernessWatermarks, MonotonousWatermarks, sliding
from window_contract.facts import TOO_MANY_WINDOWS

ROOT = Path(__file__).resolve().parents[1]
SECTION = (ROOT / "docs" / "spark.md").read_text(encoding="utf-8")


def examples() -> list[str]:
    return [re.sub(r"^  ", "", code, flags=re.M) for code in re.findall(r"```python\n(.*?)```", SECTION, re.S)]


@pytest.mark.spark
def test_the_examples_run_as_written_and_the_first_shows_a_late_record():
    first, second = examples()[:2]  # the third is the live query's (tests/test_spark_live.py)
    scope: dict = {}
    exec(first, scope)  # noqa: S102 (the page's own code)
    late = [(r["key"], r["ts"], r["payload"]) for r in scope["out"].late.collect()]
    assert late == [("sensor-1", 3000, "e")]
    exec(second, scope)  # noqa: S102
    assert scope["out"].firings.count() > 0


def test_the_jobs_help_lists_its_input_columns_and_watermark_options():
    done = subprocess.run([sys.executable, str(ROOT / "spark_impl" / "replay_job.py"), "--help"], capture_output=True,
                          text=True, check=True)
    for option in ("--key", "--timestamp", "--payload", "--arrival", "--channel", "--processing-time", "--bound",
                   "--every", "--generator", "--generator-bound", "--interval", "--punctuated", "--idleness",
                   "--channels", "--watermarks"):
        assert option in done.stdout, option
    assert "input columns" in done.stdout and "bounded_out_of_orderness" in done.stdout


def arguments(*argv: str) -> dict:
    args = replay_job.parser().parse_args(["--events", "in", "--out", "out", "--sliding", "10", "5", *argv])
    return replay_job.job_arguments(args, read_parquet=lambda path: f"table {path}")


def test_the_jobs_watermark_options_are_flink_windows_arguments():
    assert arguments("--generator", "bounded_out_of_orderness", "--generator-bound", "2000", "--idleness", "50",
                     "--channel", "p", "--channels", "4", "--processing-time", "t", "--key", "sensor") == {
        "window": sliding(10, 5), "allowed_lateness": 0, "late_side_output": True, "key": "sensor",
        "timestamp": "ts", "payload": "payload", "arrival": "arrival",
        "watermarks": BoundedOutOfOrdernessWatermarks(2000, interval=200, idleness=50), "channel": "p",
        "channels": 4, "processing_time": "t"}
    assert arguments("--generator", "monotonous", "--punctuated")["watermarks"] == MonotonousWatermarks(
        punctuated=True)
    assert arguments("--watermarks", "w/")["watermarks"] == "table w/"
    for wrong in (("--bound", "1", "--watermarks", "w"), ("--generator", "monotonous", "--generator-bound", "1"), ()):
        with pytest.raises(SystemExit):
            arguments(*wrong)


@pytest.mark.spark
def test_the_job_replays_a_parquet_log_with_a_generator(tmp_path):
    from spark_impl.session import get_session

    spark = get_session()
    events = spark.createDataFrame([("a", 1, "x", 0, 0), ("a", 30, "y", 1, 0), ("a", 2, "z", 2, 0)],
                                   "key string, ts long, payload string, arrival long, part int")
    events.write.parquet(str(tmp_path / "events"))
    replay_job.main(["--events", str(tmp_path / "events"), "--out", str(tmp_path / "out"), "--tumbling", "10",
                     "--generator", "monotonous", "--punctuated", "--interval", "0", "--channel", "part"])
    late = spark.read.parquet(str(tmp_path / "out" / "late")).collect()
    assert [(r["key"], r["ts"]) for r in late] == [("a", 2)]
    assert spark.read.parquet(str(tmp_path / "out" / "firings")).count() == 2


@pytest.mark.spark
def test_the_job_exits_with_the_failure_of_the_flink_job(tmp_path):
    from spark_impl.session import get_session

    get_session().createDataFrame([("a", 1, 7, 0)], "key string, ts long, payload long, arrival long").write.parquet(
        str(tmp_path / "events"))
    said = f"error: the Flink job fails at arrival 0 (the record): {TOO_MANY_WINDOWS}; {tmp_path}/out holds what it"
    with pytest.raises(SystemExit, match=f"^{re.escape(said)} emitted before$"):
        replay_job.main(["--events", str(tmp_path / "events"), "--out", str(tmp_path / "out"), "--sliding", "20000",
                         "1", "--bound", "0"])
    assert get_session().read.parquet(str(tmp_path / "out" / "firings")).count() == 0


def test_the_zip_step_bundles_what_the_executors_import_outside_the_work_tree():
    [line] = [line for line in SECTION.splitlines() if line.startswith("zip ")]
    command = shlex.split(line.split("#")[0])
    archive, packages = command[2], set(command[3:])
    assert not Path(archive).resolve().is_relative_to(ROOT), "the zip would be an untracked file of the work tree"
    imported = {module.split(".")[0] for path in (ROOT / "spark_impl").rglob("*.py") for module in imports(path)}
    assert packages == imported | {"spark_impl"}
