"""pytest plugin used by tools/mutation.py (``--map-tests``): records, with
coverage.py, which test executes which line of the verdict-path modules.

Each test runs under its own coverage context, its node id, so that the
combined data answers "which tests execute line L of module M"
(``CoverageData.contexts_by_lineno``). The mutation tool then runs, on a
mutant of line L, only those tests instead of a fixed list. Each test's
duration (setup, call and teardown) is written beside the data, so the tool
can run the quickest first and stay within a budget.

Reads ``MUTATION_TESTMAP_DIR`` (where the data files go; one per pytest
process, xdist workers included) and ``MUTATION_TESTMAP_SOURCES`` (the
measured files, separated by ``os.pathsep``). Lines run in a process forked
by a test (the supervised runner's workers, where a mutant is copied too)
are recorded as well: the fork copies the tracer and its context, and the
child gets a data file of its own, written when it leaves by ``os._exit``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

_cov = None
_durations: dict[str, float] = {}
_current = ""  # the running test's node id (a forked child keeps it)


def _after_fork_in_child():
    """In a process forked by a test: collect into a data file of its own
    (the parent's is the parent's to write) under the test's context, and
    write it when the child leaves by ``os._exit`` (as the runner's workers
    do). Relies on coverage's collector keeping its data object in
    ``covdata``; if that changes, the child's lines are lost, nothing else."""
    if _cov is None:
        return
    from coverage.data import CoverageData

    where = Path(os.environ["MUTATION_TESTMAP_DIR"])
    data = CoverageData(basename=str(where / ".coverage"), suffix=f"fork.{os.getpid()}")
    collector = getattr(_cov, "_collector", None)
    if collector is None or not hasattr(collector, "covdata"):
        return
    collector.covdata = data
    data.set_context(_current)
    leave = os._exit

    def _exit(code):
        try:
            collector.flush_data()
        except Exception:  # noqa: BLE001 - the map loses this child's lines, the child still exits
            pass
        leave(code)

    os._exit = _exit


def pytest_configure(config):
    global _cov
    where = os.environ.get("MUTATION_TESTMAP_DIR")
    sources = os.environ.get("MUTATION_TESTMAP_SOURCES")
    if not where or not sources or _cov is not None:
        return
    import coverage

    _cov = coverage.Coverage(data_file=str(Path(where) / ".coverage"), data_suffix=True, config_file=False,
                             include=sources.split(os.pathsep))
    _cov.start()
    os.register_at_fork(after_in_child=_after_fork_in_child)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if _cov is None:
        yield
        return
    global _current
    _current = item.nodeid
    _cov.switch_context(item.nodeid)
    try:
        yield
    finally:
        _current = ""
        _cov.switch_context("")


def pytest_runtest_logreport(report):
    if _cov is not None:
        _durations[report.nodeid] = _durations.get(report.nodeid, 0.0) + report.duration


def pytest_unconfigure(config):
    global _cov
    if _cov is None:
        return
    _cov.stop()
    _cov.save()
    where = Path(os.environ["MUTATION_TESTMAP_DIR"])
    (where / f"durations.{os.getpid()}.json").write_text(json.dumps(_durations))
    _cov = None
