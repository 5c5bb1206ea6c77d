"""A metadata index of the built-in catalogue, so ``theorems list`` and
``theorems show`` answer without importing the claim modules (and with them
numpy, scipy, sympy, Hypothesis and matplotlib).

The index holds, per claim, everything those commands print (id, title,
kind, source, statement, assumptions, dependencies, reason, tags, the
checks' names, kinds and descriptions, the negative control's description),
in registry order. It lives in the theorems cache folder
(``$THEOREMS_CACHE``, else ``~/.cache/linmem-theorems``) as
``catalogue-index.json``, keyed by a SHA-256 of every source file of the
``theorems`` and ``linmem`` packages, the package version and the Python
version; a stale or unreadable index is rebuilt (by importing the
catalogue once) and rewritten atomically. With the cache off, with claim
modules of one's own (``--claims``) or with packages contributing claims
through the ``theorems.claims`` entry points, the claims are imported as
before.

The claims rebuilt from the index are :class:`~theorems.core.model.Claim`
objects in a real :class:`~theorems.core.registry.Registry` (so selection and
lookup behave exactly as on the imported catalogue); their checks only
describe themselves: running one raises ``RuntimeError``.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Sequence

from theorems.core.model import Check, Claim, ClaimKind, EvidenceKind, NegativeControl
from theorems.core.registry import Registry, _entry_point_modules, load_claims

__all__ = ["INDEX_FILE", "cache_dir", "catalogue", "index_key", "index_path"]

INDEX_FILE = "catalogue-index.json"
_FORMAT = 1

# The cache folder of theorems.scale.sweepcache.default_cache_dir, restated here because
# importing it imports linmem, hence numpy and scipy (tests/test_api.py keeps the two equal).
_CACHE_ENV = "THEOREMS_CACHE"
_CACHE_OFF = frozenset({"", "0", "off", "none", "false", "no"})
_CACHE_SUBDIR = "linmem-theorems"


def cache_dir() -> Path | None:
    """The theorems cache folder, or None when ``$THEOREMS_CACHE`` turns it off."""
    env = os.environ.get(_CACHE_ENV)
    if env is not None:
        if env.strip().lower() in _CACHE_OFF:
            return None
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / _CACHE_SUBDIR


def index_path() -> Path | None:
    folder = cache_dir()
    return None if folder is None else folder / INDEX_FILE


def _package_dirs() -> list[Path]:
    here = Path(__file__).resolve().parent
    return [here, here.parent / "linmem"]


def index_key() -> str:
    """SHA-256 of the sources the catalogue's metadata can depend on."""
    from theorems import __version__

    h = hashlib.sha256(f"{_FORMAT}|{__version__}|{sys.version_info[:3]}".encode())
    for folder in _package_dirs():
        for path in sorted(folder.rglob("*.py")):
            h.update(str(path.relative_to(folder.parent)).encode() + b"\0")
            h.update(path.read_bytes())
            h.update(b"\0")
    return h.hexdigest()


def _describe(registry: Registry) -> list[dict]:
    rows = []
    for c in registry:
        rows.append({
            "id": c.id, "title": c.title, "statement": c.statement, "kind": c.kind.value, "source": c.source,
            "assumptions": list(c.assumptions), "depends_on": list(c.depends_on), "reason": c.reason,
            "tags": list(c.tags),
            "checks": [{"name": ch.name, "kind": ch.kind.value, "description": ch.description} for ch in c.checks],
            "negative_control": None if c.negative_control is None else c.negative_control.description,
        })
    return rows


def _not_loaded(claim_id: str, check_name: str):
    def run(ctx):
        raise RuntimeError(f"{claim_id} [{check_name}] comes from the catalogue index (metadata only); "
                           "load the claims with theorems.core.registry.load_claims() to run it")

    return run


def _rebuild(rows: list[dict]) -> Registry:
    claims = []
    for r in rows:
        claims.append(Claim(
            id=r["id"], title=r["title"], statement=r["statement"], kind=ClaimKind(r["kind"]), source=r["source"],
            checks=tuple(Check(ch["name"], EvidenceKind(ch["kind"]), _not_loaded(r["id"], ch["name"]),
                               ch["description"]) for ch in r["checks"]),
            assumptions=tuple(r["assumptions"]), depends_on=tuple(r["depends_on"]),
            negative_control=None if r["negative_control"] is None else NegativeControl(r["negative_control"], {}),
            reason=r["reason"], tags=tuple(r["tags"]),
        ))
    return Registry(claims)


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def catalogue(extra_modules: Sequence[str] = ()) -> Registry:
    """The registry ``theorems list`` and ``show`` print: from the index when
    only the built-in catalogue is asked for, else :func:`load_claims`."""
    path = index_path()
    if extra_modules or path is None or _entry_point_modules():
        return load_claims(extra_modules)
    key = index_key()
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        if stored.get("key") == key:
            return _rebuild(stored["claims"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass  # missing, unreadable or of another format: rebuild
    registry = load_claims()
    try:
        _write_atomic(path, json.dumps({"key": key, "claims": _describe(registry)}, ensure_ascii=False))
    except OSError:
        pass  # a read-only cache only costs the speed-up
    return registry
