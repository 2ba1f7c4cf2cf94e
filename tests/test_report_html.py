"""`index.html` in a real browser: headless Chromium loads it without console errors, the DOM shows
the verdict and the matrix, a screenshot is a real picture, not a blank page, and a failing report is
laid out to be read (no sideways scrolling, coverage rows of normal height, counterexamples headed by
what went wrong, timeline markers large enough and apart).

Chromium is Debian's package `chromium` (`apt-get install -y chromium`); without it these tests fail.
"""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest
from report_fixture_suite.running import mixed_run

from window_contract.features import FEATURES

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CONSOLE = re.compile(r":CONSOLE(?:\(\d+\)|:\d+)\] (.*)")


def chromium(page: Path, profile: Path, *args: str) -> subprocess.CompletedProcess:
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        pytest.fail("headless Chromium is needed: apt-get update && apt-get install -y chromium")
    profile.mkdir()
    return subprocess.run(
        [binary, *FLAGS, f"--user-data-dir={profile}", *args, page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )


def console_messages(page: Path, profile: Path, *args: str) -> tuple[str, list[str]]:
    """The page's DOM after loading, and every message it wrote to the console (errors included)."""
    done = chromium(page, profile, "--enable-logging=stderr", "--v=0", "--dump-dom", *args)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, CONSOLE.findall(done.stderr)


def png_pixels(path: Path) -> tuple[int, int, list[bytes]]:
    """Width, height and rows of an 8-bit RGB or RGBA PNG, unfiltered (PNG spec, section 9)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    chunks, pos = {}, 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        chunks.setdefault(kind, []).append(data[pos + 8 : pos + 8 + length])
        pos += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", chunks[b"IHDR"][0][:10])
    assert depth == 8 and colour in (2, 6), (depth, colour)
    bpp = 3 if colour == 2 else 4
    raw, stride, rows, previous = (
        zlib.decompress(b"".join(chunks[b"IDAT"])),
        width * bpp,
        [],
        bytes(width * bpp),
    )
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a, b = line[i - bpp] if i >= bpp else 0, previous[i]
            c = previous[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, [bytes(r[i : i + 3]) for r in rows for i in range(0, stride, bpp)]


class Texts(HTMLParser):
    """The text of the elements with an id, and the cells of the matrix table."""

    def __init__(self) -> None:
        super().__init__()
        self.by_id: dict[str, str] = {}
        self.open: list[str | None] = []
        self.matrix_rows: list[list[str]] = []
        self.in_matrix = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.open.append(attrs.get("id"))
        if tag == "table" and attrs.get("class") == "matrix":
            self.in_matrix = True
        if self.in_matrix and tag == "tr":
            self.matrix_rows.append([])
        if self.in_matrix and tag in ("td", "th"):
            self.matrix_rows[-1].append("")

    def handle_endtag(self, tag):
        self.open.pop()
        if tag == "table":
            self.in_matrix = False

    def handle_data(self, data):
        for element in filter(None, self.open):
            self.by_id[element] = self.by_id.get(element, "") + data
        if self.in_matrix and self.matrix_rows and self.matrix_rows[-1]:
            self.matrix_rows[-1][-1] += data


def test_the_page_loads_without_console_errors_and_shows_verdict_and_matrix(tmp_path):
    page = mixed_run().out / "index.html"
    dom, messages = console_messages(page, tmp_path / "profile")
    assert messages == []
    texts = Texts()
    texts.feed(dom)
    assert texts.by_id["verdict"].startswith("Does not conform: reference-flink-1.12")
    header, *rows = texts.matrix_rows
    assert header == ["feature", "what it covers", "reference", "reference-flink-1.12"]
    assert [row[0] for row in rows] == list(FEATURES)
    by_feature = {row[0]: row[2:] for row in rows}
    reference, older = by_feature["negative_timestamps"]
    assert reference.startswith("pass") and older.startswith("in a failing case")
    assert re.fullmatch(r"pass\d+ cases", by_feature["assigner.tumbling"][0])
    assert "<svg" in dom and "reference fires" in dom  # the counterexample's timeline


def test_the_console_check_sees_errors(tmp_path):
    """The check above can fail: a page with a script error is caught."""
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><p>x</p><script>notDefined()</script>", encoding="utf-8")
    _, messages = console_messages(page, tmp_path / "profile")
    assert any("notDefined is not defined" in m for m in messages)


def test_the_page_fetches_nothing():
    html = (mixed_run().out / "index.html").read_text(encoding="utf-8")
    assert "<script" not in html and "<link" not in html and "@import" not in html and "url(" not in html
    assert set(re.findall(r"https?://[^\s\"'<>]+", html)) == {
        "http://www.w3.org/2000/svg"
    }  # the SVG namespace


def test_a_screenshot_is_a_real_picture(tmp_path):
    shot = tmp_path / "report.png"
    done = chromium(
        mixed_run().out / "index.html",
        tmp_path / "profile",
        f"--screenshot={shot}",
        "--window-size=1280,900",
        "--hide-scrollbars",
    )
    assert done.returncode == 0, done.stderr[-2000:]
    width, height, pixels = png_pixels(shot)
    assert (width, height) == (1280, 900)
    white = pixels.count(b"\xff\xff\xff")
    assert white < 0.97 * len(pixels), "the page is blank"
    assert len(set(pixels)) > 50, "too few colours for text, badges and the verdict"
    # The verdict is a red box near the top (background #fee2e2).
    top = pixels[: 1280 * 200]
    assert top.count(b"\xfe\xe2\xe2") > 10_000


#: Measures the laid-out page from inside it and writes what it found into `#layout` as JSON, which
#: `--dump-dom` then shows: the page's width, the tallest coverage row, each counterexample's
#: heading and differences, and the firing markers of each timeline as laid out.
LAYOUT_PROBE = """<script>
const box = (e) => e.getBoundingClientRect();
const overlap = (a, b) => !(a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top);
const failures = [...document.querySelectorAll("article.failure")].map((article) => {
  const svg = article.querySelector("svg");
  const rings = [...svg.querySelectorAll("circle[fill=none]")].map(box);
  const crosses = [...svg.querySelectorAll("path")].map(box);
  return {
    heading: article.querySelector("h3").textContent,
    what: (article.querySelector(".what") || {}).textContent || "",
    differences: [...article.querySelectorAll("ul.differences li")].map((li) => li.textContent),
    differencesOverflow: [...article.querySelectorAll("ul.differences")].some((u) => u.scrollWidth > u.clientWidth),
    caseClipped: [...article.querySelectorAll(".case-and-picture pre")].some((p) => p.scrollWidth > p.clientWidth),
    caseText: article.querySelector(".case-and-picture pre").innerText,
    sideRows: [...article.querySelectorAll("table.side tr")].slice(1).map((tr) =>
      [...tr.children].map((cell) => cell.innerText)),
    markerSize: Math.min(...rings.concat(crosses).map((r) => r.width)),
    ringsOnCrosses: rings.filter((r) => crosses.some((c) => overlap(r, c))).length,
  };
});
const rows = [...document.querySelectorAll("table.stats tr")].map((tr) => box(tr).height);
document.getElementById("layout").textContent = JSON.stringify({
  pageWidth: document.documentElement.scrollWidth, viewport: window.innerWidth,
  tallestCoverageRow: Math.max(...rows), failures,
});
</script>"""


def laid_out(page: Path, tmp_path: Path) -> dict:
    """The failing report as headless Chromium lays it out at 1280 px (a copy of it, with the probe)."""
    probed = tmp_path / "probed.html"
    html = page.read_text(encoding="utf-8")
    probed.write_text(html.replace("</body>", f'<pre id="layout"></pre>{LAYOUT_PROBE}</body>'), encoding="utf-8")
    dom, messages = console_messages(probed, tmp_path / "profile", "--window-size=1280,900")
    assert messages == []
    texts = Texts()
    texts.feed(dom)
    return json.loads(texts.by_id["layout"])


def test_a_failing_report_is_laid_out_to_be_read(tmp_path):
    layout = laid_out(mixed_run().out / "index.html", tmp_path)
    assert layout["pageWidth"] <= layout["viewport"], "the page scrolls sideways"
    assert layout["tallestCoverageRow"] < 160, "the coverage table's situations column is squeezed"
    assert layout["failures"], "the failing run shows no counterexample"
    for failure in layout["failures"]:
        # The heading says what failed, the line under it what went wrong, in the domain's words.
        assert failure["heading"].startswith("reference-flink-1.12 fails "), failure["heading"]
        assert re.match(r"(extra )?(firing|late|dropped|record)", failure["what"]), failure["what"]
        assert failure["differences"] and not any("root[" in d for d in failure["differences"])
        assert not failure["differencesOverflow"]
        assert failure["markerSize"] >= 12, "firing markers too small to see"
        assert failure["ringsOnCrosses"] == 0, "the reference's and the implementation's firings overlap"


def test_the_minimal_case_is_not_clipped_and_the_outputs_line_up_by_position(tmp_path):
    """A case whose first line is long (allowed lateness Long.MAX_VALUE) shows whole, and what the reference and
    the implementation emitted at the same position stands in one row."""
    from dataclasses import replace

    from test_report_render import BAD, GOOD, MATRIX, document, violation

    from reports import render_html
    from window_contract.case import case_to_json
    from window_contract.case_json import case_from_json

    failure = violation()
    failure["case"] = case_to_json(replace(case_from_json(failure["case"]), allowed_lateness=2**63 - 1,
                                           late_side_output=True, channels=2))
    bad = BAD | {"properties": [BAD["properties"][0] | {"failures": [failure]}, *BAD["properties"][1:]]}
    page = tmp_path / "index.html"
    page.write_text(render_html(document(GOOD, bad, matrix=MATRIX)), encoding="utf-8")
    [shown] = laid_out(page, tmp_path)["failures"]
    assert not shown["caseClipped"] and "allowed lateness 9223372036854775807" in shown["caseText"]
    assert shown["sideRows"] == [
        ["at 1", "fire a [0, 10) values [1] ts 9 (watermark 9)", ""],
        ["at 2", "dropped a=2 @ 3", ""],
        ["3: end of input", "", "fire a [0, 10) values [1, 2] ts 9 (watermark +inf (Long.MAX_VALUE))"],
    ]
