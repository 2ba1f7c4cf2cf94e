"""The README's plug-in walkthrough, from a user's own folder: `my_windows.py` as the README gives it,
and `python -m conformance run --impl my_windows:MyWindows` there, with the default output folder
`reports/out` (which once made Python take that folder for this project's `reports` package)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from report_fixture_suite.running import ROOT


def readme_plugin() -> str:
    """The code block of the README that starts with `# my_windows.py`."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    [code] = re.findall(r"```python\n(# my_windows\.py\n.*?)```", readme, flags=re.S)
    return code


def test_the_walkthrough_writes_its_report_in_the_users_folder(tmp_path):
    (tmp_path / "my_windows.py").write_text(readme_plugin(), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # as installed, not from the clone
    command = [sys.executable, "-m", "conformance", "run", "--impl", "my_windows:MyWindows",
               "--profile", "dev", "--property", "nothing_accepted_after_cleanup_time"]
    for attempt in ("first", "again, with the report of the first in ./reports/out"):
        done = subprocess.run([*command, *(["--force"] if attempt != "first" else [])], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 1, (attempt, done.stderr)
        out = tmp_path / "reports" / "out"
        for name in ("index.html", "report.md", "report.json", "junit.xml"):
            assert (out / name).stat().st_size > 0, (attempt, name)
        report = json.loads((out / "report.json").read_text(encoding="utf-8"))
        [prop] = report["implementations"][0]["properties"]
        assert prop["outcome"] == "failed" and prop["failures"], attempt
        assert "Traceback" not in done.stderr
