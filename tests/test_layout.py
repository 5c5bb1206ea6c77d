"""The house's shape: sub-packages, one-way arrows, and the older flat names.

The import graph is read from the source (every import, function-level ones
included); a cycle, or the machinery importing the catalogue, fails here.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import theorems

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "theorems"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        out = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "theorems":
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    out.add(sub if sub in modules else node.module)
            elif isinstance(node, ast.Import):
                out |= {a.name for a in node.names if a.name.split(".")[0] == "theorems"}
        unknown = {m for m in out if m not in modules and m.rpartition(".")[2] not in theorems.MOVED_MODULES}
        assert not unknown, f"{name} imports modules that do not exist: {sorted(unknown)}"
        edges[name] = {m for m in out if m in modules and m not in (name, "theorems")}
    return edges


def test_no_import_cycle_among_the_modules_of_theorems():
    edges = _graph()
    state: dict[str, int] = {}
    cycles = []

    def visit(node, path):
        state[node] = 1
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    assert not cycles, f"import cycles: {cycles}"


def test_the_machinery_never_imports_the_catalogue_and_uses_no_flat_name():
    edges = _graph()
    into_claims = sorted((m, e) for m, es in edges.items() if not m.startswith("theorems.claims")
                         for e in es if e.startswith("theorems.claims"))
    assert not into_claims
    flat = sorted((m, e) for m, es in _raw_imports().items() for e in es
                  if e.rpartition(".")[0] == "theorems" and e.rpartition(".")[2] in theorems.MOVED_MODULES)
    assert not flat, f"modules import the old flat names (import from where they live): {flat}"


def _raw_imports() -> dict[str, set[str]]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "theorems":
                names.add(node.module)
                if node.module == "theorems":
                    names |= {f"theorems.{a.name}" for a in node.names}
            elif isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
        out[_module_name(path)] = names
    return out


def test_sub_packages_say_what_they_are():
    for pkg in ("core", "authoring", "evidence", "reporting", "scale", "claims"):
        module = importlib.import_module(f"theorems.{pkg}")
        assert module.__doc__ and len(module.__doc__.split()) >= 8, pkg
    flat = sorted(p.stem for p in PACKAGE.glob("*.py"))
    assert flat == ["__init__", "__main__", "api", "assess_cmd", "cli", "index", "pytest_plugin", "stability"]


@pytest.mark.parametrize("old", sorted(theorems.MOVED_MODULES))
def test_an_old_flat_name_imports_as_the_same_module(old):
    new = importlib.import_module(f"theorems.{theorems.MOVED_MODULES[old]}")
    assert importlib.import_module(f"theorems.{old}") is new
    assert getattr(theorems, old) is new
    assert new.__spec__.name == new.__name__ == f"theorems.{theorems.MOVED_MODULES[old]}"


def test_old_names_work_for_users_in_a_fresh_interpreter(monkeypatch):
    # what a user's claim file of before the split does: from-imports, attribute access, a monkeypatch
    code = (
        "from theorems.templates import identity, wrong\n"
        "from theorems import kit, strategies\n"
        "import theorems.runner, theorems.core.runner as real\n"
        "from theorems.model import Claim\n"
        "import theorems.core.model as m\n"
        "assert Claim is m.Claim and theorems.runner is real and kit is theorems.authoring.kit\n"
        "assert strategies.keys_and_values is theorems.authoring.strategies.keys_and_values\n"
        "theorems.runner.BUDGET_ALARM_REPEAT_S = 7\n"
        "assert real.BUDGET_ALARM_REPEAT_S == 7\n"
        "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("theorems.no_such_module")


#: The module state theorems keeps, each documented where it is defined: the claims handed to forked
#: workers (functions cannot be pickled; a forked child inherits them), the fork hooks' per-process
#: state, and a one-entry memo of one claim's cross-talk. Nothing else may be changed at module level.
#: (verify's supervised workers get their claims in the closure they are forked with: no module state.)
#: Reuse: its audit hook (it cannot be removed once installed) and the recorder it feeds; the probes put in the
#: functions of the tracked files (once per loaded module) and the notes they take (reuse.py:_PROBES, changed through
#: aliases, which the scan does not see).
DOCUMENTED_STATE = {"theorems/stability.py:_SEED_CLAIMS", "theorems/scale/reuse.py:_AUDIT",
                    "theorems/scale/executors.py:_FORK", "theorems/claims/recall.py:_LAST_CROSSTALK"}


def test_no_module_state_in_theorems_but_the_documented_hand_offs():
    from module_state import changed_module_state

    found = {f"{path.relative_to(ROOT)}:{name}" for path in PACKAGE.rglob("*.py") for name in changed_module_state(path)}
    assert found == DOCUMENTED_STATE
