"""The porting pages: what changes when a Flink job moves to each engine under test, generated.

`docs/engines/<engine>.md` for every engine with a divergence list (`pages.py`), the matrix of every engine against
every divergence area and declared feature, `docs/engines/README.md` (`matrix.py`), and the README's summary of
it, between the markers `README_BEGIN` and `README_END`. `python -m conformance.porting` writes them;
`tests/test_porting.py` fails when a committed page is not what this package makes of the committed sources.
"""

from __future__ import annotations

import re
from pathlib import Path

from conformance.porting.matrix import MATRIX, engines, matrix_page, summary
from conformance.porting.pages import COMMAND, PAGES, engine_page

README_BEGIN = f"<!-- generated: the engines' summary ({COMMAND}) -->"
README_END = "<!-- end of generated: the engines' summary -->"


def with_summary(readme: str, root: Path) -> str:
    """`readme` with the engines' summary written again between its markers."""
    pattern = re.compile(re.escape(README_BEGIN) + r"\n(?:.*?\n)?" + re.escape(README_END), re.S)
    if not pattern.search(readme):
        raise ValueError("README.md has no markers for the engines' summary")
    table = f"{README_BEGIN}\n{summary(root, f'{PAGES}/')}\n{README_END}"
    return pattern.sub(lambda _: table, readme)


def expected(root: Path) -> dict[Path, str]:
    """Every generated page's path and the text it must hold, made of the sources under `root`."""
    pages = {root / PAGES / f"{engine}.md": engine_page(engine, root) for engine in engines(root)}
    pages[root / MATRIX] = matrix_page(root)
    pages[root / "README.md"] = with_summary((root / "README.md").read_text(encoding="utf-8"), root)
    return pages
