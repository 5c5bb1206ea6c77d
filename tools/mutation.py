"""Mutation testing of linmem with the claim suite as the test that must fail.

    python tools/mutation.py --report mutation.md  # every mutant of every linmem module
    python tools/mutation.py --module recall --json out.json
    python tools/mutation.py --ids survivors.txt   # rerun only these mutants
    python tools/mutation.py --unit-tests-only --ids survivors.txt   # ... against the unit tests alone
    python tools/mutation.py --show recall:270:ReplaceComparisonOperator_NotEq_Eq:2
    python tools/mutation.py --verdict --sample 20 --claims-from lev.range --claims-from 'recall.*'
        # the verdict path (theorems/core, theorems/evidence, the templates), sampled
    python tools/mutation.py --map-tests   # once: which test runs which verdict-path line
    python tools/mutation.py --verdict --sample 60 --claims-budget 20 --workers 2
        # every claim that runs the mutated function (the quickest within 20 s), then the
        # tests that run the mutated line, two mutants at a time

The verdict path (``--verdict``, issue 38): the same mutants in the modules
that turn measurements into verdicts (:data:`VERDICT_MODULES`: tolerance,
residuals, per-check controls, status derivation, the evidence checkers,
the templates). There the test that must fail is the claims run *with their
per-check negative controls*: a mutant is killed by the claims when a claim
traced through the mutated function (or built by it: a template's builder
runs at import, so the claims it builds are built again under the mutant)
changes status or a control of it is
no longer caught (every applicable check must catch it), or, its verdicts
the same, when the claim's report entry differs from the unmutated run's,
timings aside (a figure, a detail, a counterexample, a searched domain, a
control's per-check table: what ``theorems report --compare`` lists at one
seed; ``--verdicts-only`` leaves this out), then by the unit tests of
:data:`VERDICT_UNIT_TESTS`. The claims are the ones ``--claims-from``
selects (ids or globs; default every claim), of them only the quickest that
fit in ``--claims-budget`` seconds per mutant, and ``--sample N`` draws N
mutants at random (seeded) from those modules.

The unit tests a verdict-path mutant runs come from a *test map*
(``--map-tests``, kept in ``.mutation/testmap.json``): the test suite run once
under coverage.py with one context per test, so that the map names, for each
line of the verdict path, the tests that execute it. A mutant then runs the
tests that execute its statement, quickest first, within
``--unit-test-budget`` seconds, instead of a fixed list. Lines run in a
worker a test forks count for that test (the fork copies the mutant too); a
line no test runs at all runs :data:`FORKING_TESTS`. A module edited since
the map was built falls back to :data:`VERDICT_UNIT_TESTS`, and a test file
edited since runs whole; the run says so. ``--workers N`` judges N mutants at
once in processes forked after the trace.

Each mutant is one small, plausible slip in a linmem module. Two sources:

* the classic operators, taken from cosmic-ray's operator plugins (arithmetic
  and comparison operators swapped, numbers shifted by +-1 -- which includes
  every literal index --, ``and``/``or`` exchanged, conditions negated,
  ``True``/``False`` flipped, loops run zero times, a unary minus dropped);
* the ones cosmic-ray and mutmut lack for matrix code, made on Python's AST
  here: the operands of ``@`` reordered, a transpose dropped or added, the
  pseudoinverse replaced by a transpose, a normalisation changed (``mean``
  for ``sum``, a divisor off by one).

No mutant reads or writes a sweep cache: the cache's keys hash the sources
on disk, not a mutant patched in memory, so a mutant would read the
unmutated results (and could leave its own in the user's cache under the
unmutated key). The claims run with ``cache=None``, the unit tests with
``$THEOREMS_CACHE`` in a folder of their own, removed after.

Only cosmic-ray's mutation operators are used, not its runner: it rewrites
the file on disk and runs a test command per mutant (about 40 s each for the
quick claim run), where this tool patches the mutant in memory and runs only
the claims that executed the mutated function on the unmutated code (found
once by tracing), with the ``quick`` profile and a short per-check budget.

A mutant is *killed by the claims* when some claim checked through the mutated
code comes out anything but VERIFIED/SUPPORTED. A mutant the claims let
through is then run against linmem's own unit tests (bad-input table, known
answers, edge tests, doctests) in a subprocess (``--unit-tests``, on by
default); the report gives both scores, claims alone and claims plus unit
tests. Mutants listed in ``tools/equivalent_mutants.txt`` (with the reason
they cannot change behaviour) are excluded from the score.

A mutant's id is ``module:line:operator:occurrence`` (what ``--show`` and
``--ids`` take); editing a module shifts the ids of its mutants. The
equivalent list therefore names no ids: each entry is
``module:function fp:FINGERPRINT reason``, the fingerprint naming what the
mutant changes (operator, function, the text of the mutated line), not where,
so moving code or editing other lines leaves the list current. An entry
whose mutated line itself changed matches no mutant any more; a run refuses
to start until it is re-checked by hand (``--check-equivalents`` lists them).

Prints the mutation score and every survivor.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import difflib
import functools
import hashlib
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import types
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# Sweep results are cached by linmem's source on disk; a mutant lives only in
# memory, so a cache hit would hand it the unmutated result.
os.environ["THEOREMS_CACHE"] = "off"

import linmem  # noqa: E402
from theorems.core.impl import Impl  # noqa: E402
from theorems.core.model import Status  # noqa: E402
from theorems.core.profiles import get_profile  # noqa: E402
from theorems.core.registry import load_claims  # noqa: E402
from theorems.core.runner import run_claim  # noqa: E402
from theorems.reporting.compare import evidence_changes, without_volatile  # noqa: E402
from theorems.reporting.report import claim_entry  # noqa: E402

#: linmem modules mutated (private guards in _validation are covered by the
#: bad-input tests, not by claims, and are left out).
MODULES = ("spectral", "recall", "stores", "estimates", "capacity", "retrieval", "learn", "precise")

#: theorems modules on the verdict path (``--verdict``), as dotted names under ``theorems``.
VERDICT_MODULES = ("core.tolerance", "core.residuals", "core.controls", "core.runner", "evidence.precise",
                   "evidence.property", "evidence.symbolic", "evidence.montecarlo", "evidence.expectation",
                   "evidence._common", "authoring.templates")

#: The unit tests run on a verdict-path mutant the claims let through.
VERDICT_UNIT_TESTS = ("tests/test_verdict_teeth.py", "tests/test_control_teeth.py", "tests/test_report_replay.py",
                      "tests/test_machinery.py", "tests/test_tolerance_edges.py", "tests/test_templates.py",
                      "tests/test_crossing_template.py", "tests/test_drift.py", "tests/test_exact_check.py",
                      "tests/test_claim_builder.py")

EQUIVALENT_FILE = ROOT / "tools" / "equivalent_mutants.txt"

#: Per-check budget while running mutants (a mutant may loop forever).
MUTANT_CHECK_BUDGET_S = 20.0

#: Wall-clock limit of one unit-test run on a mutant (about 11 s on the
#: unmutated code), beyond three times the test map's budget when the map
#: chooses the tests; a mutant that runs past it counts as killed.
UNIT_TEST_TIMEOUT_S = 240

#: Seconds of recorded test time run on one mutant (quickest tests first).
UNIT_TEST_BUDGET_S = 150.0


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

#: cosmic-ray operators used (plugin names). Left out: the replacements of one
#: binary or comparison operator by every other one (bit operators, ``%``,
#: ``is`` and ``in``: not plausible slips in matrix code, and 20 times the
#: mutants), exception and decorator removal, break/continue swaps and the
#: variable inserter/replacer (random, not reproducible by id).
COSMIC_RAY_OPERATORS = tuple(f"core/{name}" for name in (
    "ReplaceBinaryOperator_Add_Sub", "ReplaceBinaryOperator_Sub_Add",
    "ReplaceBinaryOperator_Mul_Div", "ReplaceBinaryOperator_Div_Mul",
    "ReplaceBinaryOperator_Pow_Mul",
    "ReplaceComparisonOperator_Lt_LtE", "ReplaceComparisonOperator_LtE_Lt",
    "ReplaceComparisonOperator_Gt_GtE", "ReplaceComparisonOperator_GtE_Gt",
    "ReplaceComparisonOperator_Eq_NotEq", "ReplaceComparisonOperator_NotEq_Eq",
    "NumberReplacer", "ReplaceTrueWithFalse", "ReplaceFalseWithTrue",
    "ReplaceAndWithOr", "ReplaceOrWithAnd", "AddNot", "ZeroIterationForLoop",
    "ReplaceUnaryOperator_USub_UAdd",
))

#: The operators made here (cosmic-ray and mutmut have none for ``@``).
MATRIX_OPERATORS = ("matmul-swap", "transpose-add-left", "transpose-add-right", "transpose-drop",
                    "pinv-to-transpose", "normalisation")


def _matrix_sites(tree: ast.AST):
    """Yield (node, operator, description, apply) for every matrix mutation
    site, in ``ast.walk`` order. ``apply(node)`` returns the replacement node."""
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            yield node, "matmul-swap", "A @ B -> B @ A", lambda n: ast.BinOp(n.right, ast.MatMult(), n.left)
            yield node, "transpose-add-left", "A @ B -> A.T @ B", lambda n: ast.BinOp(
                ast.Attribute(n.left, "T", ast.Load()), ast.MatMult(), n.right)
            yield node, "transpose-add-right", "A @ B -> A @ B.T", lambda n: ast.BinOp(
                n.left, ast.MatMult(), ast.Attribute(n.right, "T", ast.Load()))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            yield node, "normalisation", "a / b -> a / (b + 1)", lambda n: ast.BinOp(
                n.left, ast.Div(), ast.BinOp(n.right, ast.Add(), ast.Constant(1)))
        elif isinstance(node, ast.Attribute) and node.attr == "T" and isinstance(node.ctx, ast.Load):
            yield node, "transpose-drop", "X.T -> X", lambda n: n.value
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in ("pinv", "_exact_pinv") and node.args:
                yield node, "pinv-to-transpose", f"{name}(X) -> X.T", lambda n: ast.Attribute(
                    n.args[0], "T", ast.Load())
            if name == "sum" and isinstance(node.func, ast.Attribute):
                yield node, "normalisation", "np.sum -> np.mean", lambda n: ast.Call(
                    ast.Attribute(n.func.value, "mean", ast.Load()), n.args, n.keywords)


def _function_lines(tree: ast.AST) -> dict[int, str]:
    """Line -> name of the innermost function whose body holds it, without
    docstring lines (module-level code and docstrings are not mutated)."""
    owner: dict[int, str] = {}
    funcs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for f in sorted(funcs, key=lambda f: f.end_lineno - f.lineno, reverse=True):
        first = f.body[0]
        skip = set()
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
                first.value.value, str):
            skip = set(range(first.lineno, first.end_lineno + 1))
        for line in range(f.lineno, f.end_lineno + 1):
            if line not in skip:
                owner[line] = f.name  # innermost wins: visited last
    return owner


def _path(module: str) -> Path:
    """The file of a linmem module (``recall``) or a verdict-path module (``core.residuals``)."""
    if module in VERDICT_MODULES:
        return ROOT / "theorems" / (module.replace(".", "/") + ".py")
    return ROOT / "linmem" / f"{module}.py"


def _import_name(module: str) -> str:
    return f"theorems.{module}" if module in VERDICT_MODULES else f"linmem.{module}"


def _source(module: str) -> str:
    return _path(module).read_text()


@functools.lru_cache(maxsize=None)
def _cosmic_ray_operator(name: str):
    import cosmic_ray.plugins

    return cosmic_ray.plugins.get_operator(name)()


def _cosmic_ray_sites(source: str):
    """Yield (operator name, occurrence, line) in cosmic-ray's own order: its
    visitor walks the parso tree in pre-order and counts each operator's
    positions, which is what ``occurrence`` indexes."""
    from cosmic_ray.ast import ast_nodes, get_ast

    nodes = list(ast_nodes(get_ast(source)))
    for name in COSMIC_RAY_OPERATORS:
        op = _cosmic_ray_operator(name)
        occurrence = 0
        for node in nodes:
            for (start, _end) in op.mutation_positions(node):
                # cosmic-ray also turns the bare ``*`` that starts keyword-only
                # parameters into ``/``: a signature change, not a slip in an
                # expression. Counted (ids follow cosmic-ray's numbering), not made.
                if not (node.type == "operator" and node.parent.type == "parameters"):
                    yield name, occurrence, start[0]
                occurrence += 1


def _describe(original: str, mutated: str, line: int) -> str:
    """The changed stretch of a line, ``before -> after``, with a little context."""
    old = original.splitlines()[line - 1] if line <= len(original.splitlines()) else ""
    new_lines = mutated.splitlines()
    new = new_lines[line - 1] if line <= len(new_lines) else ""
    sm = difflib.SequenceMatcher(None, old, new, autojunk=False)
    ops = [op for op in sm.get_opcodes() if op[0] != "equal"]
    if not ops:
        return "(multi-line change)"
    i1, i2 = max(0, ops[0][1] - 12), min(len(old), ops[-1][2] + 12)
    j1, j2 = max(0, ops[0][3] - 12), min(len(new), ops[-1][4] + 12)
    return f"{old[i1:i2].strip()} -> {new[j1:j2].strip()}"


def mutants_of(module: str) -> list[Mutant]:
    """Every mutant of a linmem module: cosmic-ray's, then the matrix ones."""
    source = _source(module)
    tree = ast.parse(source)
    owner = _function_lines(tree)
    out = []
    for name, occurrence, line in _cosmic_ray_sites(source):
        if line in owner:
            out.append(Mutant(module, owner[line], line, name.split("/", 1)[1], "", occurrence))
    counts: dict[str, int] = {}
    for node, op, desc, _ in _matrix_sites(tree):
        occurrence = counts.get(op, 0)
        counts[op] = occurrence + 1
        if node.lineno in owner:
            out.append(Mutant(module, owner[node.lineno], node.lineno, op, desc, occurrence))
    return out


