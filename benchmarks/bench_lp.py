"""The cutting-plane max-margin LP against the dense one, reported as ratios.

Run from the repository root (with linmem importable, e.g. ``PYTHONPATH=.``)::

    python benchmarks/bench_lp.py [--seeds S]

For d = 8, 12, 16, 20 at n near the finite-size top-1 boundary of the best
linear memory (the sizes the issue measured the dense LP at), in one process:

1. wall time of ``max_margin_memory(method="dense")`` over
   ``method="cutting-plane"`` summed over the seeds (the two interleaved per
   seed, so that a busy moment hits both; target: >= 10 at d = 20);
2. peak ``tracemalloc`` memory of each (numpy and Python allocations; HiGHS's
   own C++ arrays are not traced), as the ratio dense / cutting plane;
3. the largest |t*_dense - t*_cp| over the seeds, the LP solves and the
   comparisons the cutting plane ended with against the dense n (n - 1).

Nothing is asserted: this is not a test.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _harness import peak_bytes

from linmem import gaussian_pairs as _gaussian_pairs
from linmem import learn

SEED = 20261201
SIZES = ((8, 25), (12, 40), (16, 60), (20, 80))
TARGET_RATIO_AT_20 = 10.0


def gaussian_pairs(d: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    return _gaussian_pairs(d, n, rng=np.random.default_rng([SEED, d, n, seed]))


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2, help="instances per size (default 2)")
    args = parser.parse_args()
    print(f"{'d':>3} {'n':>4} {'ratio':>6} {'dense s':>8} {'cp s':>7} {'mem ratio':>9} "
          f"{'dense MiB':>9} {'cp MiB':>7} {'|dt*|':>8} {'rounds':>6} {'cmp':>6} {'of':>6}")
    for d, n in SIZES:
        t_dense = t_cp = 0.0
        gap = 0.0
        rounds, comparisons = [], []
        for s in range(args.seeds):
            V, U = gaussian_pairs(d, n, s)
            dense, td = timed(lambda: learn.max_margin_memory(V, U, method="dense"))
            cp, tc = timed(lambda: learn.max_margin_memory(V, U, method="cutting-plane"))
            t_dense += td
            t_cp += tc
            gap = max(gap, abs(dense.margin - cp.margin))
            rounds.append(cp.rounds)
            comparisons.append(cp.comparisons)
        V, U = gaussian_pairs(d, n, 0)
        m_dense = peak_bytes(lambda: learn.max_margin_memory(V, U, method="dense"))
        m_cp = peak_bytes(lambda: learn.max_margin_memory(V, U, method="cutting-plane"))
        print(f"{d:>3} {n:>4} {t_dense / t_cp:>6.1f} {t_dense:>8.2f} {t_cp:>7.2f} {m_dense / m_cp:>9.1f} "
              f"{m_dense / 2**20:>9.1f} {m_cp / 2**20:>7.2f} {gap:>8.1e} {max(rounds):>6} "
              f"{max(comparisons):>6} {n * (n - 1):>6}")
    print(f"target: time ratio >= {TARGET_RATIO_AT_20:g} at d = 20")


if __name__ == "__main__":
    main()
