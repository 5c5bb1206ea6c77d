"""Supervised worker processes: a task that ends its process costs that task alone.

A :class:`Worker` is a process forked from this one (after the imports, so it
starts warm) that runs one task and sends its answer back through a pipe,
with messages on the way (``send(...)``: the runner says which check starts).
The parent (:func:`theorems.core.runner.run`, the pytest plugin) waits on the
workers' pipes and process sentinels at once, so that it learns of every
ending: an answer, or a death (a segfault, an abort, ``os._exit`` with any
code, 0 included, the kernel's OOM killer, a ``kill -9`` from outside), which
:class:`Died` describes by its signal or exit code. A worker whose current step
overruns its deadline (a check spinning in C code, where the budget's alarm
cannot reach it) is killed by the parent.

The workers are warm and stay: forked once each (a few milliseconds from the
warm parent), they take task after task, so that what one claim caches in
memory serves the next; a worker that died is replaced by a fresh fork. The
runner resets the global state a claim could leave behind (mpmath's
precision, the ``random`` and NumPy global generators) before each claim, in
a worker and in one process alike, so that a verdict does not depend on which
claims ran before it, nor on the number of workers.

Why not a pool from the registry: pebble's ``ProcessPool`` replaces a dead
worker and fails its task with ``ProcessExpired``, but only for a non-zero
exit code: a task that calls ``os._exit(0)`` is never answered (its future
hangs; pebble 5.2); it has no channel for the task to say which step it is in,
and its timeout is per task, not per step. loky (joblib) starts its workers
by spawning fresh interpreters (the imports again, ~2 s a worker) and a dead
worker breaks every pending future of the executor
(``TerminatedWorkerError``). ``concurrent.futures.ProcessPoolExecutor``
breaks the same way (``BrokenProcessPool``).
"""

from __future__ import annotations

import os
import signal
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Iterable

__all__ = ["Answer", "Died", "Worker", "default_jobs", "describe_exit", "wait_any"]


