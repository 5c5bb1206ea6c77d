"""Start-up time of ``theorems list`` and ``theorems show``, as ratios
against ``python -c "import numpy"``.

Run from the repository root, with the package installed::

    python benchmarks/bench_cli.py

Each command runs as a fresh process (what a user waits for), REPEATS times,
interleaved with the reference; the best time of each is reported with its
ratio to the reference. ``list`` and ``show`` read the catalogue's metadata
index in the cache folder; the "cold" rows run with ``THEOREMS_CACHE=off``,
which imports every claim module as before the index existed. The target is
``list`` and ``show`` under 0.5 s, which on this machine is a ratio of about
0.5 / (numpy import time). Nothing is asserted: this is not a test.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

REPEATS = 9
TARGET_S = 0.5


def _time(argv: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as cache:
        warm = {**os.environ, "THEOREMS_CACHE": cache}
        cold = {**os.environ, "THEOREMS_CACHE": "off"}
        theorems = [sys.executable, "-m", "theorems"]
        cases = {
            'python -c "import numpy"': ([sys.executable, "-c", "import numpy"], warm),
            "theorems list": (theorems + ["list"], warm),
            "theorems show recall.snr": (theorems + ["show", "recall.snr"], warm),
            "theorems list --json --kind expectation": (theorems + ["list", "--json", "--kind", "expectation"], warm),
            "theorems list (cold: THEOREMS_CACHE=off)": (theorems + ["list"], cold),
        }
        _time(theorems + ["list"], warm)  # builds the index once
        best = {name: float("inf") for name in cases}
        for _ in range(REPEATS):
            for name, (argv, env) in cases.items():
                best[name] = min(best[name], _time(argv, env))
    ref = best['python -c "import numpy"']
    print(f"best of {REPEATS} fresh processes; reference: import numpy = {ref * 1000:.0f} ms")
    print(f"target: list and show under {TARGET_S} s, i.e. ratio under {TARGET_S / ref:.1f} here\n")
    print(f"{'command':<44} {'ms':>7} {'ratio':>7}")
    for name, seconds in best.items():
        print(f"{name:<44} {seconds * 1000:7.0f} {seconds / ref:7.2f}")


if __name__ == "__main__":
    main()
