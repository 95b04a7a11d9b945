"""A pytest plugin for the README's test command: one line per test file, not rows of dots.

``bash run.sh test`` runs ``pytest -n 2 -p blindchess.tests.progress --durations=15``. Instead
of a dot per test it prints, as each test file completes (tests of one file may run on both
workers), how far the run is and how that file did::

    [ 12/61 files  140/520 tests  1:23] tests/unit/arbiter/test_local_game.py: 14 passed

and a failing test at once (``FAILED tests/...::test_x``), so a long run shows where it is.
pytest's usual summary (failures, the slowest tests, the totals) follows at the end. Works with
and without pytest-xdist; with xdist it runs in the controller, which sees every report.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Generator
from typing import Any

import pytest


def _file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


class FileProgress:
    """Counts finished tests per file and prints a line when a file is done."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.expected: Counter[str] = Counter()
        self.finished: Counter[str] = Counter()
        self.outcomes: dict[str, Counter[str]] = {}
        self.failed_tests: set[str] = set()
        self.started = time.monotonic()

    def expect(self, nodeids: list[str]) -> None:
        """Record the collected tests (once: every xdist worker collects the same ones)."""
        if nodeids and not self.expected:
            self.expected.update(_file_of(nodeid) for nodeid in nodeids)
            self._write(f"running {len(nodeids)} tests from {len(self.expected)} files; one line per file as it completes")

    def _write(self, text: str) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.ensure_newline()
            reporter.write_line(text)

    @pytest.hookimpl(wrapper=True)
    def pytest_report_teststatus(self, report: pytest.TestReport, config: pytest.Config) -> Generator[None, Any, Any]:
        """Keep the category (the summary counts by it), drop the per-test dot or word."""
        category, _letter, _word = yield
        return category, "", ""

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if not self.config.pluginmanager.hasplugin("dsession"):  # without xdist this process collects
            self.expect([item.nodeid for item in session.items])

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        path = _file_of(report.nodeid)
        outcomes = self.outcomes.setdefault(path, Counter())
        if report.failed and report.nodeid not in self.failed_tests:
            self.failed_tests.add(report.nodeid)
            outcomes["failed" if report.when == "call" else "error"] += 1
            self._write(f"FAILED {report.nodeid}" + ("" if report.when == "call" else f" (in {report.when})"))
        elif report.when == "call" and report.passed:
            outcomes["passed"] += 1
        elif report.skipped and report.when in ("setup", "call"):
            outcomes["xfailed" if hasattr(report, "wasxfail") else "skipped"] += 1
        if report.when != "teardown":
            return
        self.finished[path] += 1
        if self.finished[path] == self.expected[path]:
            files_done = sum(1 for name, count in self.expected.items() if self.finished[name] >= count)
            tests_done = sum(self.finished.values())
            minutes, seconds = divmod(int(time.monotonic() - self.started), 60)
            counts = ", ".join(f"{count} {name}" for name, count in sorted(outcomes.items()) if count)
            self._write(
                f"[{files_done:>3}/{len(self.expected)} files {tests_done:>4}/{sum(self.expected.values())} tests"
                f" {minutes}:{seconds:02d}] {path}: {counts}"
            )


class XdistCollection:
    """With pytest-xdist the controller learns the collected tests from the workers."""

    def __init__(self, progress: FileProgress) -> None:
        self.progress = progress

    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self.progress.expect(ids)


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # an xdist worker: the controller reports
        return
    progress = FileProgress(config)
    config.pluginmanager.register(progress, "blindchess-file-progress")
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(XdistCollection(progress), "blindchess-file-progress-xdist")
