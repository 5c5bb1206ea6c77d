"""Cold wall time of ``theorems verify`` (quick profile, whole catalogue) in
supervised workers (the default: one per core) against one process, as a
ratio, and whether the two give the same statuses and figures.

Run from the repository root, with the package installed::

    python benchmarks/bench_workers.py                      # --in-process against the default
    python benchmarks/bench_workers.py --before-python /work/main/.venv/bin/python  # another install (e.g. main's)
    python benchmarks/bench_workers.py --modes in-process jobs-1 jobs-2 default --only 'op.*'

Every run is cold: a fresh, empty ``THEOREMS_CACHE`` (no sweep cache, no
recorded durations, so no longest-first order either). The modes run one
after the other, ``--repeats`` rounds interleaved; each mode's best wall time
is reported with its ratio to the first mode's. The target of the issue
"A claim that kills or hangs its process costs that claim alone": the default
(2 workers on 2 cores) at most 0.65 of one process. With ``--warm-estimates``
each round first runs a seeding run whose ``claim-durations.json`` the timed
runs start from (longest claims first), the sweep cache emptied.

Nothing is asserted: this is not a test. On a shared host the ratio moves with
the load; report the load (``uptime``) beside it. Where the kernel groups
processes by session for scheduling (``/proc/sys/kernel/sched_autogroup_enabled``
is 1, as on most desktops and shared hosts) and other sessions keep the cores
busy, a run's workers share one session's slice: then the default cannot run
faster than one process, and the measured ratio says nothing about the cores.
The script therefore also prints the CPU time of each run (workers included)
and a model of the default on an idle machine: the reference run's claim
seconds list-scheduled on as many workers as cores, in the default's order
(catalogue order on a cold cache), plus the reference's time outside the
claims (start-up, reports).
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET = 0.65

MODES = {
    "in-process": ["--in-process"],
    "jobs-1": ["--jobs", "1"],
    "jobs-2": ["--jobs", "2"],
    "default": [],
    "before": [],  # the --before-python install, as it runs by default
}


def _run(mode: str, args: argparse.Namespace, cache: Path, out: Path) -> tuple[float, float]:
    """Wall and CPU seconds (this run's processes, workers included) of one run."""
    env = {**os.environ, "THEOREMS_CACHE": str(cache)}
    python = args.before_python if mode == "before" else sys.executable
    only = [a for p in args.only for a in ("--only", p)]
    argv = [python, "-m", "theorems", "verify", "--out", str(out), *only, *MODES[mode]]
    before = os.times()
    start = time.perf_counter()
    # from the cache's folder: the package comes from each Python's install, not from the current folder
    done = subprocess.run(argv, env=env, cwd=cache.parent, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
    took = time.perf_counter() - start
    after = os.times()
    if done.returncode not in (0, 1):
        raise SystemExit(f"{mode}: exit {done.returncode}: {done.stderr[-2000:]}")
    return took, (after.children_user - before.children_user) + (after.children_system - before.children_system)


def _modelled(out: Path, wall: float, workers: int) -> float:
    """The default's wall time on an idle machine with ``workers`` cores, from
    the reference run's report in ``out`` and its wall time ``wall``: claims
    list-scheduled in catalogue order, plus the time outside the claims."""
    seconds = [c["seconds"] for c in json.loads((out / "report.json").read_text())["claims"]]
    finish = [0.0] * workers
    for s in seconds:
        heapq.heappush(finish, heapq.heappop(finish) + s)
    return wall - sum(seconds) + max(finish)


def _figures(out: Path) -> dict:
    report = json.loads((out / "report.json").read_text())
    return {c["id"]: (c["status"], [(e["check"], e["status"], e["figure"]) for e in c["evidence"]])
            for c in report["claims"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modes", nargs="+", choices=sorted(MODES), default=None,
                        help="what to time, the first being the reference (default: in-process default, "
                             "or before default with --before-python)")
    parser.add_argument("--before-python", metavar="PATH",
                        help="the Python of another install of the package (e.g. main's virtual environment): 'before'")
    parser.add_argument("--repeats", type=int, default=1, help="interleaved rounds (default 1)")
    parser.add_argument("--only", action="append", default=[], metavar="PATTERN", help="a selection (default: all)")
    parser.add_argument("--warm-estimates", action="store_true",
                        help="give the timed runs the recorded durations of a seeding run (sweep cache emptied)")
    args = parser.parse_args()
    modes = args.modes or (["before", "default"] if args.before_python else ["in-process", "default"])
    if "before" in modes and not args.before_python:
        parser.error("mode 'before' needs --before-python PATH")
    times: dict[str, list[float]] = {m: [] for m in modes}
    cpu: dict[str, list[float]] = {m: [] for m in modes}
    model: list[float] = []
    figures: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="bench-workers-") as tmp:
        for round_ in range(args.repeats):
            seed_cache = Path(tmp) / f"seed-{round_}"
            if args.warm_estimates:
                _run("default", args, seed_cache, Path(tmp) / "seed-out")
            for mode in modes:
                cache = Path(tmp) / f"cache-{mode}-{round_}"
                if args.warm_estimates:
                    cache.mkdir()
                    shutil.copy(seed_cache / "claim-durations.json", cache / "claim-durations.json")
                out = Path(tmp) / f"out-{mode}"
                wall, used = _run(mode, args, cache, out)
                times[mode].append(wall)
                cpu[mode].append(used)
                figures[mode] = _figures(out)
                if mode == modes[0]:
                    model.append(_modelled(out, wall, len(os.sched_getaffinity(0))))
                print(f"round {round_ + 1} {mode:<11} {wall:7.1f} s wall, {used:7.1f} s CPU  "
                      f"(load {os.getloadavg()[0]:.1f})", flush=True)
                shutil.rmtree(cache, ignore_errors=True)
    reference = modes[0]
    best = {m: min(t) for m, t in times.items()}
    print(f"\ncores: {len(os.sched_getaffinity(0))}; claims: {len(figures[reference])}")
    for mode in modes:
        same = "same statuses and figures" if figures[mode] == figures[reference] else "DIFFERENT statuses or figures"
        print(f"{mode:<11} best {best[mode]:7.1f} s  ratio {best[mode] / best[reference]:.2f}  "
              f"CPU {min(cpu[mode]):7.1f} s  ({same} as {reference})")
    if "default" in best and reference != "default":
        ratio = best["default"] / best[reference]
        print(f"default / {reference}: {ratio:.2f} measured (target <= {TARGET})")
        print(f"default / {reference} on an idle machine (model, see the docstring): "
              f"{min(model) / best[reference]:.2f}")
    for mode in modes:
        if figures[mode] != figures[reference]:
            diff = [cid for cid in figures[reference] if figures[mode].get(cid) != figures[reference][cid]]
            print(f"  {mode} differs from {reference} at: {', '.join(diff[:20])}")


if __name__ == "__main__":
    main()
