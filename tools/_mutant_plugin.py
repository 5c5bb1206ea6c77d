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
