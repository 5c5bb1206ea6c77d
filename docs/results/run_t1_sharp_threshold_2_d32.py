"""The d = 32 pools of t1.sharp-threshold-2 at the thorough profile, one pool at a time.

Run from the repository root (resumable: each finished pool is stored in the
sweep cache under the claim's own key, so ``theorems verify --profile
thorough`` later reads it, and a rerun of this script skips it)::

    THEOREMS_CACHE=/work/lp-cache nohup nice -n 19 .venv/bin/python \\
        docs/results/run_t1_sharp_threshold_2_d32.py --log docs/results/t1-d32.jsonl &

Each pool is the claim's (run seed 20261130, seed label ``lp``, range 3 .. n
at load ratio 0.4, the search from the prediction); every LP evaluation and
every finished pool is appended to ``--log`` as a JSON line. ``--summary``
writes the record of the pools finished so far (docs/results/*.json).
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import time

import numpy as np

import linmem
from linmem import learn, sweeps
from theorems.authoring import kit
from theorems.scale import sweepcache
from theorems.claims import top1

RUN_SEED = 20261130
D = 32


def pools_and_range(d: int) -> tuple[int, int]:
    pools = math.ceil(top1.LP_SEEDS["thorough"] * max(1.0, (top1.LP_DIMS["quick"][-1] / d) ** 2))
    return pools, max(4, math.ceil(linmem.critical_n(d, top1.LP_MIN_RATIO)))


def run(d: int, seeds: list[int], log) -> sweeps.NestedResult:
    _, hi = pools_and_range(d)

    def success(keys, targets):
        t0 = time.perf_counter()
        res = linmem.max_margin_memory(keys, targets)
        ok = bool(res.margin > 0 and learn.GordanCertificate(W=res.W, lam=None, keys=keys, targets=targets).verify())
        if log is not None:
            log.write(json.dumps({"n": keys.shape[1], "separable": ok, "seconds": round(time.perf_counter() - t0, 2),
                                  "rounds": res.rounds, "comparisons": res.comparisons}) + "\n")
            log.flush()
        return ok

    return sweeps.nested_critical_sizes(
        success, d, n_range=(3, hi), seeds=seeds, base_seed=kit.seed(RUN_SEED, "lp"), name="top1.lp",
        params={"code": top1._CODE}, cache=sweepcache.default_cache(), start=top1._predicted_critical_n(d))


def summary(d: int, n_star: list[int], command: str) -> dict:
    pools, hi = pools_and_range(d)
    loads = [sweeps.load_value("ratio", d, n) for n in n_star]
    res = sweeps.NestedResult(d, tuple(range(len(n_star))), np.array(n_star, dtype=int), (3, hi), 0, len(n_star))
    c = res.crossing("ratio")
    n_c = sweeps.pairs_at_load("ratio", d, c) if math.isfinite(c) and c > 0 else math.nan
    q1, med, q3 = (float(x) for x in np.percentile(loads, [25, 50, 75])) if loads else (math.nan,) * 3
    return {
        "claim": "t1.sharp-threshold-2", "check": "optimal-crossing", "profile": "thorough", "d": d,
        "run_seed": RUN_SEED, "command": command,
        "commit": subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip(),
        "pools_planned": pools, "pools_measured": len(n_star), "n_range": [3, hi],
        "n_star": n_star, "load_ratio_at_n_star": loads,
        "load_ratio_median": med, "load_ratio_iqr": [q1, q3],
        "median_crossing": c, "n_at_median_crossing": n_c,
        "prediction_at_that_n": linmem.second_order_crossing(n_c) if math.isfinite(n_c) else math.nan,
        "censored": int(res.censored),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", required=True)
    parser.add_argument("--d", type=int, default=D, help=f"dimension (default {D}; smaller for a trial)")
    parser.add_argument("--max-pools", type=int, default=None, help="stop after this many pools")
    parser.add_argument("--summary", help="write the record of the finished pools to this JSON file and stop")
    parser.add_argument("--command", default="", help="the command line to record with --summary")
    args = parser.parse_args()
    d = args.d
    pools, _ = pools_and_range(d)
    if args.max_pools is not None:
        pools = min(pools, args.max_pools)
    done: dict[int, int] = {}
    work: dict[int, dict] = {}
    lps: list[dict] = []
    try:
        with open(args.log) as f:
            for line in f:
                rec = json.loads(line)
                if "pool" in rec:
                    done[rec["pool"]] = rec["n_star"]
                    work[rec["pool"]] = {"lp_evaluations": len(lps), "seconds": rec["seconds"], "lps": lps}
                    lps = []
                else:
                    lps.append(rec)
    except FileNotFoundError:
        pass
    if args.summary:
        ordered = [done[s] for s in sorted(done)]
        with open(args.summary, "w") as f:
            json.dump(summary(d, ordered, args.command) | {"pools": sorted(done), "work": [work[s] for s in sorted(done)],
                                                           "unfinished_pool_lps": lps}, f, indent=1)
            f.write("\n")
        return
    with open(args.log, "a") as log:
        for s in range(pools):
            if s in done:
                continue
            t0 = time.perf_counter()
            res = run(d, [s], log)
            log.write(json.dumps({"pool": s, "n_star": int(res.n_star[0]), "evaluations": res.evaluations,
                                  "seconds": round(time.perf_counter() - t0, 1)}) + "\n")
            log.flush()


if __name__ == "__main__":
    main()