def mutated_source(m: Mutant) -> str:
    """The module's source with the mutant applied (valid Python)."""
    source = _source(m.module)
    if m.operator not in MATRIX_OPERATORS:
        from cosmic_ray.mutating import mutate_code

        mutated = mutate_code(source, _cosmic_ray_operator(f"core/{m.operator}"), m.index)
        if mutated is None:
            raise RuntimeError(f"{m.id}: no such mutation site (has linmem/{m.module}.py changed?)")
        return mutated
    tree = ast.parse(source)
    seen = 0
    for node, op, _desc, apply in _matrix_sites(tree):
        if op != m.operator:
            continue
        if seen == m.index:
            _replace(tree, node, ast.copy_location(apply(copy.deepcopy(node)), node))
            ast.fix_missing_locations(tree)
            return ast.unparse(tree)
        seen += 1
    raise RuntimeError(f"{m.id}: no such mutation site (has linmem/{m.module}.py changed?)")


def describe(m: Mutant, source: str) -> str:
    """What the mutant changes, given its mutated source."""
    if m.description:
        return m.description
    return _describe(_source(m.module), source, m.line)


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


def show(mutant_id: str) -> str:
    """Unified diff of one mutant against the module (``--show``)."""
    module = mutant_id.split(":", 1)[0]
    if module not in MODULES + VERDICT_MODULES:
        raise SystemExit(f"--show: unknown module {module!r} in {mutant_id!r}; modules: "
                         f"{', '.join(MODULES + VERDICT_MODULES)}")
    found = [m for m in mutants_of(module) if m.id == mutant_id]
    if not found:
        raise SystemExit(f"--show: no mutant {mutant_id!r} (ids are module:line:operator:occurrence)")
    m = found[0]
    original = _source(module)
    if m.operator in MATRIX_OPERATORS:
        original = ast.unparse(ast.parse(original))
    where = _path(module).relative_to(ROOT)
    diff = difflib.unified_diff(original.splitlines(), mutated_source(m).splitlines(),
                                f"a/{where}", f"b/{where}", n=2, lineterm="")
    return f"{m.id} in {m.function}()\n" + "\n".join(diff)


