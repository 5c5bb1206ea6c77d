"""linmem.assess at checkpoint sizes, reported as ratios (issue 24, item 3).

Run from the repository root (with linmem importable, e.g. ``PYTHONPATH=.``)::

    python benchmarks/bench_assess.py [--sizes 384x20000,1024x50000] [--dtype float32]

For each size d x M (keys K d x M, values V d x M, W = a perturbed least-squares
store), in one process:

1. the time of ``linmem.assess(W, K, V, top1=False)`` (everything but the
   top-1 test: one thin SVD of K, the consistency and least-squares tests,
   per-key residuals and leverage) against one
   ``np.linalg.svd(K, full_matrices=False)``: target ratio <= 3;
2. its peak ``tracemalloc`` memory against ``K.nbytes`` (K as given): target <= 3;
3. the top-1 test alone (``linmem.top1_correct``, O(M^2 d)) against one plain
   ``(M x d) @ (d x M)`` product, reported;
4. the noise curve (6 levels, 16 draws, ``linmem.assess.noisy_error_curve``)
   against the SVD, reported.

Timings are the best of ``REPEATS`` interleaved runs (1 at the largest
size). Nothing is asserted: this is not a test.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from _harness import peak_bytes

import linmem
from linmem.assess import noisy_error_curve

SEED = 20261203
REPEATS = 3
SIZES = ((384, 20_000), (1024, 50_000))
TARGET_TIME_RATIO = 3.0
TARGET_MEMORY_RATIO = 3.0
NOISE_LEVELS = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)


def best_time(fn, repeats: int) -> float:
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def problem(d: int, M: int, dtype) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(SEED)
    K = (rng.standard_normal((d, M)) / math.sqrt(d)).astype(dtype)
    V = (rng.standard_normal((d, M)) / math.sqrt(d)).astype(dtype)
    A = rng.standard_normal((d, d)).astype(dtype) / math.sqrt(d)
    W = (A + 1e-3 * rng.standard_normal((d, d))).astype(dtype)
    return W, K, V


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default=",".join(f"{d}x{M}" for d, M in SIZES))
    ap.add_argument("--dtype", default="float64", choices=("float64", "float32"))
    ap.add_argument("--top1", action="store_true", help="also time the O(M^2 d) top-1 test")
    args = ap.parse_args(argv)
    for text in args.sizes.split(","):
        d, M = (int(x) for x in text.split("x"))
        W, K, V = problem(d, M, np.dtype(args.dtype))
        repeats = 1 if d * M > 2e7 else REPEATS
        t_svd = best_time(lambda: np.linalg.svd(K, full_matrices=False), repeats)
        t_assess = best_time(lambda: linmem.assess(W, K, V, top1=False), repeats)
        mem_assess = peak_bytes(lambda: linmem.assess(W, K, V, top1=False))
        mem_svd = peak_bytes(lambda: np.linalg.svd(K, full_matrices=False))
        print(f"d = {d}, M = {M}, {args.dtype}: K {K.nbytes / 2**20:.0f} MiB")
        print(f"  [1] assess(top1=False) {t_assess:.2f} s vs svd(K) {t_svd:.2f} s: ratio {t_assess / t_svd:.2f} "
              f"(target <= {TARGET_TIME_RATIO})")
        print(f"  [2] peak memory assess {mem_assess / 2**20:.0f} MiB = {mem_assess / K.nbytes:.2f} x K "
              f"(svd(K) alone {mem_svd / K.nbytes:.2f} x K; target <= {TARGET_MEMORY_RATIO})")
        rng = np.random.default_rng(SEED)
        t_noise = best_time(lambda: noisy_error_curve(W, K, V, taus=NOISE_LEVELS, rng=rng, noise_draws=16), 1)
        print(f"  [4] noise curve ({len(NOISE_LEVELS)} levels x 16 draws) {t_noise:.2f} s: "
              f"ratio {t_noise / t_svd:.2f} to svd(K)")
        if args.top1:
            Kf, Vf, Wf = (x.astype(float) for x in (K, V, W))
            t_top1 = best_time(lambda: linmem.top1_correct(Wf, Kf, Vf), 1)
            t_prod = best_time(lambda: Kf.T @ Kf, 1)
            print(f"  [3] top1_correct {t_top1:.2f} s vs (M x d) @ (d x M) {t_prod:.2f} s: ratio {t_top1 / t_prod:.2f}")


if __name__ == "__main__":
    main()