def default_jobs() -> int:
    """The number of cores this process may run on (its CPU affinity where
    the platform says, else ``os.cpu_count()``), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


_SIGNAL_CAUSES = {
    "SIGSEGV": "a segmentation fault, e.g. in a C extension or ctypes",
    "SIGBUS": "a bus error, e.g. in a C extension",
    "SIGABRT": "an abort, e.g. a failed assertion in C code or os.abort()",
    "SIGFPE": "a floating-point exception in C code",
    "SIGILL": "an illegal instruction in C code",
    "SIGKILL": "killed from outside: the kernel's out-of-memory killer, or kill -9",
    "SIGTERM": "terminated from outside",
}


def describe_exit(exitcode: int | None) -> str:
    """What a worker's ``exitcode`` (multiprocessing's: minus the signal
    number for a signal) says, in words.

    >>> describe_exit(-11)
    'was killed by signal SIGSEGV (a segmentation fault, e.g. in a C extension or ctypes)'
    >>> describe_exit(0)
    'ended with exit code 0 before it answered (os._exit, or a C library calling exit)'
    """
    if exitcode is None:
        return "ended without an exit status"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        cause = _SIGNAL_CAUSES.get(name)
        return f"was killed by signal {name}" + (f" ({cause})" if cause else "")
    return f"ended with exit code {exitcode} before it answered (os._exit, or a C library calling exit)"


@dataclass
class Died:
    """A worker that ended before it answered: its ``exitcode``
    (multiprocessing's), the step it had last announced (``step``, None if
    none), how long that step had run, and whether the parent killed it for
    overrunning ``deadline_s`` (then ``killed`` is True)."""

    exitcode: int | None
    step: Any = None
    step_seconds: float = 0.0
    killed: bool = False
    deadline_s: float | None = None
    raised: str | None = None

    @property
    def signal_name(self) -> str | None:
        if self.exitcode is None or self.exitcode >= 0:
            return None
        try:
            return signal.Signals(-self.exitcode).name
        except ValueError:
            return f"signal {-self.exitcode}"

    def describe(self) -> str:
        if self.raised is not None:
            return f"its worker failed outside the check: {' '.join(self.raised.split())[-600:]}"
        if self.killed:
            return (f"did not stop {self.deadline_s:g} s after it started (the budget's alarm could not end it: "
                    "it was in C code or blocked the alarm); its worker process was killed")
        return f"its worker process {describe_exit(self.exitcode)}"

    def to_json(self) -> dict:
        return {"exitcode": self.exitcode, "signal": self.signal_name, "killed_by_parent": self.killed,
                "seconds": round(self.step_seconds, 3)}


class Answer:
    """What a worker sent last: ``("result", value)`` or ``("raised", text)``."""

    def __init__(self, kind: str, value: Any):
        self.kind, self.value = kind, value


def _become_worker(parent: int, from_main_thread: bool) -> None:
    """In a fresh worker: Ctrl-C is the parent's (it stops the workers);
    SIGTERM at its default (the parent's terminate ends it); the worker dies
    with its parent however the parent ends; no core files."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ImportError, ValueError, OSError):
        pass
    from theorems.scale.executors import watch_parent_from_child

    watch_parent_from_child(parent, forked_from_main_thread=from_main_thread)


def _flush() -> None:
    """Write out what the task printed (the worker ends with ``os._exit``, which does not)."""
    import sys

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass


def _child_main(handler: Callable, conn, parent: int, from_main_thread: bool) -> None:
    _become_worker(parent, from_main_thread)

    def send(*message) -> None:
        conn.send(message)

    try:
        while True:
            try:
                task = conn.recv()
            except (EOFError, OSError):  # the parent closed its end
                break
            if task is None:
                break
            try:
                value = handler(task, send)
                try:
                    conn.send(("result", value))
                except Exception:  # noqa: BLE001 - an answer that cannot be pickled
                    conn.send(("raised", traceback.format_exc(limit=8)[-4000:]))
            except BaseException:  # noqa: BLE001 - the handler's own crash, reported, not printed
                conn.send(("raised", traceback.format_exc(limit=8)[-4000:]))
            _flush()
    finally:
        try:
            _flush()
            conn.close()
        finally:
            # no atexit handlers or finalisers of state the parent owns (its temporary folders)
            os._exit(0)


class Worker:
    """A warm worker process forked from this one: it runs one task at a
    time, ``handler(task, send)``, and stays for the next; ``send(*message)``
    passes a message to :meth:`collect`'s ``on_message``, the return value is
    the task's answer. The worker ends with this process, however it ends."""

    def __init__(self, handler: Callable[[Any, Callable[..., None]], Any]):
        import multiprocessing

        ctx = multiprocessing.get_context("fork")
        self._conn, child = ctx.Pipe(duplex=True)
        from_main = threading.current_thread() is threading.main_thread()
        self.process = ctx.Process(target=_child_main, args=(handler, child, os.getpid(), from_main))
        self.process.start()
        child.close()
        self.tag: Any = None  # the task running, None when idle
        self.started = time.monotonic()
        self.step: Any = None
        self.step_started = self.started
        self.deadline: float | None = None  # monotonic time after which the worker is killed
        self.deadline_s: float | None = None
        self.answer: Answer | Died | None = None

    # -- the parent's side ------------------------------------------------
    @property
    def busy(self) -> bool:
        return self.tag is not None

    @property
    def dead(self) -> bool:
        return isinstance(self.answer, Died) or self.process.exitcode is not None

    def submit(self, task: Any, tag: Any) -> None:
        """Start ``task`` (``tag`` names it for the caller); the worker must be idle."""
        self.tag, self.answer = tag, None
        self.started = self.step_started = time.monotonic()
        self.step, self.deadline, self.deadline_s = None, None, None
        try:
            self._conn.send(task)
        except OSError:  # it ended while idle (killed from outside): collect() reports it
            pass

    def take(self) -> Answer | Died:
        """The answer of the task that ended, the worker idle again."""
        answer, self.answer, self.tag = self.answer, None, None
        self.step, self.deadline = None, None
        return answer

    def waitables(self) -> list:
        return [self._conn, self.process.sentinel]

    def set_step(self, step: Any, allowance_s: float | None) -> None:
        """Note that ``step`` started now; kill the worker if it is still in it
        after ``allowance_s`` seconds (None: no limit)."""
        self.step, self.step_started = step, time.monotonic()
        self.deadline_s = allowance_s
        self.deadline = None if allowance_s is None else self.step_started + allowance_s

    def _read(self, on_message) -> bool:
        """Read what has arrived; True once the task's answer is in."""
        try:
            while self._conn.poll():
                message = self._conn.recv()
                if message[0] in ("result", "raised"):
                    self.answer = Answer(message[0], message[1])
                    return True
                on_message(self, message)
        except (EOFError, OSError):
            pass
        return False

    def collect(self, on_message: Callable[["Worker", tuple], None]) -> bool:
        """Read what has arrived; True once the running task has answered or
        the worker died (then :attr:`answer` is a :class:`Died`)."""
        if self.answer is not None:
            return True
        if self._read(on_message):
            return True
        if self.process.exitcode is not None or not self.process.is_alive():
            # what the worker wrote before it ended may hold its answer
            if not self._read(on_message):
                self.process.join()
                self.answer = Died(self.process.exitcode, self.step, time.monotonic() - self.step_started)
                self._close()
            return True
        return False

    def kill_if_overdue(self, now: float) -> bool:
        """Kill the worker when its step ran past its deadline; True if it did."""
        if self.answer is not None or self.deadline is None or now < self.deadline:
            return False
        self.process.kill()
        self.process.join()
        self.answer = Died(self.process.exitcode, self.step, now - self.step_started, killed=True,
                           deadline_s=self.deadline_s)
        self._close()
        return True

    def close(self) -> None:
        """Let an idle worker end (it exits when its pipe closes); wait for it."""
        try:
            self._conn.send(None)
        except OSError:
            pass
        self.process.join(timeout=5)
        if self.process.exitcode is None:
            self.stop()
        self._close()

    def stop(self) -> None:
        """End the worker now (the run was interrupted)."""
        if self.process.is_alive():
            self.process.terminate()
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self._close()

    def _close(self) -> None:
        try:
            self._conn.close()
        except OSError:
            pass


def wait_any(workers: Iterable[Worker], timeout: float | None) -> None:
    """Block until a worker has something to read or ended, or ``timeout``."""
    from multiprocessing.connection import wait

    objects = [o for w in workers if w.busy and w.answer is None for o in w.waitables()]
    if objects:
        wait(objects, timeout)
    elif timeout:
        time.sleep(timeout)