# --- running ------------------------------------------------------------------------


def _all_linmem_modules():
    """linmem's loaded modules and theorems' (a verdict-path function is imported by name elsewhere in theorems)."""
    return [m for name, m in list(sys.modules.items()) if name in ("linmem", "theorems")
            or name.startswith(("linmem.", "theorems."))]


class _Patched:
    """Run a module's mutated source in the module's own namespace and point
    every other linmem reference to its functions at the mutant's; undone on
    exit. Sharing the namespace means a test that monkeypatches a module
    constant (a limit, an iteration cap) reaches the mutated code too."""

    def __init__(self, module: str, source: str):
        self.module = importlib.import_module(_import_name(module))
        self.source = source
        self.snapshot: dict = {}
        self.saved: list[tuple[types.ModuleType, str, object]] = []

    def __enter__(self):
        namespace = self.module.__dict__
        self.snapshot = dict(namespace)
        originals = {name: obj for name, obj in self.snapshot.items() if callable(obj)}
        try:
            exec(compile(self.source, self.module.__file__, "exec"), namespace)
        except BaseException:
            namespace.clear()
            namespace.update(self.snapshot)
            raise
        for mod in _all_linmem_modules():
            if mod is self.module:
                continue
            for name, obj in list(vars(mod).items()):
                for oname, orig in originals.items():
                    if obj is orig and oname in namespace:
                        self.saved.append((mod, name, obj))
                        setattr(mod, name, namespace[oname])
        return self

    def __exit__(self, *exc):
        for mod, name, obj in reversed(self.saved):
            setattr(mod, name, obj)
        self.saved.clear()
        namespace = self.module.__dict__
        namespace.clear()
        namespace.update(self.snapshot)
        return False


@contextlib.contextmanager
def _calls_into(modules):
    """The set of ``module:function`` of ``modules`` (names as in
    :data:`MODULES`, :data:`VERDICT_MODULES`) called while the block runs,
    filled by a profiler."""
    files = {str(_path(m)): m for m in modules}
    called: set[str] = set()

    def prof(frame, event, arg):
        if event == "call":
            mod = files.get(frame.f_code.co_filename)
            if mod is not None:
                called.add(f"{mod}:{frame.f_code.co_name}")

    sys.setprofile(prof)
    try:
        yield called
    finally:
        sys.setprofile(None)


def trace_claims(claims, profile, *, verdict: bool = False) -> dict[str, set[str]]:
    """Which claims execute which linmem function (module:function); with
    ``verdict``, which verdict-path function (``core.residuals:residual``),
    each claim run with its controls."""
    touched: dict[str, set[str]] = {}
    for claim in claims:
        with _calls_into(VERDICT_MODULES if verdict else MODULES) as called:
            run_claim(claim, profile=profile, controls=verdict, cache=None)
        for key in called:
            touched.setdefault(key, set()).add(claim.id)
    return touched


def fresh_claims(spec: str) -> list:
    """The claims of catalogue module ``spec`` built again: its source run in a
    new module object that no import sees, so that the templates' functions
    as they are now (a mutant's, inside :class:`_Patched`) build them."""
    module = importlib.import_module(spec)
    fresh = types.ModuleType(spec)
    fresh.__file__, fresh.__package__ = module.__file__, module.__package__
    exec(compile(Path(module.__file__).read_text(), module.__file__, "exec"), fresh.__dict__)
    return list(fresh.CLAIMS)


def trace_builders(claim_ids) -> tuple[dict[str, set[str]], dict[str, str]]:
    """Which claims a verdict-path function helps *build* (``module:function``
    -> claim ids) and which catalogue module each claim comes from: every
    module of the catalogue built again (:func:`fresh_claims`) under a
    profiler. A template's builder runs at import, before any mutant is
    patched in, so a mutant there reaches the claims only when they are built
    again under it (:func:`run_verdict_mutant` does so)."""
    from theorems.core.registry import CLAIM_MODULES

    built: dict[str, set[str]] = {}
    origin: dict[str, str] = {}
    wanted = set(claim_ids)
    for spec in CLAIM_MODULES:
        with _calls_into(VERDICT_MODULES) as called:
            ids = [c.id for c in fresh_claims(spec) if c.id in wanted]
        for cid in ids:
            origin[cid] = spec
        for key in called:
            built.setdefault(key, set()).update(ids)
    return built, origin


def baseline_verdicts(claims, profile) -> tuple[dict[str, tuple], dict[str, float]]:
    """Each claim's unmutated verdict with its controls and its report entry
    (:func:`_outcome_of`), and its time in seconds, from a run without the
    tracer (whose slowdown could push a check past its budget and make a
    timeout the baseline)."""
    baseline, cost = {}, {}
    for claim in claims:
        start = time.perf_counter()
        baseline[claim.id] = _outcome_of(run_claim(claim, profile=profile, controls=True, cache=None))
        cost[claim.id] = time.perf_counter() - start
    return baseline, cost


