"""Lines of code per claim in theorems/claims/ (issue 10's attribution).

Each claim of a module's ``CLAIMS`` list is charged with

* its declaration (the ``Claim(...)`` or template call in ``CLAIMS``);
* every module-level helper (function, class, constant) that only its
  declaration reaches, directly or through other helpers;
* an equal share of each helper that several claims reach;
* an equal share of the module's remainder (docstring, imports, helpers no
  declaration reaches), split over all the module's claims.

Lines are non-blank source lines. Claims built in a loop or by a factory
(one call site for several claims) share that call site's lines equally.

``--text`` splits each claim's figure into catalogue text and code, by the
same attribution: text is comment lines, docstrings, and the lines of the
catalogue fields of a declaration (``title``, ``statement``, ``source``,
``assumptions``); code is the rest.

    python tools/claim_lines.py                      # every module, summary last
    python tools/claim_lines.py projectors outer     # some modules
    python tools/claim_lines.py --json out.json      # the table as JSON
    python tools/claim_lines.py --text               # text and code lines apart
"""

from __future__ import annotations

import argparse
import ast
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

CLAIMS_DIR = Path(__file__).resolve().parents[1] / "theorems" / "claims"


#: A declaration's keyword arguments that are catalogue text, not code.
CATALOGUE_FIELDS = ("title", "statement", "source", "assumptions")


def _nonblank(lines: list[str], node: ast.AST, skip: frozenset[int] = frozenset()) -> int:
    """Non-blank lines of ``node`` (decorators included), less the line numbers in ``skip``."""
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return sum(1 for i in range(start, node.end_lineno + 1) if lines[i - 1].strip() and i not in skip)


def text_lines(source: str) -> frozenset[int]:
    """Line numbers (1-based) of ``source`` that are catalogue text: comment
    lines, docstrings, and the values of the :data:`CATALOGUE_FIELDS` keywords."""
    lines = source.splitlines()
    tree = ast.parse(source)
    text = {i for i, line in enumerate(lines, 1) if line.strip().startswith("#")}
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            text.update(range(body[0].lineno, body[0].end_lineno + 1))
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg in CATALOGUE_FIELDS:
                    text.update(range(kw.lineno, kw.value.end_lineno + 1))
    return frozenset(text)


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _defined(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    return []


def _claim_id(node: ast.AST, fallback: str) -> str:
    if isinstance(node, ast.Call):
        for kw in node.keywords:
            if kw.arg == "id" and isinstance(kw.value, ast.Constant):
                return kw.value.value
        if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            return node.args[0].value
    return fallback


def module_table(path: Path, *, only: str = "all") -> dict[str, float]:
    """Lines per claim of one module: {claim id (or a placeholder): lines}.
    ``only`` is ``"all"`` (every non-blank line), ``"text"`` (:func:`text_lines`)
    or ``"code"`` (the rest); the three attribute the same way, so text + code = all."""
    if only not in ("all", "text", "code"):
        raise ValueError(f"only must be 'all', 'text' or 'code', got {only!r}")
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    tree = ast.parse(source)
    text = text_lines(source)
    every = frozenset(range(1, len(lines) + 1))
    skip = {"all": frozenset(), "text": every - text, "code": text}[only]
    defs: dict[str, ast.stmt] = {}
    claims_node = None
    for node in tree.body:
        names = _defined(node)
        if names == ["CLAIMS"]:
            claims_node = node
            continue
        for name in names:
            defs[name] = node
    if claims_node is None:
        return {}
    value = claims_node.value
    elements = list(value.elts) if isinstance(value, (ast.List, ast.Tuple)) else [value]
    declarations = {_claim_id(e, f"{path.stem}[{i}]"): e for i, e in enumerate(elements)}
    reach: dict[str, set[int]] = {}
    for cid, node in declarations.items():
        seen: set[int] = set()
        todo = [n for n in _names(node) if n in defs]
        while todo:
            name = todo.pop()
            stmt = defs[name]
            if id(stmt) in seen:
                continue
            seen.add(id(stmt))
            todo.extend(n for n in _names(stmt) if n in defs and id(defs[n]) not in seen)
        reach[cid] = seen
    users: dict[int, list[str]] = defaultdict(list)
    for cid, seen in reach.items():
        for sid in seen:
            users[sid].append(cid)
    table = {cid: float(_nonblank(lines, node, skip)) for cid, node in declarations.items()}
    attributed = sum(table.values())
    for stmt in {id(s): s for s in defs.values()}.values():
        if id(stmt) in users:
            share = _nonblank(lines, stmt, skip) / len(users[id(stmt)])
            for cid in users[id(stmt)]:
                table[cid] += share
            attributed += _nonblank(lines, stmt, skip)
    total = sum(1 for i, line in enumerate(lines, 1) if line.strip() and i not in skip)
    rest = (total - attributed) / len(table)
    return {cid: lines_ + rest for cid, lines_ in table.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", help="module names in theorems/claims/ (default: all)")
    parser.add_argument("--json", metavar="FILE", help="also write the table as JSON")
    parser.add_argument("--text", action="store_true", help="also show each claim's text and code lines apart")
    parser.add_argument("--dir", type=Path, default=CLAIMS_DIR, help="the claims folder (default: this tree's)")
    args = parser.parse_args(argv)
    claims_dir = args.dir
    paths = sorted(p for p in claims_dir.glob("*.py") if not p.name.startswith("_"))
    if args.modules:
        known = {p.stem: p for p in paths}
        unknown = sorted(set(args.modules) - set(known))
        if unknown:
            print(f"claim_lines: unknown modules {unknown}; known: {sorted(known)}", file=sys.stderr)
            return 2
        paths = [known[m] for m in args.modules]
    rows: dict[str, dict[str, float]] = {p.stem: module_table(p) for p in paths}
    values = [v for table in rows.values() for v in table.values()]
    split = {p.stem: (module_table(p, only="text"), module_table(p, only="code")) for p in paths} if args.text else {}
    for module, table in rows.items():
        for cid, v in sorted(table.items(), key=lambda kv: -kv[1]):
            parts = f"  text {split[module][0][cid]:5.1f}  code {split[module][1][cid]:5.1f}" if args.text else ""
            print(f"{v:7.1f}  {module:12s} {cid}{parts}")
    q = statistics.quantiles(values, n=4) if len(values) > 1 else values * 3
    counted = paths if args.modules else sorted(claims_dir.glob("*.py"))  # all files: _cases.py, __init__.py too
    nonblank = sum(sum(1 for line in p.read_text().splitlines() if line.strip()) for p in counted)
    print(f"\n{len(values)} claims in {len(paths)} modules: median {statistics.median(values):.1f} lines "
          f"(quartiles {q[0]:.1f}-{q[2]:.1f}), max {max(values):.1f}; "
          f"{nonblank} non-blank lines, {nonblank / len(values):.1f} per claim")
    if args.text:
        for part, k in (("text", 0), ("code", 1)):
            vals = [v for t in split.values() for v in t[k].values()]
            print(f"{part}: median {statistics.median(vals):.1f} lines per claim, max {max(vals):.1f}, "
                  f"total {sum(vals):.0f}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1, sort_keys=True), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
