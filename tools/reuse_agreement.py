"""A reused verdict never hides a wrong formula (issue 35): for every mutant
``tools/mutation.py`` generates in one linmem module, ``theorems verify``
reusing the records of a run on the unmutated code and a fresh run
(``THEOREMS_CACHE=off``: no reuse, no sweep cache) give the same statuses,
so they agree on whether the mutant is killed.

    python tools/reuse_agreement.py --module estimates --only cap. --only sph.
    python tools/reuse_agreement.py --module estimates --limit 5 --json out.json

Everything runs on a copy of ``linmem`` and ``theorems`` in a temporary
folder (first on ``PYTHONPATH``), so the working tree is never touched: the
copy's module is overwritten with each mutant on disk, as a researcher's edit
would be, since reuse compares what is on disk with what the record ran.
Before each mutant the records of the unmutated run are put back, so each
reusing run starts from the same records. A mutant is *killed* when some
selected claim comes out anything but VERIFIED, SUPPORTED or ANSWERED (what
the unmutated code gives; mutation.py's rule with ANSWERED for the claims
that answer an open question). Not a CI test: 2 runs per mutant.

Prints one line per mutant (killed by the reusing run, by the fresh run,
claims reused) and the count of agreements; exits 1 on any disagreement.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

_CLI = "import sys; from theorems.cli import main; raise SystemExit(main(sys.argv[1:]))"
_PASSING = {"VERIFIED", "SUPPORTED", "ANSWERED"}


def _verify(src: Path, cache: str, argv: list[str]) -> dict:
    """``theorems verify`` on the copy in ``src``: {claim id: status}, plus the reused ids under '_reused'."""
    out = Path(tempfile.mkdtemp(prefix="agree-out-"))
    # no bytecode written: a mutant of the same size written within the second would run a stale .pyc
    env = {**os.environ, "THEOREMS_CACHE": cache, "PYTHONPATH": str(src), "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run([sys.executable, "-c", _CLI, "verify", "--out", str(out), *argv], cwd=src, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    report = out / "report.json"
    if proc.returncode not in (0, 1) or not report.exists():
        # the mutant broke the import or the run itself: no claim verified
        return {"_error": proc.stderr.strip().splitlines()[-1:] or [f"exit {proc.returncode}"], "_reused": []}
    data = json.loads(report.read_text())
    shutil.rmtree(out, ignore_errors=True)
    statuses = {c["id"]: c["status"] for c in data["claims"]}
    statuses["_reused"] = sorted(c["id"] for c in data["claims"] if c.get("reused"))
    return statuses


def _killed(statuses: dict) -> bool:
    return "_error" in statuses or any(s not in _PASSING for k, s in statuses.items() if not k.startswith("_"))


def main(argv=None) -> int:
    import mutation

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--module", default="estimates", choices=mutation.MODULES)
    p.add_argument("--only", action="append", default=[],
                   help="as verify --only: the claims run (default: cap. and sph., the claims of estimates)")
    p.add_argument("--limit", type=int, default=0, help="at most this many mutants (0: all)")
    p.add_argument("--check-budget", default="60", help="per-check budget in seconds (a mutant may loop)")
    p.add_argument("--json", help="write each mutant's outcome to this file")
    args = p.parse_args(argv)
    only = args.only or ["cap.", "sph."]
    run_argv = ["--profile", "quick", "--check-budget", args.check_budget] + [x for o in only for x in ("--only", o)]

    work = Path(tempfile.mkdtemp(prefix="reuse-agreement-"))
    src = work / "src"
    for package in ("linmem", "theorems"):
        shutil.copytree(ROOT / package, src / package, ignore=shutil.ignore_patterns("__pycache__"))
    target = src / "linmem" / f"{args.module}.py"
    original = target.read_text()
    cache = work / "cache"
    t0 = time.perf_counter()
    base = _verify(src, str(cache), run_argv + ["--fresh"])
    if _killed(base):
        raise SystemExit(f"the unmutated code does not pass: {base}")
    pristine = work / "pristine-reuse"
    shutil.copytree(cache / "reuse", pristine)
    mutants = mutation.mutants_of(args.module)
    if args.limit:
        mutants = mutants[: args.limit]
    print(f"{len(mutants)} mutants of linmem/{args.module}.py; claims {only}; load {os.getloadavg()[0]:.1f}",
          flush=True)
    rows = []
    try:
        for m in mutants:
            target.write_text(mutation.mutated_source(m))
            shutil.rmtree(cache / "reuse")
            shutil.copytree(pristine, cache / "reuse")
            reusing = _verify(src, str(cache), run_argv)
            fresh = _verify(src, "off", run_argv)
            same = ({k: v for k, v in reusing.items() if k != "_reused"}
                    == {k: v for k, v in fresh.items() if k != "_reused"})
            row = {"id": m.id, "function": m.function, "killed_reusing": _killed(reusing),
                   "killed_fresh": _killed(fresh), "same_statuses": same, "reused": reusing["_reused"],
                   "fresh": {k: v for k, v in fresh.items() if k != "_reused"}}
            rows.append(row)
            print(f"{m.id:55s} {m.function:22s} killed: reusing {row['killed_reusing']!s:5s} fresh "
                  f"{row['killed_fresh']!s:5s} {'agree' if row['killed_reusing'] == row['killed_fresh'] else 'DISAGREE'}"
                  f"{'' if same else ' (statuses differ)'}; {len(row['reused'])} claims reused", flush=True)
    finally:
        target.write_text(original)
    agree = sum(r["killed_reusing"] == r["killed_fresh"] for r in rows)
    same = sum(r["same_statuses"] for r in rows)
    killed = sum(r["killed_fresh"] for r in rows)
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"agree on killed or not: {agree}/{len(rows)} mutants ({killed} killed by the fresh runs); identical "
          f"statuses: {same}/{len(rows)}; {time.perf_counter() - t0:.0f} s wall, "
          f"{cpu.ru_utime + cpu.ru_stime:.0f} s CPU")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    shutil.rmtree(work, ignore_errors=True)
    return 0 if agree == len(rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