def _fill(order, cost: dict[str, float], budget_s: float) -> list[str]:
    """Of ``order`` (names, in the order to try them), each that still fits in
    ``budget_s`` seconds of ``cost`` (the first always does)."""
    chosen, spent = [], 0.0
    for name in order:
        if chosen and spent + cost.get(name, 0.0) > budget_s:
            continue
        chosen.append(name)
        spent += cost.get(name, 0.0)
    return chosen


def _by_cost(names, cost: dict[str, float]) -> list[str]:
    return sorted(names, key=lambda n: (cost.get(n, 0.0), n))


def quickest_within(names, cost: dict[str, float], budget_s: float) -> list[str]:
    """Of ``names`` (claims that execute a mutant's function, tests that run
    its line), the quickest first by ``cost`` (seconds, measured unmutated),
    as many as fit in ``budget_s`` (at least one). A run stops at the first
    that moves or fails, so a killed mutant costs less."""
    return _fill(_by_cost(names, cost), cost, budget_s)  # in cost order, the first that does not fit ends it


def diverse_within(tests, cost: dict[str, float], budget_s: float) -> list[str]:
    """Of ``tests`` (pytest node ids that run a mutant's line), as many as fit
    in ``budget_s`` seconds of ``cost``, taken a file at a time: the quickest
    of each file first, then the second quickest of each, and so on (at
    least one). A line that hundreds of tests run (the runner's) is then
    judged by tests of many files, the ones written about it among them,
    rather than by the quickest hundred of one parametrised file."""
    by_file: dict[str, list[str]] = {}
    for t in tests:
        by_file.setdefault(t.split("::", 1)[0], []).append(t)
    queues = [_by_cost(ids, cost) for ids in by_file.values()]
    depth = max(map(len, queues), default=0)
    layers = [_by_cost([q[k] for q in queues if len(q) > k], cost) for k in range(depth)]
    return _fill([name for layer in layers for name in layer], cost, budget_s)


def _verdict_of(result) -> tuple:
    """What a verdict-path mutant must not change: the claim's status and whether its control is caught."""
    return result.status, (result.negative_control or {}).get("caught")


def _outcome_of(result) -> tuple[tuple, dict]:
    """The verdict (:func:`_verdict_of`) and the claim's report entry without
    its timings (what ``theorems report --compare`` compares at one seed):
    the two things a verdict-path mutant must leave as they were."""
    return _verdict_of(result), without_volatile(claim_entry(result))


def _timed_out(entry: dict) -> bool:
    """Whether a check of a report entry, or of its control, ran past its time
    budget: what it wrote then depends on the machine's load, so its report
    is no oracle (its verdict still is, as in the unmutated run)."""
    return "CheckTimeout" in json.dumps(entry, default=str)


def _moved(res, base: tuple[tuple, dict], verdicts_only: bool = False) -> str | None:
    """How a mutant's run of a claim (``res``) differs from the unmutated run
    ``base`` (:func:`_outcome_of`): ``"verdict"`` (status or control;
    ``"verdict (past its budget)"`` when a check ran past its budget on the
    mutant alone, which a hang and a loaded machine both do),
    ``"report"`` (the same verdict, another report entry: a figure, a detail,
    a counterexample, a domain, a control's per-check table), or None."""
    verdict, entry = _outcome_of(res)
    if verdict != base[0]:  # a check past its budget only here: a mutant that hangs, or a loaded machine
        return "verdict (past its budget)" if _timed_out(entry) and not _timed_out(base[1]) else "verdict"
    if not verdicts_only and entry != base[1] and not (_timed_out(entry) or _timed_out(base[1])):
        parts = evidence_changes(base[1], entry)
        return "report: " + "; ".join(f"{p} ({', '.join(f)})" for p, f in parts)
    return None


def run_verdict_mutant(m: Mutant, source: str, claims_by_id, touched, profile, baseline,
                       cost=None, budget_s: float = 0.0, verdicts_only: bool = False,
                       built: dict | None = None, origin: dict | None = None) -> tuple[str, list[str], float]:
    """Like :func:`run_mutant` on the verdict path: each claim traced through
    the mutated function runs with its per-check controls; ``"killed"`` when
    its status or its control's verdict differs from the unmutated run's
    (``baseline``), ``"killed-by-report"`` when the verdicts agree and its
    report entry does not (unless ``verdicts_only``). With ``budget_s``, only
    the quickest of them within that many seconds (:func:`quickest_within`).
    The claims a mutated function helps build (``built``, from
    :func:`trace_builders`, with each claim's module in ``origin``) are built
    again under the mutant and run as it built them."""
    key = f"{m.module}:{m.function}"
    rebuild = set((built or {}).get(key, ()))
    relevant = sorted(set(touched.get(key, ())) | rebuild)
    if budget_s and cost is not None:
        relevant = quickest_within(relevant, cost, budget_s)
    if not relevant:
        return "no-coverage", [], 0.0
    start = time.perf_counter()
    killers, outcome = [], "survived"
    try:
        with _Patched(m.module, source):
            again: dict = {}
            for cid in relevant:
                try:
                    if cid in rebuild and cid not in again:  # built under the mutant, its whole module at once
                        again.update({c.id: c for c in fresh_claims(origin[cid])})
                    runner = sys.modules["theorems.core.runner"]  # the mutant's, when it is the one mutated
                    res = runner.run_claim(again.get(cid, claims_by_id[cid]), profile=profile, impl=Impl.default(),
                                           controls=True, cache=None)
                    moved = _moved(res, baseline[cid], verdicts_only)
                except Exception as exc:  # noqa: BLE001 - the runner itself broken by the mutant
                    moved, cid = "verdict", f"{cid} ({type(exc).__name__})"
                if moved and moved.startswith("verdict"):
                    killers, outcome = [cid if moved == "verdict" else f"{cid} ({moved})"], "killed"
                    break
                if moved and not killers:  # a report moved: go on, a verdict may move further on
                    killers, outcome = [f"{cid} ({moved})"], "killed-by-report"
    except Exception as exc:  # noqa: BLE001 - a mutant that breaks the import is killed
        killers, outcome = [f"import:{type(exc).__name__}"], "killed"
    return outcome, killers, time.perf_counter() - start


def run_mutant(m: Mutant, source: str, claims_by_id, touched, profile) -> tuple[str, list[str], float]:
    """('killed' | 'survived' | 'no-coverage', killing claims, seconds) for the
    mutant whose mutated module source is ``source``."""
    relevant = sorted(touched.get(f"{m.module}:{m.function}", ()))
    if not relevant:
        return "no-coverage", [], 0.0
    start = time.perf_counter()
    killers = []
    try:
        with _Patched(m.module, source):
            for cid in relevant:
                res = run_claim(claims_by_id[cid], profile=profile, impl=Impl.default(), cache=None)
                if res.status not in (Status.VERIFIED, Status.SUPPORTED):
                    killers.append(cid)
                    break
    except Exception as exc:  # noqa: BLE001 - a mutant that breaks the import is killed
        killers.append(f"import:{type(exc).__name__}")
    return ("killed" if killers else "survived"), killers, time.perf_counter() - start


