"""A fixed finite-size sweep on a dask LocalCluster with 1 and 2 workers, as a ratio.

Run from the repository root (needs the ``[dask]`` extra)::

    PYTHONPATH=. python benchmarks/bench_sweep.py

The sweep: per-seed critical sizes of the best linear memory (max-margin LP,
nested bisection) at d = 8, n in 3..80, 24 seeds, cache off, submitted through
:func:`linmem.sweeps.use_executor`. Prints the wall time with 1 and 2
single-threaded worker processes (cluster start-up excluded), their ratio
(target: >= 1.7 on 2 idle cores) and that both give the serial n*.
Nothing is asserted: this is not a test.
"""

from __future__ import annotations

import time

from linmem import learn, sweeps

D, N_RANGE, SEEDS, BASE_SEED = 8, (3, 80), range(24), 20261201
TARGET = 1.7


def separable(V, U) -> bool:
    res = learn.max_margin_memory(V, U)
    return bool(res.margin > 0 and learn.GordanCertificate(W=res.W, lam=None, keys=V, targets=U).verify())


def sweep():
    return sweeps.nested_critical_sizes(separable, D, n_range=N_RANGE, seeds=SEEDS, base_seed=BASE_SEED,
                                        name="bench-sweep", cache=None).n_star.tolist()


def main() -> None:
    from distributed import Client, LocalCluster

    reference = sweep()
    times = {}
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None) as cluster, \
                Client(cluster) as client, sweeps.use_executor(client.get_executor()):
            start = time.perf_counter()
            got = sweep()
            times[workers] = time.perf_counter() - start
        print(f"{workers} worker(s): {times[workers]:.2f} s, same n* as serial: {got == reference}")
    print(f"speed-up 2 vs 1 workers: {times[1] / times[2]:.2f} (target >= {TARGET})")


if __name__ == "__main__":
    main()
