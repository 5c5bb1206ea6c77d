"""fs.ce-norm-peak beyond the thorough profile's largest d (48), one pool at a time.

Run from the repository root (resumable: every finished pool is one JSON line
of ``--log``, and a rerun skips the pools the log already holds)::

    nohup nice -n 10 .venv/bin/python docs/results/run_fs_ce_norm_peak_beyond_thorough.py \\
        --d 64 --pools 4 --log docs/results/fs-ce-norm-peak-beyond-thorough.jsonl &

Each pool is measured exactly as the claim measures one (the loads
``finite_size.CE_LOADS``, the ridge ``EFFECTIVE_RIDGE``, ``CE_MAXITER``,
``CE_REFINE_POINTS``, nested Gaussian pairs warm-started along the pool, on
one BLAS thread) with the pool's own stream ``instance_rng(BASE_SEED, d,
pool)``; the log line carries the pool's peak location c*, its fitted sizes,
and its CPU seconds. ``--summary`` prints, per d, the pooled peak
(:func:`linmem.sweeps.pooled_peaks`) of the pools logged so far.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np

from linmem import cross_entropy_memory, sweeps
from theorems.claims import finite_size
from theorems.evidence.simulation import one_blas_thread

#: The pools' base seed (a fixed label: these pools are not the claim's own,
#: whose base seed is drawn from the run seed's stream per d).
BASE_SEED = 20261206


def coarse_sizes(d: int) -> list[int]:
    """The claim's coarse grid of sizes n at dimension d (repeated sizes dropped)."""
    out: list[int] = []
    for c in sorted(finite_size.CE_LOADS):
        n = max(2, int(round(sweeps.pairs_at_load("ratio", d, 1.0 / c))))
        if not out or n > out[-1]:
            out.append(n)
    return out


def one_pool(d: int, pool: int) -> sweeps.PeakCurve:
    def norm(V, U, init):
        fit = cross_entropy_memory(V, U, ridge=finite_size.EFFECTIVE_RIDGE * d * d / V.shape[1],
                                   maxiter=finite_size.CE_MAXITER, init=init)
        W = np.asarray(fit.W, dtype=float)
        return float(np.linalg.norm(W)), W

    with one_blas_thread():
        return sweeps.nested_peak_curve(norm, d, coarse_sizes(d), rng=sweeps.instance_rng(BASE_SEED, d, pool),
                                        refine=finite_size.CE_REFINE_POINTS)


def _load(n: float, d: int) -> float:
    return n * math.log(n) / (d * d)


def logged(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def summary(path: Path) -> dict:
    out = {}
    rows = logged(path)
    for d in sorted({r["d"] for r in rows}):
        curves = [sweeps.PeakCurve(tuple(r["coarse_n"]), tuple(r["coarse_values"]),
                                   {int(k): v for k, v in r["fitted"].items()}, r["peak_n"], r["interior"])
                  for r in rows if r["d"] == d]
        pooled = sweeps.pooled_peaks(curves, lambda n, d=d: _load(n, d))
        out[d] = {"pools": len(curves), "peak": pooled["peak"], "peak_sd": pooled["peak_sd"],
                  "seed_peaks": pooled["seed_peaks"], "resolution": pooled["resolution"],
                  "prominence": pooled["prominence"],
                  "cpu_seconds": [r["cpu_seconds"] for r in rows if r["d"] == d]}
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--d", type=int, action="append", default=[], help="dimension (repeatable)")
    p.add_argument("--pools", type=int, default=4, help="pools per dimension")
    p.add_argument("--log", type=Path, required=True, help="JSON lines, one per finished pool")
    p.add_argument("--summary", action="store_true", help="print the pooled peaks logged so far and exit")
    args = p.parse_args()
    if args.summary:
        print(json.dumps(summary(args.log), indent=1, default=float))
        return
    done = {(r["d"], r["pool"]) for r in logged(args.log)}
    for d in args.d:
        for pool in range(args.pools):
            if (d, pool) in done:
                continue
            start = time.process_time()
            curve = one_pool(d, pool)
            row = {"d": d, "pool": pool, "base_seed": BASE_SEED, "coarse_n": list(curve.coarse_n),
                   "coarse_values": list(curve.coarse_values), "fitted": {str(k): v for k, v in curve.fitted.items()},
                   "peak_n": curve.peak_n, "interior": curve.interior, "peak_c": _load(curve.peak_n, d),
                   "cpu_seconds": round(time.process_time() - start, 1)}
            with args.log.open("a") as fh:
                fh.write(json.dumps(row) + "\n")
            print(f"d = {d} pool {pool}: c* = {row['peak_c']:.4f} (n = {curve.peak_n}), {row['cpu_seconds']} s CPU",
                  flush=True)


if __name__ == "__main__":
    main()
