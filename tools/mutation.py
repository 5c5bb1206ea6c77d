"""Mutation testing of linmem with the claim suite as the test that must fail.

    python tools/mutation.py                 # every mutant of every linmem module
    python tools/mutation.py --module recall --limit 50 --json out.json

Each mutant is one small, plausible slip in a linmem module, made on the AST:
the classic operators of mutation tools (arithmetic and comparison operators
swapped, constants shifted, boolean conditions negated) plus the ones they
lack for matrix code: operands of ``@`` reordered, a transpose dropped or
added, the pseudoinverse replaced by a transpose, an index shifted by one,
a normalisation changed (``sum`` for ``mean``, a divisor off by one).

A mutant is *killed by the claims* when some claim checked through the
mutated code comes out anything but VERIFIED/SUPPORTED. To stay fast, each
mutant runs only the claims that executed the mutated function on the
unmutated code (found once by tracing), in process, with the ``quick``
profile and a short per-check budget. A mutant the claims let through is then
run against linmem's own unit tests (bad-input table, known answers,
doctests) in a subprocess (``--unit-tests``, on by default); the report gives
both scores, claims alone and claims plus unit tests. Mutants listed in ``tools/equivalent_mutants.txt`` (with the reason
they cannot change behaviour) are excluded from the score.

Prints the mutation score and every survivor.
"""

from __future__ import annotations

import argparse
import ast
import copy
import importlib
import json
import sys
import time
import types
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# Sweep results are cached by linmem's source on disk; a mutant lives only in
# memory, so a cache hit would hand it the unmutated result.
import os  # noqa: E402

os.environ["THEOREMS_CACHE"] = "off"

import linmem  # noqa: E402
from theorems.impl import Impl  # noqa: E402
from theorems.model import Status  # noqa: E402
from theorems.profiles import get_profile  # noqa: E402
from theorems.registry import load_claims  # noqa: E402
from theorems.runner import run_claim  # noqa: E402

#: linmem modules mutated (private guards in _validation are covered by the
#: bad-input tests, not by claims, and are left out).
MODULES = ("spectral", "recall", "stores", "estimates", "capacity", "retrieval", "learn", "precise")

EQUIVALENT_FILE = ROOT / "tools" / "equivalent_mutants.txt"

#: Per-check budget while running mutants (a mutant may loop forever).
MUTANT_CHECK_BUDGET_S = 20.0


@dataclass(frozen=True)
class Mutant:
    module: str
    function: str
    line: int
    operator: str
    description: str
    index: int  # position among the module's mutation sites

    @property
    def id(self) -> str:
        return f"{self.module}:{self.line}:{self.operator}:{self.index}"


# --- operators -------------------------------------------------------------------

_ARITH = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult}
_CMP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq}


def _sites(tree: ast.AST):
    """Yield (node, operator, description, apply) for every mutation site.
    ``apply(node)`` returns the replacement node."""
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            yield node, "matmul-swap", "A @ B -> B @ A", lambda n: ast.BinOp(n.right, ast.MatMult(), n.left)
            yield node, "transpose-add-left", "A @ B -> A.T @ B", lambda n: ast.BinOp(
                ast.Attribute(n.left, "T", ast.Load()), ast.MatMult(), n.right)
            yield node, "transpose-add-right", "A @ B -> A @ B.T", lambda n: ast.BinOp(
                n.left, ast.MatMult(), ast.Attribute(n.right, "T", ast.Load()))
        elif isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
            new = _ARITH[type(node.op)]
            yield node, "arith", f"{type(node.op).__name__} -> {new.__name__}", (
                lambda n, new=new: ast.BinOp(n.left, new(), n.right))
            if isinstance(node.op, ast.Div):
                yield node, "normalisation", "a / b -> a / (b + 1)", lambda n: ast.BinOp(
                    n.left, ast.Div(), ast.BinOp(n.right, ast.Add(), ast.Constant(1)))
        elif isinstance(node, ast.Attribute) and node.attr == "T" and isinstance(node.ctx, ast.Load):
            yield node, "transpose-drop", "X.T -> X", lambda n: n.value
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _CMP:
            new = _CMP[type(node.ops[0])]
            yield node, "compare", f"{type(node.ops[0]).__name__} -> {new.__name__}", (
                lambda n, new=new: ast.Compare(n.left, [new()], n.comparators))
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in ("pinv", "_exact_pinv") and node.args:
                yield node, "pinv-to-transpose", f"{name}(X) -> X.T", lambda n: ast.Attribute(
                    n.args[0], "T", ast.Load())
            if name == "sum" and isinstance(node.func, ast.Attribute):
                yield node, "normalisation", "np.sum -> np.mean", lambda n: ast.Call(
                    ast.Attribute(n.func.value, "mean", ast.Load()), n.args, n.keywords)
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(
            node.slice.value, int
        ) and not isinstance(node.slice.value, bool):
            yield node, "index-offset", "x[k] -> x[k + 1]", lambda n: ast.Subscript(
                n.value, ast.Constant(n.slice.value + 1), n.ctx)
        elif isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(
            node.value, bool
        ) and node.value in (0, 1, 2):
            yield node, "constant", f"{node.value} -> {node.value + 1}", lambda n: ast.Constant(n.value + 1)


