"""What a module changes at module level, read from its source: shared by the
tests that hold linmem to no module state and theorems to its documented
hand-offs."""

from __future__ import annotations

import ast
from pathlib import Path

#: Methods that change a list, dict or set in place.
CHANGING = {"append", "extend", "insert", "update", "setdefault", "pop", "popitem", "clear", "add", "remove",
            "discard"}


def changed_module_state(path: Path) -> set[str]:
    """Names of ``path``'s module-level containers (a list, dict or set
    literal, or a call's result) that the module assigns into or changes in
    place, and the names it declares ``global``; ``__all__`` aside."""
    tree = ast.parse(Path(path).read_text())
    held = {t.id for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
            and isinstance(node.value, (ast.List, ast.Dict, ast.Set, ast.Call))
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target]) if isinstance(t, ast.Name)}
    held.discard("__all__")
    found = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name) and node.value.id in held):
            found.add(node.value.id)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and isinstance(node.func.value, ast.Name) and node.func.value.id in held
              and node.func.attr in CHANGING):
            found.add(node.func.value.id)
        elif isinstance(node, ast.Global):
            found |= set(node.names)
    return found
