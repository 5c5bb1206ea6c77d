"""The verifier's per-instance sweep cache and the fingerprints in its keys.

:mod:`linmem.sweeps` computes finite-size instances and knows nothing about
where results are kept: its sweep functions take any ``cache`` object with
``key(name, params, seed)``, ``get(key) -> (hit, value)`` and
``put(key, value, note=None)`` (:class:`linmem.sweeps.SweepCacheLike`).
This module is the theorems side of that protocol.

Layout
    Every instance result (one seed's ``n*``, one trial's outcome, one
    measurement) is a JSON file ``<folder>/<key[:2]>/<key>.json``, written
    atomically (temporary file + ``os.replace``). The key is the SHA-256 of
    the canonical JSON of (function name, parameters, seed,
    :func:`linmem_fingerprint`, :func:`machinery_fingerprint`). The first
    holds linmem's version, a hash of linmem's source (any change to linmem
    invalidates every entry) and the numpy and scipy versions; the second a
    hash of the verifier's shared machinery (templates, kit, strategies,
    evidence checkers), which builds instances and success tests for many
    claims. A caller whose criterion is defined in its own module puts
    :func:`source_fingerprint` of that module in the parameters.

Folder
    ``$THEOREMS_CACHE``, else ``$XDG_CACHE_HOME/linmem-theorems`` (default
    ``~/.cache/linmem-theorems``); ``THEOREMS_CACHE`` set to ``""``, ``0``,
    ``off``, ``none``, ``false`` or ``no`` turns it off. The runner opens it
    once per run and hands it to every check as ``ctx.cache`` (``None`` under
    a negative control); a check passes it to linmem's sweeps as ``cache=``.
    Importing this module changes nothing anywhere.

>>> import tempfile
>>> c = SweepCache(tempfile.mkdtemp())
>>> cached_call(lambda: [1, 2.5], name="doc", params={"d": 3}, seed=0, cache=c)
([1, 2.5], False)
>>> cached_call(lambda: None, name="doc", params={"d": 3}, seed=0, cache=c)
([1, 2.5], True)
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from linmem import sweeps
from linmem.sweeps import canonical_json

__all__ = [
    "CACHE_ENV",
    "CACHE_OFF_VALUES",
    "MACHINERY",
    "SweepCache",
    "cached_call",
    "default_cache",
    "default_cache_dir",
    "linmem_fingerprint",
    "machinery_fingerprint",
    "resolve_cache",
    "source_fingerprint",
    "write_json_atomic",
]

#: Environment variable naming the cache folder.
CACHE_ENV = "THEOREMS_CACHE"

#: Values of :data:`CACHE_ENV` that turn the cache off.
CACHE_OFF_VALUES = frozenset({"", "0", "off", "none", "false", "no"})

_CACHE_SUBDIR = "linmem-theorems"


def _hash_files(paths: Iterable[Path]) -> str:
    h = hashlib.sha256()
    for p in sorted(paths, key=lambda q: q.name):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


@lru_cache(maxsize=1)
def linmem_fingerprint() -> dict:
    """What a cached result depends on besides its own parameters: linmem's
    version, a hash of every ``linmem/*.py`` file and the numpy and scipy
    versions.

    >>> sorted(linmem_fingerprint())
    ['numpy', 'scipy', 'source', 'version']
    """
    import scipy

    import linmem

    here = Path(linmem.__file__).resolve().parent
    return {
        "version": linmem.__version__,
        "source": _hash_files(here.glob("*.py")),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
    }


#: The verifier's modules a cached result can depend on whatever claim asked
#: for it (instance families, sweep templates, success tests, criteria).
MACHINERY = ("authoring/*.py", "authoring/kit/*.py", "core/residuals.py", "core/tolerance.py", "evidence/*.py")


@lru_cache(maxsize=1)
def machinery_fingerprint() -> str:
    """Hash of the shared machinery's source (:data:`MACHINERY`): editing a
    template or an instance family invalidates every cached result, as a
    change to linmem does.

    >>> len(machinery_fingerprint())
    16
    """
    here = Path(__file__).resolve().parents[1]
    return _hash_files(p for pattern in MACHINERY for p in here.glob(pattern))


def source_fingerprint(*modules: Any) -> str:
    """Hash of the source files of ``modules`` (module objects or file paths),
    for the ``params`` of a criterion defined outside linmem, so that editing
    it invalidates its cached results.

    >>> import theorems.scale.sweepcache as m
    >>> len(source_fingerprint(m))
    16
    """
    paths = []
    for m in modules:
        path = getattr(m, "__file__", m)
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"modules must be modules or file paths, got {m!r}")
        paths.append(Path(path))
    if not paths:
        raise ValueError("source_fingerprint needs at least one module")
    return _hash_files(paths)


def default_cache_dir() -> Path | None:
    """``$THEOREMS_CACHE``, else ``$XDG_CACHE_HOME/linmem-theorems``
    (``~/.cache/linmem-theorems``); ``None`` when turned off.

    >>> import os
    >>> old = os.environ.get("THEOREMS_CACHE")
    >>> os.environ["THEOREMS_CACHE"] = "off"
    >>> default_cache_dir() is None
    True
    >>> _ = os.environ.pop("THEOREMS_CACHE") if old is None else os.environ.update(THEOREMS_CACHE=old)
    """
    env = os.environ.get(CACHE_ENV)
    if env is not None:
        if env.strip().lower() in CACHE_OFF_VALUES:
            return None
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / _CACHE_SUBDIR


class SweepCache:
    """Per-instance results as JSON files under ``directory``, written atomically.

    ``key(function, params, seed)`` is the SHA-256 of the canonical JSON of
    the three plus :func:`linmem_fingerprint` and :func:`machinery_fingerprint`; ``get`` returns
    ``(True, value)`` or ``(False, None)``; ``put`` writes a temporary file
    in the same directory and renames it over the target, so a concurrent
    reader sees either nothing or a whole file. An unreadable file counts as
    a miss and is overwritten, and so is a record whose stored ``key`` is
    not the one asked for (a file copied or renamed by hand); a sweep also
    checks the value's type (:func:`linmem.sweeps` refuses a string where it
    stored a bool) and counts a wrong one as a miss. ``hits`` and ``misses`` count lookups;
    ``write_errors`` counts results the sweeps could not store (an unwritable
    directory slows a rerun down but changes no result).

    >>> import tempfile
    >>> c = SweepCache(tempfile.mkdtemp())
    >>> k = c.key("f", {"d": 4}, 0)
    >>> c.get(k), c.put(k, [1, 2]), c.get(k), (c.hits, c.misses)
    ((False, None), None, (True, [1, 2]), (1, 1))
    """

    def __init__(self, directory: str | os.PathLike):
        if not isinstance(directory, (str, os.PathLike)):
            raise TypeError(f"directory must be a path, got {type(directory).__name__} {directory!r}")
        self.directory = Path(directory).expanduser()
        self.hits = 0
        self.misses = 0
        self.write_errors = 0

    def __repr__(self) -> str:
        return f"SweepCache({str(self.directory)!r})"

    def key(self, function: str, params: Mapping | None, seed: Any) -> str:
        if not isinstance(function, str) or not function:
            raise TypeError(f"name must be a non-empty string identifying the criterion, got {function!r}")
        record = {
            "function": function,
            "params": canonical_json(params or {}, "params"),
            "seed": canonical_json(seed, "seed"),
            "linmem": linmem_fingerprint(),
            "machinery": machinery_fingerprint(),
        }
        blob = json.dumps(record, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> tuple[bool, Any]:
        try:
            with open(self._path(key), encoding="utf-8") as fh:
                record = json.load(fh)
            if not (isinstance(record, dict) and record.get("key") == key and "value" in record):
                raise ValueError("not this key's record")
            value = record["value"]
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            self.misses += 1
            return False, None
        self.hits += 1
        return True, value

    def put(self, key: str, value: Any, *, note: Mapping | None = None) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        record = {"key": key, "value": canonical_json(value, "value")}
        if note:
            record["note"] = canonical_json(note, "note")
        write_json_atomic(path, json.dumps(record, sort_keys=True))


def write_json_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (whose folder exists) through a temporary
    file beside it and a rename, so that a reader sees the old record or the
    new one, never half (the sweep cache's and reuse's records)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def default_cache() -> SweepCache | None:
    """The cache in :func:`default_cache_dir`, or ``None`` when it is off
    (read afresh at every call, so a changed ``$THEOREMS_CACHE`` counts)."""
    directory = default_cache_dir()
    return None if directory is None else SweepCache(directory)


def resolve_cache(cache: Any) -> Any:
    """The cache a sweep uses: ``True`` -> :func:`default_cache`, a path -> a
    :class:`SweepCache` there, ``None``/``False`` -> no caching, and any
    object with linmem's cache protocol (``key``/``get``/``put``) -> itself.

    >>> resolve_cache(None) is None, resolve_cache(False) is None
    (True, True)
    """
    if cache is True:
        return default_cache()
    if isinstance(cache, (str, os.PathLike)):
        return SweepCache(cache)
    return sweeps.check_cache(cache)


def cached_call(
    compute: Callable[[], Any], *, name: str, params: Mapping | None, seed: Any, cache: Any = True,
    valid: Callable[[Any], bool] | None = None,
) -> tuple[Any, bool]:
    """``(value, hit)``: the cached JSON value of ``compute()`` under
    ``(name, params, seed)``, computing and storing it on a miss (``cache``
    as in :func:`resolve_cache`).

    For per-instance results the sweeps of :mod:`linmem.sweeps` do not cover
    (several figures of one instance, a fitted norm). ``value`` must be
    JSON-able (tuples come back as lists from the cache). ``valid``, when
    given, is asked of a cached value before it is used: one it refuses (of
    the wrong type or shape) is a miss, computed again and rewritten.

    >>> cached_call(lambda: (1, 2.5), name="doc", params={"d": 3}, seed=0, cache=None)
    ((1, 2.5), False)
    """
    if valid is not None and not callable(valid):
        raise TypeError(f"valid must be callable or None, got {type(valid).__name__} {valid!r}"[:160])
    if not callable(compute):
        raise TypeError(f"compute must be callable, got {type(compute).__name__} {compute!r}"[:160])
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty string identifying the criterion, got {name!r}")
    store = resolve_cache(cache)
    seed = canonical_json(seed, "seed")
    if store is None:
        return compute(), False
    key = store.key(name, params or {}, seed)
    hit, value = store.get(key)
    if hit and valid is not None and not valid(value):
        hit = False
        if isinstance(getattr(store, "hits", None), int) and isinstance(getattr(store, "misses", None), int):
            store.hits -= 1
            store.misses += 1
    if hit:
        return value, True
    value = canonical_json(compute(), "the computed value")
    try:
        store.put(key, value, note={"function": name, "seed": seed})
    except OSError:
        # an unwritable cache folder costs speed, never a result
        store.write_errors = getattr(store, "write_errors", 0) + 1
    return value, False