def _docstring_nodes(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _enclosing_functions(tree: ast.AST) -> dict[int, str]:
    owner: dict[int, str] = {}
    for top in ast.walk(tree):
        if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(top):
                owner.setdefault(id(node), top.name)
    return owner


def _source(module: str) -> str:
    return (ROOT / "linmem" / f"{module}.py").read_text()


def mutants_of(module: str) -> list[Mutant]:
    tree = ast.parse(_source(module))
    skip = _docstring_nodes(tree)
    owner = _enclosing_functions(tree)
    out = []
    for i, (node, op, desc, _) in enumerate(_sites(tree)):
        if id(node) in skip or id(node) not in owner:
            continue  # module-level constants and docstrings are not behaviour
        out.append(Mutant(module, owner[id(node)], node.lineno, op, desc, i))
    return out


def mutated_source(m: Mutant) -> str:
    tree = ast.parse(_source(m.module))
    for i, (node, op, desc, apply) in enumerate(_sites(tree)):
        if i == m.index:
            new = ast.copy_location(apply(copy.deepcopy(node)), node)
            _replace(tree, node, new)
            break
    ast.fix_missing_locations(tree)
    return ast.unparse(tree)


def _replace(tree, old, new):
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return
            if isinstance(value, list):
                for j, item in enumerate(value):
                    if item is old:
                        value[j] = new
                        return
    raise RuntimeError("mutation site not found")


# --- running ------------------------------------------------------------------------


def _all_linmem_modules():
    return [m for name, m in sys.modules.items() if name == "linmem" or name.startswith("linmem.")]


class _Patched:
    """Swap every linmem reference to a module's functions for the mutant's."""

    def __init__(self, module: str, source: str):
        self.module = importlib.import_module(f"linmem.{module}")
        self.source = source
        self.saved: list[tuple[types.ModuleType, str, object]] = []

    def __enter__(self):
        fresh = types.ModuleType(self.module.__name__)
        fresh.__dict__.update({"__name__": self.module.__name__, "__file__": self.module.__file__})
        exec(compile(self.source, self.module.__file__, "exec"), fresh.__dict__)
        originals = {name: obj for name, obj in vars(self.module).items() if callable(obj)}
        for mod in _all_linmem_modules():
            for name, obj in list(vars(mod).items()):
                for oname, orig in originals.items():
                    if obj is orig and hasattr(fresh, oname):
                        self.saved.append((mod, name, obj))
                        setattr(mod, name, getattr(fresh, oname))
        return self

    def __exit__(self, *exc):
        for mod, name, obj in reversed(self.saved):
            setattr(mod, name, obj)
        return False


def trace_claims(claims, profile) -> dict[str, set[str]]:
    """Which claims execute which linmem function (module:function)."""
    touched: dict[str, set[str]] = {}
    current: list[str] = []
    linmem_dir = str(ROOT / "linmem")

    def prof(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(linmem_dir):
            mod = Path(frame.f_code.co_filename).stem
            touched.setdefault(f"{mod}:{frame.f_code.co_name}", set()).add(current[0])

    for claim in claims:
        current[:] = [claim.id]
        sys.setprofile(prof)
        try:
            run_claim(claim, profile=profile)
        finally:
            sys.setprofile(None)
    return touched


def run_mutant(m: Mutant, claims_by_id, touched, profile) -> tuple[str, list[str], float]:
    """('killed' | 'survived' | 'no-coverage' | 'invalid', killing claims, seconds)."""
    relevant = sorted(touched.get(f"{m.module}:{m.function}", ()))
    if not relevant:
        return "no-coverage", [], 0.0
    try:
        source = mutated_source(m)
    except Exception:  # noqa: BLE001 - an operator that produced invalid code
        return "invalid", [], 0.0
    start = time.perf_counter()
    killers = []
    try:
        with _Patched(m.module, source):
            for cid in relevant:
                res = run_claim(claims_by_id[cid], profile=profile, impl=Impl.default())
                if res.status not in (Status.VERIFIED, Status.SUPPORTED):
                    killers.append(cid)
                    break
    except Exception as exc:  # noqa: BLE001 - a mutant that breaks the import is killed
        killers.append(f"import:{type(exc).__name__}")
    return ("killed" if killers else "survived"), killers, time.perf_counter() - start


#: linmem's own tests, the second line of defence for mutants the claims miss.
UNIT_TESTS = (
    "tests/test_linmem_inputs.py",
    "tests/test_linmem_edges.py",
    "tests/test_linmem_core.py",
    "tests/test_retrieval.py",
    "tests/test_learn.py",
    "tests/test_capacity.py",
)


def run_unit_tests(m: Mutant) -> bool:
    """True when linmem's unit tests fail on the mutant (it is killed)."""
    import os
    import subprocess
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(mutated_source(m))
        path = fh.name
    env = dict(os.environ, LINMEM_MUTANT_MODULE=m.module, LINMEM_MUTANT_SOURCE=path,
               PYTHONPATH=os.pathsep.join([str(ROOT / "tools"), str(ROOT)]))
    tests = [t for t in UNIT_TESTS if (ROOT / t).exists()]
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "_mutant_plugin",
           "--doctest-modules", f"linmem/{m.module}.py", *tests]
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return True
    finally:
        os.unlink(path)
    return proc.returncode != 0


def load_equivalents() -> dict[str, str]:
    out = {}
    if EQUIVALENT_FILE.exists():
        for line in EQUIVALENT_FILE.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                mid, _, reason = line.partition(" ")
                out[mid] = reason.strip()
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--module", action="append", choices=MODULES, help="only these linmem modules")
    p.add_argument("--limit", type=int, default=0, help="at most this many mutants per module (0: all)")
    p.add_argument("--json", help="write every mutant's outcome to this file")
    p.add_argument("--no-unit-tests", dest="unit_tests", action="store_false",
                   help="judge by the claims alone (skip linmem's unit tests for survivors)")
    args = p.parse_args(argv)

    profile = replace(get_profile("quick"), check_budget_s=MUTANT_CHECK_BUDGET_S)
    registry = load_claims()
    claims = list(registry)
    print(f"tracing {len(claims)} claims ...", flush=True)
    touched = trace_claims(claims, profile)
    by_id = {c.id: c for c in claims}
    equivalents = load_equivalents()
    results = []
    for module in args.module or MODULES:
        mutants = mutants_of(module)
        if args.limit:
            mutants = mutants[: args.limit]
        for m in mutants:
            if m.id in equivalents:
                results.append({**m.__dict__, "id": m.id, "outcome": "equivalent", "reason": equivalents[m.id]})
                continue
            outcome, killers, secs = run_mutant(m, by_id, touched, profile)
            if outcome in ("survived", "no-coverage") and args.unit_tests:
                if run_unit_tests(m):
                    outcome, killers = "killed-by-unit-tests", ["unit tests"]
            results.append({**m.__dict__, "id": m.id, "outcome": outcome, "killed_by": killers,
                            "seconds": round(secs, 2)})
            print(f"{outcome:<12} {m.id:<40} {m.function:<28} {m.description}", flush=True)
    counted = [r for r in results
               if r["outcome"] in ("killed", "killed-by-unit-tests", "survived", "no-coverage")]
    by_claims = sum(r["outcome"] == "killed" for r in counted)
    by_all = by_claims + sum(r["outcome"] == "killed-by-unit-tests" for r in counted)
    n = len(counted) or 1
    print(f"\nmutation score, claims alone: {by_claims}/{len(counted)} = {by_claims / n:.1%}")
    print(f"mutation score, claims + linmem unit tests: {by_all}/{len(counted)} = {by_all / n:.1%}")
    print(f"({sum(r['outcome'] == 'equivalent' for r in results)} equivalent mutants excluded, "
          f"{sum(r['outcome'] == 'invalid' for r in results)} invalid)")
    for r in results:
        if r["outcome"] in ("survived", "no-coverage"):
            print(f"  {r['outcome']:<12} {r['id']:<40} {r['function']:<28} {r['description']}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
