"""`pytest --window-impl NAME --window-out DIR`: the report and the counterexamples that `python -m conformance
run` writes, from the user's own pytest session.

The run's two collector halves (`collector.py`) gather each property's result where pytest's reports arrive
(the session's process, or pytest-xdist's controller, whose workers count the examples); at the end of the
session the same steps as `run`'s make the report: the implementation's result, the counterexamples saved as
case files, the verdict, `report.json`, `index.html`, `report.md` and `junit.xml` (`command.py`). The folder is
taken as `run --out DIR --force` takes it (`output.py`): empty, or an earlier report, whose files alone are
replaced. pytest's own exit status stays pytest's; the terminal summary ends with the verdict and the report.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import settings

from conformance.runner import collector
from conformance.runner.command import build_report, failure_lines, implementation_result
from conformance.runner.counterexamples import save_counterexamples
from conformance.runner.events import ProcessExited, RunEvent
from conformance.runner.output import OutputError, OutputFolder
from conformance.runner.results import Report
from conformance.runner.session import SuiteOptions
from window_contract.process import ProcessImplementation
from window_contract.registry import load_implementation


def start_report(config: pytest.Config, out: Path) -> None:
    """Gather the session's results for a report in `out` (pytest-xdist's workers only count examples)."""
    if hasattr(config, "workerinput"):
        collector.register(config, lambda event: None, progress=False)
        return
    try:
        folder = OutputFolder.claim(out, force=True)
    except OutputError as e:
        message = str(e).replace("--out ", "--window-out ").replace("--force removes", "a report replaces")
        raise pytest.UsageError(message) from None
    writer = ReportWriter(config, folder)
    collector.register(config, writer.events.append, progress=False)
    config.pluginmanager.register(writer, "conformance-report")


class ReportWriter:
    def __init__(self, config: pytest.Config, out: OutputFolder) -> None:
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
            result = implementation_result(spec, impl, [*self.events, ProcessExited(int(exitstatus))], lambda: ended,
                                           log="")
            seed = self.config.getoption("hypothesis_seed", None)
            options = SuiteOptions(tuple(Path(arg.split("::")[0]).resolve() for arg in self.config.args),
                                   settings.get_current_profile_name(), seed=None if seed is None else int(seed))
            self.report = build_report(save_counterexamples([result], self.out), options, self.out.path)

            from reports import write_reports

            self.out.note(write_reports(self.report.to_json(), self.out.staging))
            self.out.commit()
        except BaseException:
            self.out.abandon()
            raise

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.report is None:
            return
        terminalreporter.section("window-conformance")
        for impl in self.report.implementations:
            for line in failure_lines(impl, self.out.path):
                terminalreporter.write_line(line)
        terminalreporter.write_line(self.report.verdict.text)
        terminalreporter.write_line(f"Report: {self.out.path / 'index.html'} (and report.md, report.json, junit.xml)")
