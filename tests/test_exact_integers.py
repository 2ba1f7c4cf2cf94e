"""Integers beyond 2^53 in the formats (docs/format.md, "Integers beyond 2^53"): the JavaScript and Go code the
docs give reads and writes `9223372036854775807` and its neighbours exactly (where `JSON.parse` does not), and the
example engines answer the end of input's watermark exactly."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from window_contract import Case, record, tumbling
from window_contract.case import case_to_json

ROOT = Path(__file__).resolve().parents[1]
FORMAT = (ROOT / "docs" / "format.md").read_text(encoding="utf-8")
LONG_MAX = 2**63 - 1
#: An observation with the numbers a double cannot hold, and strings that look like the marks a reader might use.
DOCUMENT = {"format": "window-observation/1", "firings": [
    {"at": 1, "key": "\u0000123", "window": {"global": True}, "timestamp": LONG_MAX, "values": [-(2**63), 2**53 + 1],
     "watermark": LONG_MAX - 1},
    {"at": None, "key": "a\"1\\", "window": {"start": -5, "end": 10}, "timestamp": 9, "values": [], "watermark": None}],
    "late": [], "dropped": [], "error": None, "threshold": 0.5}


def snippet(language: str) -> str:
    [code] = re.findall(rf"<!-- exact: {language} -->\n  ```{language}\n(.*?)\n  ```", FORMAT, re.S)
    return "\n".join(line.removeprefix("  ") for line in code.splitlines()) + "\n"


def tool(name: str) -> str:
    found = shutil.which(name) or next((str(p) for p in (Path("/usr/local/go/bin") / name,) if p.exists()), None)
    if found is None:
        pytest.fail(f"{name} is needed for this test (the docs give code for it)")
    return found


def test_json_parse_alone_would_round_the_watermark():
    done = subprocess.run([tool("node"), "-e", "process.stdout.write(JSON.stringify(JSON.parse(process.argv[1])))",
                           json.dumps(LONG_MAX)], capture_output=True, text=True, check=True)
    assert done.stdout == "9223372036854776000"


#: An engine's script, as `node impl.js` runs it (CommonJS, with no package.json), the docs' helper beside it.
IMPL_JS = """const { parseExact, stringifyExact } = require("./exact-json.cjs");
const { readFileSync } = require("node:fs");
const doc = parseExact(readFileSync(0, "utf-8"));
if (doc.firings[0].watermark + 1n !== 9223372036854775807n) throw new Error("not a BigInt");
process.stdout.write(stringifyExact(doc));
"""


#: The same as an ES module, which imports the helper as well.
IMPL_MJS = IMPL_JS.replace('const { parseExact, stringifyExact } = require("./exact-json.cjs");',
                           'import { parseExact, stringifyExact } from "./exact-json.cjs";').replace(
    'const { readFileSync } = require("node:fs");', 'import { readFileSync } from "node:fs";')


@pytest.mark.parametrize("main, code", [("impl.js", IMPL_JS), ("impl.mjs", IMPL_MJS)])
def test_the_javascript_of_the_docs_reads_and_writes_every_integer_exactly(tmp_path, main, code):
    assert snippet("javascript").startswith("// exact-json.cjs:")
    (tmp_path / "exact-json.cjs").write_text(snippet("javascript"), encoding="utf-8")
    (tmp_path / main).write_text(code, encoding="utf-8")
    done = subprocess.run([tool("node"), main], cwd=tmp_path, input=json.dumps(DOCUMENT), capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == DOCUMENT


def test_the_go_of_the_docs_reads_the_watermark_exactly(tmp_path):
    (tmp_path / "main.go").write_text(snippet("go"), encoding="utf-8")
    done = subprocess.run([tool("go"), "run", str(tmp_path / "main.go")], input=json.dumps(DOCUMENT),
                          capture_output=True, text=True, timeout=300,
                          env={"HOME": str(tmp_path), "GOCACHE": str(tmp_path / "cache"), "GOFLAGS": "-mod=mod",
                               "GO111MODULE": "off", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[0] == f"{LONG_MAX - 1} {LONG_MAX - 2}"


def test_the_example_engine_answers_the_end_of_inputs_watermark_exactly(tmp_path):
    subprocess.run(["javac", "-d", str(tmp_path), str(ROOT / "examples" / "NaiveWindows.java")], check=True)
    request = {"type": "run", "id": 1, "cases": [case_to_json(Case(window=tumbling(10), events=[record("a", 1, 5)]))]}
    done = subprocess.run(["java", "-cp", str(tmp_path), "NaiveWindows"], input=json.dumps(request) + "\n",
                          capture_output=True, text=True, timeout=120)
    hello, answer = done.stdout.splitlines()
    assert '"watermark": 9223372036854775807' in answer.replace('"watermark":9', '"watermark": 9'), answer
