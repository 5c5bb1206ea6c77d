"""The CPU-time estimate of ``theorems verify``: durations recorded per profile
in the cache folder, the line printed before a run, and the estimated CPU
time left in the progress (plain lines and the terminal bar)."""

from __future__ import annotations

import io
import json

import pytest

from theorems.reporting import progress as prog
from theorems.cli import main


class _Terminal(io.StringIO):
    def isatty(self):
        return True


class _Result:
    def __init__(self, cid: str, status: str = "VERIFIED", seconds: float = 1.0):
        from theorems.core.model import Status

        self.claim = type("C", (), {"id": cid})()
        self.status = Status(status)
        self.seconds = seconds
        self.negative_control = None


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("THEOREMS_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_durations_round_trip_per_profile_and_controls(cache):
    assert prog.recorded_durations("quick") == {}
    path = prog.record_durations("quick", {"a.one": 1.5, "a.two": 2.0})
    assert path == cache / prog.DURATIONS_FILE and path.is_file()
    prog.record_durations("quick", {"a.two": 3.0, "a.three": 0.25})  # merged: the last run of each claim
    prog.record_durations("quick", {"a.one": 9.0}, controls=True)
    prog.record_durations("thorough", {"a.one": 120.0})
    assert prog.recorded_durations("quick") == {"a.one": 1.5, "a.two": 3.0, "a.three": 0.25}
    assert prog.recorded_durations("quick", controls=True) == {"a.one": 9.0}
    assert prog.recorded_durations("thorough") == {"a.one": 120.0}
    assert prog.recorded_durations("standard") == {}


@pytest.mark.parametrize("content", ["not json", "[1, 2]", '{"format": 99, "profiles": {}}',
                                     '{"format": 1, "profiles": {"quick": {"a": "slow", "b": -1, "c": true, "d": 2}}}'])
def test_an_unreadable_or_foreign_record_gives_no_estimate_and_is_rewritten(cache, content):
    cache.mkdir(parents=True)
    (cache / prog.DURATIONS_FILE).write_text(content)
    assert prog.recorded_durations("quick") == ({"d": 2.0} if '"d": 2' in content else {})
    prog.record_durations("quick", {"x": 1.0})
    assert prog.recorded_durations("quick")["x"] == 1.0


def test_no_record_with_the_cache_off(monkeypatch):
    monkeypatch.setenv("THEOREMS_CACHE", "off")
    assert prog.durations_path() is None
    assert prog.record_durations("quick", {"a": 1.0}) is None
    assert prog.recorded_durations("quick") == {}


def test_a_cache_folder_that_cannot_be_written_never_fails_the_run(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("THEOREMS_CACHE", str(blocker / "cache"))
    assert prog.record_durations("quick", {"a": 1.0}) is None


@pytest.mark.parametrize("ids, estimates, controls, expected", [
    (["a", "b"], {"a": 30.0, "b": 45.0, "c": 1000.0}, False,
     "estimated CPU time 1:15 (0.02 CPU-hours) at profile P, from the last recorded run of each claim"),
    (["a", "b", "c"], {"b": 7200.0}, True,
     "estimated CPU time 2:00:00 (2.00 CPU-hours) at profile P with --controls for 1 of 3 claims; "
     "2 never run at this profile (no estimate)"),
    (["a"], {"b": 1.0}, False, "no estimate: never run at profile P"),
    ([], {}, False, "no estimate: never run at profile P"),
])
def test_estimate_line_sums_the_selection_and_names_what_it_lacks(ids, estimates, controls, expected):
    assert prog.estimate_line(ids, estimates, "P", controls=controls) == expected


def test_plain_progress_counts_down_the_estimated_cpu_time_left():
    out = io.StringIO()
    p = prog.Progress(out, estimates={"a": 60.0, "b": 30.0, "c": 15.0}, ids=["a", "b", "c", "d"])
    for i, cid in enumerate(["b", "d", "a", "c"], 1):  # settled out of order (parallel jobs)
        p(i, 4, _Result(cid))
    lines = out.getvalue().splitlines()
    assert lines[0].endswith("  (est. CPU left 1:15 + 1 unestimated)")
    assert lines[1].endswith("  (est. CPU left 1:15)")
    assert lines[2].endswith("  (est. CPU left 0:15)")
    assert lines[3] == prog.plain_line(4, 4, _Result("c"))  # nothing left to estimate on the last line


def test_progress_without_any_estimate_prints_the_stable_lines():
    out = io.StringIO()
    p = prog.Progress(out, estimates={}, ids=["a", "b"])
    p(1, 2, _Result("a"))
    assert out.getvalue().splitlines() == [prog.plain_line(1, 2, _Result("a"))]
    assert p.cpu_left() == ""


def test_terminal_bar_shows_the_estimated_cpu_time_left(monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")
    monkeypatch.setenv("TERM", "xterm")
    term = _Terminal()
    ticks = iter([0.0, 5.0, 10.0])
    p = prog.Progress(term, clock=lambda: next(ticks), estimates={"a": 600.0, "b": 125.0}, ids=["a", "b"])
    p(1, 2, _Result("a"))
    assert "est. CPU left 2:05" in term.getvalue()
    p(2, 2, _Result("b"))
    p.close()
    assert "est. CPU left 0:00" in term.getvalue()


def test_verify_prints_no_estimate_first_then_the_recorded_one(cache, tmp_path, capsys):
    argv = ["verify", "--profile", "quick", "--only", "lev.range", "--out", str(tmp_path / "r")]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "theorems verify: no estimate: never run at profile quick" in out
    seconds = prog.recorded_durations("quick")["lev.range"]
    assert json.loads((tmp_path / "r" / "report.json").read_text())["claims"][0]["seconds"] == pytest.approx(
        seconds, abs=1e-3)
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert (f"theorems verify: estimated CPU time {prog.format_duration(seconds)} "
            "(0.00 CPU-hours) at profile quick, from the last recorded run of each claim") in out
    assert main(argv + ["--controls"]) == 0  # a run with the controls is estimated apart
    assert "no estimate: never run at profile quick with --controls" in capsys.readouterr().out
