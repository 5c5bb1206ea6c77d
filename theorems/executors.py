"""Where the finite-size sweeps run: in this process, or on dask.distributed.

``theorems verify --executor dask`` runs the per-instance work of the sweeps
(:func:`linmem.sweeps.nested_critical_sizes`, :func:`linmem.sweeps.measure_grid`)
on a dask cluster: ``--scheduler ADDRESS`` connects to a running one
(``dask scheduler`` / ``dask worker ADDRESS``), otherwise a
``LocalCluster`` with ``--workers N`` single-threaded worker processes is
started for the run; every worker imports linmem and HiGHS before the first
task. The claims themselves, their criteria and the cache stay
in this process (:func:`linmem.sweeps.use_executor`), so the report is the
one a serial run gives, and a rerun reuses every cached instance.

dask and distributed are an optional extra: ``pip install 'linmem-theorems[dask]'``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from linmem import sweeps

__all__ = ["EXECUTORS", "open_executor"]

#: Values of ``--executor``.
EXECUTORS = ("local", "dask")


@contextlib.contextmanager
def open_executor(kind: str = "local", *, scheduler: str | None = None, workers: int | None = None) -> Iterator[Any]:
    """Install the sweep executor of ``kind`` for the ``with`` block.

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
        executor = client.get_executor()
        with sweeps.use_executor(executor):
            yield executor


def _warm_worker() -> None:
    """Import what the sweeps' tasks run (linmem with numpy and scipy, and
    HiGHS) on a worker, once, before the first task: on the busy 2-core host
    it took 0.5-0.7 s per worker, which otherwise lands inside the first
    task of each worker and the timed part of a run."""
    import highspy  # noqa: F401

    import linmem.learn  # noqa: F401
