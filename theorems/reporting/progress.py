"""Progress of ``theorems verify``: a bar with an ETA on a terminal, plain
lines otherwise.

Plain (a file, a pipe, CI): one line per claim, in a stable format that
scripts and tests read::

    [  3/90] recall.error                         VERIFIED         0.66 s

Terminal: one bar redrawn in place (``\\r`` and erase-to-end-of-line), with
claims done, percent, elapsed time and an ETA from the mean time per claim
so far; only claims that need a look (not VERIFIED or SUPPORTED, or with a
negative control not caught) leave a line above the bar.

Estimates: every local ``theorems verify`` records each claim's seconds per
profile (and with or without ``--controls``) in ``claim-durations.json`` in
the theorems cache folder. Before a run the CLI prints the estimated CPU time
of the selection from that record (:func:`estimate_line`), and the progress
shows the estimated CPU time still to run (the recorded seconds of the
claims not yet settled). A claim never run at that profile has no estimate,
and the line says how many such claims there are.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Callable, TextIO

__all__ = ["DURATIONS_FILE", "Progress", "durations_path", "estimate_line", "format_duration",
           "plain_line", "record_durations", "recorded_durations"]

#: The per-profile record of claim durations, in the theorems cache folder.
DURATIONS_FILE = "claim-durations.json"
_DURATIONS_FORMAT = 1

#: Width of the bar itself, in cells, when the terminal is wide enough.
BAR_CELLS = 30
#: Statuses that leave a line above the bar on a terminal.
_QUIET_STATUSES = ("VERIFIED", "SUPPORTED")


def format_duration(seconds: float) -> str:
    """``m:ss`` (or ``h:mm:ss``).

    >>> format_duration(75.2), format_duration(3725)
    ('1:15', '1:02:05')
    """
    s = int(round(max(0.0, seconds)))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def _profile_key(profile: str, controls: bool) -> str:
    return f"{profile}+controls" if controls else profile


def durations_path() -> Path | None:
    """``claim-durations.json`` in the theorems cache folder (None when the cache is off)."""
    from theorems.index import cache_dir

    folder = cache_dir()
    return None if folder is None else folder / DURATIONS_FILE


def _read_durations(path: Path | None) -> dict:
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != _DURATIONS_FORMAT or not isinstance(data.get("profiles"), dict):
        return {}
    return data


def recorded_durations(profile: str, *, controls: bool = False, path: Path | None = None) -> dict[str, float]:
    """Claim id -> seconds of its last recorded run at ``profile`` (with the
    negative controls or without); empty when never recorded or unreadable.
    ``path`` defaults to :func:`durations_path`."""
    data = _read_durations(path if path is not None else durations_path())
    runs = data.get("profiles", {}).get(_profile_key(profile, controls), {}) if data else {}
    return {k: float(v) for k, v in runs.items()
            if isinstance(k, str) and isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0}


def record_durations(profile: str, seconds: Mapping[str, float], *, controls: bool = False,
                     path: Path | None = None) -> Path | None:
    """Merge ``seconds`` (claim id -> seconds) into the record for ``profile``,
    written atomically; returns the file, or None when the cache is off or
    the folder cannot be written (an estimate is never worth failing a run)."""
    path = path if path is not None else durations_path()
    if path is None:
        return None
    data = _read_durations(path) or {"format": _DURATIONS_FORMAT, "profiles": {}}
    runs = data["profiles"].setdefault(_profile_key(profile, controls), {})
    runs.update({k: round(float(v), 4) for k, v in seconds.items()})
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".durations-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except OSError:
        return None
    return path


def estimate_line(ids: Iterable[str], estimates: Mapping[str, float], profile: str, *, controls: bool = False) -> str:
    """The line ``theorems verify`` prints before a run: the estimated CPU time
    of the selection ``ids`` from ``estimates`` (claim id -> seconds).

    >>> estimate_line(["a", "b"], {"a": 4000.0, "b": 3200.0}, "thorough")
    'estimated CPU time 2:00:00 (2.00 CPU-hours) at profile thorough, from the last recorded run of each claim'
    >>> estimate_line(["a", "b"], {"a": 30.0}, "quick", controls=True)
    'estimated CPU time 0:30 (0.01 CPU-hours) at profile quick with --controls for 1 of 2 claims; 1 never run at this profile (no estimate)'
    >>> estimate_line(["a"], {}, "standard")
    'no estimate: never run at profile standard'
    """
    ids = list(ids)
    known = [estimates[i] for i in ids if i in estimates]
    where = f"profile {profile}" + (" with --controls" if controls else "")
    if not known:
        return f"no estimate: never run at {where}"
    total = sum(known)
    line = f"estimated CPU time {format_duration(total)} ({total / 3600:.2f} CPU-hours) at {where}"
    if len(known) == len(ids):
        return line + ", from the last recorded run of each claim"
    missing = len(ids) - len(known)
    return line + f" for {len(known)} of {len(ids)} claims; {missing} never run at this profile (no estimate)"


def plain_line(i: int, n: int, res) -> str:
    """The plain progress line of one settled claim."""
    line = f"[{i:>3}/{n}] {res.claim.id:<36} {res.status.value:<14} {res.seconds:6.2f} s"
    caught = (res.negative_control or {}).get("caught")
    if caught is False:
        line += "  (negative control NOT caught)"
    elif caught:
        line += "  (control caught)"
    if getattr(res, "reused", None) is not None:
        line += f"  (reused from {res.reused.at})"
    return line


class Progress:
    """A ``progress(i, n, result)`` callback for :func:`theorems.core.runner.run`.

    ``tty`` defaults to ``stream.isatty()`` (and false under ``TERM=dumb``);
    call :meth:`close` when the run ends to finish the bar's line.
    """

    def __init__(self, stream: TextIO, *, tty: bool | None = None, clock: Callable[[], float] = time.monotonic,
                 estimates: Mapping[str, float] | None = None, ids: Iterable[str] = ()):
        self.stream = stream
        # estimated seconds of each claim still to settle (those with a record),
        # and the claims without one; shown only when some claim has a record
        estimates = estimates or {}
        self._left = {i: float(estimates[i]) for i in ids if i in estimates}
        self._unestimated = {i for i in ids if i not in estimates}
        self._estimated = bool(self._left)
        if tty is None:
            isatty = getattr(stream, "isatty", None)
            tty = bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"
        self.tty = tty
        self.clock = clock
        self.start = clock()
        self._drawn = False

    def cpu_left(self) -> str:
        """``"est. CPU left m:ss"`` for the claims not yet settled ("" without estimates)."""
        if not self._estimated:
            return ""
        text = f"est. CPU left {format_duration(sum(self._left.values()))}"
        return text + (f" + {len(self._unestimated)} unestimated" if self._unestimated else "")

    def __call__(self, i: int, n: int, res) -> None:
        self._left.pop(res.claim.id, None)
        self._unestimated.discard(res.claim.id)
        if not self.tty:
            suffix = f"  ({self.cpu_left()})" if self._estimated and i < n else ""
            print(plain_line(i, n, res) + suffix, file=self.stream, flush=True)
            return
        needs_look = res.status.value not in _QUIET_STATUSES or (
            res.negative_control and res.negative_control.get("caught") is False)
        if needs_look:
            self._erase()
            print(plain_line(i, n, res), file=self.stream)
        self.stream.write("\r" + self.bar(i, n, res.claim.id) + "\x1b[K")
        self.stream.flush()
        self._drawn = True

    def bar(self, i: int, n: int, last: str = "") -> str:
        """The bar's text after ``i`` of ``n`` claims (no control characters)."""
        elapsed = self.clock() - self.start
        eta = elapsed / i * (n - i) if i else 0.0
        columns = shutil.get_terminal_size((100, 24)).columns
        cells = max(10, min(BAR_CELLS, columns - 60))
        full = cells * i // max(n, 1)
        bar = "#" * full + "-" * (cells - full)
        left = self.cpu_left()
        text = (f"[{bar}] {i}/{n} {100 * i // max(n, 1):3d}%  elapsed {format_duration(elapsed)}  "
                f"ETA {format_duration(eta)}  {left + '  ' if left else ''}{last}")
        return text[: max(20, columns - 1)]

    def _erase(self) -> None:
        if self._drawn:
            self.stream.write("\r\x1b[K")

    def close(self) -> None:
        """End the bar's line (on a terminal); nothing for plain output."""
        if self.tty and self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False
