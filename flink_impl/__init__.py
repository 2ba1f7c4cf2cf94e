"""The real Apache Flink as an implementation: cases run through Flink's own `WindowOperator`.

A small Java program (`java/windowconformance/`), compiled on first use against the pinned
`flink-dist` jar of `apache-flink-libraries`, runs each case as a branch of a job in a MiniCluster and
answers with observations. It speaks the suite's public process protocol, `window-process/1`
(docs/protocol.md): `FlinkImplementation` launches it (`flink_impl/command.py`, one such process per
Python process) and talks to it through `window_contract.process`, and `python -m flink_impl` prints its
command for `--impl exec:`.
The window operator's input watermarks come from Flink's own classes too: per channel the case's
generator behind `TimestampsAndWatermarksOperator`'s emitter, timed by the case's processing-time
events, and `StatusWatermarkValve` merging the channels (`CaseWatermarks.java`).

The same runner runs Flink SQL's windows (`flink_impl/sql.py`, `sql/`: `flink-sql`, `flink-sql-legacy`) and
Flink 1.20, the LTS release (`flink-1.20`, `flink-sql-1.20`: its jars from Maven, `flink-1.20/pom.xml`, and a
shim of its own, `shims/flink-1.20`).
"""

from flink_impl.implementation import FlinkImplementation

__all__ = ["FlinkImplementation"]
