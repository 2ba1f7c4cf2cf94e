"""`pytest --window-impl NAME [--window-out DIR]`: the report, the counterexamples and the summary that `python -m
conformance run` writes and prints, from the user's own pytest session.

The run's two collector halves (`collector.py`) gather each property's result where pytest's reports arrive
(the session's process, or pytest-xdist's controller, whose workers count the examples); at the end of the
session the same steps as `run`'s make the report: the implementation's result, the counterexamples saved as
case files, the verdict, `report.json`, `index.html`, `report.md` and `junit.xml` (`command.py`). The folder is
`--window-out DIR`, taken as `run --out DIR --force` takes it (`output.py`): empty, or an earlier report, whose
files alone are replaced. Without `--window-out` the report goes to a folder of pytest's cache
(`.pytest_cache/d/window-conformance`, where plug-ins keep what a session leaves), or nowhere when the cache is
off (`-p no:cacheprovider`) or another session is writing there. pytest's own exit status stays pytest's; the
terminal summary ends with the implementation's outcome, the properties that do not apply to it, each
counterexample and its file, the verdict and the report.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import settings

from conformance.runner import collector
from conformance.runner.command import build_report, implementation_result, summary_lines
from conformance.runner.counterexamples import save_counterexamples
from conformance.runner.events import ProcessExited, RunEvent
from conformance.runner.output import OutputError, OutputFolder
from conformance.runner.results import Report
from conformance.runner.session import SuiteOptions
from window_contract.process import ProcessImplementation
from window_contract.registry import load_implementation

#: The folder of pytest's cache that holds a session's report when `--window-out` does not name one.
CACHE_FOLDER = "window-conformance"


def start_report(config: pytest.Config, out: Path | None) -> None:
    """Gather the session's results for a report in `out`, or in pytest's cache without it (pytest-xdist's workers
    only count examples)."""
    if hasattr(config, "workerinput"):
        collector.register(config, lambda event: None, progress=False)
        return
    if out is None:
        folder = cached_folder(config)
    else:
        try:
            folder = OutputFolder.claim(out, force=True)
        except OutputError as e:
            message = str(e).replace("--out ", "--window-out ").replace("--force removes", "a report replaces")
            raise pytest.UsageError(message) from None
    writer = ReportWriter(config, folder)
    collector.register(config, writer.events.append, progress=False)
    config.pluginmanager.register(writer, "conformance-report")


def cached_folder(config: pytest.Config) -> OutputFolder | None:
    """The report's folder in pytest's cache, or none: the cache is off, or another session is writing there."""
    cache = getattr(config, "cache", None)
    if cache is None:
        return None
    try:
        return OutputFolder.claim(cache.mkdir(CACHE_FOLDER), force=True)
    except (OutputError, OSError):
        return None


class ReportWriter:
    def __init__(self, config: pytest.Config, out: OutputFolder | None) -> None:
        self.config, self.out = config, out
        self.events: list[RunEvent] = []
        self.started = time.monotonic()
        self.report: Report | None = None

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """The report, written beside the earlier one and swapped in once whole (`OutputFolder`)."""
        try:
            spec = self.config.getoption("window_impl")
            impl = load_implementation(spec)
            if isinstance(impl, ProcessImplementation):  # it said hello: its name and features
                impl.close()
            ended = time.monotonic() - self.started
            results = [implementation_result(spec, impl, [*self.events, ProcessExited(int(exitstatus))],
                                             lambda: ended, log="")]
            seed = self.config.getoption("hypothesis_seed", None)
            options = SuiteOptions(tuple(Path(arg.split("::")[0]).resolve() for arg in self.config.args),
                                   settings.get_current_profile_name(), seed=None if seed is None else int(seed))
            if self.out is None:
                self.report = build_report(results, options, Path())
                return
            self.report = build_report(save_counterexamples(results, self.out), options, self.out.path)

            from reports import write_reports

            self.out.note(write_reports(self.report.to_json(), self.out.staging))
            self.out.commit()
        except BaseException:
            if self.out is not None:
                self.out.abandon()
            raise

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.report is None:
            return
        terminalreporter.section("window-conformance")
        for line in summary_lines(self.report, None if self.out is None else self.out.path)[1:]:
            terminalreporter.write_line(line)
