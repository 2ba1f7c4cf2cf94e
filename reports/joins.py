"""A join property's failure in the reports: its case is a join case (`join-case/1`) and its observations join
observations, which the window failure's pictures and tables (positions of firings, a timeline) do not draw; the
report shows the rule, what differs and the case, observations and saved file as they are. A join case and its
observation also read as lines (`join_case_lines`, `join_output_lines`), as a window case's do
(`reports.observations`), for the porting pages' join divergences."""

from __future__ import annotations

import json
from typing import Any

from reports.observations import event_text, kind_text
from window_contract.difference import time_text
from window_contract.join_case import JOIN_CASE_FORMAT


def is_join_failure(failure: dict[str, Any]) -> bool:
    return failure["case"].get("format") == JOIN_CASE_FORMAT


def join_failure_sections(failure: dict[str, Any]) -> list[tuple[str, str]]:
    """`(title, text)` of each part the reports show: what differs, then the case and the two observations as JSON,
    each a section; the saved case file, when there is one."""
    reference = failure.get("reference") or failure.get("expected")
    sections = [("What differs", failure["difference"]), ("The join case", json.dumps(failure["case"], indent=2))]
    sections += [(title, json.dumps(observation, indent=2)) for title, observation in (
        ("The reference's join observation", reference), ("The implementation's", failure.get("actual")))
        if observation is not None]
    if failure.get("case_file"):
        sections.append(("Saved as", f"{failure['case_file']} (join-case/1, with the reference's observation as "
                                     "expected)"))
    return sections


def join_text(join: dict[str, Any]) -> str:
    """The join's specification as it reads: `interval_join(lower=0, upper=1, upper exclusive, left late output)`,
    `window_join(window=tumbling(size=10))`, `sql_window_join(type=left, window=...)`."""
    fields = []
    for name, value in join.items():
        if name == "operation" or (value in (None, False, 0) and name not in ("lower", "upper")):
            continue
        if name.endswith("_exclusive"):
            fields.append(f"{name.removesuffix('_exclusive')} exclusive")
        elif name == "late_side_output":
            fields += [f"{side} late output" for side, kept in value.items() if kept]
        else:
            fields.append(f"{name}={kind_text(value) if isinstance(value, dict) else value}")
    return f"{join['operation']}({', '.join(fields)})"


def join_case_lines(case: dict[str, Any]) -> list[str]:
    """The join case: its join, each input's channels where more than one, then its events by arrival position,
    each with its input."""
    channels = [f"{side} {inputs['channels']} channels" for side, inputs in case.get("inputs", {}).items()
                if inputs.get("channels", 1) != 1]
    lines = [", ".join([join_text(case["join"]), *channels])]
    lines += [f"{i}: {e['input']}: {event_text({k: v for k, v in e.items() if k != 'input'})}"
              for i, e in enumerate(case["events"])]
    if case.get("end_of_input", True):
        lines.append(f"{len(case['events'])}: end of input (each input's watermark +inf)")
    return lines


def join_output_lines(observation: dict[str, Any]) -> list[tuple[int | None, str]]:
    """Each output of a join observation with its position: the watermarks the operator received, the pairs,
    coGroups and rows, then the late and dropped records with their input."""
    lines = [(w["at"], f"the operator's watermark becomes {time_text(w['watermark'])}")
             for w in observation.get("watermarks", ())]
    for x in observation["outputs"]:
        lines.append((x["at"], f"{_output_text(x)} (watermark {time_text(x['watermark'])})"))
    for part in ("late", "dropped"):
        lines += [(r["at"], f"{part} {r['input']} {r['key']}={r['value']} @ {time_text(r['ts'])}")
                  for r in observation[part]]
    return sorted(lines, key=lambda line: line[0])


def _output_text(x: dict[str, Any]) -> str:
    if "left_values" in x:
        return f"coGroup {x['key']} left {x['left_values']} right {x['right_values']} ts {time_text(x['timestamp'])}"
    window = x.get("window")
    where = f" window [{window['start']}, {window['end']})" if window else ""
    stamped = f" ts {time_text(x['timestamp'])}" if x.get("timestamp") is not None else ""
    kind = "row" if "window" in x else "pair"
    return f"{kind} {x['key']} left {_value(x['left'])} right {_value(x['right'])}{where}{stamped}"


def _value(value: int | None) -> str:
    return "null" if value is None else str(value)
