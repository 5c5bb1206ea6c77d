"""What reuse (theorems.scale.reuse, issue 35) costs and saves, as ratios of
``theorems verify`` runs (quick profile by default, the default workers):

* ``cold-plain``: an empty ``THEOREMS_CACHE``, recording off (as before reuse);
* ``cold-recording``: an empty ``THEOREMS_CACHE``, ``--fresh`` (every claim
  runs and what it executes is recorded): its ratio to ``cold-plain`` is the
  overhead of recording (target <= 1.15);
* ``warm``: the same command again on the recording run's cache, nothing
  changed: every claim is reused (target: under 0.15 of cold);
* ``edit``: after a one-line edit in a commonly used linmem function
  (``--edit FILE:FUNCTION``, default ``linmem/_validation.py:as_matrix``: a
  no-op statement at the top of its body, undone afterwards), on the
  recording run's cache: what reruns is what executed that function (the
  sweep cache's keys hold a hash of all of linmem, so its instances are
  recomputed as well).

Run from the repository root::

    python benchmarks/bench_reuse.py                      # whole catalogue
    python benchmarks/bench_reuse.py --only 'svd.*' --only 'proj.*'

Wall and CPU seconds (the run's processes, workers included) of each run,
each as a ratio to ``cold-plain``, and the number of claims reused. Nothing is
asserted; on a shared host the wall ratios move with the load (``uptime`` is
printed), the CPU ratios less so.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: Runs ``theorems verify`` with reuse (and so recording) turned off, the cache on.
_PLAIN = ("import theorems.scale.reuse as r; r.default_store = lambda **k: None; "
          "from theorems.cli import main; raise SystemExit(main(sys.argv[1:]))")
_CLI = "from theorems.cli import main; raise SystemExit(main(sys.argv[1:]))"


def _run(code: str, argv: list[str], cache: Path) -> tuple[float, float, dict]:
    env = {**os.environ, "THEOREMS_CACHE": str(cache)}
    out = Path(tempfile.mkdtemp(prefix="bench-reuse-out-"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", "import sys; " + code, "verify", "--out", str(out), *argv],
                          env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"verify failed ({proc.returncode}): {proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"  {' '.join(argv)}: wall {wall:.1f} s, CPU {cpu:.1f} s, load after {os.getloadavg()[0]:.1f}", flush=True)
    return wall, cpu, json.loads((out / "report.json").read_text())


def _edit(spec: str):
    """Apply the one-line edit; return the function that undoes it."""
    import ast

    path, function = spec.split(":")
    path = Path(path)
    text = path.read_text()
    node = next(n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.FunctionDef) and n.name == function)
    first = node.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and len(node.body) > 1:
        first = node.body[1]  # after the docstring
    lines = text.splitlines(keepends=True)
    indent = lines[first.lineno - 1][: first.col_offset]
    lines.insert(first.lineno - 1, f"{indent}_bench_reuse_edit = None  # bench_reuse.py: a one-line edit\n")
    path.write_text("".join(lines))
    return lambda: path.write_text(text)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", action="append", default=[], help="as verify --only (default: the whole catalogue)")
    p.add_argument("--profile", default="quick")
    p.add_argument("--edit", default="linmem/_validation.py:as_matrix", metavar="FILE:FUNCTION")
    args = p.parse_args()
    argv = ["--profile", args.profile] + [x for o in args.only for x in ("--only", o)]
    print(f"uptime: {os.getloadavg()}")
    root = Path(tempfile.mkdtemp(prefix="bench-reuse-"))
    rows = []
    wall, cpu, plain = _run(_PLAIN, argv, root / "plain")
    rows.append(("cold-plain", wall, cpu, plain))
    wall, cpu, rec = _run(_CLI, argv + ["--fresh"], root / "recording")
    rows.append(("cold-recording", wall, cpu, rec))
    wall, cpu, warm = _run(_CLI, argv, root / "recording")
    rows.append(("warm", wall, cpu, warm))
    undo = _edit(args.edit)
    try:
        wall, cpu, edited = _run(_CLI, argv, root / "recording")
    finally:
        undo()
    rows.append((f"edit {args.edit}", wall, cpu, edited))
    base_wall, base_cpu = rows[0][1], rows[0][2]
    same = all(
        [(c["id"], c["status"], [e["figure"] for e in c["evidence"]]) for c in r[3]["claims"]]
        == [(c["id"], c["status"], [e["figure"] for e in c["evidence"]]) for c in plain["claims"]]
        for r in rows)
    print(f"{'run':<40} {'wall s':>8} {'ratio':>6} {'CPU s':>8} {'ratio':>6} {'reused':>8}")
    for name, wall, cpu, report in rows:
        reused = sum(1 for c in report["claims"] if "reused" in c)
        print(f"{name:<40} {wall:8.1f} {wall / base_wall:6.2f} {cpu:8.1f} {cpu / base_cpu:6.2f} "
              f"{reused:>4}/{len(report['claims'])}")
    sizes = sum(f.stat().st_size for f in (root / "recording" / "reuse").rglob("*.json"))
    print(f"records: {sizes / 1e6:.2f} MB for {len(plain['claims'])} claims at profile {args.profile}")
    print(f"same statuses and figures in every run: {same}")


if __name__ == "__main__":
    main()