#: linmem's own tests, the second line of defence for mutants the claims miss.
UNIT_TESTS = (
    "tests/test_linmem_edges.py",
    "tests/test_memory_guards.py",
    "tests/test_linmem_core.py",
    "tests/test_capacity.py",
    "tests/test_retrieval.py",
    "tests/test_learn.py",
    "tests/test_linmem_inputs.py",
)


def untracked(root: Path = ROOT) -> set[str]:
    """The paths of ``root``'s git work tree that git neither tracks nor
    ignores (a new folder as one entry); empty outside a work tree. A mutant
    runs the tests in the checkout, and a mutant that misreads a path (a cache
    sentinel taken for a folder, say) writes there: :func:`main` lists what
    appeared during the run."""
    try:
        out = subprocess.run(["git", "ls-files", "--others", "--exclude-standard", "--directory"], cwd=root,
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return set()
    return set(out.stdout.splitlines()) if out.returncode == 0 else set()


def run_unit_tests(m: Mutant, source: str, testmap: dict | None = None,
                   budget_s: float = UNIT_TEST_BUDGET_S) -> str | None:
    """The first of linmem's unit tests (:data:`VERDICT_UNIT_TESTS` for a
    verdict-path mutant) that fails on the mutant (mutated module source
    ``source``), or None when they all pass. With a test map that is current
    for the module (:func:`mapped_tests`), a verdict-path mutant runs the
    tests that execute its line instead (a test file deleted since the map
    is left out: a missing path is no failure of the mutant's), or
    :data:`FORKING_TESTS` when no test does; the module's doctests run in
    every case."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(source)
        path = fh.name
    cache_dir = tempfile.mkdtemp(prefix="mutant-cache-")  # never the user's cache: the mutant's sweeps
    env = dict(os.environ, LINMEM_MUTANT_MODULE=m.module, LINMEM_MUTANT_SOURCE=path, THEOREMS_CACHE=cache_dir,
               PYTHONPATH=os.pathsep.join([str(ROOT / "tools"), str(ROOT)]))
    verdict = m.module in VERDICT_MODULES
    tests = [t for t in (VERDICT_UNIT_TESTS if verdict else UNIT_TESTS) if (ROOT / t).exists()]
    listing = None
    chosen = mapped_tests(testmap, m, budget_s) if verdict else None
    if chosen is not None:  # and the test files written since the map, whole
        chosen += edited_test_files(testmap)
    if chosen:
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
            fh.write("\n".join(chosen) + "\n")
            listing = fh.name
        env["LINMEM_MUTANT_TESTS"] = listing
        tests = sorted({t.split("::", 1)[0] for t in chosen if (ROOT / t.split("::", 1)[0]).exists()})
    elif chosen == []:  # no test runs the line in process (nor was any test file edited)
        tests = [t for t in FORKING_TESTS if (ROOT / t).exists()]
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "_mutant_plugin",
           "--doctest-modules", str(_path(m.module).relative_to(ROOT)), *tests]
    timeout = max(UNIT_TEST_TIMEOUT_S, 3 * budget_s) if chosen else UNIT_TEST_TIMEOUT_S
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"(unit tests past {timeout:.0f} s)"
    finally:
        os.unlink(path)
        shutil.rmtree(cache_dir, ignore_errors=True)
        if listing:
            os.unlink(listing)
    if proc.returncode in (0, 5):  # 5: no test collected (a mapped test since renamed), nothing failed
        return None
    failed = re.search(r"^(?:FAILED|ERROR) (\S+)", proc.stdout, flags=re.M)
    return failed.group(1) if failed else f"(pytest exit {proc.returncode})"


# --- the test map (verdict path) -------------------------------------------------

#: Where ``--map-tests`` keeps the map (ignored by git; rebuilt on demand).
TESTMAP_FILE = ROOT / ".mutation" / "testmap.json"

#: Test files left out of the map: the catalogue's claim items (the claims
#: are the first kill command already), this tool's own tests, tests of
#: linmem alone (they never reach the verdict path) and tests that only run
#: the project in a fresh interpreter (a mutant patched in memory does not
#: reach it).
TESTMAP_EXCLUDE = ("tests/test_claims.py", "tests/test_mutation_tool.py", "tests/test_readme.py",
                   "tests/test_linmem_inputs.py", "tests/test_linmem_core.py", "tests/test_linmem_edges.py",
                   "tests/test_memory_guards.py", "tests/test_capacity.py", "tests/test_retrieval.py",
                   "tests/test_learn.py", "tests/test_sweeps.py", "tests/test_pytest_plugin.py",
                   "tests/test_hostile_threads.py", "tests/test_observe.py", "tests/test_browser.py")

#: Tests that run claims in forked, supervised workers: what a mutant on a
#: line the map saw no test execute runs (should a worker's lines be lost).
FORKING_TESTS = ("tests/test_supervision.py", "tests/test_hostile_run.py", "tests/test_hostile.py")


def _sha(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def testmap_files() -> list[str]:
    """The test files the map records (every test file but :data:`TESTMAP_EXCLUDE`)."""
    return sorted(str(f.relative_to(ROOT)) for f in (ROOT / "tests").glob("test_*.py")
                  if str(f.relative_to(ROOT)) not in TESTMAP_EXCLUDE)


def build_test_map(jobs: int = 2, path: Path = TESTMAP_FILE) -> dict:
    """Run :func:`testmap_files` once under coverage.py, each test in its own
    context (tools/_testmap_plugin.py), and write ``{module: {line: [node
    ids]}}`` of the verdict-path modules with each test's duration and the
    sources it was built from. About 10 minutes on 2 cores."""
    import coverage

    sources = {str(_path(m)): m for m in VERDICT_MODULES}
    tests = {f: _sha((ROOT / f).read_text()) for f in testmap_files()}  # as run (a file edited meanwhile is stale)
    with tempfile.TemporaryDirectory() as where:
        env = dict(os.environ, MUTATION_TESTMAP_DIR=where, MUTATION_TESTMAP_SOURCES=os.pathsep.join(sources),
                   PYTHONPATH=os.pathsep.join([str(ROOT / "tools"), str(ROOT)]))
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "_testmap_plugin",
               "-n", str(jobs), *testmap_files()]
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        cov = coverage.Coverage(data_file=str(Path(where) / ".coverage"), config_file=False)
        cov.combine([where])
        data = cov.get_data()
        lines: dict[str, dict[str, list[str]]] = {}
        for measured in data.measured_files():
            module = sources.get(str(Path(measured).resolve()))
            if module is not None:
                lines[module] = {str(n): sorted(c for c in ctx if c)
                                 for n, ctx in data.contexts_by_lineno(measured).items() if any(ctx)}
        durations: dict[str, float] = {}
        for f in Path(where).glob("durations.*.json"):
            durations.update(json.loads(f.read_text()))
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else f"pytest exit {proc.returncode}"
    out = {"built": time.strftime("%Y-%m-%d %H:%M"), "seconds": round(seconds), "pytest": summary,
           "sources": {m: _sha(_source(m)) for m in VERDICT_MODULES},
           "tests": tests,
           "lines": lines, "durations": durations}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out))
    return out


def edited_test_files(testmap: dict) -> list[str]:
    """The map's test files that are new or edited since it was built: the
    map cannot say which of their tests run a line, so they run whole."""
    return [f for f in testmap_files() if testmap.get("tests", {}).get(f) != _sha((ROOT / f).read_text())]


def load_test_map(path: Path = TESTMAP_FILE) -> dict | None:
    return json.loads(path.read_text()) if path.exists() else None


def _statement_lines(source: str, line: int) -> range:
    """The lines of the innermost statement holding ``line`` (of a compound
    statement, its header only): the lines a test must execute to run it.
    A function's header (a default value, say) runs once, at import, in no
    test's context: what a change there changes is every call, so its lines
    are the function's body."""
    best, body_of = None, None
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.stmt) and node.lineno <= line <= node.end_lineno:
            body = getattr(node, "body", None)
            end = node.end_lineno
            if isinstance(body, list) and body and not isinstance(node, ast.ClassDef):
                first = body[0].lineno
                if line >= first:
                    continue  # in the body: an inner statement holds it
                end = first - 1
            if best is None or end - node.lineno < best.stop - 1 - best.start:
                best = range(node.lineno, end + 1)
                body_of = (range(body[0].lineno, node.end_lineno + 1)
                           if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None)
    return body_of or best or range(line, line + 1)


