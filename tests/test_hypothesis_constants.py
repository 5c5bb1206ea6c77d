"""Checks' generated cases do not depend on which project modules are loaded.

Hypothesis (6.131 on) draws, now and then, constants it collects from the
source of the local modules imported so far; inside ``hypothesis_run`` that
pool is empty (``theorems.evidence._common._no_source_constants``)."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from hypothesis import given, seed
from hypothesis import strategies as st

from theorems.evidence._common import hypothesis_run, hypothesis_settings

providers = pytest.importorskip("hypothesis.internal.conjecture.providers")
if not hasattr(providers, "_get_local_constants"):  # pragma: no cover
    pytest.skip("this Hypothesis has no source-constant pool", allow_module_level=True)

#: Floats no strategy below would produce by chance, enough of them to be most
#: of the pool (the project's own modules add about 200; Hypothesis reads at
#: most 1024 constants from one module).
PLANTED = tuple(12345.678901 + 0.0137 * i for i in range(900))


@pytest.fixture
def planted_module(tmp_path, monkeypatch):
    """A local module (outside site-packages and tests/) defining PLANTED."""
    path = tmp_path / "planted_constants_module.py"
    path.write_text("".join(f"C{i} = {x!r}\n" for i, x in enumerate(PLANTED)), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("planted_constants_module", path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "planted_constants_module", module)
    spec.loader.exec_module(module)
    return module


def _drawn(n: int = 400) -> list[float]:
    seen: list[float] = []

    @seed(20261201)
    @hypothesis_settings(n, shrink=False)
    @given(st.floats(-1e6, 1e6))
    def test(x):
        seen.append(x)

    test()
    return seen


def test_the_pool_is_empty_inside_a_run_and_restored_after(planted_module):
    outside = providers._get_local_constants()
    assert set(PLANTED) <= set(outside.floats)
    with hypothesis_run():
        assert len(providers._get_local_constants()) == 0
    assert set(PLANTED) <= set(providers._get_local_constants().floats)


def test_planted_constants_are_drawn_outside_a_run_only(planted_module):
    assert set(PLANTED) & set(_drawn())  # Hypothesis's own behaviour: the pool is used
    with hypothesis_run():
        assert not set(PLANTED) & set(_drawn())
