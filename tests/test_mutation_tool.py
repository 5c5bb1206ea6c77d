"""The mutation tool makes the mutants it promises and patches linmem cleanly."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import linmem

TOOL = Path(__file__).resolve().parents[1] / "tools" / "mutation.py"


@pytest.fixture(scope="module")
def mutation():
    spec = importlib.util.spec_from_file_location("mutation_tool", TOOL)
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutation_tool"] = module
    spec.loader.exec_module(module)
    return module


def test_every_module_has_mutants_of_every_matrix_operator(mutation):
    ops = {m.operator for mod in mutation.MODULES for m in mutation.mutants_of(mod)}
    assert {"matmul-swap", "transpose-drop", "transpose-add-left", "pinv-to-transpose",
            "index-offset", "normalisation", "arith", "compare", "constant"} <= ops


def test_each_mutant_is_valid_python_that_differs_from_the_original(mutation):
    original = ast.dump(ast.parse(mutation._source("spectral")))
    for m in mutation.mutants_of("spectral")[:40]:
        src = mutation.mutated_source(m)
        assert ast.dump(ast.parse(src)) != original, m


def test_patching_swaps_the_function_everywhere_and_restores_it(mutation):
    m = next(m for m in mutation.mutants_of("recall")
             if m.function == "crosstalk_power" and m.operator == "arith")
    before = linmem.crosstalk_power
    with mutation._Patched("recall", mutation.mutated_source(m)):
        assert linmem.crosstalk_power is not before
        assert linmem.recall.crosstalk_power(0.5) != 0.25
    assert linmem.crosstalk_power is before and linmem.crosstalk_power(0.5) == 0.25
    np.testing.assert_allclose(linmem.recall.crosstalk_power(np.array([0.5])), [0.25])
