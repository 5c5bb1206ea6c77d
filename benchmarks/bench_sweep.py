"""A fixed finite-size sweep on a dask LocalCluster with 1 and 2 workers, as a ratio.

Run from the repository root (needs the ``[dask]`` extra)::

    PYTHONPATH=. python benchmarks/bench_sweep.py [--repeats R]

The sweep: per-seed critical sizes of the best linear memory (max-margin LP,
nested bisection) at d = 8, n in 3..80, 24 seeds, cache off, submitted through
:func:`linmem.sweeps.nested_critical_sizes`'s ``executor=`` (one task per seed). Per worker count, on
a cluster opened by :func:`theorems.scale.executors.open_executor` (its workers
warmed: linmem, scipy and HiGHS imported) and after one untimed sweep, it
prints, best of ``--repeats`` timed sweeps:

- the wall time and the speed-up of 2 workers over 1 (target >= 1.7 on 2
  idle cores), with the load average (``os.getloadavg``) beside each;
- the task stream's compute seconds summed over the tasks, and the
  cluster's busy fraction ``sum compute / (workers x wall)``: near 1 means
  dask's own overhead (scheduling, serialisation, idle workers) is small;
- the inflation ``sum compute (2 workers) / sum compute (1 worker)``: above 1
  means the same tasks ran slower side by side, i.e. the host did not give
  the second worker a core of its own (load from other processes).

Both give the serial n*. Nothing is asserted: this is not a test.
"""

from __future__ import annotations

import argparse
import os
import time

from linmem import learn, sweeps
from theorems.scale.executors import open_executor

D, N_RANGE, SEEDS, BASE_SEED = 8, (3, 80), range(24), 20261201
TARGET = 1.7


def separable(V, U) -> bool:
    res = learn.max_margin_memory(V, U)
    return bool(res.margin > 0 and learn.GordanCertificate(W=res.W, lam=None, keys=V, targets=U).verify())


def sweep(executor=None):
    return sweeps.nested_critical_sizes(separable, D, n_range=N_RANGE, seeds=SEEDS, base_seed=BASE_SEED,
                                        name="bench-sweep", cache=None, executor=executor).n_star.tolist()


def load() -> str:
    return "load " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def timed_on(workers: int, repeats: int, reference) -> dict:
    from distributed import get_client, get_task_stream

    best = None
    with open_executor("dask", workers=workers) as executor:
        client = get_client()
        sweep(executor)  # untimed: the pickled criterion reaches every worker
        for _ in range(repeats):
            with get_task_stream(client) as stream:
                start = time.perf_counter()
                same = sweep(executor) == reference
                wall = time.perf_counter() - start
            compute = sum(s["stop"] - s["start"] for t in stream.data for s in t["startstops"]
                          if s["action"] == "compute")
            row = {"wall": wall, "compute": compute, "same": same, "load": load()}
            if best is None or wall < best["wall"]:
                best = row
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2, help="timed sweeps per worker count (default 2)")
    args = parser.parse_args()
    start = time.perf_counter()
    reference = sweep()
    print(f"serial, in this process: {time.perf_counter() - start:.2f} s ({load()})")
    rows = {}
    for workers in (1, 2):
        rows[workers] = r = timed_on(workers, args.repeats, reference)
        print(f"{workers} worker(s): {r['wall']:.2f} s, compute {r['compute']:.2f} s, busy "
              f"{r['compute'] / (workers * r['wall']):.2f}, same n* as serial: {r['same']} ({r['load']})")
    print(f"speed-up 2 vs 1 workers: {rows[1]['wall'] / rows[2]['wall']:.2f} (target >= {TARGET}); "
          f"compute inflation 2 vs 1: {rows[2]['compute'] / rows[1]['compute']:.2f}")


if __name__ == "__main__":
    main()
