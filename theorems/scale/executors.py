"""Where the finite-size sweeps run: in this process, or on dask.distributed.

``theorems verify --executor dask`` runs the per-instance work of the sweeps
(:func:`linmem.sweeps.nested_critical_sizes`, :func:`linmem.sweeps.measure_grid`)
on a dask cluster: ``--scheduler ADDRESS`` connects to a running one
(``dask scheduler`` / ``dask worker ADDRESS``), otherwise a
``LocalCluster`` with ``--workers N`` single-threaded worker processes is
started for the run; every worker imports linmem and HiGHS before the first
task. The claims themselves, their criteria and the cache stay
in this process: the run passes the executor to every check
(``ctx.executor``), which passes it to the sweeps (``executor=``), so the
report is the one a serial run gives, and a rerun reuses every cached
instance.

dask and distributed are an optional extra: ``pip install 'linmem-theorems[dask]'``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any


__all__ = ["EXECUTORS", "ORPHAN_POLL_S", "die_with_parent", "open_executor", "watch_parent_from_child"]

#: How often a forked worker checks that its parent is still alive, seconds
#: (the fallback where the kernel cannot signal it: not Linux, or forked
#: from a thread other than the main one).
ORPHAN_POLL_S = 0.5

#: What the fork hooks know: armed or not, the forking process and whether
#: the fork came from its main thread, prctl when the platform has it.
_FORK: dict[str, Any] = {"armed": False, "parent": None, "main_thread": False, "prctl": None}

#: prctl(2) option: the signal a process gets when the thread that forked it ends.
_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """Make every process this one forks from now on (the ``--jobs``
    workers of ``verify`` and ``stability``, forked by multiprocessing) end
    when this process ends, however it ends (SIGKILL included), so that a
    CI job killed on timeout does not hang on workers holding its stdout.

    Each child asks the kernel for SIGKILL when its parent dies
    (``prctl(PR_SET_PDEATHSIG)``, Linux, when forked from the main thread),
    exits at once if the parent is already gone, and runs a daemon thread
    that exits the process when ``os.getppid()`` changes (polled every
    :data:`ORPHAN_POLL_S` s; the fallback elsewhere). A child also gets
    SIGTERM back at its default action, so that the parent's ``terminate``
    ends it even when the parent handles SIGTERM itself. Idempotent.
    """
    if _FORK["armed"] or not hasattr(os, "register_at_fork"):
        return
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            _FORK["prctl"] = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            _FORK["prctl"] = None
    os.register_at_fork(before=_before_fork, after_in_child=_after_fork_in_child)
    _FORK["armed"] = True


def _before_fork() -> None:
    _FORK["parent"] = os.getpid()
    _FORK["main_thread"] = threading.current_thread() is threading.main_thread()


def _after_fork_in_child() -> None:
    parent = _FORK["parent"]
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    except ValueError:  # not the main thread of the child (cannot happen after fork; be safe)
        pass
    prctl = _FORK["prctl"]
    if prctl is not None and _FORK["main_thread"]:
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), name="theorems-orphan-watchdog", daemon=True).start()


def watch_parent_from_child(parent: int, *, forked_from_main_thread: bool) -> None:
    """In a process just forked from ``parent`` (a supervised worker,
    :mod:`theorems.scale.supervise`): end with the parent however it ends, as
    :func:`die_with_parent` arranges for every fork, but for this child alone
    (nothing is registered in the parent). The kernel's parent-death signal
    only where the fork came from the parent's main thread (it fires when the
    forking *thread* ends), the polling thread everywhere."""
    if sys.platform.startswith("linux") and forked_from_main_thread:
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), name="theorems-orphan-watchdog", daemon=True).start()


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(ORPHAN_POLL_S)
        if os.getppid() != parent:
            os._exit(1)

#: Values of ``--executor``.
EXECUTORS = ("local", "dask")


@contextlib.contextmanager
def open_executor(kind: str = "local", *, scheduler: str | None = None, workers: int | None = None) -> Iterator[Any]:
    """The sweep executor of ``kind``, open for the ``with`` block (pass it to
    ``theorems.core.runner.run(..., executor=)``; nothing is installed).

    ``"local"``: serial, in this process (``scheduler`` and ``workers`` must be
    unset). ``"dask"``: ``Client(scheduler).get_executor()``, or a
    ``LocalCluster(n_workers=workers or 2, threads_per_worker=1)`` without a
    scheduler address. Raises ValueError for a bad combination and
    ImportError (naming the extra) when dask is not installed.
    """
    if kind not in EXECUTORS:
        raise ValueError(f"executor must be one of {EXECUTORS}, got {kind!r}")
    if kind == "local":
        if scheduler is not None or workers is not None:
            raise ValueError("--scheduler and --workers need --executor dask")
        yield None
        return
    if scheduler is not None and workers is not None:
        raise ValueError("--workers starts a local cluster; a cluster at --scheduler has its own workers")
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ImportError("--executor dask needs dask.distributed: pip install 'linmem-theorems[dask]'") from None
    with contextlib.ExitStack() as stack:
        if scheduler is None:
            cluster = stack.enter_context(LocalCluster(n_workers=workers or 2, threads_per_worker=1,
                                                       dashboard_address=None))
            client = stack.enter_context(Client(cluster))
        else:
            client = stack.enter_context(Client(scheduler))
        client.run(_warm_worker)
        yield client.get_executor()


def _warm_worker() -> None:
    """Import what the sweeps' tasks run (linmem with numpy and scipy, and
    HiGHS) on a worker, once, before the first task: on the busy 2-core host
    it took 0.5-0.7 s per worker, which otherwise lands inside the first
    task of each worker and the timed part of a run."""
    import highspy  # noqa: F401

    import linmem.learn  # noqa: F401
