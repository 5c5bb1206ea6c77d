"""The registry: every claim of the catalogue, collected from the topic
modules of :mod:`theorems.claims` (and from user modules given by path or
import name), checked for unique ids, known dependencies and no cycles."""

from __future__ import annotations

import fnmatch
import hashlib
import importlib
import importlib.util
import os
import re
import sys
import traceback
from pathlib import Path
from typing import Iterable, Sequence

from theorems.core.model import CLAIM_ID_PATTERN, Claim, ClaimKind

_ID = re.compile(CLAIM_ID_PATTERN)

__all__ = ["CLAIM_MODULES", "ENTRY_POINT_GROUP", "ClaimsModuleError", "Registry", "claims_module_hashes", "load_claims",
           "select"]

#: Topic modules of the built-in catalogue, in report order.
CLAIM_MODULES = (
    "theorems.claims.svd",
    "theorems.claims.outer",
    "theorems.claims.store",
    "theorems.claims.projectors",
    "theorems.claims.recall",
    "theorems.claims.capacity",
    "theorems.claims.spherical",
    "theorems.claims.noise",
    "theorems.claims.consistency",
    "theorems.claims.top1",
    "theorems.claims.tam",
    "theorems.claims.finite_size",
    "theorems.claims.assess",
    "theorems.claims.real",
    "theorems.claims.learn",
    "theorems.claims.meta",
)


class Registry:
    """An ordered, validated collection of claims."""

    def __init__(self, claims: Iterable[Claim]):
        self._claims: dict[str, Claim] = {}
        for claim in claims:
            if not isinstance(claim, Claim):
                raise TypeError(f"registry entries must be Claim objects, got {type(claim).__name__}")
            if not isinstance(claim.id, str) or not _ID.fullmatch(claim.id):
                raise ValueError(f"claim id {claim.id!r} is not a valid claim id; needs two or more "
                                 "dot-separated parts of lowercase letters and digits, hyphens allowed after "
                                 "the first dot, e.g. 'mine.pinv-transpose' (theorems.core.model.CLAIM_ID_PATTERN)")
            if claim.id in self._claims:
                raise ValueError(f"duplicate claim id {claim.id!r}")
            self._claims[claim.id] = claim
        if not self._claims:
            raise ValueError("the claim registry is empty: no claims were loaded")
        for claim in self._claims.values():
            unknown = [d for d in claim.depends_on if d not in self._claims]
            if unknown:
                raise ValueError(f"claim {claim.id} depends on unknown claims {unknown}")
        self._order = self._topological()

    def _topological(self) -> list[str]:
        order: list[str] = []
        state: dict[str, int] = {}

        def visit(cid: str, path: tuple[str, ...]) -> None:
            if state.get(cid) == 2:
                return
            if state.get(cid) == 1:
                raise ValueError(f"dependency cycle: {' -> '.join(path + (cid,))}")
            state[cid] = 1
            for dep in self._claims[cid].depends_on:
                visit(dep, path + (cid,))
            state[cid] = 2
            order.append(cid)

        for cid in self._claims:
            visit(cid, ())
        return order

    def __len__(self) -> int:
        return len(self._claims)

    def __iter__(self):
        return (self._claims[c] for c in self._order)

    def __contains__(self, cid: str) -> bool:
        return cid in self._claims

    def get(self, cid: str) -> Claim:
        try:
            return self._claims[cid]
        except KeyError:
            close = [c for c in self._claims if c.split(".")[0] == cid.split(".")[0]]
            raise KeyError(
                f"no claim {cid!r}" + (f"; similar: {', '.join(sorted(close))}" if close else "")
            ) from None

    def ids(self) -> list[str]:
        return list(self._order)


class ClaimsModuleError(ValueError):
    """A claims module that cannot be loaded: missing, not a .py file, failing
    at import, or without a proper ``CLAIMS``; the message names the module,
    what went wrong and where."""


def _raised_at(exc: BaseException, path: Path | None = None) -> str:
    """``file:line`` of the deepest frame of ``exc`` (inside ``path`` when it is given)."""
    if isinstance(exc, SyntaxError) and exc.lineno:
        return f"{exc.filename}:{exc.lineno}"
    frames = traceback.extract_tb(exc.__traceback__)
    if path is not None:
        inside = [f for f in frames if Path(f.filename) == path]
        frames = inside or frames
    frames = [f for f in frames if not f.filename.startswith("<frozen")] or frames
    return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else "?"


def _failed(spec: str, exc: BaseException, path: Path | None = None) -> ClaimsModuleError:
    try:
        what = exc.msg if isinstance(exc, SyntaxError) else str(exc)
    except Exception:  # noqa: BLE001 - a message that cannot be rendered
        what = "<message could not be rendered>"
    kind = "has a syntax error" if isinstance(exc, SyntaxError) else f"raised {type(exc).__name__}"
    one_line = " ".join(f"{kind}: {what}".split())
    return ClaimsModuleError(f"claims module {spec!r} failed to import: {one_line} (at {_raised_at(exc, path)})")


