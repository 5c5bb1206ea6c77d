"""linmem.assess at checkpoint sizes, reported as ratios (issue 24, item 3).

Run from the repository root (with linmem importable, e.g. ``PYTHONPATH=.``)::

    python benchmarks/bench_assess.py [--sizes 384x20000,1024x50000] [--dtype float32]

For each size d x M (keys K d x M, values V d x M, W = a perturbed least-squares
store), in one process:

1. the time of ``linmem.assess(W, K, V, top1=False)`` (everything but the
   top-1 test: one thin SVD of K, the consistency and least-squares tests,
   per-key residuals and leverage) against one
   ``np.linalg.svd(K, full_matrices=False)``: target ratio <= 3;
2. its peak memory against ``K.nbytes`` (K as given): target <= 3. Measured
   for each of ``assess`` and the SVD in a fresh subprocess that builds the
   problem without temporaries and reports the ``tracemalloc`` peak of the
   call and the growth of its RSS high-water mark (``VmHWM``) over the RSS before it (the latter
   also sees LAPACK and BLAS buffers, which ``tracemalloc`` does not);
3. the top-1 test alone (``linmem.top1_correct``, O(M^2 d)) against one plain
   ``(M x d) @ (d x M)`` product, reported;
4. the noise curve (6 levels, 16 draws, ``linmem.assess.noisy_error_curve``)
   against the SVD, reported.

Timings are the best of ``REPEATS`` interleaved runs (1 at the largest
size), both in this process. Run with ``OMP_NUM_THREADS=1
OPENBLAS_NUM_THREADS=1`` for ratios that a shared machine's load disturbs
least (the subprocesses inherit the environment). Nothing is asserted: this
is not a test.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
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
    """Keys, values and a store, drawn in ``dtype`` and scaled in place (no
    full-size temporary raises the RSS high-water mark before a measurement)."""
    rng = np.random.default_rng(SEED)
    K = rng.standard_normal((d, M), dtype=dtype)
    K /= math.sqrt(d)
    V = rng.standard_normal((d, M), dtype=dtype)
    V /= math.sqrt(d)
    A = rng.standard_normal((d, d)) / math.sqrt(d)
    W = (A + 1e-3 * rng.standard_normal((d, d))).astype(dtype)
    return W, K, V


def _status_bytes(field: str) -> int:
    """``VmRSS`` (resident now) or ``VmHWM`` (its high-water mark) of this
    process: ``ru_maxrss`` survives ``execve``, so a subprocess would start
    with its parent's high-water mark; ``VmHWM`` starts afresh."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def memory_child(d: int, M: int, dtype: str, what: str) -> None:
    """Print the JSON memory record of one call (``assess`` or ``svd``)."""
    W, K, V = problem(d, M, np.dtype(dtype))
    fn = {"assess": lambda: linmem.assess(W, K, V, top1=False),
          "svd": lambda: np.linalg.svd(K, full_matrices=False)}[what]
    rss0, hw0 = _status_bytes("VmRSS"), _status_bytes("VmHWM")
    traced = peak_bytes(fn)
    hw1 = _status_bytes("VmHWM")
    # hw1 - rss0 is the growth when the call raised the high-water mark
    # (hw1 > hw0), an upper bound on it otherwise
    print(json.dumps({"traced": traced, "rss_growth": hw1 - rss0, "rss_exact": hw1 > hw0}))


def memory(d: int, M: int, dtype: str, what: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--memory-child", what, "--sizes", f"{d}x{M}",
                          "--dtype", dtype], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default=",".join(f"{d}x{M}" for d, M in SIZES))
    ap.add_argument("--dtype", default="float64", choices=("float64", "float32"))
    ap.add_argument("--top1", action="store_true", help="also time the O(M^2 d) top-1 test")
    ap.add_argument("--memory-child", choices=("assess", "svd"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.memory_child:
        d, M = (int(x) for x in args.sizes.split("x"))
        memory_child(d, M, args.dtype, args.memory_child)
        return
    for text in args.sizes.split(","):
        d, M = (int(x) for x in text.split("x"))
        W, K, V = problem(d, M, np.dtype(args.dtype))
        repeats = 1 if d * M > 2e7 else REPEATS
        t_svd = best_time(lambda: np.linalg.svd(K, full_matrices=False), repeats)
        t_assess = best_time(lambda: linmem.assess(W, K, V, top1=False), repeats)
        print(f"d = {d}, M = {M}, {args.dtype}: K {K.nbytes / 2**20:.0f} MiB")
        print(f"  [1] assess(top1=False) {t_assess:.2f} s vs svd(K) {t_svd:.2f} s: ratio {t_assess / t_svd:.2f} "
              f"(target <= {TARGET_TIME_RATIO})", flush=True)
        for what in ("assess", "svd"):
            m = memory(d, M, args.dtype, what)
            rss = f"{'' if m['rss_exact'] else 'at most '}{m['rss_growth'] / 2**20:.0f} MiB = {m['rss_growth'] / K.nbytes:.2f} x K"
            print(f"  [2] peak memory {what}: tracemalloc {m['traced'] / 2**20:.0f} MiB = "
                  f"{m['traced'] / K.nbytes:.2f} x K; RSS growth {rss} "
                  f"(target for assess <= {TARGET_MEMORY_RATIO})", flush=True)
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
