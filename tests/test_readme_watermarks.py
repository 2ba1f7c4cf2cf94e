"""The README's watermark example, as written: it loads, and the reference and real Flink both emit
what the README's text says it does (firings at 202 and 604, the operator's watermarks -1, 44, 64)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from window_contract.case_json import case_from_json
from window_contract.equivalence import equivalent
from window_contract.observation import Firing, InputWatermark, Observation, TimeWindow
from window_contract.registry import load_implementation

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
SECTION = README.split("## Watermarks made by Flink", 1)[1].split("\n## ", 1)[0]
[EXAMPLE] = re.findall(r"```json\n(.*?)```", SECTION, re.S)
CASE = case_from_json(json.loads(EXAMPLE))

#: What the README's text says: the watermark -1 at 101 (position 2), 44 at 202 (position 4), which
#: fires [0, 10); 64 once channel 1 is idle at 604 (position 6), which fires [50, 60).
SAID = Observation(
    firings=(Firing(4, "a", TimeWindow(0, 10), 9, (1,), 44), Firing(6, "a", TimeWindow(50, 60), 59, (2,), 64)),
    watermarks=(InputWatermark(2, -1), InputWatermark(4, 44), InputWatermark(6, 64)))
CASES = {"readme": (CASE, SAID)}


def test_the_readme_example_does_what_the_readme_says():
    [observed] = load_implementation("reference").run([CASE])
    assert equivalent(SAID, observed), observed
    text = " ".join(SECTION.split())
    for claim in ("emits 5 - 5 - 1 = -1", "the watermark is 44 and `[0, 10)` fires", "channel 0's 64 fires `[50, 60)`"):
        assert claim in text


def test_real_flink_agrees(flink_observed):
    assert equivalent(SAID, flink_observed["readme"]), flink_observed["readme"]
