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

With ``--pools D [D ...]`` it measures instead the search for a pool's
critical size in t1.sharp-threshold-2 (the largest prefix n of a nested
Gaussian pool that some memory retrieves top-1, ``max_margin_memory`` plus
the rounding-aware check of its W), on the same pools in one process:
before, the bisection over the claim's whole range (3 .. n at load ratio
0.4, both ends first: ``linmem.sweeps._bisect_last_success``); after, the
search from the prediction d^2 / (n ln n) = 2 - 3 lnln n / ln n
(``_gallop_last_success``). It prints the LP evaluations, the seconds spent
on separable and on infeasible prefixes, the ratio before / after, and
whether both found the same n*.

Nothing is asserted: this is not a test.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _harness import peak_bytes

import linmem
from linmem import gaussian_pairs as _gaussian_pairs
from linmem import learn, sweeps

SEED = 20261201
SIZES = ((8, 25), (12, 40), (16, 60), (20, 80))
TARGET_RATIO_AT_20 = 10.0


def gaussian_pairs(d: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    return _gaussian_pairs(d, n, rng=np.random.default_rng([SEED, d, n, seed]))


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def _separable(V: np.ndarray, U: np.ndarray) -> bool:
    """t1.sharp-threshold-2's criterion: the max-margin memory retrieves every pair."""
    res = learn.max_margin_memory(V, U)
    return bool(res.margin > 0 and learn.GordanCertificate(W=res.W, lam=None, keys=V, targets=U).verify())


def pool_search(d: int, pools: int) -> None:
    """Before/after of one pool's critical-size search (see the module docstring)."""
    from theorems.claims.top1 import LP_MIN_RATIO, _predicted_critical_n

    hi = max(4, int(np.ceil(linmem.critical_n(d, LP_MIN_RATIO))))
    start = _predicted_critical_n(d)
    print(f"d = {d}: range 3..{hi}, search starts at {start}")
    print(f"{'pool':>4} {'n* old':>6} {'n* new':>6} {'evals':>9} {'sep s':>13} {'infeasible s':>15} {'ratio':>6}")
    totals = np.zeros(2)
    for s in range(pools):
        V, U = _gaussian_pairs(d, hi, rng=np.random.default_rng([SEED, d, hi, s]))
        out = []
        for search in ("old", "new"):
            log = []

            def ok(n: int) -> bool:
                t0 = time.perf_counter()
                good = _separable(V[:, :n], U[:, :n])
                log.append((n, good, time.perf_counter() - t0))
                return good

            n_star = (sweeps._bisect_last_success(ok, 3, hi) if search == "old"
                      else sweeps._gallop_last_success(ok, 3, hi, start))
            out.append((n_star, len(log), sum(t for _, g, t in log if g), sum(t for _, g, t in log if not g)))
        (a, ea, sa, ia), (b, eb, sb, ib) = out
        totals += (sa + ia, sb + ib)
        print(f"{s:>4} {a:>6} {b:>6} {ea:>4}/{eb:<4} {sa:>6.1f}/{sb:<6.1f} {ia:>7.1f}/{ib:<7.1f} "
              f"{(sa + ia) / (sb + ib):>6.2f}", flush=True)
    print(f"d = {d}: LP seconds before {totals[0]:.1f}, after {totals[1]:.1f}, ratio {totals[0] / totals[1]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2, help="instances per size (default 2)")
    parser.add_argument("--pools", type=int, nargs="+", metavar="D",
                        help="measure the critical-size search at these dimensions instead")
    parser.add_argument("--pool-count", type=int, default=2, help="pools per dimension with --pools (default 2)")
    args = parser.parse_args()
    if args.pools:
        for d in args.pools:
            pool_search(d, args.pool_count)
        return
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