def _import(spec: str):
    if not isinstance(spec, str) or not spec.strip():
        raise ClaimsModuleError(f"claims module must be an import name or a path to a .py file, got {spec!r}")
    path = Path(spec)
    if spec.endswith(".py") or path.exists() or "/" in spec or os.sep in spec:
        if not path.exists():
            raise FileNotFoundError(f"claims module {spec!r} does not exist")
        if path.is_dir():
            raise ClaimsModuleError(f"claims module {spec!r} is a folder; needs a .py file defining CLAIMS "
                                    "(or the import name of a package)")
        if path.suffix != ".py":
            raise ClaimsModuleError(f"claims module {spec!r} is not a .py file; needs a .py file defining CLAIMS")
        path = path.resolve()
        name = _user_module_name(path)
        module_spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        try:
            # the bytes read once: what runs is what the report's hash is of
            source = path.read_bytes()
            module.__theorems_sha256__ = hashlib.sha256(source).hexdigest()
            exec(compile(source, str(path), "exec", dont_inherit=True), module.__dict__)
        except KeyboardInterrupt:
            sys.modules.pop(name, None)
            raise
        except BaseException as exc:  # noqa: BLE001 - SystemExit, GeneratorExit, a user's subclass
            sys.modules.pop(name, None)
            raise _failed(spec, exc, path) from exc
        return module
    try:
        module = importlib.import_module(spec)
    except ModuleNotFoundError as exc:
        if exc.name and (spec == exc.name or spec.startswith(exc.name + ".")):
            raise ClaimsModuleError(f"claims module {spec!r} cannot be found: no module named {exc.name!r}; "
                                    "needs an importable name or a path to a .py file") from exc
        raise _failed(spec, exc) from exc
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - SystemExit, GeneratorExit, a user's subclass
        raise _failed(spec, exc) from exc
    origin = getattr(module, "__file__", None)
    if not hasattr(module, "__theorems_sha256__") and origin and os.path.isfile(origin):
        module.__theorems_sha256__ = hashlib.sha256(Path(origin).read_bytes()).hexdigest()
    return module


def _user_module_name(path: Path) -> str:
    """The name a claims module given by path is imported under."""
    return f"theorems_user_{abs(hash(str(path.resolve())))}"


def claims_module_hashes(specs: Sequence[str]) -> dict[str, str | None]:
    """The SHA-256 (hex) of each claims module's source file, by the spec
    given (a path, or an import name resolved to its file; None when it has
    no source file), so a report says which version of a user's claims it
    judged: the hash of the bytes that were imported, taken when they were
    read (a file edited during the run does not change it).

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
    ...     _ = f.write("CLAIMS = []" + chr(10))
    >>> claims_module_hashes([f.name])[f.name][:12]
    '6902f713f02c'
    >>> os.unlink(f.name)
    """
    out: dict[str, str | None] = {}
    for spec in specs:
        path = Path(spec)
        imported = sys.modules.get(_user_module_name(path) if path.is_file() else spec)
        if getattr(imported, "__theorems_sha256__", None):  # the bytes that were imported
            out[spec] = imported.__theorems_sha256__
            continue
        if not path.is_file():
            try:
                found = importlib.util.find_spec(spec)
            except (ImportError, ValueError):
                found = None
            origin = getattr(found, "origin", None)
            path = Path(origin) if origin and os.path.isfile(origin) else None
        out[spec] = hashlib.sha256(path.read_bytes()).hexdigest() if path is not None else None
    return out


#: Entry-point group through which installed packages contribute claim modules.
ENTRY_POINT_GROUP = "theorems.claims"


def _entry_point_modules() -> list[str]:
    from importlib.metadata import entry_points

    return [ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)]


def load_claims(extra_modules: Sequence[str] = (), *, builtin: bool = True) -> Registry:
    """The built-in catalogue, claim modules that installed packages declare
    under the ``theorems.claims`` entry-point group, and ``extra_modules`` (an
    import name or a path to a .py file defining a list ``CLAIMS``)."""
    claims: list[Claim] = []
    origin: dict[str, str] = {}
    modules = (list(CLAIM_MODULES) + _entry_point_modules() if builtin else []) + list(extra_modules)
    for spec in modules:
        module = _import(spec)
        found = getattr(module, "CLAIMS", None)
        if found is None:
            raise ClaimsModuleError(f"claims module {spec!r} defines no list CLAIMS")
        if not isinstance(found, (list, tuple)):
            raise ClaimsModuleError(f"claims module {spec!r}: CLAIMS must be a list of Claim objects, "
                                    f"got {type(found).__name__} {found!r:.60}")
        for i, claim in enumerate(found):
            if not isinstance(claim, Claim):
                raise ClaimsModuleError(f"claims module {spec!r}: CLAIMS[{i}] must be a Claim, "
                                        f"got {type(claim).__name__} {claim!r:.60}")
            if claim.id in origin:
                raise ClaimsModuleError(f"claims module {spec!r} defines claim id {claim.id!r}, "
                                        f"already defined by {origin[claim.id]!r}")
            origin[claim.id] = spec
        claims.extend(found)
    return Registry(claims)


def select(
    registry: Registry,
    patterns: Sequence[str] = (),
    *,
    kinds: Sequence[str] = (),
    tags: Sequence[str] = (),
) -> list[Claim]:
    """Claims whose id matches any pattern (exact id, glob, or prefix ending
    in '.'), of any of ``kinds``, carrying any of ``tags``; in dependency order.
    A pattern that matches nothing is an error, so typos do not pass silently."""
    valid_kinds = {k.value for k in ClaimKind}
    bad = [k for k in kinds if k not in valid_kinds]
    if bad:
        raise ValueError(f"kind must be one of {sorted(valid_kinds)}, got {bad}")
    chosen = []
    unmatched = set(patterns)
    for claim in registry:
        hit = not patterns
        for pattern in patterns:
            if claim.id == pattern or fnmatch.fnmatchcase(claim.id, pattern) or (
                pattern.endswith(".") and claim.id.startswith(pattern)
            ):
                hit = True
                unmatched.discard(pattern)
        if hit and (not kinds or claim.kind.value in kinds) and (not tags or set(tags) & set(claim.tags)):
            chosen.append(claim)
    if unmatched:
        raise ValueError(
            f"--only pattern(s) {sorted(unmatched)} match no claim id; "
            "see `theorems list` for the ids"
        )
    return chosen
