"""The report folder, replaced as one set.

``theorems verify`` writes four reports (JSON, Markdown, HTML, JUnit) that
must come from one run. Replacing them one file at a time leaves a mixed set
when the process is killed between two files. So the new set is written into
a temporary folder *next to* the target, every other entry of the target (a
README, a stability table) is hard-linked into it, and the folders are
swapped by two renames:

1. ``reports`` -> ``.reports.old-PID-TAG.tmp``
2. ``.reports.new-PID-TAG.tmp`` -> ``reports``
3. the old folder is removed.

A reader sees the old set, the new set, or (between the two renames) no
folder, never a mix. A Ctrl-C (or SIGTERM) during the renames rolls the swap
back, the old set in place, with SIGINT and SIGTERM held back until the
rollback is done, so that a second Ctrl-C cannot leave the folder missing.
A process killed outright (SIGKILL) at any point leaves
temporary folders named after its PID; the next call (:func:`recover`, run
by every command that reads or writes the folder: :func:`check_report_dir`,
:func:`replace_set`, ``theorems report`` and ``report --compare``) undoes
the swap of every such PID that is no longer alive, so the previous set is
back (a run killed before its swap completed wrote nothing), and removes
the temporaries, as well as the ``.report.json.*.tmp`` files of the
per-file writer used before.

Because the folder itself is swapped, it may hold regular files (carried
over by hard link, the data is never copied or moved) but no sub-folders;
:func:`check_report_dir` says so before any claim runs.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import signal
import tempfile
import threading
from pathlib import Path
from typing import Iterable, Iterator, Mapping

__all__ = ["ReportDirError", "check_report_dir", "recover", "replace_set"]

#: Temporary folders beside a target ``NAME``: ``.NAME.new-PID-TAG.tmp``, ``.NAME.old-PID-TAG.tmp``.
_TMP = re.compile(r"^\.(?P<name>.+)\.(?P<role>new|old)-(?P<pid>\d+)-(?P<tag>[0-9a-f]+)\.tmp$")
#: Per-file temporaries of the earlier writer (``.report.json.abc123.tmp``) left inside a folder.
_FILE_TMP = re.compile(r"^\.(report\.json|report\.md|report\.html|junit\.xml)\..+\.tmp$")


class ReportDirError(ValueError):
    """A folder that cannot hold a report set; the message says why."""


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def _absolute(path: str | os.PathLike) -> Path:
    p = Path(path).expanduser().absolute()
    return p.resolve() if p.is_symlink() else p


def recover(target: str | os.PathLike) -> list[str]:
    """Finish or undo the swaps that dead processes left half done beside
    ``target``, and remove their temporary folders; return what was done
    (one line per action)."""
    target = _absolute(target)
    parent = target.parent
    try:
        entries = list(parent.iterdir())
    except OSError:
        return []
    runs: dict[tuple[str, str], dict[str, Path]] = {}
    for e in entries:
        m = _TMP.match(e.name)
        if m and m["name"] == target.name and not _alive(int(m["pid"])):
            runs.setdefault((m["pid"], m["tag"]), {})[m["role"]] = e
    done = []
    for roles in runs.values():
        new, old = roles.get("new"), roles.get("old")
        if not target.exists() and old is not None:
            # Killed between the two renames (or during a rollback): undo the
            # swap, so that the previous set survives a run that did not finish.
            os.rename(old, target)
            done.append(f"restored the previous set of {target} after an interrupted swap")
            old = None
        for leftover in (new, old):
            if leftover is not None and leftover.exists():
                shutil.rmtree(leftover, ignore_errors=True)
                done.append(f"removed the stale temporary folder {leftover}")
    if target.is_dir():
        for e in target.iterdir():
            if _FILE_TMP.match(e.name) and e.is_file():
                try:
                    e.unlink()
                    done.append(f"removed the stale temporary file {e}")
                except OSError:
                    pass
    return done


def _kind(entry: Path) -> str:
    """What a folder entry that is not a regular file is, in the plural."""
    import stat

    mode = entry.lstat().st_mode
    if stat.S_ISDIR(mode):
        return "folders"
    if stat.S_ISFIFO(mode):
        return "named pipes"
    if stat.S_ISSOCK(mode):
        return "sockets"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device files"
    return "entries that are not regular files"


def check_report_dir(path: str | os.PathLike) -> Path:
    """The absolute folder ``path``, after checking that a report set can be
    written there; raise :class:`ReportDirError` saying why not.

    Checked without writing anything into the folder: the path is not
    empty, is (or can become) a folder, is not the root or a folder that
    holds the current one, holds no sub-folders (it is swapped as a whole),
    and a temporary folder can be made beside it (a probe, removed at once).
    """
    text = os.fspath(path)
    if not str(text).strip():
        raise ReportDirError(f"got {text!r}; needs a folder path (the default is reports)")
    p = _absolute(text)
    if p.parent == p:
        raise ReportDirError(f"{text!r} is the root folder; needs a folder of its own for the reports")
    real, cwd = os.path.realpath(p), os.path.realpath(os.getcwd())
    if cwd == real or cwd.startswith(real + os.sep):
        raise ReportDirError(f"{text!r} is or holds the current folder; the report folder is replaced as a whole, "
                             "so give a folder the shell is not in (the default is reports)")
    recover(p)
    if p.exists() or p.is_symlink():
        if not p.is_dir():
            raise ReportDirError(f"{text!r} is a file, not a folder")
        try:
            blockers = sorted((e.name, _kind(e)) for e in p.iterdir() if not (e.is_file() or e.is_symlink()))
        except OSError as exc:
            raise ReportDirError(f"{text!r} cannot be read ({exc.strerror})") from None
        if blockers:
            kinds: dict[str, list[str]] = {}
            for name, kind in blockers:
                kinds.setdefault(kind, []).append(name)
            parts = []
            for kind, names in kinds.items():
                shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
                parts.append(f"{kind} ({shown})")
            carried = ("" if set(kinds) == {"folders"} else
                       " (it carries only regular files and links into the new folder)")
            raise ReportDirError(f"{text!r} holds {' and '.join(parts)}; the report set is replaced by swapping the "
                                 f"whole folder{carried}, so give the reports a folder of their own")
        probe_in = p.parent
    else:
        probe_in = p.parent
        while not probe_in.exists():
            probe_in = probe_in.parent
        if not probe_in.is_dir():
            raise ReportDirError(f"{text!r} cannot be created: {probe_in} is a file")
    try:
        probe = tempfile.mkdtemp(prefix=".theorems-probe-", dir=probe_in)
        os.rmdir(probe)
    except OSError as exc:
        raise ReportDirError(f"{text!r} cannot be written: {exc.strerror} in {probe_in}") from None
    return p


def _roll_back(target: Path, new: Path, old: Path, had_target: bool) -> None:
    """Undo a swap interrupted anywhere in its two renames, read from what
    is on disk (the interruption may fall just after a rename returned)."""
    if not new.exists() and target.exists():  # the new set had been moved in: move it out again
        if had_target and old.exists():
            os.rename(target, new)
        elif not had_target:
            shutil.rmtree(target, ignore_errors=True)
    if not target.exists() and old.exists():
        os.rename(old, target)
    shutil.rmtree(new, ignore_errors=True)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM back for the ``with`` block: their handlers
    are swapped for one that only notes the signal, and the first noted is
    handed to the previous handler when the block ends (a Ctrl-C then raises
    KeyboardInterrupt; a default SIGTERM ends the process). A no-op off the
    main thread, where Python cannot set handlers. (A signal mask would not
    do: the signal may be delivered to another thread, and Python still runs
    its handler in the main one.)"""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []

    def note(signum, frame):
        noted.append(signum)

    previous = {s: signal.signal(s, note) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if noted:
            handler = previous[noted[0]]
            if callable(handler):
                handler(noted[0], None)
            elif handler == signal.SIG_DFL:
                os.kill(os.getpid(), noted[0])


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _carry(src: Path, dst: Path) -> None:
    """Put the entry ``src`` at ``dst`` without copying its data (hard link),
    or by copying where the file system has no hard links."""
    try:
        os.link(src, dst, follow_symlinks=False)
    except OSError:
        if src.is_symlink():
            os.symlink(os.readlink(src), dst)
        else:
            shutil.copy2(src, dst)


def replace_set(target: str | os.PathLike, files: Mapping[str, str], *, drop: Iterable[str] = ()) -> list[Path]:
    """Make ``target`` hold ``files`` (name -> text, written in that order)
    in one step, keeping every other entry of the old folder except those in
    ``drop`` and stale temporaries; return the paths of ``files``.

    See the module docstring for the swap and what a kill leaves behind.
    """
    target = _absolute(target)
    recover(target)
    if target.exists() and not target.is_dir():
        raise ReportDirError(f"{str(target)!r} is a file, not a folder")
    parent = target.parent
    parent.mkdir(parents=True, exist_ok=True)
    tag = f"{os.getpid()}-{secrets.token_hex(4)}"
    new = parent / f".{target.name}.new-{tag}.tmp"
    old = parent / f".{target.name}.old-{tag}.tmp"
    umask = os.umask(0)
    os.umask(umask)
    drop = set(drop) | set(files)
    try:
        new.mkdir()
        if target.is_dir():
            os.chmod(new, target.stat().st_mode & 0o7777)
            for e in target.iterdir():
                if e.name in drop or _FILE_TMP.match(e.name):
                    continue
                if e.is_dir() and not e.is_symlink():
                    raise ReportDirError(f"{target} holds the folder {e.name}; the report set is replaced by "
                                         "swapping the whole folder, so give the reports a folder of their own")
                _carry(e, new / e.name)
        else:
            os.chmod(new, 0o777 & ~umask)
        for name, text in files.items():
            path = new / name
            with open(path, "w", encoding="utf-8") as fh:
                os.fchmod(fh.fileno(), 0o666 & ~umask)
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
        _fsync_dir(new)
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)
        raise
    had_target = target.exists()
    try:
        if had_target:
            os.rename(target, old)
        os.rename(new, target)
    except BaseException:
        with _signals_held():  # a second Ctrl-C waits until the old set is back
            _roll_back(target, new, old, had_target)
        raise
    _fsync_dir(parent)
    shutil.rmtree(old, ignore_errors=True)
    cwd_moved = False
    try:
        os.getcwd()
    except FileNotFoundError:
        cwd_moved = True
    if cwd_moved:
        os.chdir(target)
    return [target / name for name in files]


class WriteFailed(Exception):
    """Writing the reports (or a stability table, an assessment) failed with
    an OS error; the message says where and why and what was kept."""


def written(write, out: Path, what: str):
    """``write()`` (which writes a set into ``out``), with an ``OSError`` turned into :class:`WriteFailed`:
    one line naming what, where and why, and whether the previous set was kept."""
    try:
        return write()
    except OSError as exc:
        why = exc.strerror or " ".join(str(exc).split()) or type(exc).__name__
        where = f" ({exc.filename})" if exc.filename else ""
        kept = (f"the previous {what} in {out} {'was' if what == 'assessment' else 'were'} kept"
                if out.is_dir() and any(out.iterdir()) else f"nothing was written to {out}")
        raise WriteFailed(f"could not write the {what} to {out}: {why}{where}; {kept}") from None
