"""pytest plugin used by tools/mutation.py: applies one mutant to linmem before
any test module is imported, so tables of functions bind the mutated ones.

Reads ``LINMEM_MUTANT_MODULE`` (a linmem module name) and
``LINMEM_MUTANT_SOURCE`` (a file holding the mutated source)."""

from __future__ import annotations

import os
from pathlib import Path

_patch = None


def pytest_configure(config):
    global _patch
    module = os.environ.get("LINMEM_MUTANT_MODULE")
    source = os.environ.get("LINMEM_MUTANT_SOURCE")
    if not module or not source:
        return
    from mutation import _Patched  # tools/ is on sys.path (the runner sets PYTHONPATH)

    _patch = _Patched(module, Path(source).read_text())
    _patch.__enter__()


def pytest_unconfigure(config):
    if _patch is not None:
        _patch.__exit__(None, None, None)


def pytest_collection_modifyitems(session, config, items):
    """With ``LINMEM_MUTANT_TESTS`` (a file of test node ids or whole test
    files, one a line, the order to run them in): keep those tests and the
    doctests, deselect the rest. The mutation tool names the tests that
    execute the mutated line."""
    listed = os.environ.get("LINMEM_MUTANT_TESTS")
    if not listed:
        return
    order = {nodeid: k for k, nodeid in enumerate(Path(listed).read_text().splitlines()) if nodeid}

    def rank(item):  # a node id, or its file named whole (a test file edited since the map)
        return order.get(item.nodeid, order.get(item.nodeid.split("::", 1)[0]))

    kept, dropped = [], []
    for item in items:
        doctest = type(item).__name__ == "DoctestItem"
        (kept if doctest or rank(item) is not None else dropped).append(item)
    kept.sort(key=lambda item: -1 if type(item).__name__ == "DoctestItem" else rank(item))  # doctests first
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = kept
