"""Writes the porting pages (`docs/engines/`) and the README's summary of them; `--check` writes nothing and
exits 1 naming each page that is out of date; a source that breaks its rule (a link not written from the repository's
root, a list that does not read, an adapter that declares no features) is one line on stderr and exit status 2:

    python -m conformance.porting           # after a change of an engine's about.md, list or adapter
    python -m conformance.porting --check
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conformance.porting import expected
from conformance.usage import UsageError

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None, root: Path = ROOT) -> int:
    """Write the pages of the repository at `root` (or, with `--check`, name those out of date)."""
    parser = argparse.ArgumentParser(prog="python -m conformance.porting", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a page is out of date")
    args = parser.parse_args(argv)
    try:
        pages = expected(root)
    except (ValueError, LookupError, UsageError) as e:  # a source that breaks its rule: one line, no traceback
        print(f"python -m conformance.porting: {e}", file=sys.stderr)
        return 2
    stale = [path for path, text in pages.items() if not path.is_file() or path.read_text(encoding="utf-8") != text]
    if args.check:
        for path in stale:
            print(f"out of date: {path.relative_to(root)} (python -m conformance.porting writes it)")
        return 1 if stale else 0
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(pages[path], encoding="utf-8")
        print(f"wrote {path.relative_to(root)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