def map_is_current(testmap: dict, module: str) -> bool:
    """Was the map built from this version of ``module`` (its line numbers still hold)?"""
    return testmap["sources"].get(module) == _sha(_source(module))


def mapped_tests(testmap: dict | None, m: Mutant, budget_s: float = UNIT_TEST_BUDGET_S) -> list[str] | None:
    """The tests to run on mutant ``m``: those the map saw execute its line,
    a file at a time and quickest first (:func:`diverse_within`), within
    ``budget_s`` seconds of their recorded time. None
    when there is no map or it was built from another version of the module
    (line numbers moved); [] when no test executes the line in process."""
    if testmap is None or not map_is_current(testmap, m.module):
        return None
    by_line = testmap["lines"].get(m.module, {})
    ids = set()
    for n in _statement_lines(_source(m.module), m.line):
        ids.update(by_line.get(str(n), ()))
    return diverse_within(ids, testmap["durations"], budget_s)


def fingerprints(module: str) -> dict[str, str]:
    """``{id: fingerprint}`` of a module's mutants. A fingerprint names a
    mutant by what it changes, not where: operator, function, the stripped
    text of the mutated line and its rank among the module's mutants with
    those three equal, hashed. Editing other parts of the module shifts ids
    but keeps fingerprints, which is why the equivalent list is keyed by
    them."""
    lines = _source(module).splitlines()
    seen: dict[tuple, int] = {}
    out = {}
    for m in mutants_of(module):
        key = (m.operator, m.function, lines[m.line - 1].strip())
        rank = seen.get(key, 0)
        seen[key] = rank + 1
        out[m.id] = hashlib.sha1("|".join(map(str, key + (rank,))).encode()).hexdigest()[:10]
    return out


@dataclass(frozen=True)
class Equivalent:
    """One entry of the equivalent list: a mutant named by module, function
    and fingerprint, and why it cannot change behaviour."""

    module: str
    function: str
    fingerprint: str
    reason: str

    @property
    def label(self) -> str:
        return f"{self.module}:{self.function} fp:{self.fingerprint}"


