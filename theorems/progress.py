"""Progress of ``theorems verify``: a bar with an ETA on a terminal, plain
lines otherwise.

Plain (a file, a pipe, CI): one line per claim, in a stable format that
scripts and tests read::

    [  3/90] recall.error                         VERIFIED         0.66 s

Terminal: one bar redrawn in place (``\\r`` and erase-to-end-of-line), with
claims done, percent, elapsed time and an ETA from the mean time per claim
so far; only claims that need a look (not VERIFIED or SUPPORTED, or with a
negative control not caught) leave a line above the bar.
"""

from __future__ import annotations

import os
import shutil
import time
from typing import Callable, TextIO

__all__ = ["Progress", "format_duration", "plain_line"]

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


def plain_line(i: int, n: int, res) -> str:
    """The plain progress line of one settled claim."""
    line = f"[{i:>3}/{n}] {res.claim.id:<36} {res.status.value:<14} {res.seconds:6.2f} s"
    if res.negative_control and res.negative_control.get("caught") is False:
        line += "  (negative control NOT caught)"
    return line


class Progress:
    """A ``progress(i, n, result)`` callback for :func:`theorems.runner.run`.

    ``tty`` defaults to ``stream.isatty()`` (and false under ``TERM=dumb``);
    call :meth:`close` when the run ends to finish the bar's line.
    """

    def __init__(self, stream: TextIO, *, tty: bool | None = None, clock: Callable[[], float] = time.monotonic):
        self.stream = stream
        if tty is None:
            isatty = getattr(stream, "isatty", None)
            tty = bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"
        self.tty = tty
        self.clock = clock
        self.start = clock()
        self._drawn = False

    def __call__(self, i: int, n: int, res) -> None:
        if not self.tty:
            print(plain_line(i, n, res), file=self.stream, flush=True)
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
        text = (f"[{bar}] {i}/{n} {100 * i // max(n, 1):3d}%  elapsed {format_duration(elapsed)}  "
                f"ETA {format_duration(eta)}  {last}")
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
