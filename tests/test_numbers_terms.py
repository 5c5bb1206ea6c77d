"""Terms judged as they are (issue 37, item 3): terms read once (a
generator is consumed into a list), empty terms an ERROR, an exception of
the terms an ERROR naming it, a check over no case never passed, an exact
residual decided exactly (nested radicals of kit.norm(., "2") are zero);
and the decimal-literal, scipy and float-check promises of theorems.numbers
on whole claims."""

from __future__ import annotations

import numpy as np
import pytest

from theorems.authoring import kit
from theorems.authoring.strategies import keys
from theorems.authoring.templates import at_most, identity, wrong
from theorems.core.profiles import PROFILES
from theorems.core.runner import run_claim

QUICK = PROFILES["quick"]
CONTROL = wrong("pinv replaced by the transpose", pinv=lambda K: K.T)


def _claim(terms, id="t.numbers"):
    return identity(id, title=id, statement=id, source="test", inputs=keys(), terms=terms, control=CONTROL)


def _run(terms):
    return run_claim(_claim(terms), profile=QUICK, seed=1)


def test_terms_given_as_a_generator_are_read_once_and_judged():
    false = _run(lambda impl, K: ((a, b) for a, b in [(2 * K, K)]))
    true = _run(lambda impl, K: ((a, b) for a, b in [(K + K, 2 * K)]))
    assert false.status.value == "FAILED" and true.status.value == "VERIFIED"


def test_empty_terms_are_an_error_nothing_to_compare():
    result = _run(lambda impl, K: [])
    assert result.status.value == "ERROR"
    assert all("nothing to compare" in e.detail for e in result.evidence)


def test_an_exception_in_the_terms_is_an_error_naming_it_not_a_counterexample():
    def terms(impl, K):
        raise ZeroDivisionError("the user's own division")

    result = _run(terms)
    assert result.status.value == "ERROR"
    assert all("ZeroDivisionError" in e.detail and e.counterexample is None for e in result.evidence)


def test_a_ladder_over_no_case_does_not_pass():
    from theorems.core.impl import Impl
    from theorems.core.model import Context, EvidenceStatus
    from theorems.evidence import precise

    ctx = Context(impl=Impl.default(), profile=QUICK, seed=1, claim_id="t.x", check_name="ladder")
    ev = precise.check(ctx, [], lambda case: (0, 1), relative=True)
    assert ev.status is EvidenceStatus.INCONCLUSIVE and "nothing was checked" in ev.detail


def test_an_exact_residual_of_nested_radicals_is_decided_exactly():
    # ||K||_2 in sympy is a nested radical, sqrt(a + sqrt(b)) / c: ||3K||_2 and 3 ||K||_2 differ as expressions
    import sympy

    from theorems.evidence.symbolic import _is_zero

    K = kit.exact([[1, 2], [3, 5]])
    residual = kit.norm(3 * K, "2") - 3 * kit.norm(K, "2")
    assert isinstance(residual, sympy.Basic) and residual != 0 and _is_zero(residual)
    result = _run(lambda impl, K: [(kit.norm(3 * K, "2"), 3 * kit.norm(K, "2"))])
    assert result.status.value == "VERIFIED", [(e.check, e.detail, e.counterexample) for e in result.evidence]


def test_a_decimal_literal_is_the_decimal_written():
    true = _run(lambda impl, K: [(np.linalg.pinv(0.1 * K), 10 * np.linalg.pinv(K))])
    false = _run(lambda impl, K: [(np.linalg.pinv(0.1 * K), 0.1 * np.linalg.pinv(K))])
    assert true.status.value == "VERIFIED" and false.status.value == "FAILED"


def test_scipy_in_the_terms_is_an_error_in_one_line_naming_it_and_the_alternative():
    import scipy.linalg

    result = _run(lambda impl, K: [(scipy.linalg.expm(K @ K.T), np.eye(K.shape[0]))])
    assert result.status.value == "ERROR"
    exact = {e.check: e for e in result.evidence}["exact"]
    assert "scipy.linalg.expm" in exact.detail and "kit.expm" in exact.detail and "\n" not in exact.detail.strip()
    assert exact.counterexample is None


def test_a_false_claim_whose_mpmath_reference_cannot_be_formed_is_not_passed():
    """det(K K^T + I) = det(K K^T) + 1 is false: the float check now measures it (mpmath det) and never
    passes it on cases it could not measure."""
    result = _run(lambda impl, K: [(np.linalg.det(K @ K.T + np.eye(K.shape[0])), np.linalg.det(K @ K.T) + 1)])
    assert result.status.value == "FAILED"
    float_ev = {e.check: e for e in result.evidence}["float"]
    assert float_ev.status.value != "passed"