def _equivalent_entries() -> list[Equivalent]:
    """The entries of the equivalent list, in file order. A malformed line
    is an error naming the line (the list is written by hand)."""
    out = []
    if EQUIVALENT_FILE.exists():
        for number, line in enumerate(EQUIVALENT_FILE.read_text().splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            m = re.fullmatch(r"([\w.]+):(\w+) fp:([0-9a-f]{10}) (\S.*)", line.strip())
            if m is None:
                raise SystemExit(f"{EQUIVALENT_FILE.name}:{number}: expected 'module:function fp:FINGERPRINT "
                                 f"reason', got {line.strip()[:80]!r}")
            out.append(Equivalent(*m.groups()))
    return out


def _resolve_equivalents() -> tuple[dict[str, str], list[Equivalent]]:
    """``({current id: reason}, entries no mutant matches)``: each entry is
    looked up by its module and fingerprint among today's mutants."""
    entries = _equivalent_entries()
    by_fp = {(mod, fp): mid for mod in sorted({e.module for e in entries} & set(MODULES + VERDICT_MODULES))
             for mid, fp in fingerprints(mod).items()}
    found, stale = {}, []
    for e in entries:
        mid = by_fp.get((e.module, e.fingerprint))
        if mid is None:
            stale.append(e)
        else:
            found[mid] = e.reason
    return found, stale


def load_equivalents() -> dict[str, str]:
    """``{id: reason}`` of the listed equivalent mutants, under today's ids."""
    return _resolve_equivalents()[0]


def stale_equivalents() -> list[str]:
    """The entries whose mutant no longer exists (its line was edited, or its
    module left MODULES): each must be re-checked by hand and re-listed."""
    return [e.label for e in _resolve_equivalents()[1]]


def equivalent_line(mutant_id: str, reason: str) -> str:
    """The list's line for a mutant (by id, as ``--show`` prints it)."""
    module = mutant_id.split(":", 1)[0]
    m = next((m for m in mutants_of(module) if m.id == mutant_id), None)
    if m is None:
        raise SystemExit(f"no mutant {mutant_id!r}")
    return f"{module}:{m.function} fp:{fingerprints(module)[mutant_id]} {reason}"


_COUNTED = ("killed", "killed-by-report", "killed-by-unit-tests", "survived", "no-coverage")


def _output_equivalent(r: dict) -> bool:
    """An 'equivalent' mutant whose output agrees only to a tolerance or whose
    effect is on speed or conditioning (its reason says 'output-equivalent')."""
    return r["outcome"] == "equivalent" and r.get("reason", "").startswith("output-equivalent")


def score_table(results: list[dict]) -> str:
    """Markdown table of outcomes and scores per module and in all: killed by
    the claims' verdicts, by their reports only (the verdict path; a verdict
    the same, a report entry not), by the unit tests only. The last column
    counts output-equivalent mutants as survivors (the strict score)."""
    lines = ["| module | mutants | equivalent | of which output-equivalent | killed by claims' verdicts "
             "| by claims' reports only | by unit tests only | survived | verdicts alone | claims "
             "| claims + unit tests | strict (output-equivalent as survivors) |", "|---" * 12 + "|"]
    modules = [m for m in MODULES + VERDICT_MODULES if any(r["module"] == m for r in results)]
    for label, rows in [(m, [r for r in results if r["module"] == m]) for m in modules] + [
            ("**all**", results)]:
        c = {k: sum(r["outcome"] == k for r in rows) for k in (*_COUNTED, "equivalent")}
        oe = sum(_output_equivalent(r) for r in rows)
        n = sum(c[k] for k in _COUNTED)
        claims = c["killed"] + c["killed-by-report"]
        killed = claims + c["killed-by-unit-tests"]

        def pct(k: int, n: int = n) -> str:
            return f"{k / n:.1%}" if n else "n/a"

        lines.append(
            f"| {label} | {len(rows)} | {c['equivalent']} | {oe} | {c['killed']} | {c['killed-by-report']} "
            f"| {c['killed-by-unit-tests']} | {c['survived'] + c['no-coverage']} | {pct(c['killed'])} "
            f"| {pct(claims)} | {pct(killed)} | {pct(killed, n + oe)} |")
    return "\n".join(lines)


def write_report(results: list[dict], path: Path, header: str = "") -> None:
    """Markdown report: the score table, every survivor, every equivalent
    mutant with its reason."""
    verdict = any(r["module"] in VERDICT_MODULES for r in results)
    out = [f"# Mutation testing of {'the verdict path' if verdict else 'linmem'}", "", header.strip(), "",
           score_table(results), ""]
    survivors = [r for r in results if r["outcome"] in ("survived", "no-coverage")]
    out += ["## Survivors", ""]
    out += [f"- `{r['id']}` in `{r['function']}`: `{r['description']}`" for r in survivors] or ["None."]
    out += ["", "## Equivalent mutants (excluded from the score)", ""]
    out += [f"- `{r['id']}` in `{r['function']}`: `{r['description']}`. {r.get('reason', '')}"
            for r in results if r["outcome"] == "equivalent"]
    path.write_text("\n".join(out) + "\n")


def _read_ids(spec: str) -> set[str]:
    """Mutant ids from a file (the first word that looks like an id on each
    non-comment line, so a printed survivors list will do) or from
    ``id,id,...``."""
    path = Path(spec)
    try:
        listed = path.is_file()
    except OSError:  # a long id,id,... list is no path (ENAMETOOLONG)
        listed = False
    if not listed:
        return {w.strip() for w in spec.split(",") if w.strip()}
    ids = set()
    for line in path.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            ids.update(w for w in line.split()[:2] if w.count(":") == 3)
    return ids


#: What :func:`judge` needs from :func:`main` (set before the workers fork).
_JOB: dict = {}


@contextlib.contextmanager
def _mapper(workers: int):
    """``map`` for one worker; for more, the ``map`` of a process pool whose
    workers are forked from this process (they inherit the claims, the trace
    and the baseline) and are not daemonic, so a claim may start its own
    processes. Either gives the results in the order of the inputs."""
    if workers <= 1:
        yield map
        return
    import concurrent.futures
    import multiprocessing

    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        yield pool.map


def _trace_one(cid: str) -> dict[str, set[str]]:
    return trace_claims([_JOB["by_id"][cid]], _JOB["profile"], verdict=_JOB["verdict"])


def _baseline_one(cid: str) -> tuple[tuple, float]:
    baseline, cost = baseline_verdicts([_JOB["by_id"][cid]], _JOB["profile"])
    return baseline[cid], cost[cid]


def judge(m: Mutant) -> dict:
    """One mutant's row: made, looked up among the equivalents, run against
    the claims, then against the unit tests if the claims let it through;
    printed as it is decided."""
    args = _JOB["args"]
    try:  # made once, used for the description, the claims and the unit tests
        source = mutated_source(m)
    except Exception as exc:  # noqa: BLE001 - an operator that produced invalid code
        print(f"{'invalid':<20} {m.id:<52} {m.function:<26} {type(exc).__name__}: {exc}", flush=True)
        return {**m.__dict__, "id": m.id, "description": f"({type(exc).__name__})",
                "outcome": "invalid", "killed_by": [], "seconds": 0.0}
    desc = describe(m, source)
    row = {**m.__dict__, "id": m.id, "description": desc}
    if m.id in _JOB["equivalents"]:
        return {**row, "outcome": "equivalent", "reason": _JOB["equivalents"][m.id]}
    if args.unit_tests_only:
        outcome, killers, secs = "survived", [], 0.0
    elif m.module in VERDICT_MODULES:
        outcome, killers, secs = run_verdict_mutant(m, source, _JOB["by_id"], _JOB["touched"], _JOB["profile"],
                                                    _JOB["baseline"], _JOB["cost"], args.claims_budget,
                                                    args.verdicts_only, _JOB["built"], _JOB["origin"])
    else:
        outcome, killers, secs = run_mutant(m, source, _JOB["by_id"], _JOB["touched"], _JOB["profile"])
    if outcome in ("survived", "no-coverage") and (args.unit_tests or args.unit_tests_only):
        killer = run_unit_tests(m, source, _JOB["testmap"], args.unit_test_budget)
        if killer:
            outcome, killers = "killed-by-unit-tests", [killer]
    print(f"{outcome:<20} {m.id:<52} {m.function:<26} {desc}" + (f"  [{killers[0]}]" if killers else ""),
          flush=True)
    return {**row, "outcome": outcome, "killed_by": killers, "seconds": round(secs, 2)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--module", action="append", choices=MODULES + VERDICT_MODULES,
                   help="only these modules (linmem's; with --verdict, the verdict path's)")
    p.add_argument("--verdict", action="store_true",
                   help="mutate the verdict path (VERDICT_MODULES) and judge by the claims with per-check controls")
    p.add_argument("--claims-from", action="append", metavar="GLOB",
                   help="with --verdict: the claims run (ids or globs; default: every claim, about 10 min a pass)")
    p.add_argument("--sample", type=int, default=0, help="draw this many mutants at random (seeded; 0: all)")
    p.add_argument("--sample-seed", type=int, default=38, help="the seed of --sample")
    p.add_argument("--ids", help="only these mutants: a file of ids (e.g. a survivors list) or id,id,...")
    p.add_argument("--limit", type=int, default=0, help="at most this many mutants per module (0: all)")
    p.add_argument("--json", help="write every mutant's outcome to this file")
    p.add_argument("--show", metavar="ID", help="print one mutant's diff and exit")
    p.add_argument("--check-equivalents", action="store_true",
                   help="list the entries of tools/equivalent_mutants.txt that no mutant matches any more "
                        "(their line was edited), and exit 1 if there are any")
    p.add_argument("--equivalent-line", nargs=2, metavar=("ID", "REASON"),
                   help="print the list's line for mutant ID (as --show names it) with REASON, and exit")
    p.add_argument("--report", help="write a Markdown report (score table, survivors, equivalents)")
    p.add_argument("--map-tests", action="store_true",
                   help="record which test executes which verdict-path line (coverage.py, one context a test; "
                        f"about 10 min on 2 cores) into {TESTMAP_FILE.relative_to(ROOT)} and exit; with the map, "
                        "a verdict-path mutant runs the tests that execute its line instead of VERDICT_UNIT_TESTS")
    p.add_argument("--jobs", type=int, default=2, help="pytest-xdist workers of --map-tests")
    p.add_argument("--workers", type=int, default=1,
                   help="judge this many mutants at once, in processes forked after the trace (one per core)")
    p.add_argument("--claims-budget", type=float, default=0.0, metavar="S",
                   help="with --verdict: run on each mutant only the quickest claims through its function "
                        "that fit in S seconds of their unmutated time (0: all of them)")
    p.add_argument("--verdicts-only", action="store_true",
                   help="with --verdict: a claim kills a mutant only when its status or its control's verdict "
                        "moves (by default also when its report entry, timings aside, differs from the "
                        "unmutated run's)")
    p.add_argument("--unit-test-budget", type=float, default=UNIT_TEST_BUDGET_S, metavar="S",
                   help="seconds of recorded test time run on one mutant with the test map (quickest first)")
    p.add_argument("--no-unit-tests", dest="unit_tests", action="store_false",
                   help="judge by the claims alone (skip linmem's unit tests for survivors)")
    p.add_argument("--unit-tests-only", action="store_true",
                   help="skip the claims and judge by linmem's unit tests alone (to recheck survivors "
                        "of an earlier run after adding tests; the claims had already let them through)")
    args = p.parse_args(argv)
    if args.show:
        print(show(args.show))
        return 0
    if args.equivalent_line:
        print(equivalent_line(*args.equivalent_line))
        return 0
    stale = stale_equivalents()
    if args.check_equivalents:
        print("\n".join(stale) if stale else "tools/equivalent_mutants.txt: every entry matches a mutant")
        return 1 if stale else 0
    if stale:
        raise SystemExit(f"tools/equivalent_mutants.txt lists mutants whose line changed: {', '.join(stale)}; "
                         "re-check each by hand (--show) and re-list it (--equivalent-line ID REASON)")
    if args.map_tests:
        built = build_test_map(args.jobs)
        n = len({t for lines in built["lines"].values() for ids in lines.values() for t in ids})
        print(f"{TESTMAP_FILE.relative_to(ROOT)}: {n} tests execute verdict-path lines "
              f"({len(built['durations'])} run, {built['seconds']} s; pytest: {built['pytest']})")
        return 0
    testmap = load_test_map() if args.verdict or (args.module and set(args.module) <= set(VERDICT_MODULES)) else None
    if testmap is not None:
        stale = [m for m in VERDICT_MODULES if not map_is_current(testmap, m)]
        print(f"test map of {testmap['built']}" + (f"; stale for {', '.join(stale)} (their mutants run "
              "VERDICT_UNIT_TESTS; rebuild with --map-tests)" if stale else ""), flush=True)
    wanted = _read_ids(args.ids) if args.ids else None
    modules = args.module or (VERDICT_MODULES if args.verdict else MODULES)
    if wanted is not None:
        modules = [m for m in modules if any(i.split(":", 1)[0] == m for i in wanted)]

    profile = replace(get_profile("quick"), check_budget_s=MUTANT_CHECK_BUDGET_S)
    baseline: dict = {}
    cost: dict = {}
    built: dict = {}
    origin: dict = {}
    if args.unit_tests_only:
        touched, by_id = {}, {}
    else:
        registry = load_claims()
        claims = list(registry)
        if args.claims_from:
            from theorems.core.registry import select

            claims = list(select(registry, args.claims_from))
        print(f"tracing {len(claims)} claims{' with their controls' if args.verdict else ''} ...", flush=True)
        by_id = {c.id: c for c in claims}
        _JOB.update(by_id=by_id, profile=profile, verdict=args.verdict)
        with _mapper(args.workers) as each:  # one claim a task; the parts merged
            touched = {}
            for part in each(_trace_one, list(by_id)):
                for key, ids in part.items():
                    touched.setdefault(key, set()).update(ids)
            if args.verdict:  # the unmutated verdicts, to compare each mutant's with
                for cid, (verdict, seconds) in zip(by_id, each(_baseline_one, list(by_id))):
                    baseline[cid], cost[cid] = verdict, seconds
        if args.verdict:  # the claims each template function builds, for the mutants of builders
            built, origin = trace_builders(by_id)
    equivalents = load_equivalents()
    results = []
    start = time.perf_counter()
    chosen = []
    for module in modules:
        mutants = mutants_of(module)
        if wanted is not None:
            mutants = [m for m in mutants if m.id in wanted]
        if args.limit:
            mutants = mutants[: args.limit]
        chosen += mutants
    if args.sample and args.sample < len(chosen):
        import random

        print(f"sampling {args.sample} of {len(chosen)} mutants (seed {args.sample_seed})", flush=True)
        chosen = random.Random(args.sample_seed).sample(chosen, args.sample)
    _JOB.update(args=args, by_id=by_id, touched=touched, profile=profile, baseline=baseline, cost=cost,
                testmap=testmap, equivalents=equivalents, built=built, origin=origin)
    # forked after the trace and the baseline, which every worker inherits; each
    # patches its own copy of the module, so two mutants never meet
    before = untracked()
    with _mapper(args.workers if len(chosen) > 1 else 1) as each:
        results += list(each(judge, chosen))  # in the drawn order, whatever order they finished in
    litter = sorted(untracked() - before)
    if litter:
        print(f"warning: new paths in the checkout since the mutants started (a mutant's writes, or yours; "
              f"check before committing): {', '.join(litter)}", file=sys.stderr)
    if wanted is not None:
        missing = wanted - {r["id"] for r in results}
        for mid in sorted(missing):
            print(f"not found: {mid} (linmem changed since the list was written?)")
    counted = [r for r in results if r["outcome"] in _COUNTED]
    by_verdicts = sum(r["outcome"] == "killed" for r in counted)
    by_claims = by_verdicts + sum(r["outcome"] == "killed-by-report" for r in counted)
    by_all = by_claims + sum(r["outcome"] == "killed-by-unit-tests" for r in counted)
    n = len(counted) or 1
    print(f"\n{len(results)} mutants of {', '.join(modules)} in {time.perf_counter() - start:.0f} s")
    if by_claims != by_verdicts:
        print(f"mutation score, claims' verdicts alone: {by_verdicts}/{len(counted)} = {by_verdicts / n:.1%}")
    print(f"mutation score, claims alone: {by_claims}/{len(counted)} = {by_claims / n:.1%}")
    print(f"mutation score, claims + linmem unit tests: {by_all}/{len(counted)} = {by_all / n:.1%}")
    print(f"({sum(r['outcome'] == 'equivalent' for r in results)} equivalent mutants excluded, "
          f"{sum(r['outcome'] == 'invalid' for r in results)} invalid)")
    for r in results:
        if r["outcome"] in ("survived", "no-coverage"):
            print(f"  {r['outcome']:<12} {r['id']:<52} {r['function']:<26} {r['description']}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    if args.report:
        write_report(results, Path(args.report),
                     f"`python tools/mutation.py {' '.join(argv if argv is not None else sys.argv[1:])}`")
    return 0


if __name__ == "__main__":
    sys.exit(main())
