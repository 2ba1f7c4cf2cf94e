"""Flink SQL's joins on Flink 2.3's runtime, for `join-case/1` cases: each case as the query a Flink SQL user writes.

The case's inputs are two tables, `l` and `r` (`k`, `v` and the rowtime of the records, the watermark the input's
channels make, `SOURCE_WATERMARK()`); the query is written here (`query`), and Flink's planner plans it in the
runner (`sql_join/joinconformance/SqlJoinRunner.java`): the window table function of each input, its `Calc`s, the
join operator the planner chooses, with its generated condition and key selectors. The runner leaves out only the
two exchanges before the join (one parallel instance: they partition nothing) and hosts the planner's join operator
in the replay's thread, so that it receives both inputs in the case's order (`HostedJoin.java`); what the join emits
is recorded at the event being replayed. A query the planner refuses is the case's `invalid_spec`, with Flink's
message.

- An interval join (`sql_interval_join`) is `[INNER | LEFT | RIGHT | FULL] JOIN r ON l.k = r.k AND l.rowtime BETWEEN
  r.rowtime + lower AND r.rowtime + upper` (each bound written `r.rowtime - INTERVAL` when negative).
- A window join (`sql_window_join`) joins two window table functions of the same window on the key and both
  windows' bounds: `[INNER | LEFT | RIGHT | FULL] JOIN ... ON L.k = R.k AND L.window_start = R.window_start AND
  L.window_end = R.window_end`; a semi join is `WHERE EXISTS (SELECT * FROM ... R WHERE <the same condition>)` or
  `WHERE L.k IN (SELECT R.k FROM ... R WHERE <the windows' condition>)`, an anti join `NOT EXISTS` or `NOT IN` (which
  the planner makes a window join keyed by nothing, `EmptyRowDataKeySelector`, the keys compared in its join
  condition as `NOT IN`'s null semantics need: with keys never null, the same rows).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from flink_impl.joins import JOIN_SOURCES, run_job
from flink_impl.toolchain import HERE, Build, find_build
from window_contract.case import Cumulative, Sliding, Tumbling, WindowSpec
from window_contract.join_case import JoinCase, SqlIntervalJoin, SqlWindowJoin
from window_contract.join_observation import JoinObservation, SideRecord, SqlRow
from window_contract.observation import Error, InputWatermark

SQL_JOIN_SOURCES = HERE / "sql_join"
SQL_JOIN_MAIN_CLASS = "joinconformance.SqlJoinRunner"
DAY = 86_400_000
COLUMNS = "{0}.k, {0}.v, {0}.window_start, {0}.window_end"
WINDOWS_ON = "L.window_start = R.window_start AND L.window_end = R.window_end"
ON = f"L.k = R.k AND {WINDOWS_ON}"


def interval(millis: int, day_precision: int = 6) -> str:
    """Milliseconds as a SQL day-time interval literal, `INTERVAL '[-]D HH:MM:SS.mmm' DAY(p) TO SECOND(3)` (as the
    window runner writes them, `SqlQueries.interval`): a window table function takes six digits of days, the
    arithmetic of an interval join's bounds SQL's default two (`DAY(6)` there is the planner's error)."""
    days, rest = divmod(abs(millis), DAY)
    sign = "-" if millis < 0 else ""
    return (f"INTERVAL '{sign}{days} {rest // 3_600_000:02d}:{rest // 60_000 % 60:02d}:{rest // 1000 % 60:02d}."
            f"{rest % 1000:03d}' DAY({day_precision}) TO SECOND(3)")


def table_function(window: WindowSpec, table: str) -> str:
    """The window table function over `table`: `TUMBLE(size)`, `HOP(slide, size)`, `CUMULATE(step, size)`, each with
    its offset when it has one."""
    match window:
        case Tumbling(size=size):
            name, arguments = "TUMBLE", [size]
        case Sliding(size=size, slide=slide):
            name, arguments = "HOP", [slide, size]
        case Cumulative(size=size, step=step):
            name, arguments = "CUMULATE", [step, size]
        case _:
            raise ValueError(f"no window table function for {window!r}")
    if window.offset:
        arguments.append(window.offset)
    return (f"(SELECT * FROM TABLE({name}(TABLE {table}, DESCRIPTOR(rowtime), "
            f"{', '.join(map(interval, arguments))})))")


def query(join: SqlWindowJoin | SqlIntervalJoin) -> str:
    """The query a Flink SQL user writes for the join."""
    if isinstance(join, SqlIntervalJoin):
        lower, upper = (f"r.rowtime {'-' if bound < 0 else '+'} {interval(abs(bound), 2)}"
                        for bound in (join.lower, join.upper))
        return (f"SELECT l.k, l.v, r.k, r.v FROM l {join.type.upper()} JOIN r ON l.k = r.k AND l.rowtime BETWEEN "
                f"{lower} AND {upper}")
    left, right = table_function(join.window, "l"), table_function(join.window, "r")
    if join.type in ("semi", "anti"):
        negation = "NOT " if join.type == "anti" else ""
        if join.flavour == "in":
            return (f"SELECT {COLUMNS.format('L')} FROM {left} L WHERE L.k {negation}IN (SELECT R.k FROM {right} R "
                    f"WHERE {WINDOWS_ON})")
        return (f"SELECT {COLUMNS.format('L')} FROM {left} L WHERE {negation}EXISTS (SELECT * FROM {right} R "
                f"WHERE {ON})")
    return (f"SELECT {COLUMNS.format('L')}, {COLUMNS.format('R')} FROM {left} L {join.type.upper()} JOIN {right} R "
            f"ON {ON}")


def sql_join_build(release: str) -> Build:
    """The SQL join runner: its sources beside the DataStream join runner's, on the release's table jars."""
    window = find_build(release, sql=True)
    return replace(window, sources=(SQL_JOIN_SOURCES, JOIN_SOURCES, *window.sources))


def run_sql_joins(cases: Sequence[JoinCase], release: str = "2.3") -> list[JoinObservation]:
    """The SQL join cases in one Flink job (`SqlJoinRunner`) on Flink `release`."""
    if not cases:
        return []
    batch = [{"case": c.to_json(), "sql": query(c.join)} for c in cases]
    raw = run_job(sql_join_build(release), SQL_JOIN_MAIN_CLASS, batch)
    return [_observation(case, r) for case, r in zip(cases, raw, strict=True)]


def _observation(case: JoinCase, raw: dict) -> JoinObservation:
    """A `SqlJoinRunner` observation in the contract's types; a dropped row is the record of the event it was
    dropped at (the join erases rows' timestamps)."""
    error = raw.get("error")

    def dropped(at: int) -> SideRecord:
        e = case.events[at]
        return SideRecord(at, e.input, e.event.key, e.event.value, e.event.ts)

    return JoinObservation(
        tuple(SqlRow(at, key, watermark, left, right, None if start is None else (start, end), timestamp)
              for at, key, watermark, left, right, start, end, timestamp in raw.get("outputs", ())),
        (), tuple(dropped(r[0]) for r in raw.get("dropped", ())),
        tuple(InputWatermark(*w) for w in raw.get("watermarks", ())),
        None if error is None else Error(error["kind"], error["message"]))
